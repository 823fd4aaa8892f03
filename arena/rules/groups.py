"""Groups on a hexhex board (docs/rules/groups.md).

Seat 0 is White, seat 1 is Black.  White places one stone, Black places one,
then turns alternate starting with Black (so Black makes plies 1 and 2).  On a
turn a player places 1 to min(own groups, 3) stones on empty cells, no two of
them adjacent and no existing group touched by two of them.  When the board is
full the players' group sizes are compared from the largest down.

Groups are tracked with a union-find (sizes at the roots) and a running group
count per colour, so a move costs a few list operations.  legal_moves() builds
per-cell "conflict" bitmasks once and enumerates compatible pairs and triples
with bit tricks; random_move() draws uniformly from them without enumerating.
"""

from __future__ import annotations

import re
from collections.abc import Sequence
from itertools import zip_longest
from math import comb
from random import Random

from .base import CheckPosition, Details, Game, GameOptions, IllegalMove, Start, State, option, random_position
from .hexgrid import Board, find_root
from .picture import BoardPicture, Ending, Mark, edge_labels

EMPTY = -1
WHITE, BLACK = 0, 1
COLOUR_NAMES = ("White", "Black")
MAX_STONES = 3  # "the maximum number of stones you may place is 3"
OPENING_PLIES = 2  # ply 0: White's single stone, ply 1: Black's single stone
# Looks like a cell name (column letter + row number) even if not on this board.
_CELL_LIKE = re.compile(r"[a-z][1-9][0-9]{0,2}")


class GroupsOptions(GameOptions):
    size: int = option(5, ge=2, le=8, description="cells per side of the hexagonal board")


class GroupsGame(Game):
    name = "groups"
    Options = GroupsOptions
    seat_names = ("white", "black")
    check_options = {"size": 4}
    ladder_options = {"size": 5}
    options: GroupsOptions

    @property
    def max_plies(self) -> int:
        return len(self.board)  # each ply places at least one stone

    def __init__(self, options: GroupsOptions) -> None:
        super().__init__(options)
        self.board = Board.hexhex(options.size)
        # Bitmask of each cell's neighbours, for legal_moves().
        self.neighbour_masks = tuple(sum(1 << n for n in nbrs) for nbrs in self.board.neighbours)

    def initial_state(self, seed: int = 0) -> GroupsState:
        return GroupsState(self)

    def picture(self) -> BoardPicture:
        return BoardPicture(
            self.board,
            "cells",
            {EMPTY: "", WHITE: "white", BLACK: "black"},
            labels=edge_labels(self.board),
            marks=(
                Mark("last", "the move shown (its stones)"),
                Mark("deciding", "the winner's group that decided the game (its largest, unless the largest tie)"),
            ),
        )

    def check_positions(self, start: Start) -> list[CheckPosition]:
        def multi_stone(state: State) -> bool:
            return isinstance(state, GroupsState) and state.max_stones() >= 2 and state.current_player() == 1

        return [CheckPosition("a multi-stone turn", lambda: random_position(self, start, multi_stone))]


def decide(white: Sequence[int], black: Sequence[int]) -> tuple[int | None, int]:
    """The seed's comparison of group sizes (each sorted largest first).

    Returns the winning seat (None for a draw) and the 0-based rank of the
    deciding pair (-1 for a draw).  A player with no group left at some rank
    counts as having a group of size 0 there, so having a group beats none.
    """
    for rank, (w, b) in enumerate(zip_longest(white, black, fillvalue=0)):
        if w != b:
            return (WHITE if w > b else BLACK), rank
    return None, -1


def _ordinal_group(rank: int) -> str:
    if rank == 0:
        return "largest group"
    suffix = "th" if 10 <= (rank + 1) % 100 <= 20 else {1: "st", 2: "nd", 3: "rd"}.get((rank + 1) % 10, "th")
    return f"{rank + 1}{suffix}-largest group"


