"""`arena verify` re-derives each record's result from its moves and names every field that
disagrees; forfeits are checked against their reason; bad records get their own verdict; types
are strict in records and tournament files."""

import json
import random

import pytest
from click.testing import CliRunner
from helpers import engine_toml, write_tournament

from arena.cli import main
from arena.match import forfeit_before_start
from arena.results.admit import replay_problem
from arena.results.verify import InvalidRecord, parse_record, verify_lines
from arena.rules import make_game
from arena.tournament.config import ConfigError, load_tournament


def finished(game_name="hex", options=None, seed=1, rng_seed=2, deal=None, players=("a", "b")):
    game = make_game(game_name, options or {"size": 4})
    state = game.initial_state(seed)
    if deal is not None:
        state.deal(deal)
    rng = random.Random(rng_seed)
    while not state.is_terminal():
        state.play(state.random_move(rng))
    return {
        "id": 3,
        "game": game_name,
        "options": game.options.model_dump(),
        "seed": seed,
        "deal": deal,
        "setup": state.setup_token(),
        "players": list(players),
        "moves": list(state.moves),
        "termination": "normal",
        "reason": state.end_reason(),
        "forfeit_seat": None,
        "winner": state.winner(),
        "scores": state.scores(),
        "places": state.places(),
    }


def verdicts(*records):
    return list(verify_lines([json.dumps(r) for r in records], "t.jsonl"))


def test_a_record_verifies_and_a_swapped_result_is_named_field_by_field():
    good = finished()
    swapped = {**good, "winner": 1 - good["winner"], "scores": good["scores"][::-1], "places": good["places"][::-1]}
    ok, bad = verdicts(good, swapped)
    assert ok["ok"] and ok["id"] == 3 and ok["line"] == 1 and ok["termination"] == "normal"
    assert not bad["ok"] and bad["error"] is None
    assert {m["field"] for m in bad["mismatches"]} == {"winner", "scores", "places"}
    winner = next(m for m in bad["mismatches"] if m["field"] == "winner")
    assert (winner["recorded"], winner["derived"]) == (swapped["winner"], good["winner"])


def test_an_option_that_is_no_number_text_or_boolean_is_one_error_naming_it():
    (verdict,) = verdicts({"game": "hex", "moves": [], "options": {"size": [7]}})
    assert verdict["ok"] is False and verdict["error"] == {
        "reason": "t.jsonl, line 1: 'options.size': an option's value is a number, text or true/false (got [7])"
    }


def test_details_and_search_figures_keep_any_json_as_given():
    """A record's details and move_info are JSON objects: nested values, keys arena does not
    write and integers stay as they were given, so the record writes back the same."""
    record = {
        "game": "hex",
        "options": {"size": 5},
        "moves": ["a1"],
        "details": {"groups": [[0, 1], {"seat": 1, "cells": ["a1"]}], "score": 12, "ratio": 0.5, "none": None},
        "move_info": [{"depth": 3, "score": 1, "pv": "a1 b2"}, None],
    }
    assert json.dumps(parse_record(json.loads(json.dumps(record))).to_json()) == json.dumps(record)
    with pytest.raises(ValueError, match="'details.x.*finite number"):  # as everywhere in a record
        parse_record({**record, "details": {"x": float("nan")}})


def test_each_wrong_field_of_a_record_is_named_whole_and_a_value_past_40_characters_is_cut():
    """A missing field is named alone; any other shows what it holds, whole up to 40
    characters of its repr (38 x's quoted) and cut to 37 and '...' past them (39 y's)."""
    with pytest.raises(InvalidRecord) as err:
        parse_record({"moves": 7, "seed": "x" * 38, "round": "y" * 39})
    problems = [
        "missing 'game'",
        f"'seed': Input should be a valid integer (got '{'x' * 38}')",
        "'moves': Input should be a valid list (got 7)",
        f"'round': Input should be a valid integer (got '{'y' * 36}...)",
    ]
    assert err.value.problems == problems
    assert str(err.value) == "; ".join(problems)


