"""Section 6: the report site of a large tournament.

Synthetic Hex 11x11 records (random games between four engines, as the runner records
them) go through the real writer (:func:`arena.results.site.write_site`) into a fresh
folder: the time of a whole build, and of a refresh (what a running tournament pays
every few seconds: the summary pages, with every game page already written).  Then
headless Chromium (Playwright, from the test extra) opens the pages from disk and the
page's own navigation timing says when each finished loading.
"""

from __future__ import annotations

import random
import tempfile
import time
from pathlib import Path
from typing import TYPE_CHECKING, Any

from ..record import GameRecord
from ..rules import make_game
from .common import med

if TYPE_CHECKING:
    from . import Plan, Report

ENGINES = ["alpha", "beta", "gamma", "delta"]
CHROMIUM = "/usr/bin/chromium"
CHROMIUM_FLAGS = [
    "--headless",
    "--no-sandbox",
    "--disable-gpu",
    "--disable-quic",
    "--no-first-run",
    "--disable-background-networking",
    "--disable-component-update",
    "--disable-sync",
]
PAGE_LOADS = 5  # per page (one in a quick run)


def synthetic_records(games: int, size: int = 11, seed: int = 1) -> list[GameRecord]:
    """``games`` random Hex games with the swap rule, recorded like the runner's."""
    game = make_game("hex", {"size": size})
    rng = random.Random(seed)
    pairs = [(a, b) for a in ENGINES for b in ENGINES if a != b]
    records = []
    for i in range(games):
        state = game.initial_state(i)
        state.playout(rng, 10 * size * size)
        players = list(pairs[i % len(pairs)])
        winner = state.winner()
        records.append(
            GameRecord.model_validate(
                {
                    "id": i,
                    "round": i // len(pairs),
                    "tournament": "bench",
                    "game": "hex",
                    "options": game.options.model_dump(),
                    "setup": "start",
                    "seed": i,
                    "deal": i,
                    "engine_seeds": [1, 2],
                    "players": players,
                    "moves": list(state.moves),
                    "times_ms": [rng.randrange(5, 200) for _ in state.moves],
                    "termination": "normal",
                    "reason": state.end_reason(),
                    "forfeit_seat": None,
                    "winner": winner,
                    "scores": state.scores(),
                    "places": state.places(),
                    "details": state.details(),
                    "started": "2026-01-01T00:00:00+00:00",
                    "duration_s": 1.0,
                }
            )
        )
    return records


def site(plan: Plan, report: Report) -> None:
    from ..results.site import SiteData, write_site

    games = plan.site_games
    report.echo(f"\n6. Report site ({games:,} synthetic Hex 11x11 games through the real writer)")
    records = synthetic_records(games)
    settings = {"name": "bench", "time_control": {"movetime_ms": 1000}}
    builds, refreshes = [], []
    loads: dict[str, list[float]] = {"index.html": [], "games.html": [], "games/0.html": []}
    for _ in range(plan.repeats):
        with tempfile.TemporaryDirectory(prefix="arena-bench-site-") as tmp:
            folder = Path(tmp) / "report"
            data = SiteData("arena · bench", "hex", records[0]["options"], ENGINES, records, settings)
            start = time.perf_counter()
            write_site(folder, data)
            builds.append(time.perf_counter() - start)
            start = time.perf_counter()
            write_site(folder, data)
            refreshes.append(time.perf_counter() - start)
            size_mib = sum(p.stat().st_size for p in folder.rglob("*") if p.is_file()) / 2**20
            for page, seconds in _load_times(folder, PAGE_LOADS if games >= 1000 else 1).items():
                loads[page].extend(seconds)
    rows: list[list[Any]] = [["whole build", med(builds)], ["refresh (game pages already written)", med(refreshes)]]
    report.table(rows, ["site", "seconds (median)"])
    report.echo(f"site size: {size_mib:,.0f} MiB in {games + 10:,}-odd files")
    figures: dict[str, Any] = {
        "games": games,
        "build_s": med(builds),
        "refresh_s": med(refreshes),
        "size_mib": size_mib,
    }
    if all(loads.values()):
        report.table(
            [[page, 1000 * med(times)] for page, times in loads.items()],
            ["page (from disk, headless Chromium)", "load ms (median)"],
        )
        figures["load_ms"] = {page: 1000 * med(times) for page, times in loads.items()}
    else:
        report.echo(
            "page loads: not measured (Playwright or /usr/bin/chromium missing; "
            "install the test extra and Debian's chromium)"
        )
    report.data["site"] = figures
    scale = "" if games == 10_000 else f" (measured at {games:,} games)"
    report.target(
        "site of 10,000 games builds in < 30 s",
        f"{med(builds):.1f} s{scale}",
        med(builds) < 30 if games >= 10_000 else None,
    )
    if all(loads.values()):
        index_ms = 1000 * med(loads["index.html"])
        report.target(
            "index page loads in < 1 s", f"{index_ms:.0f} ms{scale}", index_ms < 1000 if games >= 10_000 else None
        )


def _load_times(folder: Path, loads: int) -> dict[str, list[float]]:
    """Seconds from navigation start to the end of the load event, per page."""
    try:
        from playwright.sync_api import sync_playwright
    except ImportError:
        return {}
    if not Path(CHROMIUM).exists():
        return {}
    times: dict[str, list[float]] = {}
    with sync_playwright() as p:
        browser = p.chromium.launch(executable_path=CHROMIUM, args=CHROMIUM_FLAGS)
        try:
            for page_name in ("index.html", "games.html", "games/0.html"):
                for _ in range(loads):
                    page = browser.new_page()  # a fresh page each time: nothing cached in memory
                    page.goto((folder / page_name).as_uri(), wait_until="load")
                    ms = page.evaluate(
                        "() => { const n = performance.getEntriesByType('navigation')[0];"
                        " return n.loadEventEnd - n.startTime; }"
                    )
                    times.setdefault(page_name, []).append(ms / 1000)
                    page.close()
        finally:
            browser.close()
    return times
