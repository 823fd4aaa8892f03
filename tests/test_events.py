"""Knockout and Swiss events: the bracket and the pairings as functions of the stored games,
tiebreaks against published values, and whole events through `arena run` (real engine
processes, a real SQLite folder, kill -9 and resume, a Dask cluster)."""

from __future__ import annotations

import json
import os
import random
import signal
import subprocess
import time
from collections import Counter
from pathlib import Path

import pytest
from helpers import ROOT, arena_cmd, engine_toml, run_arena, write_tournament

from arena.record import GameRecord
from arena.results.events import (
    Event,
    Match,
    bracket_order,
    most_rounds,
    pair_round,
    plan_event,
    settings_event,
    stored_schedule,
)
from arena.results.export import _event_parts, _points, bracket_lines, event_table
from arena.results.fingerprint import changes, fingerprint
from arena.results.slots import settings_slots
from arena.results.tiebreaks import (
    TIEBREAKS,
    Encounter,
    EventStanding,
    EventSummary,
    bracket_rounds,
    buchholz,
    encounters,
    event_summary,
    games_won,
    round_names,
    scores,
    sonneborn_berger,
    tiebreak_values,
)
from arena.tournament.config import ConfigError, load_tournament, rating_list_order
from arena.tournament.settings import tournament_settings

RANDOM = str(ROOT / "engines" / "random_engine.py")


def slot_game(slot, places: list[int]) -> GameRecord:
    """The game of ``slot`` as the runner stores it, ended with ``places`` (no moves)."""
    return GameRecord(
        game="hex",
        moves=[],
        players=list(slot.seats),
        places=places,
        termination="normal",
        id=slot.index,
        round=slot.round,
        seed=slot.seed,
    )


def played_out(event: Event, places_of) -> tuple[object, dict[int, GameRecord]]:
    """The event played out wave by wave, each new game ending in ``places_of(slot, stored)``."""
    stored: dict[int, GameRecord] = {}
    while True:
        plan = plan_event(event, stored)
        new = [s for s in plan.slots if s.index not in stored]
        if not new:
            return plan, stored
        for s in new:
            stored[s.index] = slot_game(s, places_of(s, stored))


def fake_games(event: Event, seed: int) -> tuple[object, dict[int, GameRecord]]:
    """The event played out with random results (a draw now and then), wave by wave."""
    rng = random.Random(seed)

    def random_places(slot, stored) -> list[int]:
        places = list(range(event.players))
        rng.shuffle(places)
        if event.players == 2 and rng.random() < 0.1:
            places = [0, 0]
        return places

    return played_out(event, random_places)


def meetings(records: list[GameRecord]) -> Counter:
    """How many rounds each pair of engines met in."""
    return Counter(pair for _, pair in {(r.round, frozenset(r.players or ())) for r in records})


# -- the bracket and the pairings ------------------------------------------------


def test_the_bracket_is_the_standard_seeding_with_byes_for_the_top_seeds():
    assert bracket_order(list("abcdefgh")) == list("ahdebgcf")  # 1-8, 4-5, 2-7, 3-6
    assert bracket_order(list("abcde")) == ["a", None, "d", "e", "b", None, "c", None]


def test_the_first_swiss_round_pairs_the_top_half_with_the_bottom_half():
    names = [f"e{k}" for k in range(1, 13)]
    tables, byes = pair_round(names, dict.fromkeys(names, 0.0), 2, set(), set(), dict.fromkeys(names, 0))
    assert tables == [(f"e{k}", f"e{k + 6}") for k in range(1, 7)] and byes == []  # 1-7, 2-8, ... 6-12


@pytest.mark.parametrize("engines", [12, 11, 7])
@pytest.mark.parametrize("both_seats", [True, False])
def test_a_swiss_never_repeats_a_pairing_and_balances_the_seats(engines, both_seats):
    names = tuple(f"e{k}" for k in range(engines))
    rounds = most_rounds(engines, 2)
    for seed in range(3):
        plan, stored = fake_games(Event("swiss", names, 2, rounds, seed, both_seats), seed)
        records = list(stored.values())
        assert plan.finished and max(meetings(records).values()) == 1
        firsts = Counter(r.players[0] for r in records)
        seconds = Counter(r.players[1] for r in records)
        assert all(abs(firsts[n] - seconds[n]) <= 1 for n in names)
        byes = [name for _, name in plan.byes]
        assert len(byes) == (rounds if engines % 2 else 0) and len(set(byes)) == len(byes)
        assert {r.round for r in records} == set(range(rounds))


def test_the_second_round_pairs_within_score_groups():
    """After round 1, engines meet engines of their own score where their groups can pair
    (every group even, and not just two engines that met)."""
    names = tuple(f"e{k}" for k in range(8))
    checked = 0
    for seed in range(10):
        plan, stored = fake_games(Event("swiss", names, 2, 2, seed), seed)
        first = [r for r in stored.values() if r.round == 0]
        score = scores(encounters(first, per_table_round=True), names, {})
        groups = Counter(score.values())
        met = {frozenset(r.players) for r in first}
        lone_pairs = [
            g for g, size in groups.items() if size == 2 and frozenset(n for n in names if score[n] == g) in met
        ]
        if any(size % 2 for size in groups.values()) or lone_pairs:
            continue
        second = [r for r in stored.values() if r.round == 1]
        assert all(score[r.players[0]] == score[r.players[1]] for r in second)
        checked += 1
    assert checked >= 3


def test_the_rounds_a_field_can_always_be_paired_for():
    assert [most_rounds(n, 2) for n in (4, 5, 8, 11, 12)] == [2, 2, 4, 5, 6]
    assert [most_rounds(n, 3) for n in (3, 6, 7, 9, 12, 15)] == [1, 1, 1, 2, 2, 3]
    # seven engines at tables of three: after one round no second can be seated (two groups
    # of three have met, and a table takes at most one of each)
    names = tuple("abcdefg")
    plan, _ = fake_games(Event("swiss", names, 3, 2, 0), 0)
    assert plan.stopped is not None and "after round 1" in plan.stopped


def test_three_seat_swiss_tables_meet_new_engines_every_round():
    names = tuple(f"p{k}" for k in range(10))
    plan, stored = fake_games(Event("swiss", names, 3, most_rounds(10, 3), 2), 3)
    tables = {(r.round, frozenset(r.players)) for r in stored.values()}
    pairs = Counter(frozenset(p) for _, t in tables for p in [(a, b) for a in t for b in t if a < b])
    assert plan.finished and plan.stopped is None and len(tables) == 2 * 3 and max(pairs.values()) == 1
    assert len(plan.byes) == 2 and len({n for _, n in plan.byes}) == 2  # one engine sits out a round, never twice
    seats = Counter((name, seat) for r in stored.values() for seat, name in enumerate(r.players))
    assert all(seats[(n, 0)] == seats[(n, 1)] == seats[(n, 2)] > 0 for n in names)  # every seat order played


def test_a_knockout_of_five_gives_the_top_three_seeds_byes_and_breaks_ties_with_pairs():
    names = tuple("abcde")
    plan, stored = fake_games(Event("knockout", names, 2, 1, 4, tiebreak_pairs=2), 5)
    first = plan.bracket[0]
    assert [(m.high, m.low) for m in first] == [("a", None), ("d", "e"), ("b", None), ("c", None)]
    assert [m.decided_by for m in first if m.low is None] == ["bye"] * 3
    assert plan.finished and plan.winner in names and len(plan.bracket) == 3
    for matches in plan.bracket:
        for m in (m for m in matches if m.low is not None):
            level = m.points[m.high] == m.points[m.low]
            assert m.games == 2 + 2 * m.tiebreak_pairs and m.tiebreak_pairs <= 2
            assert (m.decided_by == "higher seed") == level and (m.winner == m.high if level else True)


def test_a_knockouts_games_and_seeds_are_the_same_from_one_arena_to_the_next():
    """A resumed knockout draws the games it drew before: their seats, tables and seeds (each
    pair of a match shares a seed; each game, tie-break pair and round has its own) are pinned
    here for a match of two rounds with up to two tie-break pairs, as it plays out."""
    plan, _ = fake_games(Event("knockout", tuple("abcde"), 2, 2, 4, tiebreak_pairs=2), 7)
    assert [(s.round, s.table_no, s.seats) for s in plan.slots[::2]] == [(0, 1, ("d", "e"))] * 3 + [
        (1, 0, ("a", "e")),
        (1, 0, ("a", "e")),
        (1, 1, ("b", "c")),
        (1, 1, ("b", "c")),
        (1, 1, ("b", "c")),
    ] + [(2, 0, ("a", "c"))] * 4
    assert all(b.seats == a.seats[::-1] and b.seed == a.seed for a, b in zip(plan.slots[::2], plan.slots[1::2]))
    assert [s.seed for s in plan.slots[::2]] == [
        495624498484571433,  # round 0, table 1: d-e's two pairs, then a tie-break pair
        1728793519153013056,
        5775955181315838700,
        1865552000806709459,  # round 1, table 0: a-e
        1964180972028288590,
        4845367231785130477,  # round 1, table 1: b-c and a tie-break pair
        826479700722753479,
        9159115419027622226,
        4413301585215956972,  # the final: two pairs and two tie-break pairs
        7225083219485708541,
        2875223878922528685,
        2380560417425162938,
    ]
    assert [
        [(m.high, m.low, m.points, m.games, m.tiebreak_pairs, m.decided_by, m.winner) for m in r] for r in plan.bracket
    ] == [
        [
            ("a", None, {}, 0, 0, "bye", "a"),
            ("d", "e", {"d": 2.5, "e": 3.5}, 6, 1, "tie-break games", "e"),
            ("b", None, {}, 0, 0, "bye", "b"),
            ("c", None, {}, 0, 0, "bye", "c"),
        ],
        [
            ("a", "e", {"a": 3.0, "e": 1.0}, 4, 0, "games", "a"),
            ("b", "c", {"b": 2.0, "c": 4.0}, 6, 1, "tie-break games", "c"),
        ],
        [("a", "c", {"a": 5.0, "c": 3.0}, 8, 2, "tie-break games", "a")],
    ]
    assert plan.finished and plan.winner == "a"


