"""Every JSON arena writes is JSON: no NaN or Infinity (which Python's json writes and reads by
default, and jq, JSON.parse and most other readers refuse), in the files of a real results
folder (an SPRT run included), its report site, `arena results --format json` and `arena
verify`; and `arena results --format json` shows the tournament file's control and bidi
characters escaped, as engine text is."""

from __future__ import annotations

import json
import math
import random
import re

import numpy as np
import pytest
from click.testing import CliRunner
from helpers import ROOT, engine_toml, json_in_folder, random_game_record, run_arena, strict_json, write_tournament
from pydantic import ValidationError

from arena.cli import main
from arena.results import strictjson
from arena.results.export import results_json, summarize_folder
from arena.results.site import template_environment
from arena.results.sprt import SprtSettings, SprtTest, llr
from arena.results.store import GameStore
from arena.tournament.config import load_tournament
from arena.tournament.settings import tournament_settings

RANDOM = str(ROOT / "engines" / "random_engine.py")


def test_dumps_refuses_what_json_cannot_hold_and_finite_makes_it_null():
    for bad in (math.nan, math.inf, -math.inf, np.float64("nan")):
        with pytest.raises(ValueError, match="not JSON compliant"):
            strictjson.dumps({"x": [1, bad]})
    value = {"a": math.inf, "b": [1.5, -math.inf, (math.nan, "NaN")], "c": {"d": np.float64("inf"), "e": 0}}
    assert strictjson.finite(value) == {"a": None, "b": [1.5, None, [None, "NaN"]], "c": {"d": None, "e": 0}}
    assert (
        strictjson.dumps(strictjson.finite(value))
        == '{"a": null, "b": [1.5, null, [null, "NaN"]], "c": {"d": null, "e": 0}}'
    )


def test_a_game_pages_embedded_data_refuses_nan():
    page = template_environment().from_string("{{ data|tojson }}")
    assert page.render(data={"t": 1.5, "s": "<b>"}) == '{"s": "\\u003cb\\u003e", "t": 1.5}'
    with pytest.raises(ValueError, match="not JSON compliant"):
        page.render(data={"t": math.nan})


@pytest.mark.slow  # the profile solver takes a second or so per LLR on a loaded machine
@pytest.mark.parametrize(
    ("counts", "bounds", "expected"),
    [([100, 200, 300, 250, 150], (0, 300), -435.79), ([1, 0, 1, 0, 0], (0, 240), -1.93)],
)
def test_the_issues_normalized_cases_write_finite_json(counts, bounds, expected):
    settings = SprtSettings(elo0=bounds[0], elo1=bounds[1])
    assert float(llr(counts, settings)) == pytest.approx(expected, abs=0.01)
    # The same counts reached pair by pair: every LLR of the history is a number.
    test = SprtTest(settings, "a", "b", max_pairs=10**6)
    outcomes = [k for k, n in enumerate(counts) for _ in range(n)]
    random.Random(1).shuffle(outcomes)
    for outcome in outcomes:
        test._count(outcome)
        if test.decision:
            break
    document = strict_json(strictjson.dumps(test.summary().as_dict()))
    assert all(isinstance(v, float) and math.isfinite(v) for v in document["llr_history"])


@pytest.mark.parametrize(
    "bounds", [(0, math.inf), (-math.inf, 0), (math.nan, 5), (0, math.nan), (0, 1000), (-1000, 0), (0, 1e5)]
)
@pytest.mark.parametrize("model", ["normalized", "logistic"])
def test_bounds_no_model_can_test_are_refused_naming_the_keys_and_the_limit(bounds, model):
    with pytest.raises(ValidationError, match=rf"{model} elo0 and elo1 must lie within \(-1000, 1000\)"):
        SprtSettings(elo0=bounds[0], elo1=bounds[1], model=model)


