"""Every clause of the HexGo seed (001) and every decision in docs/rules/hexgo.md.

Positions are drawn with ``HexGoGame.position`` (Black = seat 0) and named after the diagrams in
the rules document. A naive referee written straight from the definitions (sets and
``hexgrid.reachable``) checks the fast one on random games and positions.
"""

from __future__ import annotations

import random

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from arena.rules import IllegalMove, OptionError, hexgo, make_game
from arena.rules.hexgo import BLACK, WHITE, HexGoState
from arena.rules.hexgrid import Board, connected_components, reachable

PAIRS = ((0, 1), (2, 3), (4, 5))


def game(size: int = 5, **options):
    return make_game("hexgo", {"size": size, **options})


def pos(black: str = "", white: str = "", to_move: int = BLACK, size: int = 5) -> HexGoState:
    return game(size).position(black.split(), white.split(), to_move)


def names(state: HexGoState, mask: int) -> set[str]:
    return set(state.geo.names_of(mask))


def play(moves: str, size: int = 5, **options) -> HexGoState:
    state = game(size, **options).initial_state()
    for move in moves.split():
        state.play(move)
    return state


def reason(state: HexGoState, move: str) -> str:
    before = (state.render(), state.snapshot(), list(state.moves))
    with pytest.raises(IllegalMove) as err:
        state.play(move)
    assert (state.render(), state.snapshot(), list(state.moves)) == before, "state changed"
    assert err.value.move == move and str(err.value).startswith(f"illegal move {move!r}: ")  # the move refused
    return err.value.reason


# -- a naive referee, straight from the formal definitions in docs/rules/hexgo.md ------------


class Naive:
    def __init__(self, size: int) -> None:
        self.board = Board.hexhex(size)
        self.sides = self.board.hexhex_sides()
        self.nb = self.board.neighbours
        self.all = set(self.board)

    def links(self, houses: set[int]) -> list[int]:
        return [p for p, (x, y) in enumerate(PAIRS) if houses & self.sides[x] and houses & self.sides[y]]

    def can_link(self, house: int, enemy: set[int]) -> bool:
        return bool(self.links(reachable([house], self.nb, lambda i: i not in enemy)))

    def region(self, family: set[int], pair: int) -> set[int]:
        outer = set().union(*(self.sides[k] for k in range(6) if k not in PAIRS[pair])) - family
        return self.all - family - reachable(outer, self.nb, lambda i: i not in family)

    def dominated(self, own: set[int]) -> set[int]:
        out: set[int] = set()
        for fam in map(set, connected_components(own, self.nb)):
            for pair in self.links(fam):
                out |= self.region(fam, pair)
        return out

    def play(self, stones: list[set[int]], colour: int, house: int) -> list[set[int]] | None:
        """The stones after ``colour`` plays ``house``, or None if illegal (captures first)."""
        me, enemy = set(stones[colour]), set(stones[1 - colour])
        if house in me or house in enemy or house in self.dominated(enemy):
            return None
        me.add(house)
        blocked = {e for e in enemy if not self.can_link(e, me)}
        family = reachable([house], self.nb, lambda i: i in me)
        dominated = self.dominated(me) & enemy if self.links(family) else set()
        enemy -= blocked | dominated
        if not self.can_link(house, enemy):
            return None
        return [me, enemy] if colour == BLACK else [enemy, me]

    def legal(self, stones: list[set[int]], colour: int) -> set[int]:
        return {h for h in self.all if self.play(stones, colour, h) is not None}

    def territory(self, stones: list[set[int]], colour: int) -> set[int]:
        own, enemy = stones[colour], stones[1 - colour]
        out = set(own)
        for h in self.all - own - enemy:
            area = reachable([h], self.nb, lambda i: i not in own and i not in enemy)
            if not any(n in enemy for x in area for n in self.nb[x]):
                out.add(h)
        return out

    def over(self, stones: list[set[int]]) -> bool:
        return all(self.legal(stones, c) <= self.territory(stones, c) for c in (BLACK, WHITE))


