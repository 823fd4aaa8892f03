"""Posies: remove pairs of like-coloured posies from a full 51-point board
(docs/rules/posies.md).

The board is full at the start (17 posies of each colour, placed at random
from the seed); each turn removes two posies of one colour that are adjacent or
joined by an unbroken straight line of posies, and a group that the removal
splits gives its smallest part to the mover.  The game ends when the player to
move has no pair to remove.

Hidden information (variant 2): the referee's state, built by
:meth:`PosiesGame.initial_state` from the seed, knows every seat's hidden posy.
An engine's state, built by :meth:`PosiesGame.state_from_setup` from the public
setup token, knows none until :meth:`PosiesState.apply_private` tells it its
own; moves never depend on hidden posies, only scores do.
"""

from __future__ import annotations

import random
from collections.abc import Sequence
from typing import Literal, NamedTuple

from .base import CheckPosition, Details, Game, GameOptions, IllegalMove, OptionError, Start, State, option
from .hexgrid import OFF_BOARD, Board
from .picture import BoardPicture, Ending, Mark, edge_labels

EMPTY = -1
PINK, PURPLE, GREEN = 0, 1, 2
COLOURS = (PINK, PURPLE, GREEN)
COLOUR_NAMES = ("pink", "purple", "green")
LETTERS = "pug"  # setup-token and diagram letter per colour
POINTS = (1, 2, 3)  # variant 0 value per colour
PER_COLOUR = 17  # 51 points / 3 colours
HIDDEN_PREFIX = "hidden"


class PosiesOptions(GameOptions):
    players: Literal[2, 3] = option(2, description="number of seats")
    variant: Literal[0, 1, 2] = option(
        0, description="0: pink 1, purple 2, green 3; 1: most posies; 2: hidden colour x3"
    )
    board: Literal["standard"] = option(
        "standard", description="board layout; 'standard' = 51-point hexagon, rows 6-7-8-9-8-7-6"
    )


def standard_board() -> Board:
    """The 51-point hexagon: rows of 6, 7, 8, 9, 8, 7 and 6 points."""
    return Board(7, 9, lo=3, hi=11)


class PosiesGame(Game):
    name = "posies"
    Options = PosiesOptions
    random_setup = True
    check_options = {"players": 3, "variant": 2}
    ladder_options = {"players": 2, "variant": 0}
    options: PosiesOptions

    @property
    def max_plies(self) -> int:
        return len(self.board) // 2  # each ply removes at least two posies

    def __init__(self, options: PosiesOptions) -> None:
        super().__init__(options)
        board = self.board = standard_board()
        self.names = board.names
        self.neighbours = board.neighbours
        self.adjacent = tuple(frozenset(n) for n in board.neighbours)
        # Rays east, south-east and south-west: each straight line once, and
        # every cell on them has a larger index than the start.
        self.rays = tuple(tuple(tuple(board.ray(i, d)) for d in (0, 1, 2)) for i in board)
        # between[(a, b)], a < b on one straight line: the points strictly between them.
        self.between = {(a, ray[k]): ray[:k] for a in board for ray in self.rays[a] for k in range(len(ray))}
        # rings[(a, b)], a < b adjacent: the 8 points around them with one bit each, in
        # cyclic order (points off the board left out).
        self.rings = {
            (a, b): tuple((p, 1 << i) for i, p in enumerate(board.ring_around_pair(a, b)) if p != OFF_BOARD)
            for a in board
            for b in board.neighbours[a]
            if a < b
        }

    @property
    def players(self) -> int:
        return self.options.players

    @property
    def hides_information(self) -> bool:
        return self.options.variant == 2

    def initial_state(self, seed: int = 0) -> PosiesState:
        """The seed's setup: 17 rounds of three posies of different colours on random
        empty points; in variant 2 the three set-aside posies are then drawn from the bag."""
        rng = random.Random(seed)
        order = list(self.board)
        rng.shuffle(order)
        cells = [EMPTY] * len(order)
        for k, cell in enumerate(order):
            cells[cell] = COLOURS[k % 3]
        hidden, bag = self._draw_from_bag(rng)
        return PosiesState(self, cells, hidden, bag)

    def picture(self) -> BoardPicture:
        codes = {EMPTY: "", PINK: "pink", PURPLE: "purple", GREEN: "green"}
        marks = (
            Mark("last", "the move shown: the pair it removed"),
            Mark("kept", "fine dots: the group the mover kept (a split)"),
        )
        return BoardPicture(self.board, "points", codes, labels=edge_labels(self.board), kept_groups=True, marks=marks)

    def check_positions(self, start: Start) -> list[CheckPosition]:
        def seat_two_to_move() -> State:
            state = start(self, 3)
            while state.current_player() != 2:
                state.play(state.random_move(random.Random(len(state.moves))))
            return state

        label = "three seats, hidden colour ('private' line), seat 2 to move"
        return [CheckPosition(label, seat_two_to_move)]

    def _draw_from_bag(self, rng: random.Random) -> tuple[list[int | None], int | None]:
        """Variant 2: each seat draws one of the three set-aside posies."""
        if self.options.variant != 2:
            return [None] * self.players, None
        draw: list[int | None] = list(COLOURS)
        rng.shuffle(draw)
        return draw[: self.players], (draw[2] if self.players == 2 else None)

    def state_from_setup(self, setup: str) -> PosiesState:
        """The position of a setup token; hidden posies are unknown (see apply_private)."""
        return PosiesState(self, self.parse_setup(setup), [None] * self.players, None)

    def parse_setup(self, setup: str) -> list[int]:
        size = len(self.board)
        if len(setup) != size:
            raise OptionError(
                f"posies setup token must be {size} letters, one per point in "
                f"board order ({LETTERS[0]}/{LETTERS[1]}/{LETTERS[2]}), got {len(setup)}"
            )
        cells = []
        for i, letter in enumerate(setup):
            colour = LETTERS.find(letter)
            if colour < 0:
                raise OptionError(
                    f"posies setup token: {letter!r} at position {i + 1} "
                    f"({self.names[i]}) is not p (pink), u (purple) or g (green)"
                )
            cells.append(colour)
        counts = [cells.count(c) for c in COLOURS]
        if counts != [PER_COLOUR] * 3:
            have = ", ".join(f"{n} {COLOUR_NAMES[c]}" for c, n in zip(COLOURS, counts))
            raise OptionError(
                f"posies setup token has {have}: the board starts with {PER_COLOUR} posies of each colour"
            )
        return cells


