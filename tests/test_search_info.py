"""The optional search keys of `info` lines (depth, nodes, score): parsed leniently, kept per
move in the record, and turned into an engine's mean depth and nodes per second."""

import json
import re
import textwrap

import pytest
from helpers import engine_toml, run_arena, write_tournament

from arena.results.stats import engine_stats
from arena.results.store import read_folder
from protocol.codec import search_info


@pytest.mark.parametrize(
    "text,known,expected",
    [
        ("depth 7 nodes 12345 score -0.25", None, {"depth": 7, "nodes": 12345, "score": -0.25}),
        ("string thinking hard", None, None),
        ("nodes 10", {"depth": 3}, {"depth": 3, "nodes": 10}),
        ("depth -1 nodes 1e5 score nan score inf", None, None),  # not non-negative ints / finite
        ("depth 4 depth 5 score 3", None, {"depth": 5, "score": 3.0}),
        ("pv e5 d6 depth", None, None),
        ("depth ٣ nodes 99999999999999999999999", None, None),  # non-ASCII digit, over 20 digits
        ("depth 2 score \u0661\u0662", None, {"depth": 2}),  # float() would read 12.0
        ("score 1_000 score \uff15 score 1e3 score 0x10", None, None),  # only -?digits[.digits] in ASCII
        ("score +0.5 score 3. score .5", None, {"score": 0.5}),
        ("depth\x0b3 score\u00a01 depth 4\u00a0", None, None),  # only spaces separate the words
    ],
)
def test_search_keys_are_read_leniently(text, known, expected):
    assert search_info(text, known) == expected


THINKER = textwrap.dedent("""
    import sys
    import time
    from protocol.sdk import Engine, run

    class Thinker(Engine):
        name = "thinker"
        plies = 0

        def choose_move(self, state, clock):
            self.plies += 1
            time.sleep(0.005)   # a measurable time, so that nodes per second is defined
            sys.stdout.write(f"info depth {self.plies} nodes {1000 * self.plies}\\n")
            sys.stdout.write("info string free text nodes x\\n")       # ignored, not a fault
            sys.stdout.write(f"info score 0.{self.plies} pv whatever\\n")
            sys.stdout.flush()
            return state.random_move(self.rng)

    run(Thinker())
""")


@pytest.mark.slow
def test_a_reporting_engine_gets_its_depth_and_speed_in_the_record_and_statistics(tmp_path):
    (tmp_path / "thinker.py").write_text(THINKER)
    engines = engine_toml("thinker", "{python}", str(tmp_path / "thinker.py")) + engine_toml(
        "quiet", "{python}", "-m", "engines.random_engine"
    )
    out = tmp_path / "out"
    path = write_tournament(tmp_path, engines, options="size = 4\nswap = false", rounds=1, seed=2)
    proc = run_arena("run", path, "-q", "--out", out, env=None)
    assert proc.returncode == 0, proc.stderr
    _, records = read_folder(out)
    for r in records:
        assert len(r["move_info"]) == len(r["times_ms"]) == len(r["moves"])
        thinker = r["players"].index("thinker")
        for ply, info in enumerate(r["move_info"]):
            if ply % 2 == thinker:
                n = ply // 2 + 1
                assert info == {"depth": n, "nodes": 1000 * n, "score": float(f"0.{n}")}
            else:
                assert info is None
    stats = engine_stats(records)
    assert stats["thinker"].mean_depth > 1 and stats["thinker"].nodes_per_second > 0
    assert stats["quiet"].mean_depth is None and stats["quiet"].nodes_per_second is None
    doc = json.loads((out / "results.json").read_text())
    row = next(e for e in doc["engines"] if e["engine"] == "thinker")
    assert row["mean_depth"] == round(stats["thinker"].mean_depth, 2)


@pytest.mark.slow
@pytest.mark.timeout(120)
def test_the_search_engine_reports_depth_and_nodes_into_the_record_statistics_and_site(tmp_path):
    engines = engine_toml("search", "{python}", "-m", "engines.search", extra='options = { level = "easy" }')
    engines += engine_toml("random", "{python}", "-m", "engines.random_engine")
    out = tmp_path / "out"
    path = write_tournament(tmp_path, engines, options="size = 4\nswap = false", rounds=1, seed=3)
    proc = run_arena("run", path, "-q", "--out", out, env=None)
    assert proc.returncode == 0, proc.stderr
    _, records = read_folder(out)
    for r in records:
        mine = r["players"].index("search")
        for ply, info in enumerate(r["move_info"]):
            if ply % 2 == mine:  # easy: 30 simulations, fewer where the game is nearly over
                assert 0 < info["nodes"] <= 30 and info["depth"] >= 1 and 0 <= info["score"] <= 1
            else:
                assert info is None
    stats = engine_stats(records)
    assert stats["search"].mean_depth >= 1 and stats["search"].nodes_per_second > 0
    # The report site's engine table carries the same figures.
    (engines_page,) = out.glob("**/engines.html")
    row = re.search(r"<tr>\s*<td[^>]*>search</td>(.*?)</tr>", engines_page.read_text(), re.S)
    cells = re.findall(r"<td[^>]*>([^<]*)</td>", row.group(1))
    assert float(cells[-1]) == round(stats["search"].nodes_per_second) and float(cells[-2]) >= 1