def test_an_illegal_move_is_named_by_its_ply_counted_from_0():
    record = {**finished(), "moves": ["a1", "b2", "a1"], "termination": None, "reason": None}
    record.update(winner=None, scores=None, places=None)
    [verdict] = verdicts(record)
    assert verdict["error"] == {"ply": 2, "move": "a1", "reason": "a1 is already occupied"}  # the third move
    assert replay_problem(parse_record(record)) == "its move 'a1' at ply 2 is illegal (a1 is already occupied)"


def test_termination_must_match_the_moves():
    good = finished()
    unfinished = {**good, "moves": good["moves"][:-1]}
    [v] = verdicts(unfinished)
    assert not v["ok"] and v["mismatches"][0]["field"] == "termination" and v["mismatches"][0]["derived"] == "not over"
    late_forfeit = {**good, "termination": "timeout", "reason": "a (seat 0): no move within 1100 ms"}
    [v] = verdicts(late_forfeit)
    assert any(m["field"] == "termination" and m["derived"] == "normal" for m in v["mismatches"])


@pytest.mark.parametrize(
    "game_name,options,names,seats",
    [
        ("hex", {"size": 4}, ["a", "b"], [1]),
        ("posies", {"players": 3}, ["x", "y", "z"], [2]),
        ("posies", {"players": 3}, ["x", "y", "z"], [0, 2]),
    ],
)
def test_forfeits_are_checked_against_the_seats_their_reason_names(game_name, options, names, seats):
    record = {**forfeit_before_start(make_game(game_name, options), 4, names, seats, "crash", "boom"), "id": 9}
    [ok] = verdicts(record)
    assert ok["ok"], ok
    # the same result under another seat's name: the result no longer fits the reason
    other = (seats[0] + 1) % len(names)
    blamed = {**record, "reason": record["reason"].replace(f"(seat {seats[0]})", f"(seat {other})", 1)}
    [v] = verdicts(blamed)
    assert not v["ok"] and "places" in {m["field"] for m in v["mismatches"]}


def test_a_forfeits_reason_and_seat_must_be_stated_and_fit_the_game():
    record = {**forfeit_before_start(make_game("hex", {"size": 4}), 4, ["a", "b"], [1], "crash", "boom"), "id": 9}
    assert verdicts(record)[0]["ok"]
    cases = {
        "reason": {**record, "reason": "whatever"},  # names no seat
        "reason ": {**record, "reason": record["reason"].replace("(seat 1)", "(seat 9)")},  # no such seat
        "forfeit_seat": {k: v for k, v in record.items() if k != "forfeit_seat"},
    }
    for field, tampered in cases.items():
        [v] = verdicts(tampered)
        assert not v["ok"] and field.strip() in {m["field"] for m in v["mismatches"]}, (field, v)


def test_a_normal_game_names_no_forfeiting_seat():
    [v] = verdicts({**finished(), "forfeit_seat": 0})
    assert not v["ok"] and [m["field"] for m in v["mismatches"]] == ["forfeit_seat"]


@pytest.mark.parametrize(
    "code,reason,problem",
    [
        ("timeout", "boom", "reads as 'illegal'"),  # the reason is an illegal move's, the code is not
        ("resign", "engine closed its output: exit code 3", "worded by the referee"),
        ("crash", "resigned", "reads as 'resign'"),
        ("dropped", "no move within 400 ms", "worded by the referee"),
    ],
)
def test_a_forfeits_code_must_fit_the_referees_wording(code, reason, problem):
    game = make_game("hex", {"size": 4})
    base = {**forfeit_before_start(game, 4, ["a", "b"], [1], "crash", "boom"), "id": 9}
    if reason != "boom":
        base["reason"] = f"b (seat 1): {reason}"
    else:
        base = {**base, "reason": "b (seat 1): illegal move 'zz9': not a cell"}
    [v] = verdicts({**base, "termination": code})
    assert not v["ok"] and any(problem in m.get("reason", "") for m in v["mismatches"]), v