def upset_knockout() -> tuple[Event, dict[int, GameRecord]]:
    """Seeds a-d, a match one pair and one tie-break pair: the lower seed wins each game of
    the first round (d beats a, c beats b) and every game of the final is drawn."""
    event = Event("knockout", tuple("abcd"), 2, 1, 0, tiebreak_pairs=1)
    rank = {n: k for k, n in enumerate(event.seeded)}
    stored: dict[int, GameRecord] = {}
    while True:
        new = [s for s in plan_event(event, stored).slots if s.index not in stored]
        if not new:
            return event, stored
        for s in new:
            lower = max(s.seats, key=rank.__getitem__)
            places = [0, 0] if s.round == 1 else [0 if n == lower else 1 for n in s.seats]
            stored[s.index] = GameRecord(
                game="hex", moves=[], players=list(s.seats), places=places, termination="normal", id=s.index
            )


def test_after_upsets_the_better_seed_left_is_a_matchs_high_seed_and_goes_through_on_a_level_match():
    """The final's lines are d then c; c is the better seed left, so it is the match's high
    seed, and when the final is level after its tie-break pair too, c goes through."""
    event, stored = upset_knockout()
    plan = plan_event(event, stored)
    assert [[(m.high, m.low, m.points, m.winner, m.decided_by) for m in r] for r in plan.bracket] == [
        [("a", "d", {"a": 0.0, "d": 2.0}, "d", "games"), ("b", "c", {"b": 0.0, "c": 2.0}, "c", "games")],
        [("c", "d", {"c": 2.0, "d": 2.0}, "c", "higher seed")],
    ]
    assert plan.finished and plan.winner == "c"


def test_a_knockout_match_whose_games_both_engines_forfeited_goes_to_the_higher_seed():
    """Two engines dropped before their match forfeit every game on both seats: neither has
    a point (no result between two offenders), so the match is level, plays its one
    tie-break pair and the higher seed goes through."""
    event = Event("knockout", ("a", "b"), 2, 1, 0, tiebreak_pairs=1)
    stored: dict[int, GameRecord] = {}
    while new := [s for s in plan_event(event, stored).slots if s.index not in stored]:
        for s in new:
            stored[s.index] = GameRecord(
                game="hex", moves=[], players=list(s.seats), places=[1, 1], termination="crash", id=s.index
            )
    plan = plan_event(event, stored)
    assert [(m.high, m.low, m.points, m.games, m.tiebreak_pairs, m.winner, m.decided_by) for m in plan.bracket[0]] == [
        ("a", "b", {"a": 0.0, "b": 0.0}, 4, 1, "a", "higher seed")
    ]


def test_a_knockouts_standings_are_the_winner_then_the_round_each_went_out_in_then_seed():
    """The upset knockout's summary as results.json has it; while the final is unplayed its
    two engines are "playing", ahead of the semi-finals' losers, and no one has won."""
    event, stored = upset_knockout()
    settings = {"format": "knockout", "engines": [{"name": n} for n in "abcd"], "rounds": 1, "seed": 0}
    settings |= {"tiebreak_pairs": 1, "tiebreaks": ["wins"]}
    summary = event_summary(list(stored.values()), "abcd", settings, 2)
    assert summary is not None

    def row(engine: str, score: float, wins: int, reached: str) -> dict[str, object]:
        return {"engine": engine, "score": score, "tiebreaks": {"wins": wins}, "byes": 0, "reached": reached}

    def match(high: str, low: str, points: list[float], games: int, pairs: int, winner: str, by: str) -> dict:
        points_of = {high: points[0], low: points[1]}
        shown = {"high": high, "low": low, "points": points_of, "games": games, "tiebreak_pairs": pairs}
        return {**shown, "winner": winner, "decided_by": by}

    assert summary.as_dict() == {
        "format": "knockout",
        "tiebreaks": ["wins"],
        "finished": True,
        "winner": "c",
        "stopped": None,
        "standings": [row("c", 4.0, 2, "winner"), row("d", 4.0, 2, "final")]
        + [row("a", 0.0, 0, "semi-final"), row("b", 0.0, 0, "semi-final")],
        "bracket": [
            [match("a", "d", [0.0, 2.0], 2, 0, "d", "games"), match("b", "c", [0.0, 2.0], 2, 0, "c", "games")],
            [match("c", "d", [2.0, 2.0], 4, 1, "c", "higher seed")],
        ],
    }
    first_round = [r for r in stored.values() if (r.id or 0) < 4]
    playing = event_summary(first_round, "abcd", settings, 2)
    assert playing is not None and (playing.finished, playing.winner) == (False, None)
    assert [(s.engine, s.reached) for s in playing.standings] == [
        ("c", "playing"),
        ("d", "playing"),
        ("a", "semi-final"),
        ("b", "semi-final"),
    ]


def test_a_wave_is_drawn_only_from_the_waves_before_it():
    """Each wave's games depend on stored games alone: the plan from any prefix of the
    waves is a prefix of the whole event's."""
    names = tuple(f"e{k}" for k in range(9))
    for event in (Event("swiss", names, 2, 5, 3), Event("knockout", names, 2, 1, 3)):
        whole, stored = fake_games(event, 7)
        for cut in range(len(stored)):
            partial = plan_event(event, {i: r for i, r in stored.items() if i < cut})
            assert partial.slots == whole.slots[: len(partial.slots)] and len(partial.slots) >= cut


# -- tiebreaks, against published examples ------------------------------------------


def double_round_robin() -> list[GameRecord]:
    """Sensei's Library's Sonneborn-Berger example (senseis.xmp.net/?SonnebornBerger): four
    players, two rounds, 1 a win. Round 1: A beats B, C, D; B beats C, D; C beats D.
    Round 2: B beats A, A beats C, D beats A, C beats B, B beats D, C beats D."""
    won = [("A", "B"), ("A", "C"), ("A", "D"), ("B", "C"), ("B", "D"), ("C", "D")]
    won2 = [("B", "A"), ("A", "C"), ("D", "A"), ("C", "B"), ("B", "D"), ("C", "D")]
    games = [(0, w, lose) for w, lose in won] + [(1, w, lose) for w, lose in won2]
    return [
        GameRecord(game="hex", moves=[], players=[w, lose], places=[0, 1], termination="normal", id=k, round=rnd)
        for k, (rnd, w, lose) in enumerate(games)
    ]


def test_sonneborn_berger_of_the_published_double_round_robin():
    settings = {"format": "round-robin", "engines": [{"name": n} for n in "ABCD"], "rounds": 2, "seed": 0}
    settings["tiebreaks"] = ["sonneborn-berger", "buchholz", "wins", "direct-encounter"]
    event = event_summary(double_round_robin(), "ABCD", settings, 2)
    assert event is not None
    table = {s.engine: (s.score, s.tiebreaks["sonneborn-berger"]) for s in event.standings}
    assert table == {"A": (4, 11), "B": (4, 9), "C": (3, 6), "D": (1, 4)}  # the page's values
    assert [s.engine for s in event.standings] == ["A", "B", "C", "D"]  # A ahead of B on Sonneborn-Berger
    # Buchholz by its formula (the opponents' scores, each game): A met B, C, D twice
    assert {s.engine: s.tiebreaks["buchholz"] for s in event.standings} == {"A": 16, "B": 16, "C": 18, "D": 22}
    assert {s.engine: s.tiebreaks["direct-encounter"] for s in event.standings}["A"] == 1  # 1 of 2 against B


def test_sonneborn_berger_of_the_published_crosstable_line():
    """Lippstadt 2003 as posted on CCC (stmintz.com/ccc/index.php?id=311435): Maiwald, 14
    points, beat opponents of 10, 9 and 4 points and drew opponents of 14, 12, 11, 9 and 3:
    23 + 49/2 = 47.5 Sonneborn-Berger points."""
    beaten, drawn, lost = [10, 9, 4], [14, 12, 11, 9, 3], [18]
    opponents = [(f"w{k}", s, 1.0) for k, s in enumerate(beaten)] + [(f"d{k}", s, 0.5) for k, s in enumerate(drawn)]
    opponents += [(f"l{k}", s, 0.0) for k, s in enumerate(lost)]
    games = [Encounter("Maiwald", name, k, points) for k, (name, _, points) in enumerate(opponents)]
    score = {name: float(s) for name, s, _ in opponents} | {"Maiwald": 14.0}
    assert sonneborn_berger(games, score, "Maiwald") == 47.5