@pytest.mark.slow  # the profile solver takes a second or so per LLR on a loaded machine
@pytest.mark.parametrize("bounds", [(-999, 999), (0, 300), (998, 999)])
def test_the_widest_bounds_allowed_give_a_finite_llr(bounds):
    settings = SprtSettings(elo0=bounds[0], elo1=bounds[1])
    counts = np.array([[0, 0, 0, 0, 0], [0, 0, 0, 0, 9], [9, 0, 0, 0, 0], [1, 0, 1, 0, 0], [3, 1, 4, 1, 5]])
    assert np.isfinite(llr(counts, settings)).all()


@pytest.mark.slow
@pytest.mark.timeout(120)
def test_every_json_of_a_real_sprt_folder_is_strict(tmp_path):
    # The issue's run: random against random with normalized bounds [0, 300] once wrote a
    # bare NaN into llr_history.
    engines = engine_toml("new", "{python}", RANDOM) + engine_toml("old", "{python}", RANDOM)
    path = write_tournament(tmp_path, engines, name="sprt", rounds=60, seed=3, extra="[sprt]\nelo0 = 0\nelo1 = 300\n")
    out = tmp_path / "out"
    proc = run_arena("run", path, "--out", out, "-q")
    assert proc.returncode == 0, proc.stderr
    documents = json_in_folder(out)
    kinds = {re.sub(r"[:\s].*|/.*", "", where) for where, _ in documents}
    assert {"results.json", "games.jsonl", "arena.db", "report"} <= kinds, kinds
    assert any(where.startswith("report/games/") for where, _ in documents)
    for where, text in documents:
        strict_json(text, where)
    sprt = strict_json((out / "results.json").read_text())["sprt"]
    assert sprt["decision"] in ("H0", "H1") and len(sprt["llr_history"]) == sprt["pairs"] > 0
    assert all(math.isfinite(v) for v in sprt["llr_history"])
    # `arena results` and `arena verify` only read the folder: in process (click's CliRunner)
    shown = CliRunner().invoke(main, ["results", str(out), "--format", "json"])
    assert shown.exit_code == 0 and strict_json(shown.stdout, "arena results")["sprt"] == sprt
    verdicts = CliRunner().invoke(main, ["verify", str(out / "games.jsonl")])
    assert verdicts.exit_code == 0, verdicts.output
    assert all(strict_json(line, "arena verify")["ok"] for line in verdicts.stdout.splitlines())


BIDI = "\u202e"  # RIGHT-TO-LEFT OVERRIDE: the rest of a line reads backwards
SHOWN_RAW = re.compile(r"[\x00-\x1f\x7f-\x9f\u200e\u200f\u202a-\u202e\u2066-\u2069]")


def test_arena_results_json_escapes_the_tournament_files_control_and_bidi_text(tmp_path):
    engines = engine_toml(
        "a",
        "{python}",
        RANDOM,
        "--note=\\u202egnp.exe ünïcode 棋",
        extra='env = { TITLE = "\\u001b]0;pwned\\u0007x\\u2066" }',
    ) + engine_toml("b", "{python}", RANDOM, extra='options = { motto = "x\\u200fy\\u2067z" }')
    tournament = load_tournament(write_tournament(tmp_path, engines, options="size = 3"))
    record = random_game_record(0, ["a", "b"], seed=4)
    out = tmp_path / "out"
    with GameStore(out) as store:
        store.open(tournament_settings(tournament))
        store.add(record)
    result = CliRunner().invoke(main, ["results", str(out), "--format", "json"])
    assert result.exit_code == 0, result.output
    assert not SHOWN_RAW.search(result.stdout.replace("\n", "")), "a control or bidi character printed raw"
    document = strict_json(result.stdout)
    engine_a, engine_b = document["settings"]["engines"]
    assert engine_a["command"][-1] == "--note=\\u202egnp.exe ünïcode 棋"  # printable text as it was
    assert dict(map(tuple, engine_a["env"]))["TITLE"] == "x\\u2066"  # a terminal escape goes, with its parameters
    assert dict(map(tuple, engine_b["options"]))["motto"] == "x\\u200fy\\u2067z"
    # results.json is the same document, and the folder's own settings are kept as given
    assert document == json.loads(results_json(summarize_folder(out)))
    assert summarize_folder(out).settings["engines"][0]["command"][-1].startswith(f"--note={BIDI}")