def test_an_illegal_moves_reason_must_quote_a_move_that_is_illegal():
    game = make_game("hex", {"size": 4})
    record = {**forfeit_before_start(game, 4, ["a", "b"], [0], "illegal", "illegal move 'b2': b2 is taken"), "id": 9}
    [v] = verdicts(record)  # b2 is free on the empty board: the reason is made up
    assert not v["ok"] and any("legal where the recorded moves end" in m.get("reason", "") for m in v["mismatches"])
    fixed = {**record, "reason": "a (seat 0): illegal move 'e9': not a cell"}
    assert verdicts(fixed)[0]["ok"]


def test_a_result_without_a_termination_needs_moves_that_end_the_game():
    good = finished()
    unfinished = {**good, "moves": good["moves"][:-1], "termination": None}
    [v] = verdicts(unfinished)
    assert not v["ok"] and {m["field"] for m in v["mismatches"]} == {"winner", "scores", "places"}
    moves_only = {"game": "hex", "options": good["options"], "seed": 1, "moves": good["moves"][:-1]}
    assert verdicts(moves_only)[0]["ok"]  # nothing stated, nothing to disagree with


def test_a_posies_variant_2_record_with_setup_and_deal_but_no_seed_verifies():
    record = finished("posies", {"players": 2, "variant": 2}, seed=5, deal=77, rng_seed=4)
    no_seed = {k: v for k, v in record.items() if k != "seed"}
    [v] = verdicts(no_seed)
    assert v["ok"], v
    [missing] = verdicts({k: v for k, v in no_seed.items() if k != "deal"})
    assert not missing["ok"] and "missing 'deal'" in missing["error"]["reason"]
    [seed_only] = verdicts({k: v for k, v in record.items() if k != "deal"})
    assert not seed_only["ok"] and "missing 'deal'" in seed_only["error"]["reason"]
    [nothing] = verdicts({k: v for k, v in no_seed.items() if k not in ("deal", "setup")})
    assert not nothing["ok"] and "missing 'setup'" in nothing["error"]["reason"]
    other_deal = [verdicts({**no_seed, "deal": d})[0] for d in range(1, 30)]
    assert any(not v["ok"] for v in other_deal)  # the deal decides the hidden posies' scores


@pytest.mark.parametrize(
    "change,field",
    [
        ({"options": {"size": "4"}}, "size"),
        ({"options": {"size": 4.0}}, "size"),
        ({"options": {"size": True}}, "size"),
        ({"winner": True}, "winner"),
        ({"id": "3"}, "id"),
        ({"scores": "1"}, "scores"),
        ({"seed": 1.0}, "seed"),
        ({"termination": "bogus"}, "termination"),
        ({"times_ms": "x"}, "times_ms"),
        ({"times_ms": [1, -5]}, "times_ms"),
        ({"players": ["x"]}, "players"),
        ({"players": ["x", "y", "z"]}, "players"),
        ({"scores": [1e400, 0]}, "scores.0"),
        ({"opening_plies": -1}, "opening_plies"),
        ({"opening_plies": 999}, "opening_plies"),
        ({"opening_plies": "x"}, "opening_plies"),
        ({"details": []}, "details"),
        ({"places": [0]}, "places"),
    ],
)
def test_record_fields_are_typed_strictly(change, field):
    record = {**finished(), **change}
    [bad] = verdicts(record)
    assert not bad["ok"] and f"'{field}'" in bad["error"]["reason"] and "line 1" in bad["error"]["reason"]


def test_one_bad_record_does_not_stop_the_file():
    good = finished()
    lines = [json.dumps(good), "{broken", json.dumps({k: v for k, v in good.items() if k != "moves"}), json.dumps(good)]
    result = CliRunner().invoke(main, ["verify", "-"], input="\n".join(lines) + "\n")
    assert result.exit_code == 1
    out = [json.loads(line) for line in result.output.splitlines()]
    assert [v["ok"] for v in out] == [True, False, False, True] and [v["line"] for v in out] == [1, 2, 3, 4]
    assert "not valid JSON" in out[1]["error"]["reason"] and '"moves"' in out[2]["error"]["reason"]
    assert out[2]["id"] == 3