def test_buchholz_of_the_published_swiss_line():
    """Finn Patel's six rounds in the "Royal Knights Open" case study (blog.chessforkids.in,
    "Chess tournament tiebreaks explained", part 2): opponents finishing on 5, 1.5, 2, 1, 4
    and 2 points give a Buchholz of 5.0 + 1.5 + 2.0 + 1.0 + 4.0 + 2.0 = 15.5 before FIDE's
    adjustment for an opponent's unplayed games (which arena, without unplayed games, has no
    use for); Cut-1 leaves out the 1."""
    line = [("King", 5.0, 0.0), ("Scholar", 1.5, 0.0), ("Novice", 2.0, 1.0)]
    line += [("Rookie", 1.0, 1.0), ("Champion", 4.0, 0.0), ("Tactician", 2.0, 1.0)]
    games = [Encounter("Finn", name, k, points) for k, (name, _, points) in enumerate(line)]
    score = {name: s for name, s, _ in line} | {"Finn": 3.0}
    assert buchholz(games, score, "Finn") == 15.5
    assert buchholz(games, score, "Finn", cut=1) == 14.5
    assert sonneborn_berger(games, score, "Finn") == 2.0 + 1.0 + 2.0  # the three opponents beaten


def test_buchholz_cut1_leaves_out_the_weakest_opponent_and_a_swiss_round_counts_once():
    settings = {"format": "round-robin", "engines": [{"name": n} for n in "ABCD"], "rounds": 2, "seed": 0}
    settings["tiebreaks"] = ["buchholz-cut1"]
    event = event_summary(double_round_robin(), "ABCD", settings, 2)
    assert event is not None
    assert {s.engine: s.tiebreaks["buchholz-cut1"] for s in event.standings} == {"A": 15, "B": 15, "C": 17, "D": 19}
    # A Swiss round played in both seat orders is one encounter: won once and lost once is 1/2
    pair = [
        GameRecord(game="hex", moves=[], players=["x", "y"], places=[0, 1], termination="normal", id=0, round=0),
        GameRecord(game="hex", moves=[], players=["y", "x"], places=[0, 1], termination="normal", id=1, round=0),
    ]
    assert scores(encounters(pair, per_table_round=True), ["x", "y"], {}) == {"x": 0.5, "y": 0.5}


def played(players: list[str], places: list[int], rnd: int, k: int) -> GameRecord:
    game = "posies" if len(players) == 3 else "hex"
    return GameRecord(game=game, moves=[], players=players, places=places, termination="normal", id=k, round=rnd)


def test_every_tiebreak_of_a_three_seat_round_robin_worked_by_hand():
    """Two games of p, q and r in one round: p first and q, r level; then q, r, p in that
    order.  A game's weight of 1 is shared by an engine's two opponents (1/2 each, not per
    round: no Swiss here), so, worked by hand:
    scores p = 1/2 + 1/2 (game 1) = 1, q = 1/4 + 1 = 5/4, r = 1/4 + 1/2 = 3/4;
    Buchholz p = 2 * 1/2 * 5/4 + 2 * 1/2 * 3/4 = 2, q = 1 + 3/4, r = 1 + 5/4 (Cut-1 drops the least);
    Sonneborn-Berger p = 1/2 * 5/4 + 1/2 * 3/4 = 1, q = 1/2 * 1 + 3/4 * 3/4, r = 1/2 * 1 + 1/4 * 5/4;
    wins: p game 1, q game 2, r none."""
    records = [played(["p", "q", "r"], [0, 1, 1], 0, 0), played(["q", "r", "p"], [0, 1, 2], 0, 1)]
    settings = {"format": "round-robin", "engines": [{"name": n} for n in "pqr"], "rounds": 1, "seed": 0}
    event = event_summary(records, "pqr", {**settings, "tiebreaks": list(TIEBREAKS)}, 3)
    assert event is not None
    assert [(s.engine, s.score, s.tiebreaks) for s in event.standings] == [
        (
            "q",
            1.25,
            {"buchholz": 1.75, "buchholz-cut1": 1.0, "sonneborn-berger": 1.0625, "direct-encounter": 0, "wins": 1},
        ),
        ("p", 1.0, {"buchholz": 2.0, "buchholz-cut1": 1.25, "sonneborn-berger": 1.0, "direct-encounter": 0, "wins": 1}),
        (
            "r",
            0.75,
            {"buchholz": 2.25, "buchholz-cut1": 1.25, "sonneborn-berger": 0.8125, "direct-encounter": 0, "wins": 0},
        ),
    ]


def test_swiss_encounters_share_a_rounds_table_and_every_tiebreak_worked_by_hand():
    """Round 0: x beats y, then y draws x (both seat orders: one encounter, each game of
    weight 1/2), z has a bye; round 1: z beats x in one game, y has a bye; v never played.
    Worked by hand: scores x = 1/2 + 1/4 = 3/4, y = 1/4 + 1 (bye) = 5/4, z = 1 + 1 (bye) = 2;
    Buchholz x = 5/4 (round 0) + 2 (round 1), y = z = 3/4 (Cut-1 leaves x the 2 alone);
    Sonneborn-Berger x = 3/4 * 5/4, y = 1/4 * 3/4, z = 1 * 3/4; games won x 1, z 1."""
    records = [played(["x", "y"], [0, 1], 0, 0), played(["y", "x"], [0, 0], 0, 1), played(["z", "x"], [0, 1], 1, 2)]
    games = encounters(records, per_table_round=True)
    assert games == [
        Encounter("x", "y", 0, 0.5, 0.5),
        Encounter("y", "x", 0, 0.0, 0.5),
        Encounter("y", "x", 0, 0.25, 0.5),
        Encounter("x", "y", 0, 0.25, 0.5),
        Encounter("z", "x", 1, 1.0, 1.0),
        Encounter("x", "z", 1, 0.0, 1.0),
    ]
    score = scores(games, ["x", "y", "z", "v"], {"y": 1, "z": 1})
    assert score == {"x": 0.75, "y": 1.25, "z": 2.0, "v": 0.0}
    won = games_won(records)
    assert dict(won) == {"x": 1, "y": 0, "z": 1}
    assert {n: tiebreak_values(games, score, n, TIEBREAKS, won) for n in "xyzv"} == {
        "x": {"buchholz": 3.25, "buchholz-cut1": 2.0, "sonneborn-berger": 0.9375, "direct-encounter": 0, "wins": 1},
        "y": {"buchholz": 0.75, "buchholz-cut1": 0, "sonneborn-berger": 0.1875, "direct-encounter": 0, "wins": 0},
        "z": {"buchholz": 0.75, "buchholz-cut1": 0, "sonneborn-berger": 0.75, "direct-encounter": 0, "wins": 1},
        "v": {"buchholz": 0, "buchholz-cut1": 0, "sonneborn-berger": 0, "direct-encounter": 0, "wins": 0},
    }
    # an engine that played is scored whether or not it is listed, from nothing but its points
    assert scores(games, [], {}) == {"x": 0.75, "y": 0.25, "z": 1.0}


def test_a_swiss_summary_counts_each_tables_round_once_however_many_seat_orders_it_played():
    """Four engines, two Swiss rounds, each table both seat orders (the Dutch pairings: a-c and
    b-d, then a on 1 floats onto b and d-c).  Round 0: a beats c twice, b and d each win their
    first seat; round 1: b beats a twice, d and c each win their first seat.  A round is one
    encounter, its games sharing its weight, so worked by hand:
    scores a = 1 + 0 = 1, b = 1/2 + 1 = 3/2, c = 0 + 1/2 = 1/2, d = 1/2 + 1/2 = 1 (not a
    game's point each: a 2, b 3);
    Buchholz a = S(c) + S(b) = 2, b = S(d) + S(a) = 2, c = S(a) + S(d) = 2, d = S(b) + S(c) = 2,
    Cut-1 drops each one's lesser round: a 3/2, b 1, c 1, d 3/2;
    Sonneborn-Berger a = 1 * 1/2, b = 1/2 * 1 + 1 * 1 = 3/2, c = 1/2 * 1 = 1/2,
    d = 1/2 * 3/2 + 1/2 * 1/2 = 1; a and d level on 1 never met (direct encounter 0);
    games won a 2, b 3, c 1, d 2.  d is ahead of a on Sonneborn-Berger."""
    records = [
        played(["a", "c"], [0, 1], 0, 0),
        played(["c", "a"], [1, 0], 0, 1),
        played(["b", "d"], [0, 1], 0, 2),
        played(["d", "b"], [0, 1], 0, 3),
        played(["a", "b"], [1, 0], 1, 4),
        played(["b", "a"], [0, 1], 1, 5),
        played(["d", "c"], [0, 1], 1, 6),
        played(["c", "d"], [0, 1], 1, 7),
    ]
    settings = {"format": "swiss", "engines": [{"name": n} for n in "abcd"], "rounds": 2, "seed": 0}
    summary = event_summary(records, "abcd", {**settings, "tiebreaks": list(TIEBREAKS)}, 2)
    assert summary is not None

    def row(engine: str, score: float, tiebreaks: list[float]) -> dict[str, object]:
        values = dict(zip(TIEBREAKS, tiebreaks, strict=True))
        return {"engine": engine, "score": score, "tiebreaks": values, "byes": 0, "reached": None}

    assert summary.as_dict() == {
        "format": "swiss",
        "tiebreaks": list(TIEBREAKS),
        "finished": True,
        "winner": None,
        "stopped": None,
        "standings": [
            row("b", 1.5, [2.0, 1.0, 1.5, 0.0, 3]),
            row("d", 1.0, [2.0, 1.5, 1.0, 0.0, 2]),
            row("a", 1.0, [2.0, 1.5, 0.5, 0.0, 2]),
            row("c", 0.5, [2.0, 1.0, 0.5, 0.0, 1]),
        ],
        "bracket": [],
    }


