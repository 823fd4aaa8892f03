"""What the game viewer draws, computed by the referee: each board's geometry and every
position of a game.

The browser only draws.  Python computes every cell's centre and outline in the game's
own geometry (:func:`board_geometry`), and replays each record through the rules
(:func:`replay`) to get the contents of every cell at every ply, the cells a move
changed, and what the end of the game shows (Hex's winning chain, HexGo's territory,
the occupied base, the hidden posies).  The frames hold only what a spectator may see
at that ply: Posies' hidden posies (variant 2) and the scores that would give them away
are in the last frame only, and the record's ``deal`` seed is never copied.
"""

from __future__ import annotations

import hashlib
import json
import math
from typing import Any

from ...record import GameRecord, replay_start
from ...rules import Game, State, make_game

RADIUS = 20.0  # circumradius of one hexagon, in SVG units
WIDTH = math.sqrt(3) * RADIUS  # distance between neighbouring centres
MARGIN = 34.0

# Cell value in the rules' ``state.cells`` -> the short code the page shows (data-state).
CODES: dict[str, dict[int, str]] = {
    "hex": {-1: "", 0: "red", 1: "blue"},
    "groups": {-1: "", 0: "white", 1: "black"},
    "hexgo": {-1: "", 0: "black", 1: "white"},
    "posies": {-1: "", 0: "pink", 1: "purple", 2: "green"},
    "bases": {0: "", 1: "red", 2: "blue", 3: "wall"},
}
POINT_GAMES = frozenset({"hexgo", "posies"})  # stones on the lattice's points, not in cells
# Pointy-top hexagon corners (top, then clockwise) and the neighbour each side faces.
CORNERS = [(math.cos(math.radians(-90 + 60 * k)), math.sin(math.radians(-90 + 60 * k))) for k in range(6)]
SIDE_FACES = ((-1, 1), (0, 1), (1, 0), (1, -1), (0, -1), (-1, 0))  # side k joins corners k, k+1


def board_key(game: Game) -> str:
    """One name per distinct drawing: games with the same board share its file."""
    text = json.dumps([game.name, game.options.model_dump()], sort_keys=True)
    return f"{game.name}-{hashlib.sha256(text.encode()).hexdigest()[:12]}"


def board_geometry(game: Game) -> dict[str, Any]:
    """Centres, outlines, streets, edges and labels of ``game``'s board, in SVG units."""
    board = game.board
    raw = [((c + r / 2) * WIDTH, r * 1.5 * RADIUS) for r, c in board.coords]
    x0 = min(x for x, _ in raw) - WIDTH / 2 - MARGIN
    y0 = min(y for _, y in raw) - RADIUS - MARGIN
    centres = [(x - x0, y - y0) for x, y in raw]
    points = game.name in POINT_GAMES
    cells = []
    for i, (x, y) in enumerate(centres):
        cell: dict[str, Any] = {"name": board.names[i], "x": round(x, 2), "y": round(y, 2)}
        if not points:
            cell["outline"] = " ".join(f"{x + RADIUS * dx:.2f},{y + RADIUS * dy:.2f}" for dx, dy in CORNERS)
        cells.append(cell)
    geometry: dict[str, Any] = {
        "game": game.name,
        "kind": "points" if points else "cells",
        "width": round(max(x for x, _ in centres) + WIDTH / 2 + MARGIN, 2),
        "height": round(max(y for _, y in centres) + RADIUS + MARGIN, 2),
        "radius": round(0.42 * WIDTH if points else RADIUS, 2),
        "cells": cells,
        "streets": _streets(board, centres) if points else [],
        "edges": _hex_edges(game, centres) if game.name == "hex" else [],
        "labels": _hex_labels(game, centres) if game.name == "hex" else [],
        "static": _static_classes(game),
    }
    return geometry