def test_a_bad_lines_verdict_has_every_key_of_a_good_ones_in_the_same_order_and_says_nothing_else():
    from arena.results.verify import VERDICT_KEYS

    out = list(verify_lines([json.dumps(finished()), "{broken"], "g.jsonl"))
    assert [list(v) for v in out] == [list(VERDICT_KEYS)] * 2
    reason = out[1]["error"]["reason"]
    assert out[1] == {
        "id": None,
        "line": 2,
        "ok": False,
        "error": {"reason": reason},
        "over": None,
        "termination": None,
        "winner": None,
        "scores": None,
        "places": None,
        "plies": None,
        "mismatches": [],
    }
    assert reason.startswith("g.jsonl, line 2: ")


@pytest.mark.parametrize(
    "text,field",
    [
        ('rounds = "2"', "rounds"),
        ("rounds = 2.0", "rounds"),
        ("workers = true", "workers"),
    ],
)
def test_tournament_files_are_typed_strictly(tmp_path, text, field):
    engines = engine_toml("a", "{python}", "-m", "engines.random_engine") + engine_toml(
        "b", "{python}", "-m", "engines.random_engine"
    )
    path = write_tournament(tmp_path, engines, extra=text)
    path.write_text(
        path.read_text().replace("rounds = 1\n", "", 1)
        if field == "rounds"
        else path.read_text().replace("workers = 2\n", "", 1)
    )
    with pytest.raises(ConfigError, match=f"'{field}'"):
        load_tournament(path)


@pytest.mark.parametrize("value", ['"5"', "5.0", "true"])
def test_game_options_in_a_tournament_file_are_typed_strictly(tmp_path, value):
    engines = engine_toml("a", "{python}", "-m", "engines.random_engine") + engine_toml(
        "b", "{python}", "-m", "engines.random_engine"
    )
    path = write_tournament(tmp_path, engines, options=f"size = {value}")
    result = CliRunner().invoke(main, ["run", str(path), "-o", str(tmp_path / "o")])
    assert result.exit_code == 2 and "option 'size'" in result.output and "Traceback" not in result.output


@pytest.mark.parametrize("code,detail", [("resign", "resigned"), ("crash", "engine closed its output: exit code 3")])
def test_an_engine_name_that_looks_like_a_seat_does_not_confuse_the_reason(code, detail):
    names = ["Deep (seat 1): v2", "plain"]
    record = {**forfeit_before_start(make_game("hex", {"size": 4}), 4, names, [0], code, detail), "id": 9}
    [v] = verdicts(record)
    assert v["ok"], v
    [blamed] = verdicts({**record, "forfeit_seat": 1})
    assert not blamed["ok"]


def test_a_record_answers_as_its_json_for_fields_and_unknown_keys():
    """``record[key]``, ``record.get(key)`` and ``key in record`` say what to_json() says, for
    a field given, a field not given (its default is no key) and a key arena does not know."""
    from arena.record import GameRecord

    record = GameRecord.model_validate({"game": "hex", "moves": [], "winner": None, "note": 1})
    assert record.to_json() == {"game": "hex", "moves": [], "winner": None, "note": 1}
    for key, value in record.to_json().items():
        assert key in record and record[key] == value and record.get(key, "absent") == value
    for key in ("seed", "other"):
        assert key not in record and record.get(key, "absent") == "absent" and record.get(key) is None
        with pytest.raises(KeyError):
            record[key]


@pytest.mark.parametrize(
    ("game", "named"),
    [
        ("5", "a number"),
        ("1.5", "a number"),
        ("[1]", "a list"),
        ('{"a": 1}', "an object"),
        ("null", "null"),
        ("true", "true"),
        ("false", "false"),
    ],
)
def test_a_game_that_is_not_a_name_is_named_by_its_json_type(game, named):
    line = f'{{"game": {game}, "moves": []}}'
    [verdict] = verify_lines([line], "g.jsonl")
    assert not verdict["ok"] and verdict["error"] == {
        "reason": f'g.jsonl, line 1: "game" must be a string (a game name such as "hex"), got {named}'
    }


def test_a_value_json_has_no_name_for_is_named_by_its_python_type():
    from arena.results.verify import _json_type

    assert [_json_type(v) for v in ("x", (1,), 0, 0.0, [], {}, None, True)] == [
        "str",
        "tuple",
        "a number",
        "a number",
        "a list",
        "an object",
        "null",
        "true",
    ]