def test_a_swiss_summarys_engines_level_on_everything_go_in_the_events_seed_order_not_the_files():
    """The seeds come from a rating list (d, c, b, a) while the file and the caller list the
    engines a, b, c, d.  The first round pairs d-b and c-a, every game drawn: each engine has
    1/2, Buchholz 1/2 and 1/2 from its level opponent, so the standings are the seed order."""
    records = [
        played(["d", "b"], [0, 0], 0, 0),
        played(["b", "d"], [0, 0], 0, 1),
        played(["c", "a"], [0, 0], 0, 2),
        played(["a", "c"], [0, 0], 0, 3),
    ]
    settings = {"format": "swiss", "engines": [{"name": n} for n in "abcd"], "rounds": 1, "seed": 0}
    settings |= {
        "seeds": {"file": "ratings.toml", "order": list("dcba")},
        "tiebreaks": ["buchholz", "direct-encounter"],
    }
    summary = event_summary(records, "abcd", settings, 2)
    assert summary is not None and summary.finished
    level = {"buchholz": 0.5, "direct-encounter": 0.5}
    assert summary.as_dict()["standings"] == [
        {"engine": n, "score": 0.5, "tiebreaks": level, "byes": 0, "reached": None} for n in "dcba"
    ]


# -- the tournament file --------------------------------------------------------------


def event_file(tmp_path: Path, engines: int, fmt: str, rounds: int, extra: str = "", **kw: object) -> Path:
    names = "abcdefghijklmnop"[:engines]
    listed = "".join(engine_toml(n, "{python}", RANDOM) for n in names)
    return write_tournament(
        tmp_path, listed, rounds=rounds, options="size = 4", extra=f'format = "{fmt}"\n{extra}', seed=5, **kw
    )


def test_seeds_come_from_a_rating_list_and_a_bad_one_is_one_line(tmp_path):
    (tmp_path / "ratings.json").write_text(json.dumps({"d": 2100, "b": 2000, "zz": 1990, "a": 1500}))
    t = load_tournament(event_file(tmp_path, 5, "knockout", 1, 'seeds = "ratings.json"'))
    assert t.seeded == ("d", "b", "a", "c", "e")  # listed ones by rating, then the file's order
    (tmp_path / "ratings.json").write_text('{"engines": "no"}')
    with pytest.raises(ConfigError, match=r"ratings\.json is not a rating list") as err:
        load_tournament(event_file(tmp_path, 5, "knockout", 1, 'seeds = "ratings.json"'))
    assert "\n" not in str(err.value)


def test_an_event_the_game_or_field_cannot_hold_is_refused(tmp_path):
    with pytest.raises(ConfigError, match="without a rematch for 3 rounds at most"):
        load_tournament(event_file(tmp_path, 6, "swiss", 4))
    listed = "".join(engine_toml(n, "{python}", RANDOM) for n in "abcd")
    path = write_tournament(tmp_path, listed, game="posies", options="players = 3", extra='format = "knockout"')
    with pytest.raises(ConfigError, match="a knockout is played between two engines"):
        load_tournament(path)


def test_tiebreaks_may_change_between_runs_and_a_knockout_match_length_may_not(tmp_path):
    a = tournament_settings(load_tournament(event_file(tmp_path, 4, "knockout", 1)))
    b = tournament_settings(load_tournament(event_file(tmp_path, 4, "knockout", 1, 'tiebreaks = ["wins"]')))
    assert fingerprint(a) == fingerprint(b) and changes(a, b) == []  # how the standings are shown
    c = tournament_settings(load_tournament(event_file(tmp_path, 4, "knockout", 2)))
    assert changes(a, c) == ["match_rounds: 1 -> 2"]  # another bracket: refused, not grown
    plain = tournament_settings(
        load_tournament(write_tournament(tmp_path, engine_toml("x", "true") + engine_toml("y", "true")))
    )
    assert not {"seeds", "both_seats", "tiebreak_pairs", "tiebreaks", "match_rounds"} & set(
        plain
    )  # folders made before still resume


# -- whole events through arena run ---------------------------------------------------


def results(out: Path) -> dict:
    return json.loads((out / "results.json").read_text())


def stored(out: Path) -> list[dict]:
    return [json.loads(line) for line in (out / "games.jsonl").read_text().splitlines()]


@pytest.mark.slow
@pytest.mark.timeout(240)
def test_a_knockout_of_five_with_a_bye_plays_to_a_winner(tmp_path):
    path = event_file(tmp_path, 5, "knockout", 1, 'tiebreaks = ["sonneborn-berger"]')
    proc = run_arena("run", path, "--out", tmp_path / "out")
    assert proc.returncode == 0, proc.stderr
    event = results(tmp_path / "out")["event"]
    assert event["format"] == "knockout" and event["finished"] and event["winner"] in "abcde"
    first, semis, final = event["bracket"]
    assert [m["decided_by"] for m in first].count("bye") == 3 and len(semis) == 2 and len(final) == 1
    assert final[0]["winner"] == event["winner"] == event["standings"][0]["engine"]
    games = stored(tmp_path / "out")
    played = {frozenset((m["high"], m["low"])) for r in event["bracket"] for m in r if m["low"]}
    assert {frozenset(g["players"]) for g in games} == played  # every game one of the bracket's matches
    assert sum(m["games"] for r in event["bracket"] for m in r) == len(games)
    assert "Bracket" in proc.stdout and f"winner: {event['winner']}" in proc.stdout
    page = (tmp_path / "out" / "report" / "index.html").read_text()
    assert 'id="bracket"' in page and f"winner: {event['winner']}" in page
    assert "event_score" in (tmp_path / "out" / "standings.csv").read_text().splitlines()[0]
    assert "## Bracket" in (tmp_path / "out" / "standings.md").read_text()


def test_each_wave_of_a_knockout_is_played_on_a_local_pool_of_its_own(tmp_path, monkeypatch):
    """A local pool starts its workers for one list of games: the run opens one for each wave
    of the bracket (five engines: at least the first round's match, the semi-finals and the
    final, and more where a match goes to its tie-break pairs) and closes each before the next."""
    from arena.tournament import runner
    from arena.tournament.local import LocalGames

    pools: list[list[str]] = []

    class Recorded(LocalGames):
        def __init__(self, *args, **kwargs):
            super().__init__(*args, **kwargs)
            pools.append(["opened"])

        def close(self):
            pools[-1].append("closed")
            super().close()

    monkeypatch.setattr(runner, "LocalGames", Recorded)
    summary = runner.run_tournament(load_tournament(event_file(tmp_path, 5, "knockout", 1)), tmp_path / "out")
    assert summary.played > 0 and len(pools) >= 3 and all(pool == ["opened", "closed"] for pool in pools), pools


@pytest.mark.slow
@pytest.mark.timeout(300)
@pytest.mark.parametrize("fmt,engines,rounds", [("swiss", 7, 3), ("knockout", 8, 1)])
def test_kill_9_mid_event_and_resume_pairs_the_same_and_replays_nothing(tmp_path, fmt, engines, rounds):
    """Random engines play the same game from the same seed, so a straight run is the
    truth: killed with -9 mid-event and resumed, the same games with the same pairings."""
    (tmp_path / "a").mkdir()
    (tmp_path / "b").mkdir()
    straight = run_arena("run", event_file(tmp_path / "a", engines, fmt, rounds), "--out", tmp_path / "a" / "out", "-q")
    assert straight.returncode == 0, straight.stderr
    truth = sorted(stored(tmp_path / "a" / "out"), key=lambda g: g["id"])  # stored as they finished
    path, out = event_file(tmp_path / "b", engines, fmt, rounds, workers=1), tmp_path / "b" / "out"
    first = subprocess.Popen(
        arena_cmd("run", path, "--out", out, "-q"),
        cwd=ROOT,
        start_new_session=True,
        stdout=subprocess.DEVNULL,
        stderr=subprocess.DEVNULL,
    )
    deadline = time.monotonic() + 120
    midway = len(truth) // 2  # past the first wave
    while not ((out / "games.jsonl").exists() and len(stored(out)) >= midway):
        assert time.monotonic() < deadline and first.poll() is None
        time.sleep(0.02)
    os.kill(first.pid, signal.SIGKILL)
    first.wait()
    before = {g["id"]: g for g in stored(out)}
    assert len(before) < len(truth)
    resumed = run_arena("run", path, "--out", out, "-q")
    assert resumed.returncode == 0, resumed.stderr
    assert "resumed from an earlier run" in resumed.stdout
    after = stored(out)
    assert len(after) == len({g["id"] for g in after})  # each game once
    assert all(g == before[g["id"]] for g in after if g["id"] in before)  # the stored ones untouched
    same = lambda games: [(g["id"], g["round"], g["players"], g["seed"], g["moves"]) for g in games]  # noqa: E731
    assert same(sorted(after, key=lambda g: g["id"])) == same(truth)
    assert results(out)["event"] == results(tmp_path / "a" / "out")["event"]