class GroupsState(State):
    game: GroupsGame
    cells: list[int]
    __slots__ = ("game", "cells", "parent", "size", "groups", "empty", "_moves", "_result")

    def __init__(self, game: GroupsGame) -> None:
        n = len(game.board)
        self.game = game
        self.cells = [EMPTY] * n
        self.parent = list(range(n))
        self.size = [1] * n  # group size, valid at roots
        self.groups = [0, 0]  # number of groups per colour
        self.empty = n
        self._moves: list[str] = []
        # (winner, deciding rank, white sizes, black sizes) once the board is full.
        self._result: tuple[int | None, int, list[int], list[int]] | None = None

    # -- queries --------------------------------------------------------------

    def current_player(self) -> int:
        ply = len(self._moves)
        # Plies 0 and 1 are the opening stones; then Black (ply 2), White, Black, ...
        return ply if ply < OPENING_PLIES else (ply + 1) & 1

    def max_stones(self) -> int:
        """How many stones the player to move may place this turn (at most)."""
        if len(self._moves) < OPENING_PLIES:
            return 1
        return min(self.groups[self.current_player()], MAX_STONES)

    def is_terminal(self) -> bool:
        return self.empty == 0

    def group_sizes(self, colour: int) -> list[int]:
        """Sizes of ``colour``'s groups, largest first."""
        find, cells, size = self._find, self.cells, self.size
        return sorted((size[i] for i, v in enumerate(cells) if v == colour and find(i) == i), reverse=True)

    def winner(self) -> int | None:
        return self._result[0] if self._result else None

    def scores(self) -> list[float]:
        if self._result is None:
            raise ValueError("the game is not over")
        winner = self._result[0]
        if winner is None:
            return [0.5, 0.5]
        return [1.0, 0.0] if winner == WHITE else [0.0, 1.0]

    def end_reason(self) -> str:
        if self._result is None:
            return "not over"
        winner, rank, white, black = self._result
        if winner is None:
            return "board full: equal groups, draw"
        mine, theirs = (white, black) if winner == WHITE else (black, white)
        other = theirs[rank] if rank < len(theirs) else "none"
        return (
            f"board full: {COLOUR_NAMES[winner]}'s {_ordinal_group(rank)} ({mine[rank]}) "
            f"beats {COLOUR_NAMES[1 - winner]}'s ({other})"
        )

    def status(self, players: Sequence[str]) -> str:
        counts = [f"{n} group" if n == 1 else f"{n} groups" for n in self.groups]
        return "; ".join(f"{players[s]} ({colour}): {counts[s]}" for s, colour in enumerate(COLOUR_NAMES))

    def details(self) -> Details:
        return {"white_groups": self.group_sizes(WHITE), "black_groups": self.group_sizes(BLACK)}

    def ending(self, players: Sequence[str]) -> Ending:
        """The winner's group that decided the game: the one at the deciding rank (of equal
        groups, the one with the first cell), where the end reason compares sizes."""
        if self._result is None or self._result[0] is None:
            return Ending()
        winner, rank = self._result[:2]
        groups: dict[int, list[int]] = {}
        for cell, colour in enumerate(self.cells):
            if colour == winner:
                groups.setdefault(self._find(cell), []).append(cell)
        ranked = sorted(groups.values(), key=lambda group: (-len(group), group[0]))
        return Ending({"deciding": ranked[rank]})

    # -- moves ----------------------------------------------------------------

    def play(self, move: str) -> None:
        if self.empty == 0:
            raise IllegalMove(move, "the game is over: the board is full")
        player = self.current_player()
        stones = self._parse(move)
        self._check_count(move, len(stones))
        self._check_placement(move, stones, player)
        for cell in stones:
            self._place(cell, player)
        stones.sort()
        names = self.game.board.names
        self._moves.append(",".join([names[c] for c in stones]))
        if self.empty == 0:
            self._finish()

    def _parse(self, move: str) -> list[int]:
        """Cell indices of a token, or IllegalMove for malformed / off-board / repeated cells."""
        if not move:
            raise IllegalMove(move, "you must place at least one stone (a move is one to three cells joined by ',')")
        parts = move.split(",")
        if len(parts) > MAX_STONES:
            raise IllegalMove(move, f"{len(parts)} stones: the maximum number of stones you may place is {MAX_STONES}")
        lookup = self.game.board.lookup
        stones: list[int] = []
        for part in parts:
            cell = lookup(part)
            if cell is None:
                raise IllegalMove(move, self._not_a_cell(part))
            if cell in stones:
                raise IllegalMove(move, f"{part} is listed twice: each stone goes on its own vacant cell")
            stones.append(cell)
        return stones

    def _not_a_cell(self, part: str) -> str:
        n = self.game.options.size
        if _CELL_LIKE.fullmatch(part):
            return f"{part} is not on the board (a hexhex board with {n} cells per side; see docs/rules/groups.md)"
        shown = part if len(part) <= 20 else part[:20] + "..."
        return f"{shown!r} is not a cell name: a move is one to three cells such as e5, joined by ',' (e.g. c3,e5,g2)"

    def _check_count(self, move: str, count: int) -> None:
        allowed = self.max_stones()
        if count <= allowed:
            return
        if len(self._moves) < OPENING_PLIES:
            who = COLOUR_NAMES[self.current_player()]
            raise IllegalMove(move, f"{count} stones: in the opening {who} places a single stone")
        groups = self.groups[self.current_player()]
        raise IllegalMove(
            move,
            f"{count} stones: you may place as many stones as you have groups "
            f"({groups}), and never more than {MAX_STONES}",
        )

    def _check_placement(self, move: str, stones: list[int], player: int) -> None:
        """Vacancy, mutual non-adjacency and 'no group grows by more than one stone'."""
        board, cells, find = self.game.board, self.cells, self._find
        names, neighbours = board.names, board.neighbours
        grown: dict[int, int] = {}  # root of an existing group -> the stone that grew it
        for cell in stones:
            if cells[cell] != EMPTY:
                raise IllegalMove(move, f"{names[cell]} is already occupied: stones go on vacant cells")
        for k, cell in enumerate(stones):
            for other in stones[:k]:
                if other in neighbours[cell]:
                    raise IllegalMove(
                        move,
                        f"stones {names[other]} and {names[cell]} are adjacent: "
                        "the stones you place may not be adjacent to one another",
                    )
            for n in neighbours[cell]:
                if cells[n] != player:
                    continue
                root = find(n)
                first = grown.setdefault(root, cell)
                if first != cell:
                    raise IllegalMove(
                        move,
                        f"stones {names[first]} and {names[cell]} both grow your group "
                        f"at {names[n]}: you may not grow any group by more than one "
                        "stone (a stone joining groups grows each of them)",
                    )

    def _place(self, cell: int, colour: int) -> None:
        cells, parent, size, find = self.cells, self.parent, self.size, self._find
        cells[cell] = colour
        root = cell
        merged = 0
        for n in self.game.board.neighbours[cell]:
            if cells[n] == colour:
                other = find(n)
                if other != root:
                    if size[other] > size[root]:
                        root, other = other, root
                    parent[other] = root
                    size[root] += size[other]
                    merged += 1
        self.groups[colour] += 1 - merged
        self.empty -= 1

    def _find(self, x: int) -> int:
        return find_root(self.parent, x)

    def _finish(self) -> None:
        white, black = self.group_sizes(WHITE), self.group_sizes(BLACK)
        winner, rank = decide(white, black)
        self._result = (winner, rank, white, black)

    # -- move generation --------------------------------------------------------

    def compatible_cells(self, empties: list[int]) -> list[int]:
        """Per empty cell, the bitmask of higher-indexed empty cells it may be played with.

        Two stones may go together iff they are not adjacent and touch no common
        group of the mover; with stones pairwise compatible every existing group
        gets at most one new stone, which is exactly the turn rule.
        """
        cells, find, player = self.cells, self._find, self.current_player()
        neighbours, nmask = self.game.board.neighbours, self.game.neighbour_masks
        touching: dict[int, list[int]] = {}  # empty cell -> roots of mover's groups it touches
        liberties: dict[int, int] = {}  # root -> bitmask of empty cells touching it
        for e in empties:
            roots = {find(n) for n in neighbours[e] if cells[n] == player}
            touching[e] = list(roots)
            for r in roots:
                liberties[r] = liberties.get(r, 0) | (1 << e)
        empty_mask = sum(1 << e for e in empties)
        compatible = [0] * len(cells)
        for e in empties:
            blocked = nmask[e]
            for r in touching[e]:
                blocked |= liberties[r]
            above = empty_mask >> (e + 1) << (e + 1)  # only higher indices: each set once
            compatible[e] = above & ~blocked
        return compatible

    def legal_moves(self) -> list[str]:
        if self.empty == 0:
            return []
        names = self.game.board.names
        empties = [i for i, v in enumerate(self.cells) if v == EMPTY]
        legal = [names[e] for e in empties]
        k = self.max_stones()
        if k == 1:
            return legal
        compatible = self.compatible_cells(empties)
        for a in empties:
            name_a = names[a]
            rest = compatible[a]
            while rest:
                low = rest & -rest
                rest ^= low
                b = low.bit_length() - 1
                pair = f"{name_a},{names[b]}"
                legal.append(pair)
                if k == 3:
                    third = compatible[a] & compatible[b]
                    while third:
                        low_c = third & -third
                        third ^= low_c
                        legal.append(f"{pair},{names[low_c.bit_length() - 1]}")
        return legal

    def random_move(self, rng: Random) -> str:
        """A move drawn uniformly from legal_moves() without enumerating it.

        Rejection sampling: draw a set of 1..max_stones() vacant cells, every such set
        equally likely (its size weighted by how many sets of that size there are),
        until the set is a legal move.  Every legal move is such a set, so each is
        drawn with the same chance; a single stone is always legal, so it ends.
        """
        if self.empty == 0:
            raise ValueError("the game is over")
        empties = [i for i, v in enumerate(self.cells) if v == EMPTY]
        sizes = range(1, min(self.max_stones(), len(empties)) + 1)
        weights = [comb(len(empties), m) for m in sizes]
        player, names = self.current_player(), self.game.board.names
        while True:
            stones = sorted(rng.sample(empties, rng.choices(sizes, weights)[0]))
            try:
                self._check_placement("", stones, player)
            except IllegalMove:
                continue
            return ",".join([names[c] for c in stones])

    # -- the rest -------------------------------------------------------------

    def clone(self) -> GroupsState:
        other = GroupsState.__new__(GroupsState)
        other.game = self.game
        other.cells = self.cells[:]
        other.parent = self.parent[:]
        other.size = self.size[:]
        other.groups = self.groups[:]
        other.empty = self.empty
        other._moves = self._moves[:]
        other._result = self._result
        return other

    def render(self) -> str:
        symbols = {EMPTY: ".", WHITE: "W", BLACK: "B"}
        cells = self.cells
        return self.game.board.render(lambda i: symbols[cells[i]])