def forfeit(code, detail, names=("a", "b"), seats=(1,), game_name="hex", options=None):
    game = make_game(game_name, options or {"size": 4})
    return {**forfeit_before_start(game, 4, list(names), list(seats), code, detail), "id": 9}


@pytest.mark.parametrize(
    "code,detail",
    [
        ("resign", "resigned"),
        ("illegal", "illegal move 'zz9': not a cell"),
        ("crash", "engine closed its output: exit code 3"),
    ],
)
def test_a_forfeit_whose_engines_were_renamed_is_read_by_its_seat_numbers_and_wording(code, detail):
    """The names in the reason no longer match ``players``: the seat is read from the words
    before the first ': ', and the referee's wording from the words after it."""
    record = {**forfeit(code, detail), "players": ["c", "d"]}
    [v] = verdicts(record)
    assert v["ok"] and v["mismatches"] == [] and (v["winner"], v["places"]) == (0, [0, 1]), v


def test_a_renamed_forfeits_seat_is_read_before_the_first_colon_only():
    """A detail that mentions another seat after a ': ' does not make that seat an offender."""
    record = {**forfeit("crash", "engine said: stderr (seat 0): closed"), "players": ["c", "d"]}
    [v] = verdicts(record)
    assert v["ok"] and (v["winner"], v["scores"], v["places"]) == (0, [1.0, 0.0], [0, 1]), v


@pytest.mark.parametrize(
    "code,detail",
    [("illegal", "illegal move 'zz9': not a cell"), ("resign", "resigned"), ("crash", "exit code 3: killed")],
)
def test_a_forfeit_without_players_is_read_from_its_reason_alone(code, detail):
    record = {k: v for k, v in forfeit(code, detail).items() if k != "players"}
    [v] = verdicts(record)
    assert v["ok"] and v["mismatches"] == [] and (v["winner"], v["places"]) == (0, [0, 1]), v


def test_a_reason_without_a_colon_names_no_seat_and_the_forfeit_seat_gives_the_result():
    record = {k: v for k, v in forfeit("crash", "boom").items() if k != "players"}
    record["reason"] = "b (seat 1) crashed"
    [v] = verdicts(record)
    assert v["mismatches"] == [
        {
            "field": "reason",
            "recorded": "b (seat 1) crashed",
            "derived": None,
            "reason": "a forfeit's reason names the seat that lost it, as 'name (seat N): ...'",
        }
    ]
    assert (v["ok"], v["winner"], v["scores"], v["places"]) == (False, 0, [1.0, 0.0], [0, 1])


def test_a_forfeit_seat_the_game_does_not_have_gives_no_result():
    """Hex has seats 0 and 1: a reason naming no seat leaves forfeit_seat to say it, and
    seat 2 is none of the game's."""
    record = {**forfeit("crash", "boom"), "reason": "whatever", "forfeit_seat": 2}
    [v] = verdicts(record)
    assert (v["winner"], v["scores"], v["places"]) == (None, None, None)
    assert v["mismatches"] == [
        {
            "field": "reason",
            "recorded": "whatever",
            "derived": None,
            "reason": "a forfeit's reason names the seat that lost it, as 'name (seat N): ...'",
        }
    ]


def test_a_forfeit_without_a_reason_or_seat_is_told_to_name_the_seat():
    record = {k: v for k, v in forfeit("crash", "boom").items() if k not in ("reason", "forfeit_seat")}
    [v] = verdicts(record)
    assert (v["ok"], v["winner"], v["places"]) == (False, None, None)
    assert v["mismatches"] == [
        {"field": "reason", "recorded": None, "derived": None, "reason": "a forfeit must name the seat that lost it"}
    ]


def test_a_forfeit_without_a_reason_is_read_by_its_forfeit_seat():
    record = {k: v for k, v in forfeit("crash", "boom").items() if k != "reason"}
    [v] = verdicts(record)
    assert v["ok"] and v["mismatches"] == [] and (v["winner"], v["places"]) == (0, [0, 1]), v