def stone_sets(state: HexGoState) -> list[set[int]]:
    return [set(state.geo.indices(state.stones[c])) for c in (BLACK, WHITE)]


# -- options and board --------------------------------------------------------------------


def test_default_board_is_the_61_house_hexagon_with_a_size_dependent_ply_cap():
    g = make_game("hexgo")
    assert len(g.board) == 61 and g.option_tokens() == ["size=5", "max_plies=244"]
    assert game(3).option_tokens() == ["size=3", "max_plies=76"]
    assert game(3, max_plies=10).options.max_plies == 10
    assert make_game("hexgo").state_from_setup("start").setup_token() == "start"


@pytest.mark.parametrize(
    "options,text",
    [
        ({"size": 1}, "size"),
        ({"size": 14}, "size"),
        ({"colour": 1}, "unknown option"),
        ({"max_plies": 1}, "max_plies"),
    ],
)
def test_bad_options_are_reported(options, text):
    with pytest.raises(OptionError, match=text):
        make_game("hexgo", options)


def test_sides_are_a_to_f_clockwise_and_pair_corners_link_alone():
    state = pos(black="i1 e9 a5 e1")
    assert state.family_of("i1") == (["i1"], ["A-B"])
    assert state.family_of("e9") == (["e9"], ["C-D"])
    assert state.family_of("a5") == (["a5"], ["E-F"])
    assert state.family_of("e1") == (["e1"], [])  # A and F: sides of different pairs
    assert state.dominated(BLACK) == 0


# -- opening by swapping ------------------------------------------------------------------


def test_declining_the_swap_keeps_seat_0_black():
    state = play("e5")
    assert state.current_player() == 1 and state.to_move() == WHITE and "swap" in state.legal_moves()
    state.play("d4")
    assert state.cells[state.game.board.index("d4")] == WHITE
    assert state.colour_of(0) == BLACK and state.colour_of(1) == WHITE
    assert state.current_player() == 0 and state.to_move() == BLACK
    assert "swap" not in state.legal_moves()


def test_swap_gives_seat_1_the_opening_stone_and_seat_0_moves_next_as_white():
    state = play("e5 swap")
    assert state.colour_of(1) == BLACK and state.colour_of(0) == WHITE
    assert state.details()["black_seat"] == 1
    assert state.current_player() == 0 and state.to_move() == WHITE
    assert state.cells[state.game.board.index("e5")] == BLACK  # the stone stays put
    assert state.scores() == [0, 61]  # per seat, not per colour
    state.play("d4")
    assert state.cells[state.game.board.index("d4")] == WHITE
    assert state.current_player() == 1 and state.to_move() == BLACK
    assert state.moves == ["e5", "swap", "d4"]


@pytest.mark.parametrize("moves", ["", "e5 d4", "e5 swap", "e5 d4 c3"])
def test_swap_is_only_seat_1s_first_move(moves):
    state = play(moves)
    assert "swap" not in state.legal_moves()
    assert reason(state, "swap") == (
        "swap is only allowed as seat 1's first move, answering the opening stone "
        "(Opening: the opponent chooses whether to make the opening move)"
    )


# -- forbidden moves -----------------------------------------------------------------------


@pytest.mark.parametrize(
    "move,text",
    [
        ("a1", "not a house"),
        ("j5", "not a house"),
        ("e10", "not a house"),
        ("", "not a house"),
        ("pass", "not a house"),
        ("e5,e6", "not a house"),
        ("\x00", "not a house"),
    ],
)
def test_garbage_tokens_are_illegal_with_a_clear_reason(move, text):
    assert text in reason(play("e5"), move)


@pytest.mark.parametrize(
    "size, houses",
    [
        (5, "a column letter a-i and a row number 1-9 inside the hexagon, such as e5"),
        (7, "a-m and a row number 1-13 inside the hexagon, such as g7"),
    ],
)
def test_a_token_off_the_board_is_told_what_a_house_is(size, houses):
    said = reason(play("", size=size), "a1")
    assert said.startswith(f"not a house of the size-{size} HexGo board, nor 'swap': a house is ") and houses in said
    assert said.endswith(" (diagram in docs/rules/hexgo.md)")


