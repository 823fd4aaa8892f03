"""What the game viewer draws, computed by the referee: each board's geometry and every
position of a game.

The browser only draws, and this module knows no game: each game's ``picture()``
(arena.rules.picture) says what its board is and how a cell's contents are drawn, and its
states say what a spectator sees at each ply (``status``) and at the end (``ending``: Hex's
winning chain, HexGo's territory, the occupied base, the hidden posies), and each mark it
draws is described by the game (``picture().marks``: the viewer's legend).  Python computes
every cell's centre and outline (:func:`board_geometry`) and replays each record through
the rules (:func:`replay`) to get the contents of every cell at every ply and the cells a
move changed.  The frames hold only what a spectator may see at that ply: hidden pieces
(Posies variant 2) and the scores that would give them away are in the last frame only,
and the record's ``deal`` seed is never copied.
"""

from __future__ import annotations

import functools
import hashlib
import json
import math
from collections.abc import Iterable, Mapping, Sequence
from dataclasses import dataclass
from typing import TypedDict

from ...record import GameRecord, replay_start
from ...rules import Game, State, make_game
from ...rules.picture import BoardPicture, Edge, Label

RADIUS = 20.0  # circumradius of one hexagon, in SVG units
WIDTH = math.sqrt(3) * RADIUS  # distance between neighbouring centres
MARGIN = 34.0
# Pointy-top hexagon corners (top, then clockwise): side k joins corners k, k+1.
CORNERS = [(math.cos(math.radians(-90 + 60 * k)), math.sin(math.radians(-90 + 60 * k))) for k in range(6)]
Centres = list[tuple[float, float]]


# What the viewer reads (viewer.js), written as JSON into the site's pages and board files.


class _CellRequired(TypedDict):
    name: str
    x: float
    y: float


class Cell(_CellRequired, total=False):
    outline: str  # the hexagon's corners (none on a board of points)


class Geometry(TypedDict):
    game: str
    kind: str  # the picture's layout: "cells" or "points"
    width: float
    height: float
    radius: float
    cells: list[Cell]
    streets: list[list[float]]  # x1, y1, x2, y2 of each street
    edges: list[list[float | str]]  # x1, y1, x2, y2, colour of each coloured side
    labels: list[list[float | str]]  # x, y, text
    static: dict[int, str]  # cell -> how it is drawn all game
    marks: list[list[str]]  # name, meaning


class Ending(TypedDict):
    marks: dict[str, list[int]]
    reveal: str


class Frame(TypedDict, total=False):
    """A position after a move, in its long form; ``set`` (cell, code) pairs are always there."""

    seat: int
    set: list[list[int | str]]
    last: list[int]
    gone: list[list[int | str]]
    kept: list[int]
    status: str
    end: Ending


ShortFrame = list[int | str]  # [seat, cell, code(, status)]: a piece put on the cell its token names


@dataclass(frozen=True)
class Replayed:
    board: str  # its board's key (board_key)
    cells: int
    frames: list[ShortFrame | Frame]
    colours: list[str]  # each seat's colour at the end


def board_key(game: Game) -> str:
    """One name per distinct drawing: games with the same board share its file."""
    text = json.dumps([game.name, game.options.model_dump()], sort_keys=True)
    return f"{game.name}-{hashlib.sha256(text.encode()).hexdigest()[:12]}"


def board_geometry(game: Game) -> Geometry:
    """Centres, outlines, streets, edges and labels of ``game``'s board, in SVG units, and
    the marks the game draws on it with their meanings (the viewer's legend)."""
    picture = game.picture()
    board = picture.board
    raw = [((c + r / 2) * WIDTH, r * 1.5 * RADIUS) for r, c in board.coords]
    x0 = min(x for x, _ in raw) - WIDTH / 2 - MARGIN
    y0 = min(y for _, y in raw) - RADIUS - MARGIN
    centres = [(x - x0, y - y0) for x, y in raw]
    points = picture.layout == "points"
    cells = []
    for i, (x, y) in enumerate(centres):
        cell: Cell = {"name": board.names[i], "x": round(x, 2), "y": round(y, 2)}
        if not points:
            cell["outline"] = " ".join(f"{x + RADIUS * dx:.2f},{y + RADIUS * dy:.2f}" for dx, dy in CORNERS)
        cells.append(cell)
    geometry: Geometry = {
        "game": game.name,
        "kind": picture.layout,
        "width": round(max(x for x, _ in centres) + WIDTH / 2 + MARGIN, 2),
        "height": round(max(y for _, y in centres) + RADIUS + MARGIN, 2),
        "radius": round(0.42 * WIDTH if points else RADIUS, 2),
        "cells": cells,
        "streets": _streets(picture, centres) if points else [],
        "edges": [_edge(edge, centres) for edge in picture.edges],
        "labels": [_label(label, centres) for label in picture.labels],
        "static": dict(picture.static),
        "marks": [[mark.name, mark.meaning] for mark in picture.marks],
    }
    return geometry