def test_a_reason_naming_the_seat_one_past_the_last_is_a_seat_the_game_does_not_have():
    record = forfeit("crash", "boom")
    record["reason"] = "b (seat 2): boom"
    [v] = verdicts(record)
    assert v["mismatches"] == [
        {
            "field": "reason",
            "recorded": "b (seat 2): boom",
            "derived": None,
            "reason": "the reason names a seat the game does not have (2 seats)",
        }
    ]
    assert (v["winner"], v["places"]) == (None, None)


def test_two_forfeiting_seats_are_read_by_their_names_even_when_a_name_looks_like_a_seat():
    """The reason 'x (seat 0), Deep (seat 1): v2 (seat 2): boom' names seats 0 and 2 by the
    recorded names; the seat numbers alone would read seats 0 and 1."""
    names = ["x", "y", "Deep (seat 1): v2"]
    record = forfeit("crash", "boom", names, [0, 2], "posies", {"players": 3})
    assert record["reason"] == "x (seat 0), Deep (seat 1): v2 (seat 2): boom"
    [v] = verdicts(record)
    assert v["ok"] and v["mismatches"] == [] and v["places"] == record["places"], v
    [blamed] = verdicts({**record, "forfeit_seat": 1})
    assert not blamed["ok"]


def test_a_referee_worded_code_with_other_words_is_named_in_full():
    record = {**forfeit("crash", "boom"), "termination": "resign"}
    [v] = verdicts(record)
    assert v["mismatches"] == [
        {
            "field": "termination",
            "recorded": "resign",
            "derived": None,
            "reason": "a 'resign' forfeit's reason is worded by the referee, and this one is not",
        }
    ]


def test_a_number_past_4300_digits_is_named_with_the_limit():
    [v] = verify_lines(['{"game": "hex", "moves": [], "seed": ' + "9" * 5000 + "}"], "g.jsonl")
    assert v["error"] == {
        "reason": "g.jsonl, line 1: Exceeds the limit (4300 digits) for integer string conversion: "
        "value has 5000 digits; numbers in records have at most 4300 digits"
    }


def test_values_nested_past_what_python_can_read_are_named():
    [v] = verify_lines(['{"game": "hex", "moves": [], "details": ' + "[" * 100000 + "]" * 100000 + "}"], "g.jsonl")
    assert v["error"] == {"reason": "g.jsonl, line 1: values nested too deep to be a record"}


def test_options_that_are_no_object_are_named():
    [v] = verify_lines(['{"game": "hex", "moves": [], "options": [4]}'], "g.jsonl")
    assert v["error"] == {"reason": 'g.jsonl, line 1: "options" must be an object'}


def test_a_record_with_a_wrong_field_keeps_its_line_number_and_id():
    good = finished()
    _, bad = verdicts(good, {**good, "seed": "1"})
    assert (bad["line"], bad["id"], bad["ok"]) == (2, 3, False)
    assert bad["error"] == {"reason": "t.jsonl, line 2: 'seed': Input should be a valid integer (got '1')"}


def adjudicated(moves, termination, game_name="hex", options=None, **fields):
    """A hand-made adjudicated record (id 7) with only the result fields given."""
    options = {"size": 5, "swap": False} if options is None else options
    return {
        "id": 7,
        "game": game_name,
        "options": options,
        "seed": 1,
        "moves": moves,
        "termination": termination,
        **fields,
    }


def test_an_adjudicated_draw_with_a_forfeit_seat_and_a_win_recorded_is_named_field_by_field_and_derives_the_draw():
    record = adjudicated(
        ["c2", "e5"], "adjudicated-draw", forfeit_seat=1, winner=0, scores=[1.0, 0.0], places=[0, 1]
    )  # an adjudicated draw of an unfinished game: no forfeit, each seat half a point, both first
    [v] = verdicts(record)
    assert v == {
        "id": 7, "line": 1, "ok": False, "error": None, "over": False,
        "termination": "adjudicated-draw", "winner": None, "scores": [0.5, 0.5], "places": [0, 0], "plies": 2,
        "mismatches": [
            {"field": "forfeit_seat", "recorded": 1, "derived": None,
             "reason": "an adjudicated game has no forfeiting seat"},
            {"field": "winner", "recorded": 0, "derived": None},
            {"field": "scores", "recorded": [1.0, 0.0], "derived": [0.5, 0.5]},
            {"field": "places", "recorded": [0, 1], "derived": [0, 0]},
        ],
    }  # fmt: skip