@pytest.mark.slow
@pytest.mark.timeout(240)
def test_a_swiss_from_the_command_line_has_no_repeated_pairing_and_balanced_seats(tmp_path):
    engines = [item for n in "abcdefg" for item in ("--engine", f"name={n}", "cmd={python} -m engines.random_engine")]
    proc = run_arena(
        "run", "--game", "hex", "-O", "size=4", *engines, "--each", "st=2", "--rounds", "3", "--format", "swiss",
        "--tiebreaks", "buchholz,buchholz-cut1,sonneborn-berger", "--out", tmp_path / "out", "-q",
    )  # fmt: skip
    assert proc.returncode == 0, proc.stderr
    games = stored(tmp_path / "out")
    tables = {(g["round"], frozenset(g["players"])) for g in games}
    assert len(tables) == 3 * 3 and len({t for _, t in tables}) == 9  # no pair met twice
    seats = Counter((name, seat) for g in games for seat, name in enumerate(g["players"]))
    assert all(seats[(n, 0)] == seats[(n, 1)] for n in "abcdefg")  # both seat orders of every table
    event = results(tmp_path / "out")["event"]
    assert event["finished"] and sum(s["byes"] for s in event["standings"]) == 3
    assert event["tiebreaks"] == ["buchholz", "buchholz-cut1", "sonneborn-berger"]
    assert 'format = "swiss"' in (tmp_path / "out" / "tournament.toml").read_text()
    assert "Swiss standings" in proc.stdout


@pytest.mark.slow
@pytest.mark.timeout(400)
def test_a_knockout_on_a_dask_cluster_is_the_local_one(tmp_path):
    """Its waves on one cluster, kept up between them: the games of a local run."""
    path = event_file(tmp_path, 4, "knockout", 1)
    local = run_arena("run", path, "--out", tmp_path / "local", "-q")
    assert local.returncode == 0, local.stderr
    remote = run_arena("run", path, "--out", tmp_path / "cluster", "--cluster", "local:2", "-q", timeout=380)
    assert remote.returncode == 0, remote.stderr
    assert "Traceback" not in remote.stderr
    assert results(tmp_path / "cluster")["event"] == results(tmp_path / "local")["event"]
    moves = lambda out: sorted((g["id"], g["players"], g["moves"]) for g in stored(out))  # noqa: E731
    assert moves(tmp_path / "cluster") == moves(tmp_path / "local")


@pytest.mark.slow
@pytest.mark.timeout(240)
def test_a_three_seat_posies_swiss_sits_at_tables_of_three(tmp_path):
    listed = "".join(engine_toml(n, "{python}", RANDOM) for n in "abcdefg")
    extra = 'format = "swiss"\ntiebreaks = ["buchholz"]'
    path = write_tournament(tmp_path, listed, game="posies", options="players = 3", extra=extra)
    proc = run_arena("run", path, "--out", tmp_path / "out", "-q")
    assert proc.returncode == 0, proc.stderr
    games = stored(tmp_path / "out")
    tables = Counter(frozenset(g["players"]) for g in games)
    assert len(tables) == 2 and all(len(t) == 3 and n == 6 for t, n in tables.items())  # every seat order
    event = results(tmp_path / "out")["event"]
    assert [s["engine"] for s in event["standings"] if s["byes"]] == ["g"]  # the lowest seed sits out
    assert event["finished"] and event["stopped"] is None


@pytest.mark.parametrize(
    "doc,order",
    [
        ({"engines": [{"name": "b"}, {"name": "a"}]}, ["b", "a"]),  # arena ratings --format json
        ({"standings": [{"engine": "c"}, {"engine": "a"}]}, ["c", "a"]),  # a results.json's standings
        ({"engines": [{"engine": "x"}], "standings": [{"engine": "y"}]}, ["x"]),
        ({"a": 1500, "b": 2100.5}, ["b", "a"]),
    ],
)
def test_a_rating_list_is_read_in_each_of_its_forms(tmp_path, doc, order):
    (tmp_path / "r.json").write_text(json.dumps(doc))
    assert rating_list_order(tmp_path / "r.json", "t.toml: seeds") == order


@pytest.mark.parametrize(
    "text,message",
    [
        (None, "t.toml: seeds: no such rating list {path}"),
        ("{", "t.toml: seeds: {path} is not a JSON rating list (Expecting property name"),
        ('{"a": "b"}', "t.toml: seeds: {path} is not a rating list: give 'arena ratings --format json' output"),
        ("[1, 2]", "t.toml: seeds: {path} is not a rating list: give"),
        ('{"engines": [{"name": 3}]}', "t.toml: seeds: {path} is not a rating list: give"),
        ('{"engines": [1]}', "t.toml: seeds: {path} is not a rating list: give"),
    ],
)
def test_a_rating_list_that_is_none_is_refused_naming_the_key_and_the_file(tmp_path, text, message):
    path = tmp_path / "r.json"
    if text is not None:
        path.write_text(text)
    with pytest.raises(ConfigError) as err:
        rating_list_order(path, "t.toml: seeds")
    assert str(err.value).startswith(message.format(path=path)), err.value


# -- an event's standings, bracket and what the outputs show of them (no engine) ----------


def decided_games(event: Event, winner_of) -> tuple[object, dict[int, GameRecord]]:
    """The event played out wave by wave, each game won by ``winner_of(slot, stored)``."""
    return played_out(event, lambda s, stored: [0, 1] if s.seats[0] == winner_of(s, stored) else [1, 0])


def knockout_winner(slot, stored: dict[int, GameRecord]) -> str:
    """Five engines: d and e level after their tie-break pair (d through as the higher seed),
    a beats d, c beats b, and the final level until a wins its tie-break pair."""
    pair = frozenset(slot.seats)
    before = sum(frozenset(r.players or ()) == pair for r in stored.values())
    if pair == {"b", "c"}:
        return "c"
    if pair == {"a", "d"} or (pair == {"a", "c"} and before >= 2):
        return "a"
    return slot.seats[0]  # the first seat wins: the match stays level


KNOCKOUT = {
    "format": "knockout",
    "engines": [{"name": n} for n in "abcde"],
    "rounds": 1,
    "seed": 4,
    "tiebreak_pairs": 1,
    "tiebreaks": ["wins"],
}


def knockout_of_five() -> tuple[object, list[GameRecord]]:
    plan, stored = decided_games(Event("knockout", tuple("abcde"), 2, 1, 4, tiebreak_pairs=1), knockout_winner)
    return plan, [stored[k] for k in sorted(stored)]


def test_a_knockouts_standings_go_by_the_round_each_engine_reached_then_seed():
    _, records = knockout_of_five()
    event = event_summary(records, "abcde", KNOCKOUT, 2)
    assert event is not None
    assert event.as_dict() == {
        "format": "knockout",
        "tiebreaks": ["wins"],
        "finished": True,
        "winner": "a",
        "stopped": None,
        "standings": [
            {"engine": "a", "score": 5.0, "tiebreaks": {"wins": 5.0}, "byes": 0, "reached": "winner"},
            {"engine": "c", "score": 3.0, "tiebreaks": {"wins": 3.0}, "byes": 0, "reached": "final"},
            {"engine": "b", "score": 0.0, "tiebreaks": {"wins": 0.0}, "byes": 0, "reached": "semi-final"},
            {"engine": "d", "score": 2.0, "tiebreaks": {"wins": 2.0}, "byes": 0, "reached": "semi-final"},
            {"engine": "e", "score": 2.0, "tiebreaks": {"wins": 2.0}, "byes": 0, "reached": "quarter-final"},
        ],
        "bracket": [
            [
                {"high": "a", "low": None, "points": {}, "games": 0, "tiebreak_pairs": 0}
                | {"winner": "a", "decided_by": "bye"},
                {"high": "d", "low": "e", "points": {"d": 2.0, "e": 2.0}, "games": 4, "tiebreak_pairs": 1}
                | {"winner": "d", "decided_by": "higher seed"},
                {"high": "b", "low": None, "points": {}, "games": 0, "tiebreak_pairs": 0}
                | {"winner": "b", "decided_by": "bye"},
                {"high": "c", "low": None, "points": {}, "games": 0, "tiebreak_pairs": 0}
                | {"winner": "c", "decided_by": "bye"},
            ],
            [
                {"high": "a", "low": "d", "points": {"a": 2.0, "d": 0.0}, "games": 2, "tiebreak_pairs": 0}
                | {"winner": "a", "decided_by": "games"},
                {"high": "b", "low": "c", "points": {"b": 0.0, "c": 2.0}, "games": 2, "tiebreak_pairs": 0}
                | {"winner": "c", "decided_by": "games"},
            ],
            [
                {"high": "a", "low": "c", "points": {"a": 3.0, "c": 1.0}, "games": 4, "tiebreak_pairs": 1}
                | {"winner": "a", "decided_by": "tie-break games"},
            ],
        ],
    }
    # A match not decided yet says so: decided_by is null, not ""
    assert Match("a", "b").as_dict() == {
        "high": "a",
        "low": "b",
        "points": {},
        "games": 0,
        "tiebreak_pairs": 0,
        "winner": None,
        "decided_by": None,
    }