@pytest.mark.parametrize("seed", range(4))
def test_a_finished_games_details_split_the_board_into_the_two_territories(seed):
    state = game(4).initial_state(seed)
    state.playout(random.Random(seed), 100_000)
    details = state.details()
    territory, houses = details["territory"], details["territory_houses"]
    assert state.is_terminal() and territory == state.scores()
    assert [len(h) for h in houses] == territory and min(territory) > 0
    assert not set(houses[0]) & set(houses[1]) and len(houses[0]) + len(houses[1]) == len(state.geo.board)


def test_a_finished_game_is_won_by_the_larger_territory():
    winners = set()
    for seed in range(4):  # seat 0 ahead in some, seat 1 in others
        state = game(4).initial_state(seed)
        state.playout(random.Random(seed), 100_000)
        black, white = state.scores()
        assert black != white and state.winner() == (0 if black > white else 1), seed
        winners.add(state.winner())
    assert winners == {0, 1}


def test_non_string_move_is_illegal():
    with pytest.raises(IllegalMove) as err:
        play("e5").play(None)  # type: ignore[arg-type]
    assert err.value.move == "None" and err.value.reason == "a move is a token such as 'e5' or 'swap'"
    with pytest.raises(IllegalMove) as err:
        play("e5").play(5)  # type: ignore[arg-type]
    assert err.value.move == "5"


@pytest.mark.parametrize(
    "moves,token,meant,size",
    [
        ("", "E5", "e5", 5),
        ("e5", "SWAP", "swap", 5),
        ("e5", "Swap", "swap", 5),
        ("", " e5", "e5", 5),
        ("", "e5\n", "e5", 5),
        ("", "\u212a7", "k7", 13),  # the Kelvin sign lower-cases to k
    ],
)
def test_tokens_are_exact_lower_case_like_every_arena_game(moves, token, meant, size):
    # PROTOCOL.md section 6: one rule for all games (Hex rejects C3 too).
    state = play(moves, size=size)
    text = reason(state, token)
    assert "cell names are lower case" in text and repr(meant) in text
    state.play(meant)
    assert state.moves[-1] == meant


def test_occupied_house_is_illegal():
    assert "occupied" in reason(play("e5"), "e5")


def test_futile_stone_is_forbidden_for_one_colour_only():
    state = pos(white="a8 b8 b9")  # a9 (corner D-E) enclosed by White
    text = reason(state, "a9")
    assert "could never become part of a family linking" in text
    assert "only side(s) D, E" in text and "Forbidden Moves" in text
    white = pos(white="a8 b8 b9", to_move=WHITE)
    white.play("a9")  # White's own area reaches every side
    assert white.cells[white.game.board.index("a9")] == WHITE


def test_interior_eye_is_futile_for_the_enemy_and_legal_for_the_owner():
    ring = "d4 e4 f4 d5 f5 d6 e6"  # every neighbour of e5
    assert "only side(s) none" in reason(pos(white=ring), "e5")
    assert "e5" in pos(white=ring, to_move=WHITE).legal_moves()


def test_dominated_house_is_forbidden_for_the_enemy_and_names_the_family():
    state = pos(black="g1 g2 h2 i2", to_move=WHITE)
    text = reason(state, "h1")
    assert "region dominated by the Black family g1-g2-h2-i2 linking sides A-B" in text
    assert "Forbidden Moves" in text
    assert "h1" in pos(black="g1 g2 h2 i2").legal_moves()  # Black may play there


def test_a_dominated_house_names_the_family_that_dominates_it_its_pair_and_a_long_family_cut_short():
    # Two Black families: g1-g2-h2-i2 links A-B around h1 and i1; the nine stones from e1 to a9
    # (the first in board order) link E-F and dominate a5..d2.
    state = pos(black="g1 g2 h2 i2 e1 e2 d3 d4 c5 b6 b7 b8 a9", to_move=WHITE)
    assert "by the Black family g1-g2-h2-i2 linking sides A-B: " in reason(state, "h1")
    text = reason(state, "a5")
    assert "by the Black family e1-e2-d3-d4-c5-b6-... (9 stones) linking sides E-F: " in text
    six = pos(black="f1 f2 g2 h1 h2 i2", to_move=WHITE)  # six stones are named in full
    assert "by the Black family f1-h1-f2-g2-h2-i2 linking sides A-B: " in reason(six, "g1")