def test_a_ply_limit_recorded_on_moves_that_end_the_game_is_named_and_hex_at_the_limit_is_a_draw():
    ended = "a1 b1 a2 b2 a3 b3 a4 b4 a5".split()  # Red's a-column joins its edges: the rules ended it
    [v] = verdicts(adjudicated(ended, "max-plies"))
    assert v == {
        "id": 7, "line": 1, "ok": False, "error": None, "over": True,
        "termination": "max-plies", "winner": None, "scores": [0.5, 0.5], "places": [0, 0], "plies": 9,
        "mismatches": [
            {"field": "termination", "recorded": "max-plies", "derived": "normal",
             "reason": "the recorded moves end the game by the rules"},
        ],
    }  # fmt: skip


def test_a_decided_record_whose_position_is_not_decided_has_no_result_and_names_its_termination():
    [v] = verdicts(adjudicated(["c2", "e5"], "decided"))  # two scattered stones: nothing is decided
    assert v == {
        "id": 7, "line": 1, "ok": False, "error": None, "over": False,
        "termination": "decided", "winner": None, "scores": None, "places": None, "plies": 2,
        "mismatches": [
            {"field": "termination", "recorded": "decided", "derived": None, "reason": "the position is not decided"},
        ],
    }  # fmt: skip


def test_a_three_seat_game_at_the_ply_limit_after_one_capture_is_won_by_the_capturer_alone():
    options = {"players": 3, "variant": 0, "board": "standard"}
    state = make_game("posies", options).initial_state(1)
    state.play(state.legal_moves()[0])
    scores = state.count_so_far()  # Posies' points as they stand: only seat 0 has captured
    assert scores[0] > 0 and scores[1:] == [0.0, 0.0]
    record = adjudicated(list(state.moves), "max-plies", "posies", options, winner=0, scores=scores, places=[0, 1, 1])
    [v] = verdicts(record)
    assert v == {
        "id": 7, "line": 1, "ok": True, "error": None, "over": False,
        "termination": "max-plies", "winner": 0, "scores": scores, "places": [0, 1, 1], "plies": 1,
        "mismatches": [],
    }  # fmt: skip


def test_an_illegal_move_in_an_unfinished_game_gives_the_whole_verdict_with_no_result_and_no_mismatches():
    """The replay stops at the illegal move: nothing is derived, and the result the record
    claims is not compared with anything."""
    record = {**finished(), "moves": ["a1", "b2", "a1"]}  # still claims the finished game's result
    [v] = verdicts(record)
    assert v == {
        "id": 3, "line": 1, "ok": False, "error": {"ply": 2, "move": "a1", "reason": "a1 is already occupied"},
        "over": False, "termination": None, "winner": None, "scores": None, "places": None, "plies": 2,
        "mismatches": [],
    }  # fmt: skip


def test_a_move_after_the_end_is_illegal_and_the_verdict_gives_the_result_the_game_ended_with():
    good = finished()
    [v] = verdicts({**good, "moves": [*good["moves"], "a1"]})  # a1 is taken too: the game is over first
    assert v == {
        "id": 3, "line": 1, "ok": False,
        "error": {"ply": len(good["moves"]), "move": "a1", "reason": "the game is over"},
        "over": True, "termination": None, "winner": good["winner"], "scores": good["scores"],
        "places": good["places"], "plies": len(good["moves"]), "mismatches": [],
    }  # fmt: skip


