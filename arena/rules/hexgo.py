"""HexGo: families of stones link pairs of sides, dominate, capture and score territory.

The full rules, every decision where the seed text is silent and diagrams are in
docs/rules/hexgo.md.  In short:

* The board is a hexhex board of ``size`` houses per side (``Board.hexhex``);
  sides A-F clockwise from the top, paired A-B, C-D, E-F.
* Opening by swapping: seat 0 places the first (Black) stone; seat 1 answers
  ``swap`` (seat 1 takes that stone and is Black, seat 0 is White and moves
  next) or places a White stone (seat 0 stays Black).  From then on the seats
  alternate, so seat ``ply % 2`` is to move.
* A stone may not be *futile* (its region of own stones and empty houses must
  touch both sides of a pair) nor inside a region *dominated* by an enemy
  family.  A move removes enemy stones it cuts off from every pair and, when
  its family links a pair, enemy stones inside the region that family
  dominates (both sets are fixed on the board right after the placement).
* The game ends when neither player can place a stone outside their own
  territory, or at the ``max_plies`` adjudication.  There is no pass: a player
  without a legal placement only occurs once the game is over.  Scores are
  territory counts per seat.

Invariants kept after every move (the docs prove them): every stone on the
board can still link a pair, and no stone lies in a region dominated by the
other colour.  They make captures remove whole families and let a futile
house be recognised without trying its captures.

Speed: every set of houses is a Python int used as a bitset over a padded
rhombus (row stride ``width = cols + 1``, so a shift never wraps a row), and a
flood fill is a handful of shifts per step.  Families are a union-find whose
roots hold their member mask, touched sides and dominated region.  The set of
houses from which each colour can still link (``viable``) is kept
incrementally; a cheap local test proves that most moves cut nothing off, so a
typical move needs no flood fill at all.
"""

from __future__ import annotations

from collections.abc import Iterable, Sequence
from functools import cache
from typing import Any, NamedTuple

from .base import CheckPosition, Details, Game, GameOptions, IllegalMove, Start, State, option, random_position
from .hexgrid import OFF_BOARD, Board, find_root
from .picture import LAST_MOVE, BoardPicture, Ending, Mark, edge_labels

EMPTY, BLACK, WHITE = -1, 0, 1
COLOUR_NAMES = ("Black", "White")
SIDE_NAMES = "ABCDEF"
PAIRS = ((0, 1), (2, 3), (4, 5))  # A-B, C-D, E-F as side numbers
PAIR_NAMES = ("A-B", "C-D", "E-F")
SWAP = "swap"


def _pairs_of(sides: int) -> int:
    """Bit p set when the 6-bit side set ``sides`` contains both sides of pair p."""
    return sum(1 << p for p, (x, y) in enumerate(PAIRS) if sides >> x & 1 and sides >> y & 1)


PAIRS_OF = tuple(_pairs_of(s) for s in range(64))


def _runs(pattern: int) -> int:
    """Number of maximal runs of set bits in a 6-bit pattern read cyclically."""
    if pattern == 0b111111:
        return 1
    return sum(1 for d in range(6) if pattern >> d & 1 and not pattern >> ((d - 1) % 6) & 1)


# ONE_ARC[p]: the neighbours picked by p (clockwise order) form at most one unbroken arc.
# Consecutive neighbours of a house are adjacent to each other, so such neighbours stay
# connected to each other when the house itself is removed.
ONE_ARC = tuple(_runs(p) <= 1 for p in range(64))


def _bits(mask: int) -> int:
    return mask.bit_count()


def _union(masks: Iterable[int]) -> int:
    out = 0
    for mask in masks:
        out |= mask
    return out


