"""A Hex position already won: a colour whose stones join its two edges through gaps the
other colour cannot close (an evaluator for arena's decided-position adjudication, never a
referee of moves).

A gap is *safe* when it has two empty cells either of which closes it: a **bridge** (two
stones of the colour with exactly two empty common neighbours) or **edge template II** (a
stone on the second line whose two neighbours on its edge are empty).  A chain of the
colour's groups from one edge to the other whose gaps are all safe, and whose gaps' cell
pairs are pairwise disjoint, cannot be stopped, whoever moves: an intrusion into one pair is
answered with the other cell of that pair, and touches no other gap.  Overlapping pairs (one
cell threatening two gaps at once), a gap of any other shape, or a swap still to come are
not counted, so the test may miss a won position but never calls an open one won.

The search for such a chain is a depth-first search over the colour's groups carrying the
cells its gaps already use; it gives up (not decided) after ``SEARCH_BUDGET`` steps, so a
move of a large, crowded board costs a bounded time.
"""

from __future__ import annotations

from collections.abc import Sequence
from itertools import combinations

from .hexgrid import Board

SEARCH_BUDGET = 20_000  # DFS steps before the test gives up (and says: not decided)
NEAR, FAR = -1, -2  # the colour's two edges as nodes of the search


def has_unstoppable_chain(board: Board, size: int, cells: Sequence[int], colour: int, empty: int) -> bool:
    """Whether ``colour``'s stones join its edges through safe, disjoint gaps (see above).
    ``colour`` 0 joins the first and last rows, 1 the first and last columns."""
    group = _groups(board, cells, colour)
    if not group:
        return False
    links = _links(board, size, cells, colour, empty, group)
    return _search(links)


def _groups(board: Board, cells: Sequence[int], colour: int) -> dict[int, int]:
    """Each of ``colour``'s stones and the root of its group."""
    stones = [i for i, v in enumerate(cells) if v == colour]
    parent = {i: i for i in stones}
    for i in stones:
        for n in board.neighbours[i]:
            if cells[n] == colour:
                a, b = _root(parent, i), _root(parent, n)
                if a != b:
                    parent[a] = b
    return {i: _root(parent, i) for i in stones}


def _root(parent: dict[int, int], x: int) -> int:
    while parent[x] != x:
        parent[x] = parent[parent[x]]
        x = parent[x]
    return x


Links = dict[int, list[tuple[int, frozenset[int]]]]  # node -> (node, the gap's two cells; none if touching)


def _links(board: Board, size: int, cells: Sequence[int], colour: int, empty: int, group: dict[int, int]) -> Links:
    """Every node's safe links: a group touching an edge, a group on the second line with
    edge template II, two groups bridged."""
    axis, last = colour, size - 1
    links: Links = {}

    def link(a: int, b: int, gap: frozenset[int]) -> None:
        links.setdefault(a, []).append((b, gap))
        links.setdefault(b, []).append((a, gap))

    for stone, root in group.items():
        line = board.coords[stone][axis]
        for edge, edge_line, second in ((NEAR, 0, 1), (FAR, last, last - 1)):
            if line == edge_line:
                link(root, edge, frozenset())
            elif line == second:
                on_edge = [n for n in board.neighbours[stone] if board.coords[n][axis] == edge_line]
                if len(on_edge) == 2 and all(cells[n] == empty for n in on_edge):
                    link(root, edge, frozenset(on_edge))
        for x, y in combinations(board.neighbours[stone], 2):
            if cells[x] != empty or cells[y] != empty or y not in board.neighbours[x]:
                continue
            for other in set(board.neighbours[x]) & set(board.neighbours[y]) - {stone}:
                if cells[other] == colour and group[other] != root and stone < other:
                    link(root, group[other], frozenset((x, y)))
    return links


def _search(links: Links) -> bool:
    """A path from the near edge to the far one whose gaps share no cell."""
    steps = 0
    stack: list[tuple[int, frozenset[int], frozenset[int]]] = [(NEAR, frozenset({NEAR}), frozenset())]
    while stack:
        node, seen, used = stack.pop()
        for nxt, gap in links.get(node, ()):
            if nxt in seen or gap & used:
                continue
            if nxt == FAR:
                return True
            steps += 1
            if steps > SEARCH_BUDGET:
                return False
            stack.append((nxt, seen | {nxt}, used | gap))
    return False
