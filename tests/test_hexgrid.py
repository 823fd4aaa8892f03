import pytest

from arena.rules.hexgrid import OFF_BOARD, Board, connected_components, reachable


def test_rhombus_names_and_neighbour_convention():
    b = Board.rhombus(5)
    assert len(b) == 25
    assert b.name(0) == "a1" and b.name(1) == "b1" and b.name(5) == "a2"
    # (r, c) = (2, 2) is c3; neighbours (r, c±1), (r-1, c), (r-1, c+1), (r+1, c), (r+1, c-1)
    expected = {"b3", "d3", "c2", "d2", "c4", "b4"}
    assert {b.name(n) for n in b.neighbours[b.index("c3")]} == expected
    assert {b.name(n) for n in b.neighbours[b.index("a1")]} == {"b1", "a2"}
    assert {b.name(n) for n in b.neighbours[b.index("e1")]} == {"d1", "e2", "d2"}


def test_hexhex_has_3s2_minus_3s_plus_1_cells_and_six_sides():
    for side in range(2, 8):
        b = Board.hexhex(side)
        assert len(b) == 3 * side * side - 3 * side + 1
        sides = b.hexhex_sides()
        assert all(len(s) == side for s in sides)
        # each corner lies on exactly two adjacent sides
        corners = [c for c in b if sum(c in s for s in sides) == 2]
        assert len(corners) == 6
    b = Board.hexhex(5)
    assert b.lookup("a1") is None and b.lookup("e1") is not None and b.lookup("a5") is not None
    assert all(len(b.neighbours[i]) in (3, 4, 6) for i in b)


def test_steps_are_opposite_and_rays_stop_at_edge():
    b = Board.hexhex(4)
    for i in b:
        for d in range(6):
            j = b.step[d][i]
            if j != OFF_BOARD:
                assert b.step[(d + 3) % 6][j] == i
    centre = b.index("d4")
    assert [b.name(c) for c in b.ray(centre, 0)] == ["e4", "f4", "g4"]


def test_line_between_and_distance():
    b = Board.rhombus(9)
    assert [b.name(c) for c in b.line_between(b.index("a1"), b.index("a4"))] == ["a2", "a3"]
    assert b.line_between(b.index("a1"), b.index("b3")) is None
    assert [b.name(c) for c in b.line_between(b.index("d1"), b.index("a4"))] == ["c2", "b3"]
    assert b.distance(b.index("a1"), b.index("c3")) == 4


@pytest.mark.parametrize("board", [Board.rhombus(5), Board.hexhex(3)], ids=["rhombus", "hexhex"])
def test_every_line_is_a_ray_and_every_distance_a_shortest_path(board):
    """For every pair of cells: the cells between them are those a ray from one passes before
    it meets the other (None where no ray meets it), and their distance is the fewest steps."""
    for a in board:
        rays = [list(board.ray(a, d)) for d in range(6)]
        steps, queue = {a: 0}, [a]  # breadth first from a
        for cell in queue:
            for n in board.neighbours[cell]:
                if n not in steps:
                    steps[n] = steps[cell] + 1
                    queue.append(n)
        for b in board:
            between = next((ray[: ray.index(b)] for ray in rays if b in ray), None)
            assert board.line_between(a, b) == between, (board.name(a), board.name(b))
            assert board.distance(a, b) == steps[b], (board.name(a), board.name(b))


def test_components_and_reachable():
    b = Board.rhombus(3)
    cells = [b.index(n) for n in ("a1", "b1", "c3")]
    groups = sorted(sorted(b.name(c) for c in g) for g in connected_components(cells, b.neighbours))
    assert groups == [["a1", "b1"], ["c3"]]
    wall = {b.index(n) for n in ("a2", "b2", "c1")}
    seen = reachable([b.index("a1")], b.neighbours, lambda c: c not in wall)
    assert {b.name(c) for c in seen} == {"a1", "b1"}