class Geometry:
    """Bitset tables for one board size (cached: shared by every state of that size)."""

    def __init__(self, size: int) -> None:
        board = Board.hexhex(size)
        self.board = board
        self.names = board.names
        self.width = width = board.cols + 1
        self.bit = [1 << (r * width + c) for r, c in board.coords]
        self.full = sum(self.bit)
        self.index_at = {b.bit_length() - 1: i for i, b in enumerate(self.bit)}
        sides = board.hexhex_sides()
        self.side_mask = tuple(sum(self.bit[i] for i in side) for side in sides)
        self.house_sides = [sum(1 << k for k in range(6) if i in sides[k]) for i in board]
        # Houses on any side outside pair p (corners of the pair's sides included).
        self.outer_mask = tuple(_union(self.side_mask[k] for k in range(6) if k not in pair) for pair in PAIRS)
        self.ring = [tuple(board.step[d][i] for d in range(6)) for i in board]
        self.neighbours = board.neighbours

    def flood(self, seed: int, passable: int) -> int:
        """Every house of ``passable`` connected to ``seed`` through ``passable``."""
        w, w1 = self.width, self.width - 1
        x = seed & passable
        while True:
            y = (x | x << 1 | x >> 1 | x << w | x >> w | x << w1 | x >> w1) & passable
            if y == x:
                return x
            x = y

    def around(self, mask: int) -> int:
        """Houses adjacent to ``mask`` (may include ``mask`` itself)."""
        w, w1 = self.width, self.width - 1
        return (mask << 1 | mask >> 1 | mask << w | mask >> w | mask << w1 | mask >> w1) & self.full

    def sides_of(self, mask: int) -> int:
        """6-bit set of the sides that ``mask`` touches."""
        return sum(1 << k for k, side in enumerate(self.side_mask) if mask & side)

    def indices(self, mask: int) -> list[int]:
        """Dense board indices of the houses in ``mask``, in board order."""
        index_at, out = self.index_at, []
        while mask:
            low = mask & -mask
            out.append(index_at[low.bit_length() - 1])
            mask ^= low
        out.sort()
        return out

    def mask_of(self, cells: Iterable[int]) -> int:
        bit = self.bit
        return sum(bit[i] for i in set(cells))

    def region(self, family: int, pairs: int) -> int:
        """Houses dominated by ``family`` for the pairs it links (bit p of ``pairs``).

        For a linked pair: the houses outside the family from which every path to a
        house on one of the other four sides (and not in the family) passes through
        the family.
        """
        free = self.full & ~family
        region = 0
        for p in range(3):
            if pairs >> p & 1:
                region |= free & ~self.flood(self.outer_mask[p] & free, free)
        return region

    def viable_part(self, passable: int) -> int:
        """Union of the components of ``passable`` that touch both sides of some pair."""
        out, rest = 0, passable
        while rest:
            comp = self.flood(rest & -rest, passable)
            if PAIRS_OF[self.sides_of(comp)]:
                out |= comp
            rest &= ~comp
        return out

    def describe_sides(self, mask: int) -> str:
        sides = self.sides_of(mask)
        return ", ".join(SIDE_NAMES[k] for k in range(6) if sides >> k & 1) or "none"

    def names_of(self, mask: int) -> list[str]:
        names = self.names
        return [names[i] for i in self.indices(mask)]


@cache
def geometry(size: int) -> Geometry:
    return Geometry(size)


def houses(size: int) -> int:
    """Houses on a board with ``size`` houses per side."""
    return 3 * size * size - 3 * size + 1


PLIES_PER_HOUSE = 4  # random games last about 1.2 plies per house; leave ample room


class HexGoOptions(GameOptions):
    size: int = option(5, ge=2, le=13, description="houses per side of the hexagon (5: 61 houses)")
    max_plies: int = option(
        PLIES_PER_HOUSE * houses(5),
        ge=2,
        le=100_000,
        description="arena adjudication: the game stops after this many plies (stones and the "
        "swap) and is scored by territory as it stands; default 4 x houses",
    )

    @classmethod
    def prepared(cls, data: dict[str, Any]) -> dict[str, Any]:
        """Default ``max_plies`` to 4 x the houses of the chosen size."""
        if "max_plies" not in data:
            try:
                size = int(data.get("size", 5))
            except (TypeError, ValueError):
                return data  # the size error is reported by the field itself
            if 2 <= size <= 13:
                data = {**data, "max_plies": PLIES_PER_HOUSE * houses(size)}
        return data