def test_a_normal_end_recorded_on_moves_that_do_not_end_the_game_names_each_claimed_field_whole():
    good = finished()
    cut = {**good, "moves": good["moves"][:-1]}
    [v] = verdicts(cut)
    unended = "the moves do not end the game and no forfeit is recorded"
    assert v == {
        "id": 3, "line": 1, "ok": False, "error": None, "over": False,
        "termination": None, "winner": None, "scores": None, "places": None, "plies": len(cut["moves"]),
        "mismatches": [
            {"field": "termination", "recorded": "normal", "derived": "not over",
             "reason": "the recorded moves do not end the game"},
            {"field": "winner", "recorded": good["winner"], "derived": None, "reason": unended},
            {"field": "scores", "recorded": good["scores"], "derived": None, "reason": unended},
            {"field": "places", "recorded": good["places"], "derived": None, "reason": unended},
        ],
    }  # fmt: skip


def test_a_forfeit_recorded_on_moves_that_end_the_game_is_named_and_gives_the_forfeits_result():
    """The winner of the finished game recorded as timing out: the verdict keeps the recorded
    code, names it against the rules' end, and gives the forfeit's result (the blamed seat last
    with no point), each field of the rules' result recorded beside it."""
    good = finished()
    loser = good["winner"]
    record = {
        **good,
        "termination": "timeout",
        "reason": f"{good['players'][loser]} (seat {loser}): no move within 1100 ms",
        "forfeit_seat": loser,
    }
    scores = [0.0 if seat == loser else 1.0 for seat in (0, 1)]
    places = [1 if seat == loser else 0 for seat in (0, 1)]
    [v] = verdicts(record)
    assert v == {
        "id": 3, "line": 1, "ok": False, "error": None, "over": True,
        "termination": "timeout", "winner": 1 - loser, "scores": scores, "places": places,
        "plies": len(good["moves"]),
        "mismatches": [
            {"field": "termination", "recorded": "timeout", "derived": "normal",
             "reason": "the recorded moves end the game by the rules"},
            {"field": "winner", "recorded": loser, "derived": 1 - loser},
            {"field": "scores", "recorded": good["scores"], "derived": scores},
            {"field": "places", "recorded": good["places"], "derived": places},
        ],
    }  # fmt: skip


def test_a_forfeit_that_names_no_seat_of_the_game_keeps_its_code_in_the_verdict_with_no_result():
    record = {**forfeit("crash", "boom"), "reason": "whatever", "forfeit_seat": 2}
    [v] = verdicts(record)
    assert v == {
        "id": 9, "line": 1, "ok": False, "error": None, "over": False,
        "termination": "crash", "winner": None, "scores": None, "places": None, "plies": 0,
        "mismatches": [
            {"field": "reason", "recorded": "whatever", "derived": None,
             "reason": "a forfeit's reason names the seat that lost it, as 'name (seat N): ...'"},
        ],
    }  # fmt: skip


def test_a_forfeit_without_its_forfeit_seat_is_told_the_seat_its_reason_names():
    record = {k: v for k, v in forfeit("crash", "boom").items() if k != "forfeit_seat"}  # "b (seat 1): boom"
    [v] = verdicts(record)
    assert v == {
        "id": 9, "line": 1, "ok": False, "error": None, "over": False,
        "termination": "crash", "winner": 0, "scores": [1.0, 0.0], "places": [0, 1], "plies": 0,
        "mismatches": [
            {"field": "forfeit_seat", "recorded": None, "derived": 1, "reason": "a forfeit records the seat that lost it"},
        ],
    }  # fmt: skip


def test_a_negative_move_time_is_one_whole_error():
    [v] = verdicts({**finished(), "times_ms": [1, -5]})
    assert v["error"] == {"reason": "t.jsonl, line 1: 'times_ms': every time is a non-negative number of milliseconds"}


def test_an_opening_may_be_every_recorded_move_but_not_more():
    """A game forfeited right after its two-ply opening: the opening is all its moves."""
    record = {**forfeit("crash", "boom"), "moves": ["a1", "d4"], "opening_plies": 2}
    [ok, over] = verdicts(record, {**record, "opening_plies": 3})
    assert (ok["ok"], ok["mismatches"], ok["plies"]) == (True, [], 2)
    assert over["error"] == {"reason": "t.jsonl, line 2: 'opening_plies' is 3, more than the 2 moves"}
