"""The HTML report, opened in a real headless Chromium."""

import json
import shutil
import subprocess
from pathlib import Path

from arena.results.report import render_report
from helpers import ZOO, engine_toml, run_arena, write_tournament

HOSTILE = Path(__file__).resolve().parent / "engines" / "hostile_engine.py"

ENGINES = (engine_toml("random", "{python}", "-m", "engines.random_engine")
           + engine_toml("pathfinder", "{python}", "-m", "engines.hex_pathfinder")
           + engine_toml("hostile", "{python}", str(HOSTILE))
           + engine_toml("dud", "{python}", ZOO, "crash_start", "1", extra="max_failures = 1"))

CHROMIUM_FLAGS = ["--headless", "--no-sandbox", "--disable-gpu", "--disable-quic", "--no-first-run",
                  "--disable-background-networking", "--disable-component-update", "--disable-sync"]


def chromium(tmp_path, *args):
    browser = shutil.which("chromium") or shutil.which("chromium-browser")
    assert browser, "Chromium is needed for this test; the README's test command installs it"
    return subprocess.run([browser, *CHROMIUM_FLAGS, f"--user-data-dir={tmp_path / 'profile'}", *args],
                          capture_output=True, text=True, timeout=120)


def test_report_renders_in_a_browser_with_untrusted_text_escaped(tmp_path):
    path = write_tournament(tmp_path, ENGINES, name="report", rounds=2, workers=1)
    out = tmp_path / "out"
    run = run_arena("run", path, "--out", out)
    assert run.returncode == 0, run.stderr
    assert "\x1b" not in run.stdout  # terminal escapes from the engine never reach the terminal
    report = out / "report.html"
    dom = chromium(tmp_path, "--dump-dom", report.as_uri()).stdout
    assert "<title>arena · report</title>" in dom          # the onerror handler never ran
    assert "<img" not in dom and "&lt;img/src=x/onerror" in dom
    results = json.loads((out / "results.json").read_text())
    for row in results["standings"]:
        assert f'<td class="name">{row["engine"]}</td>' in dom
    assert "Cross table" in dom and "illegal" in dom and "Head to head" in dom
    assert "Dropped engines" in dom
    assert '<td class="name">dud</td><td>1 consecutive failures, the last in game' in dom   # its row
    shot = tmp_path / "report.png"
    chromium(tmp_path, f"--screenshot={shot}", "--window-size=1000,800", report.as_uri())
    assert shot.exists() and shot.stat().st_size > 5000


def test_games_not_recorded_are_listed_escaped():
    # A lost worker or an internal error leaves a game unrecorded; the report says which.
    summary = {"game": "hex", "options": {"size": 5}, "games": 0, "head_to_head": [], "terminations": {},
               "dropped": {}, "not_recorded": ["game 7 not recorded: internal error <b>boom</b>"]}
    page = render_report("t", summary, ["rank", "engine"], [], [])
    assert "Games not recorded" in page
    assert '<td class="name">game 7 not recorded: internal error &lt;b&gt;boom&lt;/b&gt;</td>' in page
    empty = render_report("t", {**summary, "not_recorded": []}, ["rank", "engine"], [], [])
    assert "Games not recorded" not in empty and "Dropped engines" not in empty