def test_a_knockout_under_way_shows_the_engines_still_playing_and_the_matches_to_play():
    _, records = knockout_of_five()
    final = min(r.id for r in records if r.round == 2)
    event = event_summary([r for r in records if r.id < final], "abcde", KNOCKOUT, 2)
    assert event is not None and not event.finished and event.winner is None
    assert [(s.engine, s.reached) for s in event.standings] == [
        ("a", "playing"),
        ("c", "playing"),
        ("b", "semi-final"),
        ("d", "semi-final"),
        ("e", "quarter-final"),
    ]
    assert bracket_lines(event)[-1] == "final: a to play c"  # no winner line yet
    title, bracket = _event_parts(event, "table", "simple", None)
    assert title.startswith("Knockout standings (so far)\nrank    engine")
    assert bracket.endswith("\nsemi-final: b 0-2 c, c through on games\nfinal: a to play c")
    # one tie-break pair of the final stored, the other not: the final is level, 1-1
    level = event_summary([r for r in records if r.id < final + 2], "abcde", KNOCKOUT, 2)
    assert level is not None and bracket_lines(level)[-1] == "final: a 1-1 c"


def test_a_knockout_reads_as_tables_and_bracket_in_markdown_and_the_terminal():
    _, records = knockout_of_five()
    event = event_summary(records, "abcde", KNOCKOUT, 2)
    assert event is not None
    assert event_table(event) == (
        ["rank", "engine", "score", "wins", "reached"],
        [
            [1, "a", 5.0, 5.0, "winner"],
            [2, "c", 3.0, 3.0, "final"],
            [3, "b", 0.0, 0.0, "semi-final"],
            [4, "d", 2.0, 2.0, "semi-final"],
            [5, "e", 2.0, 2.0, "quarter-final"],
        ],
    )
    bracket = [
        "quarter-final: a (bye)",
        "quarter-final: d 2-2 e, d through on higher seed",
        "quarter-final: b (bye)",
        "quarter-final: c (bye)",
        "semi-final: a 2-0 d, a through on games",
        "semi-final: b 0-2 c, c through on games",
        "final: a 3-1 c, a through on tie-break games",
        "winner: a",
    ]
    assert bracket_lines(event) == bracket
    assert _event_parts(event, "md", "github", None) == [
        "## Knockout standings\n\n"
        "| rank   | engine   | score   | wins   | reached       |\n"
        "|--------|----------|---------|--------|---------------|\n"
        "| 1      | a        | 5.0     | 5.0    | winner        |\n"
        "| 2      | c        | 3.0     | 3.0    | final         |\n"
        "| 3      | b        | 0.0     | 0.0    | semi-final    |\n"
        "| 4      | d        | 2.0     | 2.0    | semi-final    |\n"
        "| 5      | e        | 2.0     | 2.0    | quarter-final |",
        "## Bracket\n\n" + "\n".join(f"- {line}" for line in bracket),
    ]
    table = (
        "Knockout standings\n"
        "rank    engine    score    wins    reached\n"
        "------  --------  -------  ------  -------------\n"
        "1       a         5.0      5.0     winner\n"
        "2       c         3.0      3.0     final\n"
        "3       b         0.0      0.0     semi-final\n"
        "4       d         2.0      2.0     semi-final\n"
        "5       e         2.0      2.0     quarter-final"
    )
    assert _event_parts(event, "table", "simple", None) == [table, "Bracket\n" + "\n".join(bracket)]
    # fitted to 30 columns: the table as it is (it cannot be narrower), the bracket's lines wrapped
    narrow = _event_parts(event, "table", "simple", 30)
    assert narrow[0] == table
    # one column narrower than the table: its last column (text) wrapped to fit
    assert _event_parts(event, "table", "simple", 47)[0].splitlines()[-2:] == [
        "5       e         2.0      2.0     quarter-",
        "                                   final",
    ]
    assert narrow[1].splitlines()[:4] == [
        "Bracket",
        "quarter-final: a (bye)",
        "quarter-final: d 2-2 e, d",
        "  through on higher seed",
    ]


def test_a_swiss_event_stopped_early_shows_its_byes_and_why():
    stopped = "the event ended after round 1: no pairing of 7 engines is left without a rematch"
    event = EventSummary(
        "swiss",
        ("buchholz", "sonneborn-berger"),
        [EventStanding("x", 2 / 3, {"buchholz": 1 / 3, "sonneborn-berger": 1.005}, byes=1), EventStanding("y", 0.5)],
        finished=False,
        stopped=stopped,
    )
    event.standings[1].tiebreaks = {"buchholz": 0.0, "sonneborn-berger": 12.3456}
    assert event_table(event) == (
        ["rank", "engine", "score", "buchholz", "sonneborn-berger", "byes"],
        [[1, "x", 0.67, 0.33, 1.0, 1], [2, "y", 0.5, 0.0, 12.35, 0]],
    )
    (md,) = _event_parts(event, "md", "github", None)
    assert md.startswith("## Swiss standings (so far)\n\n| rank ")
    assert md.endswith("| 12.35              | 0      |\n\n" + stopped)
    (plain,) = _event_parts(event, "table", "simple", 40)
    assert plain.startswith("Swiss standings (so far)\n") and plain.endswith(
        "\n\nthe event ended after round 1: no\n  pairing of 7 engines is left without a\n  rematch"
    )
    assert event.as_dict()["standings"] == [
        {"engine": "x", "score": 2 / 3, "tiebreaks": {"buchholz": 1 / 3, "sonneborn-berger": 1.005}, "byes": 1}
        | {"reached": None},
        {"engine": "y", "score": 0.5, "tiebreaks": {"buchholz": 0.0, "sonneborn-berger": 12.3456}, "byes": 0}
        | {"reached": None},
    ]
    assert event.as_dict()["stopped"] == stopped and event.as_dict()["finished"] is False
    assert event.as_dict()["bracket"] == [] and event.as_dict()["tiebreaks"] == ["buchholz", "sonneborn-berger"]


def test_rounds_are_named_from_the_final_back_and_points_as_numbers():
    assert round_names(0) == []
    assert round_names(1) == ["final"]
    assert round_names(3) == ["quarter-final", "semi-final", "final"]
    assert round_names(5) == ["round 1", "round 2", "quarter-final", "semi-final", "final"]
    assert [_points(None), _points(1.5), _points(2.0), _points(0.0)] == ["0", "1.5", "2", "0"]


def test_a_brackets_rounds_are_counted_from_its_first_round_and_an_empty_bracket_has_none():
    """A first round of m matches has 2m lines, halved each round down to the final: a final
    alone is one round, two semi-finals two, four quarter-finals three (however many of the
    later rounds are drawn yet)."""
    assert bracket_rounds([]) == 0
    assert bracket_rounds([[Match("a", "b")]]) == 1
    assert bracket_rounds([[Match("a", "d"), Match("b", "c")]]) == 2
    quarters = [Match("a", "h"), Match("d", "e"), Match("b", "g"), Match("c", "f")]
    assert bracket_rounds([quarters]) == 3
    assert bracket_rounds([quarters, [Match("a", "d"), Match("b", "c")]]) == 3


def test_an_events_expected_games_are_the_whole_event_until_it_is_finished():
    names = tuple(f"e{k}" for k in range(7))
    assert plan_event(Event("swiss", names, 2, 3, 0), {}).expected_games() == 3 * 3 * 2
    assert plan_event(Event("swiss", names, 2, 3, 0, both_seats=False), {}).expected_games() == 3 * 3
    assert plan_event(Event("swiss", names, 3, 2, 0), {}).expected_games() == 2 * 2 * 6
    assert plan_event(Event("knockout", names[:5], 2, 2, 0), {}).expected_games() == 4 * 2 * 2
    assert plan_event(Event("knockout", names[:5], 2, 1, 0, both_seats=False), {}).expected_games() == 4 * 2
    plan, _ = knockout_of_five()
    assert plan.finished and plan.expected_games() == len(plan.slots) == 12  # with its 4 tie-break games
    # a match level after its games: the tie-break pair drawn counts though the full count is less
    level, stored = decided_games(Event("knockout", ("a", "b"), 2, 1, 0, tiebreak_pairs=3), lambda s, _: s.seats[0])
    partial = plan_event(level.event, {k: r for k, r in stored.items() if k < 2})
    assert not partial.finished and len(partial.slots) == 4 and partial.expected_games() == 4