# ARCS[mask]: how many separate arcs the set bits of an 8-bit ring mask form.
ARCS = tuple(
    sum(1 for i in range(8) if mask >> i & 1 and not mask >> (i - 1) % 8 & 1) or int(mask == 255) for mask in range(256)
)


def _arcs(ring: tuple[tuple[int, int], ...], cells: list[int]) -> int:
    """How many separate arcs of posies lie on a ring of (point, bit) pairs."""
    mask = 0
    for point, bit in ring:
        if cells[point] != EMPTY:
            mask |= bit
    return ARCS[mask]


class _Revealed(NamedTuple):
    """A finished game's hidden posies by seat, and the bag's (None: three seats, no bag)."""

    hidden: list[str]
    bag: str | None


class PosiesState(State):
    game: PosiesGame
    cells: list[int]
    __slots__ = ("game", "cells", "captured", "hidden", "bag", "_setup", "_moves", "_over")

    def __init__(self, game: PosiesGame, cells: list[int], hidden: list[int | None], bag: int | None) -> None:
        self.game = game
        self.cells = cells
        self.captured = [[0, 0, 0] for _ in range(game.players)]  # [seat][colour]
        self.hidden = hidden  # per seat; None = unknown to this state
        self.bag = bag  # 2 players: the posy left in the bag, if known
        self._setup = "".join(LETTERS[c] for c in cells)
        self._moves: list[str] = []
        self._over: bool | None = None  # cached "no pair left"; None = not computed

    # -- queries --------------------------------------------------------------

    def is_terminal(self) -> bool:
        if self._over is None:
            self._over = not self._pairs(first_only=True)  # a list, not a generator: faster
        return self._over

    def end_reason(self) -> str:
        return "no move left" if self.is_terminal() else "not over"

    def points(self, seat: int, hidden: int | None = None) -> int:
        """Seat's score so far; variant 2 needs the seat's hidden colour."""
        captured = self.captured[seat]
        variant = self.game.options.variant
        if variant == 0:
            return sum(n * p for n, p in zip(captured, POINTS))
        if variant == 1:
            return sum(captured)
        if hidden is None:
            raise ValueError(
                f"seat {seat}'s hidden posy is unknown to this state, so its "
                "variant 2 score is unknown (only the referee's state knows all)"
            )
        return 3 * (captured[hidden] + 1) + sum(captured) - captured[hidden]

    def scores(self) -> list[float]:
        """Scores so far (final once terminal).  In variant 2 they reveal hidden
        colours: never show them to engines before the end."""
        return [float(self.points(s, self.hidden[s])) for s in range(self.game.players)]

    def count_so_far(self) -> list[float]:
        """The points so far (the referee's state knows every hidden posy)."""
        return self.scores()

    def winner(self) -> int | None:
        if not self.is_terminal():
            return None
        scores = self.scores()
        top = max(scores)
        return scores.index(top) if scores.count(top) == 1 else None

    def legal_moves(self) -> list[str]:
        names = self.game.names
        legal: list[str] = []
        for a, b in self._pairs():
            pair = f"{names[a]}-{names[b]}"
            choices = self._smallest(self._split(a, b))
            if len(choices) > 1:
                legal.extend(f"{pair}/{names[c]}" for c in sorted(min(g) for g in choices))
            else:
                legal.append(pair)
        return legal

    def _pairs(self, first_only: bool = False) -> list[tuple[int, int]]:
        """Every removable pair (a, b), a < b: like colours, adjacent or joined by a
        straight line of posies (only the first one found with ``first_only``)."""
        cells, rays = self.cells, self.game.rays
        pairs = []
        for a, colour in enumerate(cells):
            if colour == EMPTY:
                continue
            for ray in rays[a]:
                for b in ray:
                    other = cells[b]
                    if other == EMPTY:
                        break
                    if other == colour:
                        pairs.append((a, b))
                        if first_only:
                            return pairs
        return pairs

    def _split(self, a: int, b: int) -> list[list[int]]:
        """The groups that the group of a and b falls into once a and b are gone,
        or [] when it does not fall apart.  a and b are always in one group (they
        are adjacent or joined by posies), so at most one group can split."""
        cells, neighbours = self.cells, self.game.neighbours
        # Every remaining posy of the group reaches the border (the posies next to a or b):
        # if the border is connected, nothing splits.
        ring = self.game.rings.get((a, b))
        if ring is not None and _arcs(ring, cells) <= 1:
            return []  # adjacent pair: the border is a ring, connected iff it is one arc
        border = {n for n in neighbours[a] + neighbours[b] if cells[n] != EMPTY} - {a, b}
        # A pair on a line keeps the posies between them, which often join the two ends.
        if ring is None and self._connected_within(border.union(self.game.between.get((a, b), ()))):
            return []
        groups: list[list[int]] = []
        left = cells[:]  # posies not yet put in a group
        left[a] = left[b] = EMPTY
        unreached = len(border) - 1  # border posies the first group has yet to reach
        for start in border:
            if left[start] == EMPTY:
                continue
            left[start] = EMPTY
            group = [start]
            for cell in group:  # breadth first (the list grows as it is read), so that
                for n in neighbours[cell]:  # the first group meets the border soon
                    if left[n] != EMPTY:
                        left[n] = EMPTY
                        group.append(n)
                        if not groups and n in border:
                            unreached -= 1
                            if not unreached:
                                return []  # the whole border in one group: nothing splits
            groups.append(group)
        return groups if len(groups) > 1 else []

    def _connected_within(self, cells: set[int]) -> bool:
        neighbours = self.game.neighbours
        left = set(cells)  # not reached yet
        todo = [left.pop()] if left else []
        while todo and left:
            for n in neighbours[todo.pop()]:
                if n in left:
                    left.remove(n)
                    todo.append(n)
        return not left

    @staticmethod
    def _smallest(groups: list[list[int]]) -> list[list[int]]:
        if not groups:
            return []
        size = min(len(g) for g in groups)
        return [g for g in groups if len(g) == size]

    # -- moves ----------------------------------------------------------------

    def play(self, move: str) -> None:
        # A legal removal proves the game is not over, so the search for any removable
        # pair is only needed to explain why a move was refused.
        try:
            a, b, choice = self._parse(move)
            self._check_pair(move, a, b)
            kept = self._kept_group(move, a, b, choice)
        except IllegalMove:
            if self.is_terminal():
                raise IllegalMove(move, "the game is over: no pair of like-coloured posies can be removed") from None
            raise
        names = self.game.names
        token = f"{names[a]}-{names[b]}"
        if choice is not None:
            token += f"/{names[min(kept)]}"
        captured, cells = self.captured[self.current_player()], self.cells
        for cell in (a, b, *kept):
            captured[cells[cell]] += 1
            cells[cell] = EMPTY
        self._moves.append(token)
        self._over = None

    def _parse(self, move: str) -> tuple[int, int, int | None]:
        """Cells of a token ``a-b`` or ``a-b/c``, the pair sorted by board index."""
        syntax = "expected two cells joined by '-', optionally '/cell' (e.g. c3-c4 or c3-c5/f2)"
        pair, slash, rest = move.partition("/")
        parts = pair.split("-")
        if len(parts) != 2 or (slash and not rest):
            raise IllegalMove(move, syntax)
        a, b = self._cell(move, parts[0]), self._cell(move, parts[1])
        choice = self._cell(move, rest) if slash else None
        if a == b:
            raise IllegalMove(move, f"{parts[0]} is named twice: remove two different posies")
        return min(a, b), max(a, b), choice

    def _cell(self, move: str, name: str) -> int:
        cell = self.game.board.lookup(name)
        if cell is None:
            meant = name.strip().lower()
            if self.game.board.lookup(meant) is not None:
                # One rule for every arena game (PROTOCOL.md section 6): tokens are exact.
                raise IllegalMove(
                    move,
                    f"{name!r} is not a point: move tokens are exact, cell "
                    f"names are lower case and a token has no spaces, so write {meant!r}",
                )
            raise IllegalMove(
                move, f"{name!r} is not a point of the 51-point board (rows 1-7, e.g. d1..i1, a4..i4, a7..f7)"
            )
        return cell

    def _check_pair(self, move: str, a: int, b: int) -> None:
        cells, names = self.cells, self.game.names
        for cell in (a, b):
            if cells[cell] == EMPTY:
                raise IllegalMove(move, f"{names[cell]} is empty: you can only remove posies")
        if cells[a] != cells[b]:
            raise IllegalMove(
                move,
                f"{names[a]} is {COLOUR_NAMES[cells[a]]} and {names[b]} is "
                f"{COLOUR_NAMES[cells[b]]}: the two posies removed must be of like colour",
            )
        if b in self.game.adjacent[a]:
            return
        between = self.game.between.get((a, b))
        if between is None:
            raise IllegalMove(
                move,
                f"{names[a]} and {names[b]} are neither adjacent nor on one "
                "straight line: non-adjacent posies must be joined by a straight line of posies",
            )
        gaps = [names[c] for c in between if cells[c] == EMPTY]
        if gaps:
            raise IllegalMove(
                move,
                f"{', '.join(gaps)} between {names[a]} and {names[b]} "
                f"{'is' if len(gaps) == 1 else 'are'} empty: non-adjacent posies must be "
                "separated by an unbroken straight line of posies",
            )

    def _kept_group(self, move: str, a: int, b: int, choice: int | None) -> list[int]:
        """The group the mover keeps (maybe none), checking the '/c' choice."""
        names = self.game.names
        groups = self._split(a, b)
        smallest = self._smallest(groups)
        pair = f"{names[a]}-{names[b]}"
        if len(smallest) > 1:
            where = ", ".join(names[c] for c in sorted(min(g) for g in smallest))
            size = len(smallest[0])
            if choice is None:
                raise IllegalMove(
                    move,
                    f"removing {pair} splits a group and leaves {len(smallest)} "
                    f"equally small smallest groups of {size} (at {where}): the mover "
                    "chooses which to keep, so add '/cell' naming a cell of it",
                )
            for group in smallest:
                if choice in group:
                    return group
            raise IllegalMove(
                move,
                f"{names[choice]} is not in one of the smallest groups of {size} "
                f"left by removing {pair} (at {where}): you can only keep a smallest group",
            )
        if choice is not None:
            if not groups:
                raise IllegalMove(
                    move, f"removing {pair} splits no group, so there is no group to choose: leave out the '/cell'"
                )
            raise IllegalMove(
                move,
                f"removing {pair} leaves a single smallest group (at "
                f"{names[min(smallest[0])]}), which the mover keeps without choosing: "
                "leave out the '/cell'",
            )
        return smallest[0] if smallest else []

    # -- hidden information ----------------------------------------------------

    def private_info(self, seat: int) -> list[str]:
        colour = self.hidden[seat]
        if self.game.options.variant != 2 or colour is None:
            return []
        return [f"{HIDDEN_PREFIX} {COLOUR_NAMES[colour]}"]

    def deal(self, seed: int) -> None:
        """Draw the hidden posies again from their own seed, so that a board played in
        every seat order does not repeat its secrets (an engine that saw one game's
        final scores could otherwise tell every seat's hidden colour in the next)."""
        if self._moves:
            raise ValueError("the hidden posies are drawn before the first move")
        self.hidden, self.bag = self.game._draw_from_bag(random.Random(seed))

    def apply_private(self, seat: int, payload: str) -> None:
        """Learn a ``private`` payload for ``seat`` (an engine learns its own hidden posy)."""
        words = payload.split()
        if (
            len(words) != 2
            or words[0] != HIDDEN_PREFIX
            or words[1] not in COLOUR_NAMES
            or self.game.options.variant != 2
        ):
            raise ValueError(
                f"posies variant {self.game.options.variant}: unexpected private "
                f"payload {payload!r} (variant 2 sends 'hidden pink|purple|green')"
            )
        if not 0 <= seat < self.game.players:
            raise ValueError(f"seat {seat} is not a seat of this {self.game.players}-player game")
        colour = COLOUR_NAMES.index(words[1])
        known = self.hidden[seat]
        if known is not None and known != colour:
            raise ValueError(f"seat {seat}'s hidden posy is already known to be {COLOUR_NAMES[known]}")
        self.hidden[seat] = colour

    # -- the rest -------------------------------------------------------------

    def setup_token(self) -> str:
        return self._setup

    def clone(self) -> PosiesState:
        other = PosiesState.__new__(PosiesState)
        other.game = self.game
        other.cells = self.cells[:]
        other.captured = [c[:] for c in self.captured]
        other.hidden = self.hidden[:]
        other.bag = self.bag
        other._setup = self._setup
        other._moves = self._moves[:]
        other._over = self._over
        return other

    def _captured_names(self) -> list[dict[str, int]]:
        return [dict(zip(COLOUR_NAMES, c)) for c in self.captured]

    def _revealed(self) -> _Revealed | None:
        """Hidden posies, shown only once the game is over (None before, or with none hidden)."""
        if self.game.options.variant != 2 or not self.is_terminal():
            return None

        def name(c: int | None) -> str:
            return "unknown" if c is None else COLOUR_NAMES[c]

        return _Revealed([name(c) for c in self.hidden], name(self.bag) if self.game.players == 2 else None)

    def details(self) -> Details:
        revealed = self._revealed()
        if revealed is None:
            return {"captured": self._captured_names()}
        bag = {} if revealed.bag is None else {"bag": revealed.bag}
        return {"captured": self._captured_names(), "hidden": revealed.hidden, **bag}

    def status(self, players: Sequence[str]) -> str:
        """The posies each seat took; their scores only where no posy is hidden."""
        parts = []
        open_scores = self.game.options.variant != 2
        for seat, captured in enumerate(self.captured):
            text = f"{players[seat]} took posies: pink {captured[0]}, purple {captured[1]}, green {captured[2]}"
            if open_scores:
                text += f" (score {self.points(seat)})"
            parts.append(text)
        return "; ".join(parts)

    def ending(self, players: Sequence[str]) -> Ending:
        """The scores, and the hidden posies (and the bag's) revealed."""
        scores, revealed = self.scores(), self._revealed()
        parts = [f"{players[s]}: score {scores[s]:g}" for s in range(len(scores))]
        if revealed is not None and revealed.hidden:
            parts = [f"{p}, hidden posy {revealed.hidden[s]}" for s, p in enumerate(parts)]
            if revealed.bag is not None:
                parts.append(f"left in the bag: {revealed.bag}")
        return Ending(reveal="; ".join(parts))

    def render(self) -> str:
        cells = self.cells
        lines = [self.game.board.render(lambda i: "." if cells[i] == EMPTY else LETTERS[cells[i]])]
        shown = self._revealed()
        revealed = None if shown is None else shown.hidden
        show_scores = self.game.options.variant != 2 or revealed is not None
        for seat, captured in enumerate(self._captured_names()):
            line = f"seat {seat}: " + " ".join(f"{k} {v}" for k, v in captured.items())
            if revealed is not None:
                line += f", hidden {revealed[seat]}"
            if show_scores and (self.game.options.variant != 2 or self.hidden[seat] is not None):
                line += f", score {self.points(seat, self.hidden[seat])}"
            lines.append(line)
        return "\n".join(lines)