def test_forbidden_both_ways_in_the_a_b_c_position():
    black = "g1 g2 g3 g4 g5 g6 g7 h5 i4"
    as_white = pos(black=black, to_move=WHITE)
    assert "dominated" in reason(as_white, "h2")
    assert "only side(s) B, C" in reason(as_white, "i5")
    as_black = pos(black=black)
    assert {"h2", "i5", "h6"} <= set(as_black.legal_moves())


def test_legal_moves_are_empty_houses_not_dominated_and_able_to_link():
    state = pos(black="g1 g2 g3 g4 g5 g6 g7 h5 i4", to_move=WHITE)
    expected = 61 - 9 - 7 - 2  # stones, dominated region, the i5-h6 pocket
    assert len(state.legal_moves()) == expected


# -- domination ----------------------------------------------------------------------------


@pytest.mark.parametrize(
    "black,dominated",
    [
        ("g1 g2 h2 i2", "h1 i1"),  # the corner region
        ("f1 f2 g2 g3 h3 h4 i4", "g1 h1 i1 h2 i2 i3"),  # a wider one
        ("f1 f2 g2 h1 h2 i2", "g1 i1"),  # pocket against A, and corner
        ("g1 g2 g3 g4 g5 g6 g7 h5 i4", "h1 i1 h2 i2 h3 i3 h4"),  # touches A, B and C
        ("g1 g2 g3 g4 g5 g6 g7", ""),  # A and C: links nothing
        ("c5 d5 e5 f5 g5 h5 i5", ""),  # B and C: links nothing
        ("e9 d9 c9 c8 c7 c6 b6 a6", ""),  # links C-D, but its pocket touches side E
        ("e1 e2 d3 d4 c5 b6 b7 b8 a9", "a5 a6 a7 a8 b4 b5 c3 c4 d2"),  # corner to corner: E-F
    ],
)
def test_domination_regions(black, dominated):
    state = pos(black=black)
    naive = Naive(5)
    assert names(state, state.dominated(BLACK)) == {state.geo.names[i] for i in naive.dominated(stone_sets(state)[0])}
    assert names(state, state.dominated(BLACK)) == set(dominated.split())


def test_outer_corners_are_never_dominated():
    # The row a5..i5 touches E, F (a5) and B, C (i5): it links E-F. Everything above is cut off
    # from A? No: A is an outer side for E-F, so the houses above reach A and are not dominated.
    state = pos(black="a5 b5 c5 d5 e5 f5 g5 h5 i5")
    assert state.family_of("a5")[1] == ["E-F"]
    assert state.dominated(BLACK) == 0
    wide = pos(black="f1 f2 g2 g3 h3 h4 i4")
    assert not {"e1", "i5"} & names(wide, wide.dominated(BLACK))


# -- capturing -------------------------------------------------------------------------------


def test_blocking_capture_removes_stones_that_can_no_longer_link():
    state = pos(black="a8 b8", white="a9")
    state.play("b9")
    assert state.cells[state.game.board.index("a9")] == -1
    assert state.details()["captures"] == [{"ply": 0, "by": "Black", "blocked": ["a9"], "dominated": []}]


def test_blocking_capture_removes_a_whole_family():
    # White c8-c9 (side D only) is walled off by Black b8, b9, d8, d9 and c7 except through d7.
    state = pos(black="b8 b9 d8 d9 c7", white="c8 c9")
    state.play("d7")
    assert state.stones[WHITE] == 0
    assert state.captures[-1][2] == ["c8", "c9"]


def test_linking_capture_removes_dominated_stones_that_could_still_link():
    state = pos(black="g1 g2 g3 g4 g5 g6 g7 h5", white="h3")
    state.play("i4")
    assert state.captures[-1][2:] == ([], ["h3"])
    assert state.stones[WHITE] == 0