def _streets(picture: BoardPicture, centres: Centres) -> list[list[float]]:
    """Every line between neighbouring points once: the lattice stones stand on."""
    board = picture.board
    return [
        [*map(lambda v: round(v, 2), centres[a]), *map(lambda v: round(v, 2), centres[b])]
        for a in board
        for b in board.neighbours[a]
        if a < b
    ]


def _edge(edge: Edge, centres: Centres) -> list[float | str]:
    """One coloured outer side of a cell: its two corners and the colour."""
    x, y = centres[edge.cell]
    (ax, ay), (bx, by) = CORNERS[edge.side], CORNERS[(edge.side + 1) % 6]
    return [
        round(x + RADIUS * ax, 2),
        round(y + RADIUS * ay, 2),
        round(x + RADIUS * bx, 2),
        round(y + RADIUS * by, 2),
        edge.colour,
    ]


def _label(label: Label, centres: Centres) -> list[float | str]:
    """A label above its cell (column letters) or left of it (row numbers), as HexGui, or
    down its column past it; the text's baseline sits 4 units below the point it labels."""
    x, y = centres[label.cell]
    if label.where == "above":
        return [round(x, 2), round(y - 1.45 * RADIUS, 2), label.text]
    if label.where == "below":  # the next place down the column: half a cell right, a row down
        return [round(x + WIDTH / 2, 2), round(y + 1.5 * RADIUS + 4, 2), label.text]
    return [round(x - 1.25 * WIDTH, 2), round(y + 4, 2), label.text]


# -- replaying a record -------------------------------------------------------


def replay(record: GameRecord) -> Replayed:
    """Every position of a recorded game as the referee sees it, for the viewer.

    ``frames[k]`` describes the position after ``k`` plies: the cells that changed
    (``set``: [cell, code] pairs; frame 0 sets every cell), who moved, the move's cells
    (``last``), cells emptied by it with what was there (``gone``; a kept group, where
    the game has them, also in ``kept``), a public status line, and in the last frame
    only, what the end of the game reveals.  A move that only put a piece on the cell
    its token names (most moves) is the short ``[seat, cell, code]`` (``status`` fourth,
    if any), which the viewer reads as ``{seat, set: [[cell, code]], last: [cell]}``: a
    page's data is mostly frames, and the short form is a quarter of the text.
    """
    game = Replay(record["game"], record["options"], record["players"], record.get("seed"))
    game.start(record.get("setup"), record.get("deal"), record.get("opening_setup"))
    frames = [game.first, *game.frames_of(record["moves"])]
    frames[-1] = last_frame(frames[-1], game.ending())
    return Replayed(game.board, len(game.before), frames, game.state.seat_colours())


class Replay:
    """A game's frames (:func:`replay`'s) made a move at a time, as they come: a live game
    costs each move once, however long it grows.  ``start`` before ``play``."""

    def __init__(self, name: str, options: Mapping[str, object], players: list[str], seed: int | None) -> None:
        self.rules = _rules(name, json.dumps(options, sort_keys=True))
        self.game, self.picture, self.board = self.rules.game, self.rules.picture, self.rules.key
        self.players, self.seed = players, seed
        self.code = self.picture.codes

    def start(self, setup: str | None, deal: int | None, opening_setup: bool | None = None) -> None:
        """The first position (``first``, its frame), from the seed or the setup token (a
        book's board, where ``opening_setup`` says so)."""
        self.state = replay_start(self.game, self.seed, setup, deal, opening_setup)
        self.before = list(self.state.cells)
        first: Frame = {"set": [[i, self.code[v]] for i, v in enumerate(self.before) if self.code[v]]}
        self.first = _frame(first, self.state.status(self.players))
        # A site replays every game: the calls of each ply are kept few (a game whose states
        # say nothing besides the board is not asked each ply).
        self.says = type(self.state).status is not State.status
        self.places = type(self.state).play_placements is not State.play_placements

    def play(self, move: str) -> ShortFrame | Frame:
        """The frame of ``move``, played by the referee."""
        return self.frames_of((move,))[0]

    def frames_of(self, moves: Sequence[str]) -> list[ShortFrame | Frame]:
        """The frames of ``moves``, played in turn by the referee.  A game that tells which moves
        only put a piece on the cell they name (``State.play_placements``; Hex's every stone)
        gives their short frames as it plays them, without a board compared each ply; the other
        moves, and every move of a game with a status to show each ply, are compared cell by
        cell (:meth:`_compared`)."""
        if self.says or not self.places:
            return self._compared(moves)
        frames: list[ShortFrame | Frame] = []
        done, code, before = 0, self.code, self.before
        while done < len(moves):
            placed = self.state.play_placements(moves[done:] if done else moves)
            for seat, cell, piece in placed:
                before[cell] = piece
                frames.append([seat, cell, code[piece]])
            done += len(placed)
            if done < len(moves):  # a move that is not a placement (Hex's swap), or an illegal one
                frames += self._compared(moves[done : done + 1])
                before = self.before
                done += 1
        return frames

    def _compared(self, moves: Iterable[str]) -> list[ShortFrame | Frame]:
        """The frames of ``moves``, played in turn by the referee, each found by comparing the
        board before and after it.  One loop, its names local: a site replays every move of
        every game, and the calls of each ply were most of it."""
        state, code, before = self.state, self.code, self.before
        mover, play, cells_of = state.current_player, state.play, self._cells
        says, players, kept_groups = self.says, self.players, self.picture.kept_groups
        frames: list[ShortFrame | Frame] = []
        try:
            for move in moves:
                seat = mover()
                play(move)
                after = list(state.cells)
                named = cells_of(move)
                short = _placement(seat, before, after, named, code)
                status = state.status(players) if says else ""
                frame: ShortFrame | Frame
                if short is not None:
                    frame = [*short, status] if status else short
                else:  # a capture, a swap, a removal, a slide: compare every cell
                    frame = _changes(seat, before, after, named, code, kept_groups)
                    if status:
                        frame["status"] = status
                frames.append(frame)
                before = after
        finally:  # a move the referee refused left the state as it was: so is ``before``
            self.before = before
        return frames

    def _cells(self, move: str) -> list[int]:
        """The cells a move token names, looked up once per board."""
        named_cells = self.rules.named_cells
        named = named_cells.get(move)
        if named is None:
            named = self.picture.move_cells(move)
            if len(named_cells) < MOVES_KEPT:
                named_cells[move] = named
        return named

    def ending(self) -> Ending:
        """What the last frame shows (nothing before the game is over)."""
        return _ending(self.state, self.players)

    @property
    def over(self) -> bool:
        return self.state.is_terminal()