def _streets(board: Any, centres: list[tuple[float, float]]) -> list[list[float]]:
    """Every line between neighbouring points once: the lattice HexGo and Posies play on."""
    return [
        [*map(lambda v: round(v, 2), centres[a]), *map(lambda v: round(v, 2), centres[b])]
        for a in board
        for b in board.neighbours[a]
        if a < b
    ]


def _hex_edges(game: Game, centres: list[tuple[float, float]]) -> list[list[Any]]:
    """The outer sides of Hex's border cells, coloured by the edge they lie on: Red's are
    the top and bottom rows, Blue's the left and right columns (corners have both)."""
    board, n = game.board, game.options.size
    edges = []
    for i, (r, c) in enumerate(board.coords):
        x, y = centres[i]
        for k, (dr, dc) in enumerate(SIDE_FACES):
            nr, nc = r + dr, c + dc
            if 0 <= nr < n and 0 <= nc < n:
                continue
            (ax, ay), (bx, by) = CORNERS[k], CORNERS[(k + 1) % 6]
            edges.append(
                [
                    round(x + RADIUS * ax, 2),
                    round(y + RADIUS * ay, 2),
                    round(x + RADIUS * bx, 2),
                    round(y + RADIUS * by, 2),
                    "red" if not 0 <= nr < n else "blue",
                ]
            )
    return edges


def _hex_labels(game: Game, centres: list[tuple[float, float]]) -> list[list[Any]]:
    """Column letters above the top row and row numbers left of the first column (HexGui)."""
    board, n = game.board, game.options.size
    labels = []
    for c in range(n):
        x, y = centres[board.at(0, c)]
        labels.append([round(x, 2), round(y - 1.45 * RADIUS, 2), board.names[board.at(0, c)][0]])
    for r in range(n):
        x, y = centres[board.at(r, 0)]
        labels.append([round(x - 1.25 * WIDTH, 2), round(y + 4, 2), str(r + 1)])
    return labels


def _static_classes(game: Game) -> dict[int, str]:
    """Cells drawn differently for the whole game: Bases' two bases."""
    if game.name != "bases":
        return {}
    return {cell: f"base{seat}" for seat, base in enumerate(game.layout.bases) for cell in base}


# -- replaying a record -------------------------------------------------------


def replay(record: GameRecord) -> dict[str, Any]:
    """Every position of a recorded game as the referee sees it, for the viewer.

    ``frames[k]`` describes the position after ``k`` plies: the cells that changed
    (``set``: [cell, code] pairs; frame 0 sets every cell), who moved, the move's cells
    (``last``), cells emptied by it with what was there (``gone``; Posies' kept group
    also in ``kept``), a public status line, and in the last frame only, what the end
    of the game reveals.
    """
    game = make_game(record["game"], record["options"])
    state = replay_start(game, record.get("seed"), record.get("setup"), record.get("deal"))
    name, code = game.name, CODES[game.name]
    before = list(state.cells)
    frames: list[dict[str, Any]] = [
        _frame({"set": [[i, code[v]] for i, v in enumerate(before) if code[v]]}, _status(name, state, record))
    ]
    for move in record["moves"]:
        seat = state.current_player()
        state.play(move)
        after = list(state.cells)
        named = _named_cells(game, move)
        changed = _changed(before, after, named)
        frames.append(
            _frame(
                {
                    "seat": seat,
                    "set": [[i, code[after[i]]] for i in changed],
                    "last": [i for i in changed if code[after[i]]] or named,
                    "gone": [[i, code[before[i]]] for i in changed if not code[after[i]]],
                    # Posies: the posies a split gave the mover, besides the pair it removed.
                    "kept": [i for i in changed if not code[after[i]] and i not in named] if name == "posies" else [],
                },
                _status(name, state, record),
            )
        )
        before = after
    frames[-1]["end"] = _ending(game, state, record)
    return {"board": board_key(game), "cells": len(before), "frames": frames, "colours": _seat_colours(state)}