class HexGoGame(Game):
    name = "hexgo"
    Options = HexGoOptions
    swap_move = SWAP
    check_options = {"size": 3}
    ladder_options = {"size": 5}
    options: HexGoOptions

    @property
    def max_plies(self) -> int:
        return self.options.max_plies

    def __init__(self, options: HexGoOptions) -> None:
        super().__init__(options)
        self.geo = geometry(options.size)
        self.board = self.geo.board

    def initial_state(self, seed: int = 0) -> HexGoState:
        return HexGoState(self)

    def picture(self) -> BoardPicture:
        return BoardPicture(
            self.board,
            "points",
            {EMPTY: "", BLACK: "black", WHITE: "white"},
            labels=edge_labels(self.board),
            marks=(
                LAST_MOVE,
                Mark("gone", "dotted: a stone the move shown captured"),
                *(
                    Mark(f"territory-{c.lower()}", f"small dot: {c}'s territory (an empty house it dominates)")
                    for c in COLOUR_NAMES
                ),
            ),
        )

    def check_positions(self, start: Start) -> list[CheckPosition]:
        def after_captures(state: State) -> bool:
            return bool(state.details()["captures"])

        return [CheckPosition("after captures", lambda: random_position(self, start, after_captures))]

    def position(self, black: Iterable[str] = (), white: Iterable[str] = (), to_move: int = BLACK) -> HexGoState:
        """A mid-game position after the opening (Black = seat 0), for tests and diagrams.

        Raises ValueError if the position could not arise in play: a stone that can no
        longer link any pair, or a stone inside a region dominated by an enemy family.
        """
        state = HexGoState(self)
        board = self.board
        for colour, names in ((BLACK, black), (WHITE, white)):
            for name in names:
                i = board.lookup(name)
                if i is None:
                    raise ValueError(f"{name!r} is not a house of this board")
                if state.cells[i] != EMPTY:
                    raise ValueError(f"{name} listed twice")
                state.cells[i] = colour
        state._opening_done = True
        state._seat_offset = 0 if to_move == BLACK else 1
        state._rebuild()
        state._check_invariants()
        state._update_end()
        return state


class _Outcome(NamedTuple):
    family: int  # the mover's family containing the new stone (mask)
    sides: int  # sides that family touches (6 bits)
    merged: tuple[int, ...]  # roots of the mover's families joined by the stone
    region: int  # houses that family dominates
    blocked: int  # enemy stones cut off from every pair
    dominated: int  # enemy stones inside the region
    enemy_dead: int  # houses from which the enemy can no longer link
    viable_me: int  # the mover's viable houses after the captures


