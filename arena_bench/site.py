"""Section 6: the report site of a large tournament.

Synthetic Hex 11x11 records (random games between four engines, as the runner records
them) go through the real writer (:func:`arena.results.site.write_site`) into a fresh
folder: the time of a whole build, then of a running tournament's refreshes (one writer
kept, as the live site keeps it: the first counts every game, the next only the games
finished since, and writes their pages).  Then headless Chromium (Playwright, from the
test extra) opens the pages from disk and the page's own navigation timing says when
each finished loading.  Last, the CPU of ``summarize()`` and results.json for a tenth of
the games and for all: linear work gives ten times the CPU.
"""

from __future__ import annotations

import random
import resource
import tempfile
import time
from collections.abc import Callable
from pathlib import Path
from typing import TYPE_CHECKING, Any

from arena.record import GameRecord
from arena.rules import make_game

from .common import med

if TYPE_CHECKING:
    from .plan import Plan, Report

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
    from arena.results.site import SiteData, SiteWriter, write_site

    games = plan.site_games
    report.echo(f"\n6. Report site ({games:,} synthetic Hex 11x11 games through the real writer)")
    records = synthetic_records(games + NEW_GAMES)
    old, new = records[:games], records[games:]
    settings = {"name": "bench", "time_control": {"movetime_ms": 1000}}
    builds, firsts, refreshes = [], [], []
    loads: dict[str, list[float]] = {"index.html": [], "games.html": [], "games/0.html?game=0": []}
    for _ in range(plan.repeats):
        with tempfile.TemporaryDirectory(prefix="arena-bench-site-") as tmp:
            folder = Path(tmp) / "report"
            data = SiteData("arena · bench", "hex", old[0]["options"], ENGINES, list(old), settings)
            builds.append(_timed(write_site, folder, data))
            # A run's live site (one writer, as LiveSite keeps it): its first refresh counts
            # every stored game, the next ones only the games that finished since.
            live = SiteWriter(folder, parallel=False)
            firsts.append(_timed(live.write, data))
            data.records += new
            refreshes.append(_timed(live.write, data))
            size_mib = sum(p.stat().st_size for p in folder.rglob("*") if p.is_file()) / 2**20
            for page, seconds in _load_times(folder, PAGE_LOADS if games >= 1000 else 1).items():
                loads[page].extend(seconds)
    wall = lambda runs: med([w for w, _ in runs])
    cpu = lambda runs: med([c for _, c in runs])
    rows: list[list[Any]] = [
        [label, wall(runs), cpu(runs)]
        for label, runs in (
            ("whole build", builds),
            ("first refresh of a running site (every game counted, pages written)", firsts),
            (f"refresh after {NEW_GAMES} more games (what a run pays every few seconds)", refreshes),
        )
    ]
    report.table(rows, ["site", "wall s (median)", "CPU s (forked writers included)"])
    report.echo(f"site size: {size_mib:,.0f} MiB in {games + 10:,}-odd files")
    figures: dict[str, Any] = {
        "games": games,
        "build_s": wall(builds),
        "build_cpu_s": cpu(builds),
        "first_refresh_s": wall(firsts),
        "first_refresh_cpu_s": cpu(firsts),
        "refresh_s": wall(refreshes),
        "refresh_cpu_s": cpu(refreshes),
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
    growth = _summary_growth(records[:games], plan.repeats)
    report.table(
        [[f"{n:,}", cpu] for n, cpu in growth.items()],
        ["games", "summarize() + results.json, CPU s (median)"],
    )
    (small, small_s), (large, large_s) = growth.items()
    ratio = large_s / small_s
    report.echo(f"{large / small:g}x the games: {ratio:.2f}x the CPU (linear: {large / small:g}x)")
    figures["summary_growth"] = {"games": list(growth), "cpu_s": list(growth.values()), "ratio": ratio}
    report.data["site"] = figures
    full = games >= 10_000
    scale = "" if games == 10_000 else f" (measured at {games:,} games)"
    report.target(
        "site of 10,000 games builds in < 15 s",
        f"{wall(builds):.1f} s ({cpu(builds):.1f} s of CPU){scale}",
        wall(builds) < 15 if full else None,
    )
    report.target(
        "site of 10,000 games refreshes in < 2 s",
        f"{wall(refreshes):.2f} s, {cpu(refreshes):.2f} s of CPU (the first: {wall(firsts):.2f} s){scale}",
        wall(refreshes) < 2 and wall(firsts) < 2 if full else None,
    )
    if all(loads.values()):
        slowest = max(loads, key=lambda page: med(loads[page]))
        ms = 1000 * med(loads[slowest])
        report.target("every page loads in < 300 ms", f"{ms:.0f} ms ({slowest}){scale}", ms < 300 if full else None)
    report.target(
        "summaries grow linearly with the games",
        f"{ratio:.2f}x the CPU for {large / small:g}x the games",
        ratio <= 1.2 * large / small if full else None,
    )


NEW_GAMES = 10  # games finished between two refreshes of the bench's live site


def _timed(work: Callable[..., object], *args: Any) -> tuple[float, float]:
    """Wall seconds and CPU seconds of ``work(*args)``: this process's and that of the page
    writers it forks (waited for, so counted in RUSAGE_CHILDREN)."""
    wall, cpu, kids = time.perf_counter(), time.process_time(), _children_cpu()
    work(*args)
    return time.perf_counter() - wall, time.process_time() - cpu + _children_cpu() - kids


def _children_cpu() -> float:
    usage = resource.getrusage(resource.RUSAGE_CHILDREN)
    return usage.ru_utime + usage.ru_stime


def _summary_growth(records: list[GameRecord], repeats: int) -> dict[int, float]:
    """CPU seconds of summarize() and results.json (as a run's end writes them) for a tenth
    of ``records`` and for all of them."""
    from arena.results import strictjson
    from arena.results.export import results_document, summarize

    out = {}
    for n in (max(1, len(records) // 10), len(records)):
        part = records[:n]
        times = []
        for _ in range(repeats):
            start = time.process_time()
            s = summarize(part, ENGINES, tournament="bench", game="hex", options=part[0]["options"], players=2)
            strictjson.dumps(strictjson.finite(results_document(s)), indent=2)
            times.append(time.process_time() - start)
        out[n] = med(times)
    return out


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
            for page_name in ("index.html", "games.html", "games/0.html?game=0"):  # the last: game 0's viewer
                path, _, query = page_name.partition("?")
                for _ in range(loads):
                    page = browser.new_page()  # a fresh page each time: nothing cached in memory
                    page.goto((folder / path).as_uri() + (f"?{query}" if query else ""), wait_until="load")
                    ms = page.evaluate(
                        "() => { const n = performance.getEntriesByType('navigation')[0];"
                        " return n.loadEventEnd - n.startTime; }"
                    )
                    times.setdefault(page_name, []).append(ms / 1000)
                    page.close()
        finally:
            browser.close()
    return times