def test_render_shifts_rows():
    text = Board.rhombus(3).render(lambda i: ".")
    assert text.splitlines()[1:] == ["  1 . . .", "  2  . . .", "  3   . . ."]


def test_ring_around_a_pair_is_a_cycle_of_the_eight_cells_around_it():
    b = Board.hexhex(5)
    for a in b:
        for c in b.neighbours[a]:
            ring = b.ring_around_pair(a, c)
            around = (set(b.neighbours[a]) | set(b.neighbours[c])) - {a, c}
            assert {x for x in ring if x != OFF_BOARD} == around and len(ring) == 8
            for i, x in enumerate(ring):
                for j, y in enumerate(ring):
                    if OFF_BOARD not in (x, y) and x != y:
                        assert (y in b.neighbours[x]) == ((i - j) % 8 in (1, 7))
    e5 = b.index("e5")
    assert [b.name(x) for x in b.ring_around_pair(e5, b.index("f5"))] == [
        "g4",
        "g5",
        "f6",
        "e6",
        "d6",
        "d5",
        "e4",
        "f4",
    ]
    with pytest.raises(ValueError, match="not adjacent"):
        b.ring_around_pair(e5, b.index("g5"))


def _naive_cells(rows: int, cols: int, lo: int, hi: int) -> list[tuple[int, int]]:
    return [(r, c) for r in range(rows) for c in range(cols) if lo <= r + c <= hi]


@pytest.mark.parametrize(
    ("rows", "cols", "cut", "cells"),
    [(3, 2, {}, 6), (2, 3, {}, 6), (3, 3, {"lo": 1, "hi": 3}, 7), (1, 1, {}, 1), (1, 26, {}, 26)],
)
def test_a_board_built_afresh_has_the_cells_names_neighbours_and_steps_its_rows_columns_and_cut_say(
    rows: int, cols: int, cut: dict[str, int], cells: int
) -> None:
    """Board.rhombus and Board.hexhex are cached, so the other tests' boards may have been
    built before them: these are built here, and checked against the geometry's definition."""
    board = Board(rows, cols, **cut)
    coords = _naive_cells(rows, cols, cut.get("lo", 0), cut.get("hi", rows + cols))
    assert len(board) == cells == len(coords)
    assert board.coords == tuple(coords)
    assert board.names == tuple(f"{'abcdefghijklmnopqrstuvwxyz'[c]}{r + 1}" for r, c in coords)
    for i, (r, c) in enumerate(coords):
        assert board.index(board.names[i]) == i and board.lookup(board.names[i]) == i
        assert board.at(r, c) == i
        around = [(r + dr, c + dc) for dr, dc in ((0, 1), (1, 0), (1, -1), (0, -1), (-1, 0), (-1, 1))]
        steps = [coords.index(rc) if rc in coords else OFF_BOARD for rc in around]
        assert [board.step[d][i] for d in range(6)] == steps
        assert board.neighbours[i] == tuple(n for n in steps if n != OFF_BOARD)
    assert board.at(rows, 0) == OFF_BOARD and board.lookup(f"a{rows + 1}") is None


def test_a_board_built_afresh_draws_its_rows_shifted_and_its_cut_corners_blank() -> None:
    board = Board(3, 3, lo=1, hi=3)
    assert board.render(lambda i: board.names[i], width=3) == "\n".join(
        ["    a  b  c", "  1    b1 c1", "  2  a2 b2 c2", "  3    a3 b3"]
    )


@pytest.mark.parametrize(("rows", "cols"), [(0, 5), (5, 0), (-1, 3), (1, 27)])
def test_a_board_without_rows_or_columns_or_with_more_columns_than_letters_is_refused(rows: int, cols: int) -> None:
    with pytest.raises(ValueError) as refused:
        Board(rows, cols)
    assert str(refused.value) == f"board of {rows} rows x {cols} columns is out of range"