def _changed(before: list[int], after: list[int], named: list[int]) -> list[int]:
    """The cells whose contents differ.  Most moves change only the cells their token
    names: checked with one list comparison, the full scan only for the others (captures,
    the swap, Posies' kept groups)."""
    patched = before[:]
    for i in named:
        patched[i] = after[i]
    if patched == after:
        return sorted(i for i in set(named) if before[i] != after[i])
    return [i for i, (a, b) in enumerate(zip(before, after)) if a != b]


def _frame(frame: dict[str, Any], status: str) -> dict[str, Any]:
    """Leave out what is empty: a 10,000-game site has a million frames."""
    if status:
        frame["status"] = status
    return {k: v for k, v in frame.items() if v != [] or k == "set"}


def _seat_colours(state: State) -> list[str]:
    """Each seat's colour by the end (HexGo's swap decides who is Black); Posies' seats have none."""
    name = state.game.name
    if name == "hexgo":
        return ["black" if state.colour_of(s) == 0 else "white" for s in (0, 1)]
    if name == "posies":
        return [""] * state.game.players
    return ["red", "blue"] if name in ("hex", "bases") else ["white", "black"]


def _named_cells(game: Game, move: str) -> list[int]:
    """Cells a move token names: a stone's cell, Groups' stones, a slide's two ends,
    Posies' removed pair (not the cell after '/', which names the kept group)."""
    lookup = game.board.lookup
    cell = lookup(move)
    if cell is not None:
        return [cell]
    parts = move.partition("/")[0].replace(",", "-").split("-")
    return [c for c in map(lookup, parts) if c is not None]


def _status(name: str, state: State, record: GameRecord) -> str:
    """What a spectator knows besides the board (never a hidden posy or a score that
    depends on one)."""
    players = record["players"]
    if name == "posies":
        parts = []
        open_scores = state.game.options.variant != 2
        for seat, captured in enumerate(state.captured):
            text = f"{players[seat]}: pink {captured[0]}, purple {captured[1]}, green {captured[2]}"
            if open_scores:
                text += f" (score {state.points(seat)})"
            parts.append(text)
        return "; ".join(parts)
    if name == "hexgo":
        territory = state.scores()
        return "; ".join(
            f"{players[s]} ({'Black' if state.colour_of(s) == 0 else 'White'}): territory {territory[s]:g}"
            for s in (0, 1)
        )
    if name == "groups":
        return "; ".join(
            f"{players[s]} ({colour}): {state.groups[s]} groups" for s, colour in enumerate(("White", "Black"))
        )
    return ""


def _ending(game: Game, state: State, record: GameRecord) -> dict[str, Any]:
    """What the last frame shows.  Ended by the rules: the referee's own details; a
    forfeit ends before the rules do, and reveals nothing."""
    end: dict[str, Any] = {"marks": {}, "reveal": ""}
    if not state.is_terminal():
        return end
    index = game.board.index
    details = state.details()
    marks = end["marks"]
    if game.name == "hex":
        marks["chain"] = [index(c) for c in details.get("winning_chain", [])]
    elif game.name == "hexgo":
        for seat, houses in enumerate(details["territory_houses"]):
            colour = "black" if state.colour_of(seat) == 0 else "white"
            marks[f"territory-{colour}"] = [index(h) for h in houses if state.cells[index(h)] == -1]
    elif game.name == "bases":
        marks["occupied"] = [index(c) for c in details.get("occupied_base", {})]
    elif game.name == "posies":
        scores = state.scores()
        parts = [f"{record['players'][s]}: score {scores[s]:g}" for s in range(len(scores))]
        hidden = details.get("hidden")
        if hidden:
            parts = [f"{p}, hidden posy {hidden[s]}" for s, p in enumerate(parts)]
            if "bag" in details:
                parts.append(f"left in the bag: {details['bag']}")
        end["reveal"] = "; ".join(parts)
    return end