def test_both_captures_in_one_move():
    state = pos(black="g1 g2 g3 g4 g5 g6 g7 h5 h6", white="h3 i5")
    expected = Naive(5).play(stone_sets(state), BLACK, state.game.board.index("i4"))
    state.play("i4")
    assert state.captures[-1][2:] == (["i5"], ["h3"])
    assert stone_sets(state) == expected


def test_enemy_family_linking_inside_the_region_is_captured_and_its_region_freed():
    state = pos(black="f1 f2 g2 g3 h3 h4", white="h1 h2 i2")
    assert names(state, state.dominated(WHITE)) == {"i1"}
    assert "dominated by the White family h1-h2-i2" in reason(state, "i1")
    state.play("i4")
    assert state.stones[WHITE] == 0 and state.dominated(WHITE) == 0
    assert set(state.captures[-1][3]) == {"h1", "h2", "i2"}
    state.play("e5")  # White elsewhere
    state.play("i1")  # now legal for Black


def test_futile_houses_never_capture_so_the_order_does_not_matter():
    """A futile house has no friendly neighbour; placing there cuts nothing (docs, Order)."""
    rng = random.Random(4)
    for state in random_positions(rng, 4, 40):
        for colour in (BLACK, WHITE):
            geo = state.geo
            empty = geo.full & ~(state.stones[0] | state.stones[1]) & ~state.dom[1 - colour]
            for h in geo.indices(empty & ~state.viable[colour]):
                assert state._blocked(h, colour)[0] == 0


# -- territory, end and score ---------------------------------------------------------------


def test_territory_without_enemy_stones_is_the_whole_board():
    state = pos(black="e5", to_move=WHITE)
    assert state.scores() == [61, 0]


def test_territory_with_both_colours_and_a_shared_area():
    state = pos(black="c3", white="a3", size=3)
    assert state.scores() == [1, 1]  # 17 empty houses are nobody's
    end = pos(black="c1 c2 c3 c4 c5 b5 a5", white="d1 d2 d3 d4 e3", size=3)
    assert names(end, end.territory(BLACK)) == set("c1 c2 c3 c4 c5 b5 a5 b2 a3 b3 a4 b4".split())
    assert names(end, end.territory(WHITE)) == set("d1 d2 d3 d4 e3 e1 e2".split())


def test_game_ends_when_each_player_can_only_play_in_own_territory():
    end = pos(black="c1 c2 c3 c4 c5 b5 a5", white="d1 d2 d3 d4 e3", size=3)
    assert end.is_terminal() and end.legal_moves() == []
    assert end.scores() == [12, 7] and end.winner() == 0
    assert "only place stones within their own territory" in end.end_reason()
    assert "game is over" in reason(end, "b3")


def test_the_move_that_settles_the_board_ends_the_game():
    state = pos(black="c1 c2 c3 c4 c5 b5", white="d1 d2 d3 d4 e3", size=3)
    assert not state.is_terminal()
    assert (
        "b3" in pos(black="c1 c2 c3 c4 c5 b5", white="d1 d2 d3 d4 e3", to_move=WHITE, size=3).legal_moves()
    )  # White could still invade
    state.play("a5")
    assert state.is_terminal() and state.scores() == [12, 7] and state.winner() == 0


def test_ply_limit_adjudicates_by_territory_and_can_draw():
    state = play("c3 a3", size=3, max_plies=2)
    assert state.is_terminal() and "ply limit 2" in state.end_reason()
    assert state.scores() == [1, 1] and state.winner() is None


def test_winner_is_none_before_the_end():
    assert play("e5").winner() is None and play("e5").end_reason() == "not over"


def test_position_rejects_impossible_positions():
    with pytest.raises(ValueError, match="can never link"):
        pos(black="a8 b8 b9", white="a9")
    with pytest.raises(ValueError, match="dominated"):
        pos(black="g1 g2 h2 i2", white="h1")