def last_frame(frame: ShortFrame | Frame, ending: Ending) -> Frame:
    """A game's last frame, with what its end shows."""
    last = _expanded(frame)
    last["end"] = ending
    return last


MOVES_KEPT = 4096  # the move tokens whose cells a board keeps (a board's every cell, and then some)


@dataclass(frozen=True)
class _Rules:
    """What replaying a game on one board needs, made once per options."""

    game: Game
    picture: BoardPicture
    key: str  # board_key
    named_cells: dict[str, list[int]]  # the cells each move token names, filled as they are met


@functools.lru_cache(maxsize=64)
def _rules(name: str, options: str) -> _Rules:
    """A game and its picture, made once per options: a site replays thousands of games
    on one board, and drawing the board's outline costs more than replaying a game."""
    game = make_game(name, json.loads(options))
    return _Rules(game, game.picture(), board_key(game), {})


def _placement(
    seat: int, before: list[int], after: list[int], named: list[int], code: Mapping[int, str]
) -> ShortFrame | None:
    """The short frame of a move that put a piece on the one cell its token names and
    changed nothing else (most moves of every game), or None: checked with one list
    comparison (``before`` is patched for it and put back)."""
    if len(named) != 1:
        return None
    cell = named[0]
    was, now = before[cell], after[cell]
    if was == now or not code[now]:
        return None
    before[cell] = now
    alone = before == after
    before[cell] = was
    return [seat, cell, code[now]] if alone else None


def _expanded(frame: ShortFrame | Frame) -> Frame:
    """A frame in its long form (the viewer's reading of a short one)."""
    if isinstance(frame, dict):
        return frame
    seat, cell, code, *status = frame
    assert isinstance(seat, int) and isinstance(cell, int)
    long: Frame = {"seat": seat, "set": [[cell, code]], "last": [cell]}
    if status:
        long["status"] = str(status[0])
    return long


def _changes(
    seat: int, before: list[int], after: list[int], named: list[int], code: Mapping[int, str], kept_groups: bool
) -> Frame:
    """The frame of any move: every cell whose contents differ."""
    changed = [i for i, (a, b) in enumerate(zip(before, after)) if a != b]
    frame: Frame = {"seat": seat, "set": [[i, code[after[i]]] for i in changed]}
    if last := [i for i in changed if code[after[i]]] or list(named):
        frame["last"] = last
    emptied = [i for i in changed if not code[after[i]]]
    if emptied:
        frame["gone"] = [[i, code[before[i]]] for i in emptied]
        # the group a move kept, besides the cells its token names (Posies' splits)
        if kept_groups and (kept := [i for i in emptied if i not in named]):
            frame["kept"] = kept
    return frame


def _frame(frame: Frame, status: str) -> Frame:
    """The first position's frame, with its status if it has one."""
    if status:
        frame["status"] = status
    return frame


def _ending(state: State, players: list[str]) -> Ending:
    """What the last frame shows.  Ended by the rules: what the game shows at its end; a
    forfeit ends before the rules do, and reveals nothing."""
    if not state.is_terminal():
        return {"marks": {}, "reveal": ""}
    ending = state.ending(players)
    return {"marks": dict(ending.marks), "reveal": ending.reveal}