def test_a_folders_schedule_is_the_static_formats_or_the_events_so_far():
    static = {"format": "round-robin", "engines": [{"name": n} for n in "abc"], "rounds": 2, "seed": 9}
    assert stored_schedule(static, 2, []) == settings_slots(static, 2) and len(settings_slots(static, 2)) == 6 * 2
    plan, records = knockout_of_five()
    assert stored_schedule(KNOCKOUT, 2, []) == plan.slots[:2]  # the first wave: d and e
    assert stored_schedule(KNOCKOUT, 2, records) == plan.slots
    assert (
        stored_schedule({**KNOCKOUT, "format": "swiss", "rounds": 1}, 2, [])
        == plan_event(Event("swiss", tuple("abcde"), 2, 1, 4, tiebreak_pairs=1), {}).slots
    )


def test_a_knockouts_rounds_are_named_by_their_place_in_the_whole_bracket_while_it_is_drawn():
    """Only the first round drawn: it is the quarter-final of five engines (three rounds),
    not "the final" because no later round is drawn yet."""
    _, records = knockout_of_five()
    event = event_summary(records[:1], "abcde", KNOCKOUT, 2)
    assert event is not None and len(event.bracket) == 1 and not event.finished
    assert bracket_lines(event) == [
        "quarter-final: a (bye)",
        "quarter-final: d to play e",
        "quarter-final: b (bye)",
        "quarter-final: c (bye)",
    ]
    assert [s.reached for s in event.standings] == ["playing"] * 5
    first = event_summary(records[:4], "abcde", KNOCKOUT, 2)  # d and e done, the semi-finals drawn
    assert first is not None and len(first.bracket) == 2
    assert [(s.engine, s.reached) for s in first.standings][-1] == ("e", "quarter-final")
    assert bracket_lines(first)[-2:] == ["semi-final: a to play d", "semi-final: b to play c"]


def test_a_knockout_won_by_the_lower_seed_lists_the_winner_first():
    settings = {**KNOCKOUT, "engines": [{"name": "a"}, {"name": "b"}]}
    _, stored = decided_games(Event("knockout", ("a", "b"), 2, 1, 4, tiebreak_pairs=1), lambda s, _: "b")
    event = event_summary(list(stored.values()), "ab", settings, 2)
    assert event is not None and event.winner == "b"
    assert [(s.engine, s.reached, s.score) for s in event.standings] == [("b", "winner", 2.0), ("a", "final", 0.0)]
    assert bracket_lines(event) == ["final: a 0-2 b, b through on games", "winner: b"]


# -- whole Swiss pairings of small events, worked by hand --------------------------------


def seatings(plan) -> list[tuple[int, int, str]]:
    """Each game drawn: (round, table, its engines in seat order)."""
    return [(s.round, s.table_no, "".join(s.seats)) for s in plan.slots]


def better_seed_wins(slot, stored) -> str:
    return min(slot.seats)  # the engines are named in seed order


def test_a_swiss_of_six_one_game_a_table_the_better_seed_winning_is_paired_and_seated_as_worked_by_hand():
    """Round 0: 1-4, 2-5, 3-6, the better seed first on an even round (a, b, c are one first
    seat up).  Round 1: a, b, c lead, but any two of them would both be a first seat up: the
    group joins the next and the first arrangement of the bottom half that meets no one twice
    and breaks no seat rule is e, f, d; the engine a seat up gives the first seat (e-a, f-b,
    d-c; all level).  Round 2: a, b, c lead again: a-b, and c floats to d, e, f, where c-e and
    d-f are the first pairs not met; level seats on an even round: the better-ranked first."""
    plan, _ = decided_games(Event("swiss", tuple("abcdef"), 2, 3, 7, both_seats=False), better_seed_wins)
    assert seatings(plan) == [
        (0, 0, "ad"),
        (0, 1, "be"),
        (0, 2, "cf"),
        (1, 0, "ea"),
        (1, 1, "fb"),
        (1, 2, "dc"),
        (2, 0, "ab"),
        (2, 1, "ce"),
        (2, 2, "df"),
    ]
    assert plan.byes == [] and plan.finished and plan.stopped is None


def test_a_swisss_games_keep_the_seeds_they_were_drawn_with():
    """A folder made before resumes with the seeds its games were played with: each table of
    each round has its own seed (both seat orders share it), a function of the master seed,
    the round and the table alone, pinned here as arena has always drawn them."""
    plan, _ = decided_games(Event("swiss", tuple("abcdef"), 2, 3, 7, both_seats=False), better_seed_wins)
    assert [s.seed for s in plan.slots] == [
        4616851747209636101,  # round 0, tables 0 to 2
        6005574462629144922,
        7899081635422076762,
        2201358819916400419,  # round 1
        8130346933033334249,
        2524964536509445502,
        7325596083623816133,  # round 2
        3218781423888908442,
        292781670485616540,
    ]
    both = plan_event(Event("swiss", tuple("abcdef"), 2, 1, 7), {})
    assert [s.seed for s in both.slots] == [4616851747209636101] * 2 + [6005574462629144922] * 2 + [
        7899081635422076762
    ] * 2
    other = plan_event(Event("swiss", tuple("abcdef"), 2, 1, 8), {})
    assert not {s.seed for s in other.slots} & {s.seed for s in both.slots}  # another master seed, other seeds


def test_a_swiss_of_five_one_game_a_table_the_second_seat_winning_keeps_the_seat_rule_for_engines_a_second_seat_up():
    """Round 0: e (the lowest) has the bye, a-c and b-d with the better seed first; c and d
    win.  Round 1: c, d and e lead on 1; b, the lowest without a bye, sits out.  c and d
    were both a second seat up (one more second than first seat), so they may not meet: c
    meets e, who has had no seat, and d floats to a; the engine that has had the first seat
    less (c against e, d against a) takes it."""
    plan, _ = decided_games(Event("swiss", tuple("abcde"), 2, 2, 7, both_seats=False), lambda s, _: s.seats[1])
    assert seatings(plan) == [(0, 0, "ac"), (0, 1, "bd"), (1, 0, "ce"), (1, 1, "da")]
    assert plan.byes == [(0, "e"), (1, "b")] and plan.finished


def test_a_swiss_of_five_counts_a_bye_as_a_win_and_a_table_of_two_games_as_one_round():
    """Both seat orders a table.  Round 0: e's bye; a beats c and b beats d twice, so a, b and
    e lead on 1 (a won round is 1, as a bye is), then c and d on 0; d, the lowest without a
    bye, sits out round 1: a-b, and e floats to c."""
    plan, _ = decided_games(Event("swiss", tuple("abcde"), 2, 2, 7), better_seed_wins)
    assert seatings(plan) == [
        (0, 0, "ac"),
        (0, 0, "ca"),
        (0, 1, "bd"),
        (0, 1, "db"),
        (1, 0, "ab"),
        (1, 0, "ba"),
        (1, 1, "ec"),
        (1, 1, "ce"),
    ]
    assert plan.byes == [(0, "e"), (1, "d")]


def test_a_swiss_of_five_whose_tables_split_their_two_games_puts_the_bye_alone_on_top():
    """Both seat orders a table, the first seat winning: every table is 1-1, so a to d have
    1/2 each and e, with its bye, 1.  Round 1: d sits out; e alone on top joins the next
    group, e, a against b, c: a-c have met, so the bottom half is transposed: e-c and a-b."""
    plan, _ = decided_games(Event("swiss", tuple("abcde"), 2, 2, 7), lambda s, _: s.seats[0])
    assert seatings(plan)[4:] == [(1, 0, "ec"), (1, 0, "ce"), (1, 1, "ab"), (1, 1, "ba")]
    assert plan.byes == [(0, "e"), (1, "d")]


def test_a_swiss_of_seven_all_drawn_gives_each_bye_once_and_floats_the_bye_engines():
    """Every game drawn, both seat orders: a round is 1/2 to each engine, a bye 1.
    Round 0: g's bye; a-d, b-e, c-f.  Round 1: g leads alone (1) and f sits out; g, a, b
    meet c, d, e where none has met: g-c, a-e, b-d (a-d met, so the bottom transposed).
    Round 2: f and g lead on 3/2 (e, the lowest without a bye, sits out) but f-g leaves a,
    b, c, d unpairable (b-d met, a-d met), so the groups join: f, g, a against b, c, d, and
    the first arrangement without a rematch is f-b, g-d, a-c."""
    plan, _ = played_out(Event("swiss", tuple("abcdefg"), 2, 3, 7), lambda s, _: [0, 0])
    assert seatings(plan)[::2] == [
        (0, 0, "ad"),
        (0, 1, "be"),
        (0, 2, "cf"),
        (1, 0, "gc"),
        (1, 1, "ae"),
        (1, 2, "bd"),
        (2, 0, "fb"),
        (2, 1, "gd"),
        (2, 2, "ac"),
    ]
    assert all(b == (r, t, s[::-1]) for (r, t, s), b in zip(seatings(plan)[::2], seatings(plan)[1::2]))
    assert plan.byes == [(0, "g"), (1, "f"), (2, "e")]