# -- random games: properties and the naive referee --------------------------------------------


def random_positions(rng: random.Random, size: int, count: int):
    """Random positions that could arise in play (invalid stones dropped until stable)."""
    g = game(size)
    for _ in range(count):
        cells = [rng.choice((-1, -1, 0, 1)) for _ in g.board]
        while True:
            try:
                yield g.position(
                    [g.board.names[i] for i, c in enumerate(cells) if c == BLACK],
                    [g.board.names[i] for i, c in enumerate(cells) if c == WHITE],
                )
                break
            except ValueError:
                state = HexGoState(g)
                state.cells = cells
                state._rebuild()
                for c in (BLACK, WHITE):
                    bad = (state.stones[c] & ~state.viable[c]) | (state.stones[c] & state.dom[1 - c])
                    for i in state.geo.indices(bad):
                        cells[i] = -1


def random_game(seed: int, size: int, check=None) -> HexGoState:
    rng = random.Random(seed)
    state = game(size).initial_state()
    while not state.is_terminal():
        legal = state.legal_moves()
        assert legal, "a live game always has a move (no pass is ever needed)"
        if check:
            check(state, legal)
        state.play(rng.choice(legal))
        assert len(state.moves) <= state.game.options.max_plies
    return state


@settings(max_examples=40, deadline=None)
@given(st.integers(0, 2**32), st.integers(2, 6))
def test_random_games_are_accepted_end_and_score_the_whole_board(seed, size):
    state = random_game(seed, size)
    houses = len(state.game.board)
    territories = [state.territory(c) for c in (BLACK, WHITE)]
    assert all(0 <= s <= houses for s in state.scores())
    assert sum(state.scores()) <= houses and not territories[0] & territories[1]
    if "ply limit" not in state.end_reason():
        assert sum(state.scores()) == houses and state.winner() in (0, 1)
    fresh = state.clone()
    fresh._rebuild()
    assert fresh.snapshot() == state.snapshot()  # incremental == from scratch


@pytest.mark.slow
@settings(max_examples=25, deadline=None)
@given(st.integers(0, 2**32))
def test_fast_referee_agrees_with_the_naive_one(seed):
    naive = Naive(3)

    def check(state, legal):
        stones = stone_sets(state)
        colour = state.to_move()
        board = state.game.board
        assert {board.index(m) for m in legal if m != "swap"} == naive.legal(stones, colour)
        assert not state.moves or not naive.over(stones)
        for seat in (0, 1):
            assert state.scores()[seat] == len(naive.territory(stones, state.colour_of(seat)))
        for move in legal[:4]:
            if move != "swap":
                after = state.clone()
                after.play(move)
                assert stone_sets(after) == naive.play(stones, colour, board.index(move))

    final = random_game(seed, 3, check)
    assert naive.over(stone_sets(final)) or "ply limit" in final.end_reason()


@pytest.mark.parametrize("seed", range(5))
def test_every_legal_move_of_a_few_games_plays_as_the_naive_referee_says(seed):
    """A few fixed games, every legal move tried: the fast referee's legal houses, captures,
    territories and end agree with the naive one's (the quick form of the hypothesis test)."""
    size = 3
    naive = Naive(size)

    def check(state, legal):
        stones, colour, board = stone_sets(state), state.to_move(), state.game.board
        assert {board.index(m) for m in legal if m != "swap"} == naive.legal(stones, colour)
        assert not state.moves or not naive.over(stones)
        for seat in (0, 1):
            assert state.scores()[seat] == len(naive.territory(stones, state.colour_of(seat)))
        for move in legal:
            if move != "swap":
                after = state.clone()
                after.play(move)
                assert stone_sets(after) == naive.play(stones, colour, board.index(move)), move
                assert after.is_terminal() == naive.over(stone_sets(after)), move

    final = random_game(seed, size, check)
    assert naive.over(stone_sets(final)) and final.winner() == (
        None if final.scores()[0] == final.scores()[1] else int(final.scores()[1] > final.scores()[0])
    )