class HexGoState(State):
    game: HexGoGame
    cells: list[int]
    __slots__ = (
        "game",
        "geo",
        "cells",
        "stones",
        "parent",
        "fam_mask",
        "fam_sides",
        "fam_region",
        "roots",
        "dom",
        "viable",
        "_moves",
        "_black_seat",
        "_seat_offset",
        "_opening_done",
        "_over",
        "_end_reason",
        "captures",
    )

    def __init__(self, game: HexGoGame) -> None:
        self.game = game
        self.geo = geo = game.geo
        n = len(geo.board)
        self.cells = [EMPTY] * n
        self.stones = [0, 0]  # per colour
        self.parent = list(range(n))  # union-find over houses, per colour's stones
        self.fam_mask = [0] * n  # at roots: the family's houses
        self.fam_sides = [0] * n  # at roots: sides it touches (6 bits)
        self.fam_region = [0] * n  # at roots: houses it dominates
        self.roots: list[set[int]] = [set(), set()]
        self.dom = [0, 0]  # houses dominated by each colour's families
        self.viable = [geo.full, geo.full]  # houses from which each colour can still link
        self._moves: list[str] = []
        self._black_seat = 0
        self._seat_offset = 0
        self._opening_done = False
        self._over = False
        self._end_reason = ""
        # (ply, mover colour, blocked names, dominated names) for every capturing move.
        self.captures: list[tuple[int, int, list[str], list[str]]] = []

    # -- seats and colours ------------------------------------------------------

    def current_player(self) -> int:
        return (len(self._moves) + self._seat_offset) & 1

    def colour_of(self, seat: int) -> int:
        return BLACK if seat == self._black_seat else WHITE

    def seat_of(self, colour: int) -> int:
        return self._black_seat if colour == BLACK else 1 - self._black_seat

    def to_move(self) -> int:
        """Colour to move: Black proposes; after the opening the colours alternate."""
        return self.colour_of(self.current_player())

    def swap_allowed(self) -> bool:
        return not self._opening_done and len(self._moves) == 1

    def is_terminal(self) -> bool:
        return self._over

    def end_reason(self) -> str:
        return self._end_reason if self._over else "not over"

    # -- territory and score ------------------------------------------------------

    def territory(self, colour: int) -> int:
        """Mask of ``colour``'s territory: its stones, and empty houses from which no
        path through empty houses reaches an enemy stone."""
        geo = self.geo
        own, enemy = self.stones[colour], self.stones[1 - colour]
        empty = geo.full & ~(own | enemy)
        if not enemy:
            return own | empty
        return own | (empty & ~geo.flood(geo.around(enemy) & empty, empty))

    def scores(self) -> list[float]:
        """Territory count per seat (also meaningful before the end: the count so far)."""
        return [_bits(self.territory(self.colour_of(seat))) for seat in (0, 1)]

    def count_so_far(self) -> list[float]:
        """Territory as it stands, as the game's own ply limit scores it."""
        return self.scores()

    def winner(self) -> int | None:
        if not self._over:
            return None
        s0, s1 = self.scores()
        return None if s0 == s1 else (0 if s0 > s1 else 1)

    # -- legality -------------------------------------------------------------------

    def legal_placements(self, colour: int) -> int:
        """Mask of every empty house where ``colour`` may place a stone now.

        No capture can rescue a futile house (docs/rules/hexgo.md, "Order"), so this is
        exact: empty, not dominated by the enemy, and able to reach a pair.
        """
        open_ = self.geo.full & ~(self.stones[0] | self.stones[1]) & ~self.dom[1 - colour]
        return open_ & self.viable[colour]

    def legal_moves(self) -> list[str]:
        if self._over:
            return []
        names = self.geo.names
        moves = [names[i] for i in self.geo.indices(self.legal_placements(self.to_move()))]
        if self.swap_allowed():
            moves.append(SWAP)
        return moves

    def can_play_outside_territory(self, colour: int) -> bool:
        """Whether ``colour`` has a legal placement outside its own territory.

        Exact without a flood fill: the empty houses of one connected empty area are all
        legal or all illegal for a colour (they share one enemy-free area, and one side of
        every enemy family), and an area outside the territory has a house next to an enemy
        stone.  So it suffices to look at the houses next to enemy stones.
        """
        enemy = self.stones[1 - colour]
        return bool(self.legal_placements(colour) & self.geo.around(enemy))

    # -- playing ----------------------------------------------------------------------

    def play(self, move: str) -> None:
        if not isinstance(move, str):
            raise IllegalMove(str(move), "a move is a token such as 'e5' or 'swap'")
        if self._over:
            raise IllegalMove(move, f"the game is over ({self._end_reason})")
        h = self.geo.board.lookup(move)
        if h is None:
            if move == SWAP:
                return self._swap(move)
            raise IllegalMove(move, self._not_a_house(move))
        colour = self.to_move()
        outcome = self._evaluate(h, colour, move)
        self._commit(h, colour, outcome)
        self._moves.append(move)
        self._update_end()

    def _not_a_house(self, move: str) -> str:
        board = self.geo.board
        meant = move.strip().lower()
        if board.lookup(meant) is not None or meant == SWAP:
            # One rule for every arena game (PROTOCOL.md section 6): tokens are exact.
            return f"move tokens are exact: cell names are lower case and a token has no spaces, so write {meant!r}"
        size = self.game.options.size
        return (
            f"not a house of the size-{size} HexGo board, nor 'swap': a house "
            f"is a column letter a-{chr(96 + board.cols)} and a "
            f"row number 1-{board.rows} inside the hexagon, such as "
            f"{board.names[len(board) // 2]} (diagram in docs/rules/hexgo.md)"
        )

    def _swap(self, move: str) -> None:
        if not self.swap_allowed():
            raise IllegalMove(
                move,
                "swap is only allowed as seat 1's first move, answering the "
                "opening stone (Opening: the opponent chooses whether to make "
                "the opening move)",
            )
        self._black_seat = 1  # seat 1 takes the opening stone; seat 0 is White, to move
        self._opening_done = True
        self._moves.append(SWAP)
        self._update_end()

    def _evaluate(self, h: int, me: int, move: str) -> _Outcome:
        """Check a placement and work out its captures, without changing the state."""
        geo, cells, enemy = self.geo, self.cells, 1 - me
        hb = geo.bit[h]
        if cells[h] != EMPTY:
            raise IllegalMove(
                move,
                f"{geo.names[h]} is occupied by a {COLOUR_NAMES[cells[h]]} stone: stones are placed on empty houses",
            )
        if self.dom[enemy] & hb:
            raise IllegalMove(move, self._dominated_reason(h, me))
        if not self.viable[me] & hb:
            # Whether this is judged before or after the move's captures makes no
            # difference: a futile house has no friendly neighbour, so the stone cuts
            # nothing off (docs/rules/hexgo.md, "Order").
            raise IllegalMove(move, self._futile_reason(h, me))
        family, sides, merged = hb, geo.house_sides[h], []
        for n in geo.neighbours[h]:
            if cells[n] == me:
                root = self._find(n)
                if root not in merged:
                    merged.append(root)
                    family |= self.fam_mask[root]
                    sides |= self.fam_sides[root]
        pairs = PAIRS_OF[sides]
        region = self._grown_region(h, family, pairs, merged) if pairs else 0
        blocked, enemy_dead = self._blocked(h, me)
        dominated = region & self.stones[enemy]
        captured = blocked | dominated
        viable_me = self.viable[me]
        if captured:
            # Captured houses open up: the components they join may now reach a pair.
            passable = geo.full & ~(self.stones[enemy] & ~captured)
            rest = captured
            while rest:
                comp = geo.flood(rest & -rest, passable)
                if PAIRS_OF[geo.sides_of(comp)]:
                    viable_me |= comp
                rest &= ~comp
        return _Outcome(family, sides, tuple(merged), region, blocked, dominated, enemy_dead, viable_me)

    def _grown_region(self, h: int, family: int, pairs: int, merged: list[int]) -> int:
        """Region dominated by the family that the stone on h completes or extends.

        Shortcut: when the stone extends a single family that already linked the same
        pairs and its free neighbours form one unbroken arc, the stone encloses nothing
        new and removes no outer-side house from reach, so the old region minus h holds.
        """
        geo = self.geo
        if len(merged) == 1:
            root = merged[0]
            if PAIRS_OF[self.fam_sides[root]] == pairs:
                pattern, near_sides = 0, 0
                for d, n in enumerate(geo.ring[h]):
                    if n != OFF_BOARD and not family & geo.bit[n]:
                        pattern |= 1 << d
                        near_sides |= geo.house_sides[n]
                if ONE_ARC[pattern] and not geo.house_sides[h] & ~near_sides:
                    return self.fam_region[root] & ~geo.bit[h]
        return geo.region(family, pairs)

    def _blocked(self, h: int, me: int) -> tuple[int, int]:
        """Enemy stones cut off from every pair by a ``me`` stone on h, and the houses
        that stop being viable for the enemy (h included)."""
        geo, cells, enemy = self.geo, self.cells, 1 - me
        hb = geo.bit[h]
        if not self.viable[enemy] & hb:
            return 0, hb  # h's enemy region could not link: it holds no enemy stone
        pattern, near_sides = 0, 0
        ring = geo.ring[h]
        for d, n in enumerate(ring):
            if n != OFF_BOARD and cells[n] != me:
                pattern |= 1 << d
                near_sides |= geo.house_sides[n]
        if ONE_ARC[pattern] and not geo.house_sides[h] & ~near_sides:
            return 0, hb  # the rest of h's region stays connected, on the same sides
        passable = geo.full & ~self.stones[me] & ~hb
        blocked, dead, seen = 0, hb, 0
        for n in ring:
            if n != OFF_BOARD and cells[n] != me and not seen & geo.bit[n]:
                piece = geo.flood(geo.bit[n], passable)
                seen |= piece
                if not PAIRS_OF[geo.sides_of(piece)]:
                    blocked |= piece & self.stones[enemy]
                    dead |= piece
        return blocked, dead

    def _commit(self, h: int, me: int, out: _Outcome) -> None:
        geo, enemy = self.geo, 1 - me
        self.cells[h] = me
        self.stones[me] |= geo.bit[h]
        parent, roots = self.parent, self.roots[me]
        regions_changed = bool(out.region)
        for root in out.merged:
            regions_changed |= bool(self.fam_region[root])
            parent[root] = h
            roots.discard(root)
            self.fam_mask[root] = self.fam_sides[root] = self.fam_region[root] = 0
        parent[h] = h
        roots.add(h)
        self.fam_mask[h], self.fam_sides[h], self.fam_region[h] = out.family, out.sides, out.region
        if regions_changed:
            self.dom[me] = self._union_regions(me)
        captured = out.blocked | out.dominated
        if captured:
            self._remove(enemy, captured)
            self.captures.append((len(self._moves), me, geo.names_of(out.blocked), geo.names_of(out.dominated)))
        self.viable[enemy] &= ~out.enemy_dead
        self.viable[me] = out.viable_me

    def _remove(self, colour: int, captured: int) -> None:
        """Take captured stones off; whole families always go (see _evaluate)."""
        gone_roots = {self._find(i) for i in self.geo.indices(captured)}
        lost_region = False
        for root in gone_roots:
            lost_region |= bool(self.fam_region[root])
            self.fam_mask[root] = self.fam_sides[root] = self.fam_region[root] = 0
        for i in self.geo.indices(captured):
            self.cells[i] = EMPTY
            self.parent[i] = i
        self.roots[colour] -= gone_roots
        self.stones[colour] &= ~captured
        if lost_region:
            self.dom[colour] = self._union_regions(colour)

    def _union_regions(self, colour: int) -> int:
        fam_region, out = self.fam_region, 0
        for root in self.roots[colour]:
            out |= fam_region[root]
        return out

    def _find(self, x: int) -> int:
        return find_root(self.parent, x)

    def _update_end(self) -> None:
        if len(self._moves) >= self.game.options.max_plies:
            self._over = True
            self._end_reason = f"ply limit {self.game.options.max_plies} reached: scored by territory as it stands"
            return
        if not self.stones[BLACK] | self.stones[WHITE]:
            return  # the empty board: the game has not started
        waiting = self.to_move()  # the likelier of the two to have a move outside
        outside = self.can_play_outside_territory
        if not (outside(waiting) or outside(1 - waiting)):
            self._over = True
            self._end_reason = "each player can only place stones within their own territory"

    # -- reasons ------------------------------------------------------------------------

    def _dominated_reason(self, h: int, me: int) -> str:
        geo, enemy = self.geo, 1 - me
        for root in sorted(self.roots[enemy]):
            if self.fam_region[root] & geo.bit[h]:
                pairs = PAIRS_OF[self.fam_sides[root]]
                linked = " and ".join(PAIR_NAMES[p] for p in range(3) if pairs >> p & 1)
                stones = geo.names_of(self.fam_mask[root])
                return (
                    f"{geo.names[h]} lies in the region dominated by the "
                    f"{COLOUR_NAMES[enemy]} family {_short(stones)} linking sides {linked}: "
                    f"you may not place a stone in a region dominated by an enemy family "
                    f"(Forbidden Moves)"
                )
        raise AssertionError("dominated house without a dominating family")  # pragma: no cover

    def _futile_reason(self, h: int, me: int) -> str:
        geo = self.geo
        reach = geo.flood(geo.bit[h], geo.full & ~self.stones[1 - me])
        return (
            f"a {COLOUR_NAMES[me]} stone on {geo.names[h]} could never become part of a family "
            f"linking A-B, C-D or E-F, however the empty houses were filled: without crossing "
            f"{COLOUR_NAMES[1 - me]} stones it reaches only side(s) "
            f"{geo.describe_sides(reach)} (Forbidden Moves: no stone that can never link a "
            f"pair)"
        )

    # -- construction from scratch (positions, and the check on the incremental state) --

    def _rebuild(self) -> None:
        """Recompute every derived table from ``cells`` alone."""
        geo = self.geo
        n = len(self.cells)
        self.stones = [geo.mask_of(i for i in range(n) if self.cells[i] == c) for c in (BLACK, WHITE)]
        self.parent = list(range(n))
        self.fam_mask, self.fam_sides, self.fam_region = [0] * n, [0] * n, [0] * n
        self.roots = [set(), set()]
        for colour in (BLACK, WHITE):
            rest = self.stones[colour]
            while rest:
                family = geo.flood(rest & -rest, self.stones[colour])
                rest &= ~family
                members = geo.indices(family)
                root = members[0]
                for i in members:
                    self.parent[i] = root
                self.fam_mask[root] = family
                self.fam_sides[root] = geo.sides_of(family)
                self.fam_region[root] = geo.region(family, PAIRS_OF[self.fam_sides[root]])
                self.roots[colour].add(root)
        self.dom = [self._union_regions(BLACK), self._union_regions(WHITE)]
        self.viable = [geo.viable_part(geo.full & ~self.stones[1 - c]) for c in (BLACK, WHITE)]

    def _check_invariants(self) -> None:
        geo = self.geo
        for colour in (BLACK, WHITE):
            futile = self.stones[colour] & ~self.viable[colour]
            if futile:
                raise ValueError(
                    f"{COLOUR_NAMES[colour]} stones {geo.names_of(futile)} can never "
                    f"link a pair: such stones are removed in play"
                )
            inside = self.stones[colour] & self.dom[1 - colour]
            if inside:
                raise ValueError(
                    f"{COLOUR_NAMES[colour]} stones {geo.names_of(inside)} lie in a "
                    f"region dominated by the other colour: removed in play"
                )

    def snapshot(self) -> tuple[Any, ...]:
        """Derived tables in a comparable form (tests compare incremental vs _rebuild)."""
        families = sorted(
            (self.fam_mask[r], self.fam_sides[r], self.fam_region[r]) for c in (BLACK, WHITE) for r in self.roots[c]
        )
        return (tuple(self.stones), families, tuple(self.dom), tuple(self.viable))

    # -- the rest -----------------------------------------------------------------------

    def clone(self) -> HexGoState:
        other = HexGoState.__new__(HexGoState)
        other.game, other.geo = self.game, self.geo
        other.cells = self.cells[:]
        other.stones = self.stones[:]
        other.parent = self.parent[:]
        other.fam_mask = self.fam_mask[:]
        other.fam_sides = self.fam_sides[:]
        other.fam_region = self.fam_region[:]
        other.roots = [set(self.roots[0]), set(self.roots[1])]
        other.dom = self.dom[:]
        other.viable = self.viable[:]
        other._moves = self._moves[:]
        other._black_seat = self._black_seat
        other._seat_offset = self._seat_offset
        other._opening_done = self._opening_done
        other._over = self._over
        other._end_reason = self._end_reason
        other.captures = self.captures[:]
        return other

    def family_of(self, house: str) -> tuple[list[str], list[str]]:
        """The family on ``house`` (its stones) and the pairs it links, e.g. ['A-B']."""
        i = self.geo.board.index(house)
        if self.cells[i] == EMPTY:
            return [], []
        root = self._find(i)
        pairs = PAIRS_OF[self.fam_sides[root]]
        return (self.geo.names_of(self.fam_mask[root]), [PAIR_NAMES[p] for p in range(3) if pairs >> p & 1])

    def dominated(self, colour: int) -> int:
        """Mask of the empty or enemy-occupied houses dominated by ``colour``'s families."""
        return self.dom[colour] & ~self.stones[colour]

    def _territory_houses(self) -> list[list[str]]:
        """Each seat's territory, by house name."""
        return [self.geo.names_of(self.territory(self.colour_of(s))) for s in (0, 1)]

    def details(self) -> Details:
        return {
            "black_seat": self._black_seat,
            "territory": self.scores(),
            "territory_houses": self._territory_houses(),
            "captures": [
                {"ply": ply, "by": COLOUR_NAMES[c], "blocked": blk, "dominated": dom}
                for ply, c, blk, dom in self.captures
            ],
        }

    def seat_colours(self) -> list[str]:
        """The swap decides who is Black."""
        return [COLOUR_NAMES[self.colour_of(s)].lower() for s in (0, 1)]

    def status(self, players: Sequence[str]) -> str:
        territory = self.scores()
        return "; ".join(
            f"{players[s]} ({COLOUR_NAMES[self.colour_of(s)]}): territory {territory[s]:g}" for s in (0, 1)
        )

    def ending(self, players: Sequence[str]) -> Ending:
        """Each colour's territory: its dominated empty houses."""
        index, marks = self.game.board.index, {}
        for seat, houses in enumerate(self._territory_houses()):
            colour = COLOUR_NAMES[self.colour_of(seat)].lower()
            marks[f"territory-{colour}"] = [index(h) for h in houses if self.cells[index(h)] == EMPTY]
        return Ending(marks)

    def render(self) -> str:
        symbols = {EMPTY: ".", BLACK: "X", WHITE: "O"}
        cells = self.cells
        diagram = self.game.board.render(lambda i: symbols[cells[i]])
        seats = f"X Black = seat {self._black_seat}, O White = seat {1 - self._black_seat}"
        status = (
            f"over: {self._end_reason}"
            if self._over
            else f"{COLOUR_NAMES[self.to_move()]} (seat {self.current_player()}) to move"
        )
        return f"{diagram}\n{seats}; {status}"


def _short(names: list[str], limit: int = 6) -> str:
    if len(names) <= limit:
        return "-".join(names)
    return "-".join(names[:limit]) + f"-... ({len(names)} stones)"