def test_a_three_seat_swiss_of_five_gives_byes_to_the_two_lowest():
    plan = plan_event(Event("swiss", tuple("abcde"), 3, 1, 7), {})
    assert plan.byes == [(0, "e"), (0, "d")]
    assert seatings(plan) == [(0, 0, "".join(p)) for p in ("abc", "acb", "bac", "bca", "cab", "cba")]


def test_the_seat_rule_is_dropped_only_when_no_pairing_keeps_it():
    """a and b both had the first seat once more than the second, c and d the second: every
    pairing without a rematch (a-b with c-d) breaks the rule, so it is taken all the same."""
    names = ["a", "b", "c", "d"]
    met = {frozenset(p) for p in ("ac", "ad", "bc", "bd")}
    first_seats = {"a": 1, "b": 1, "c": -1, "d": -1}
    assert pair_round(names, dict.fromkeys(names, 1.0), 2, met, set(), first_seats) == ([("a", "b"), ("c", "d")], [])


def test_a_three_seat_swiss_of_seven_stops_after_one_round_and_says_why():
    plan = plan_event(Event("swiss", tuple("abcdefg"), 3, 2, 7), {})
    stored = {s.index: slot_game(s, [0, 1, 2]) for s in plan.slots}
    stopped = plan_event(Event("swiss", tuple("abcdefg"), 3, 2, 7), stored)
    assert stopped.stopped == "the event ended after round 1: no pairing of 7 engines is left without a rematch"
    assert stopped.finished and stopped.slots == plan.slots and stopped.byes == [(0, "g")]


def test_a_swiss_of_nine_all_drawn_one_game_a_table_keeps_the_seat_rule_in_its_last_round_over_the_groups():
    """Every game drawn, one game a table (a game 1/2, a bye 1); byes i, h, g, f in turn.
    Round 0: a-e, b-f, c-g, d-h, the better seed first: a-d a first seat up, e-h one down.
    Round 1: i leads alone and joins the rest: i, a, b, c against d, e, f, g; the first
    arrangement without a rematch or two engines a seat up is d, f, g, e, the one with fewer
    first seats first (i-d, f-a, g-b, e-c): all level but i (up) and h (bye).
    Round 2: h-i on 3/2 (h, down, first), then a, b, c against d, e, f in order (level, the
    better seed first on an even round).  Round 3: g, h, i on 2 and a to e on 3/2 (f sits
    out): no arrangement of the groups, even joined, avoids both rematches and a pair of
    engines a first seat up (a-c, a-b), so any pairing keeping the seat rule is taken, the
    best-ranked first: g-a, h-b, i-e, c-d; i and c, a seat up, give the first seat."""
    plan, _ = played_out(Event("swiss", tuple("abcdefghi"), 2, 4, 7, both_seats=False), lambda s, _: [0, 0])
    assert seatings(plan) == [
        (0, 0, "ae"),
        (0, 1, "bf"),
        (0, 2, "cg"),
        (0, 3, "dh"),
        (1, 0, "id"),
        (1, 1, "fa"),
        (1, 2, "gb"),
        (1, 3, "ec"),
        (2, 0, "hi"),
        (2, 1, "ad"),
        (2, 2, "be"),
        (2, 3, "cf"),
        (3, 0, "ga"),
        (3, 1, "hb"),
        (3, 2, "ei"),
        (3, 3, "dc"),
    ]
    assert plan.byes == [(0, "i"), (1, "h"), (2, "g"), (3, "f")]


def test_a_swiss_of_exactly_the_most_rounds_its_field_can_pair_is_played_and_one_more_refused(tmp_path):
    """Four engines at tables of two meet without a rematch for n/2 = 2 rounds, always: two
    rounds are a Swiss event, a third is refused in one line saying the most."""
    t = load_tournament(event_file(tmp_path, 4, "swiss", 2))
    assert t.event is not None and (t.event.format, t.event.rounds) == ("swiss", 2)
    path = event_file(tmp_path, 4, "swiss", 3)
    with pytest.raises(ConfigError) as err:
        load_tournament(path)
    assert str(err.value) == (
        f"{path}: rounds: a swiss of 4 engines at tables of 2 can always be paired without a rematch for 2 rounds "
        "at most; lower rounds (or play a round-robin)"
    )


def test_a_tournament_built_without_a_seed_order_seeds_its_engines_in_the_files_order(tmp_path):
    from arena.tournament.config import Tournament

    loaded = load_tournament(event_file(tmp_path, 4, "knockout", 1))
    t = Tournament(loaded.path, loaded.data, loaded.game, loaded.engines)
    assert t.seeded == ("a", "b", "c", "d") and t.event is not None and t.event.seeded == ("a", "b", "c", "d")


def test_a_folders_settings_hold_the_rating_list_and_the_seed_order_it_gave(tmp_path):
    """The seeds are the order the list gives (a rating list rewritten in the same order is
    no change; another order is), beside the list's name as the file gives it."""
    (tmp_path / "ratings.json").write_text(json.dumps({"c": 2100, "a": 2000}))
    settings = tournament_settings(load_tournament(event_file(tmp_path, 4, "knockout", 1, 'seeds = "ratings.json"')))
    assert settings["seeds"] == {"file": "ratings.json", "order": ["c", "a", "b", "d"]}
    (tmp_path / "ratings.json").write_text(json.dumps({"a": 2100, "c": 2000}))
    again = tournament_settings(load_tournament(event_file(tmp_path, 4, "knockout", 1, 'seeds = "ratings.json"')))
    assert changes(settings, again) == ['seeds.order: ["c", "a", "b", "d"] -> ["a", "c", "b", "d"]']


def test_a_round_robin_or_gauntlet_with_tiebreaks_is_summarized_under_its_own_format():
    """No event is drawn for either, so the summary takes the format the settings name (a
    round-robin when they name none) and the tiebreaks chosen, and has no bracket."""
    records = [played(["a", "b"], [0, 1], 0, 0), played(["b", "a"], [0, 1], 0, 1)]
    base = {"engines": [{"name": "a"}, {"name": "b"}], "rounds": 1, "seed": 0, "tiebreaks": ["wins"]}
    rows = [
        {"engine": "a", "score": 1.0, "tiebreaks": {"wins": 1}, "byes": 0, "reached": None},
        {"engine": "b", "score": 1.0, "tiebreaks": {"wins": 1}, "byes": 0, "reached": None},
    ]
    for settings, fmt in ((base, "round-robin"), ({**base, "format": "gauntlet", "candidates": ["a"]}, "gauntlet")):
        summary = event_summary(records, "ab", settings, 2)
        assert summary is not None and summary.as_dict() == {
            "format": fmt,
            "tiebreaks": ["wins"],
            "finished": True,
            "winner": None,
            "stopped": None,
            "standings": rows,
            "bracket": [],
        }


def test_a_swiss_that_runs_out_of_pairings_is_summarized_with_why_it_stopped():
    """Three engines asked for four rounds: after three each has met both others and had
    its bye, so the event stops there. The first seat wins every game, so each table splits
    1-1: two half points and a bye's point each, Buchholz 2 + 2."""
    settings = {"format": "swiss", "engines": [{"name": n} for n in "abc"], "rounds": 4, "seed": 0}
    settings |= {"tiebreaks": ["buchholz"]}
    event = settings_event(settings, 2)
    assert event is not None
    _, stored = played_out(event, lambda slot, stored: [0, 1])
    summary = event_summary(list(stored.values()), "abc", settings, 2)
    assert summary is not None and summary.as_dict() == {
        "format": "swiss",
        "tiebreaks": ["buchholz"],
        "finished": True,
        "winner": None,
        "stopped": "the event ended after round 3: no pairing of 3 engines is left without a rematch",
        "standings": [
            {"engine": n, "score": 2.0, "tiebreaks": {"buchholz": 4.0}, "byes": 1, "reached": None} for n in "abc"
        ],
        "bracket": [],
    }


def test_an_events_settings_give_its_seat_rule_and_seeds_only_from_an_order_map():
    """both_seats = false is kept; seeds stored as anything but the map of their order (a
    folder's older form, a file name) leave the engines in the file's order."""
    settings = {"format": "swiss", "engines": [{"name": n} for n in "abc"], "rounds": 2, "seed": 0}
    one_seat = settings_event({**settings, "both_seats": False}, 2)
    assert one_seat is not None and one_seat.both_seats is False and one_seat.seeded == ("a", "b", "c")
    by_file = settings_event({**settings, "seeds": "ratings.json"}, 2)
    assert by_file is not None and by_file.both_seats is True and by_file.seeded == ("a", "b", "c")
    by_order = settings_event({**settings, "seeds": {"file": "r.json", "order": ["c", "a", "b"]}}, 2)
    assert by_order is not None and by_order.seeded == ("c", "a", "b")