@pytest.mark.parametrize("seed, size", [(0, 4), (1, 5), (2, 5), (3, 6), (4, 5), (5, 7), (6, 6), (7, 5)])
def test_after_every_move_the_game_answers_as_the_same_stones_drawn_afresh(seed, size):
    """What a game keeps up move by move (legal houses, dominated regions, territories, the
    end) is what the same stones drawn up from scratch give, after every move of a few games."""
    rng, state = random.Random(seed), game(size).initial_state()
    while not state.is_terminal():
        state.play(rng.choice(state.legal_moves()))
        if state.moves[-1] == "swap":
            continue
        black, white = (state.geo.names_of(state.stones[c]) for c in (BLACK, WHITE))
        fresh = state.game.position(black, white, to_move=state.to_move())
        for colour in (BLACK, WHITE):
            assert state.legal_placements(colour) == fresh.legal_placements(colour), state.moves
            assert state.dominated(colour) == fresh.dominated(colour), state.moves
            assert state.territory(colour) == fresh.territory(colour), state.moves
            assert state.can_play_outside_territory(colour) == fresh.can_play_outside_territory(colour)
        assert state.is_terminal() == fresh.is_terminal() or "ply limit" in state.end_reason()
        for house in black + white:
            assert state.family_of(house) == fresh.family_of(house)


def test_random_positions_agree_with_the_naive_referee():
    rng = random.Random(11)
    naive = Naive(4)
    for state in random_positions(rng, 4, 25):
        stones = stone_sets(state)
        assert state.is_terminal() == naive.over(stones)
        for colour in (BLACK, WHITE):
            assert state.legal_placements(colour) or state.is_terminal()  # no pass needed
            outside = state.legal_placements(colour) & ~state.territory(colour)
            assert state.can_play_outside_territory(colour) == bool(outside)
        legal = set(state.geo.indices(state.legal_placements(BLACK)))
        assert legal == naive.legal(stones, BLACK)
        for h in sorted(legal)[:6]:
            after = state.clone()
            after.play(state.geo.names[h])
            assert stone_sets(after) == naive.play(stones, BLACK, h)
            rebuilt = after.clone()
            rebuilt._rebuild()
            assert rebuilt.snapshot() == after.snapshot()


@settings(max_examples=10, deadline=None)
@given(st.integers(0, 2**32))
def test_illegal_houses_are_rejected_and_leave_the_state_unchanged(seed):
    rng = random.Random(seed)

    def check(state, legal):
        if rng.random() < 0.3:
            for name in set(state.game.board.names) - set(legal):
                reason(state, name)

    random_game(seed, 4, check)


def test_same_moves_give_the_same_game_and_clones_are_independent():
    first = random_game(7, 5)
    again = play(" ".join(first.moves))
    assert (again.render(), again.scores(), again.details()) == (first.render(), first.scores(), first.details())
    half = play(" ".join(first.moves[:20]))
    copy = half.clone()
    copy.play(copy.legal_moves()[0])
    assert half.moves == first.moves[:20] and half.render() == play(" ".join(first.moves[:20])).render()


def test_the_text_board_and_status_line_follow_the_swap():
    state = play("c3 swap", size=3)
    assert state.render().splitlines()[3] == "  3   . . X . ."
    assert state.render().splitlines()[-1] == "X Black = seat 1, O White = seat 0; White (seat 0) to move"
    assert state.status(["ann", "bob"]) == "ann (White): territory 0; bob (Black): territory 19"
    assert state.seat_colours() == ["white", "black"]
    answered = play("c3 b2", size=3)  # White's stones are O
    assert answered.render().splitlines()[2:4] == ["  2    O . . .", "  3   . . X . ."]


def test_the_ending_lights_each_colours_empty_territory():
    state = play("c3 swap", size=3)
    rng = random.Random(2)
    while not state.is_terminal():
        state.play(state.random_move(rng))
    assert state.render().endswith("; over: each player can only place stones within their own territory")
    white_houses, black_houses = state.details()["territory_houses"]  # seat 0 is White after the swap
    board = state.game.board
    marks = state.ending(["ann", "bob"]).marks
    empty = {name for name in board.names if state.cells[board.index(name)] == -1}
    assert set(marks) == {"territory-white", "territory-black"}
    assert {board.names[c] for c in marks["territory-black"]} == set(black_houses) & empty != set()
    assert {board.names[c] for c in marks["territory-white"]} == set(white_houses) & empty


def test_the_picture_draws_stones_on_points_with_a_mark_for_each_colours_territory():
    picture = game(3).picture()
    state = play("c3 d1", size=3)
    index = state.game.board.index
    assert [picture.codes[state.cells[index(c)]] for c in ("c3", "d1", "e1")] == ["black", "white", ""]
    assert [mark.name for mark in picture.marks] == ["last", "gone", "territory-black", "territory-white"]
    assert picture.layout == "points"


def test_the_check_engine_position_follows_a_capture():
    (position,) = game(3).check_positions(lambda g, seed: g.initial_state(seed))
    state = position.build()
    assert state.details()["captures"] and not state.is_terminal()


def test_the_pair_and_arc_tables_read_a_houses_six_sides_cyclically():
    """Sides A..F are bits 0..5: pair p is complete when both its sides are set (A-B, C-D,
    E-F), and neighbours form one arc when their bits make one cyclic run (F runs on to A).
    The tables are built when the module loads; this asks the functions that build them."""
    patterns = (0b000011, 0b001100, 0b110000, 0b111111, 0b010101, 0b000110, 0b100001)
    assert [hexgo._pairs_of(sides) for sides in patterns] == [0b001, 0b010, 0b100, 0b111, 0, 0, 0]
    patterns = (0, 0b000001, 0b100001, 0b011011, 0b010101, 0b111111, 0b011110)
    assert [hexgo._runs(pattern) for pattern in patterns] == [0, 1, 1, 2, 3, 1, 1]


def test_the_swap_decides_which_seat_holds_each_colour():
    assert (play("e5").seat_of(BLACK), play("e5").seat_of(WHITE)) == (0, 1)
    assert (play("e5 swap").seat_of(BLACK), play("e5 swap").seat_of(WHITE)) == (1, 0)


def test_a_geometry_built_afresh_has_the_tables_every_state_plays_on():
    """The tables of a size are built once and cached (before the first test asks for them);
    building them again gives the very tables the rules tests play on."""
    for size in (3, 5):
        assert vars(hexgo.Geometry(size)) == vars(hexgo.geometry(size))
    geo = hexgo.Geometry(3)
    assert [mask.bit_count() for mask in geo.side_mask] == [3] * 6  # each side of the hexagon has 3 houses


def test_a_drawn_up_position_is_past_the_opening_and_refuses_impossible_lists():
    state = pos("e5", "d4")
    assert "swap" not in state.legal_moves()
    state.play("c3")
    assert "swap" not in state.legal_moves()  # a drawn-up position is past the opening: no swap after its first move
    with pytest.raises(ValueError, match="^'z9' is not a house of this board$"):
        pos("z9")
    with pytest.raises(ValueError, match="^e5 listed twice$"):
        pos("e5 e5")


def test_a_clone_of_a_finished_game_is_finished_for_the_same_reason():
    state = play("c3", size=3)
    rng = random.Random(2)
    while not state.is_terminal():
        state.play(state.random_move(rng))
    other = state.clone()
    assert other.is_terminal() and other.end_reason() == state.end_reason() != "not over"


@pytest.mark.parametrize("size", [2, 13])
def test_the_ply_cap_defaults_to_four_per_house_at_the_smallest_and_largest_sizes(size):
    assert game(size).options.max_plies == 4 * (3 * size * size - 3 * size + 1)


def test_a_drawn_up_position_that_could_not_arise_names_the_stones_at_fault():
    with pytest.raises(ValueError, match=r"^Black stones \['a9'\] can never link a pair"):
        pos(black="a9", white="a8 b8 b9")
    with pytest.raises(ValueError, match=r"^White stones \['h1'\] lie in a region dominated by the other colour"):
        pos(black="g1 g2 h2 i2", white="h1")
