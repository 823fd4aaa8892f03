"""``arena bench``: what the referee and the tournament manager cost, next to baselines.

Nine sections (docs/performance.md explains each method and shows a run):

1. referee  - random playouts and moves validated per second, per game on one core;
              OpenSpiel's Hex on the same games when open-spiel is installed.
2. manager  - the manager's own CPU and wall time per move in a real tournament
              between two instant engines (the live site's share apart), next to a raw
              pipe ping-pong and, given a binary, fastchess measured the same way.
3. scaling  - games per second with 1..cores workers and CPU-bound engines.
4. memory   - peak RSS of the coordinator and of each worker.
5. clock    - what the referee charges an engine that sleeps a known time.
6. site     - building the report site of 10,000 games, and loading its pages in Chromium.
7. engines  - the bundled search engine's iterations per second and move times per
              game, and what its clock mode is charged under a move time.
8. progress - the live progress display's CPU per move in the coordinator, on and off.
9. startup  - the CPU of ``arena --version``, ``--help`` and an input error, as whole processes.

Every figure is the median of ``repeats`` runs, baselines measured in the same run.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass, replace
from pathlib import Path
from typing import Any

SECTIONS = ("referee", "manager", "scaling", "memory", "clock", "site", "engines", "progress", "startup")


@dataclass(frozen=True)
class Plan:
    repeats: int
    referee_budget_s: float  # time to fill with playouts per game and repeat
    manager_rounds: int  # 2 games per round
    manager_size: int
    scaling_rounds: int
    scaling_size: int
    scaling_busy_us: int  # CPU each engine burns per move
    memory_rounds: int
    clock_games: int
    clock_size: int
    clock_sleep_us: int
    site_games: int = 10_000  # synthetic games in the report site
    engine_level: str = "hard"  # the search engine's level in the engines section
    engine_movetime_ms: int = 300
    engine_clock_games: int = 2
    progress_rounds: int = 100  # 2 games per round
    fastchess: str | None = None  # a fastchess binary for the manager section's side-by-side
    fastchess_rounds: int = 100  # 2 games per round
    ladder_games: int = 2  # per game and level, at the ladders' move times
    ladder_games_all: bool = True  # every game and level (quick: Hex 5x5, easy)


FULL = Plan(
    repeats=5,
    referee_budget_s=0.5,
    manager_rounds=100,
    manager_size=11,
    scaling_rounds=24,
    scaling_size=9,
    scaling_busy_us=2000,
    memory_rounds=25,
    clock_games=4,
    clock_size=11,
    clock_sleep_us=5000,
)
QUICK = Plan(
    repeats=1,
    referee_budget_s=0.02,
    manager_rounds=3,
    manager_size=7,
    scaling_rounds=2,
    scaling_size=5,
    scaling_busy_us=300,
    memory_rounds=1,
    clock_games=1,
    clock_size=5,
    clock_sleep_us=2000,
    site_games=20,
    engine_level="easy",
    engine_movetime_ms=150,
    engine_clock_games=1,
    progress_rounds=5,
    fastchess_rounds=2,
    ladder_games=1,
    ladder_games_all=False,
)


class Report:
    """Collects printed text and the JSON figures."""

    def __init__(self, echo: Callable[[str], None]) -> None:
        self.echo = echo
        self.data: dict[str, Any] = {}
        self.targets: list[dict[str, Any]] = []

    def table(self, rows: list[list[Any]], headers: list[str], numeric: bool = True) -> None:
        from tabulate import tabulate  # here: the CLI imports this package on every command

        align = ("left",) + ("right" if numeric else "left",) * (len(headers) - 1)
        self.echo(
            tabulate([[_cell(v) for v in row] for row in rows], headers=headers, disable_numparse=True, colalign=align)
        )

    def target(self, what: str, measured: str, met: bool | None) -> None:
        self.targets.append(
            {"target": what, "measured": measured, "status": "n/a" if met is None else "met" if met else "MISSED"}
        )


def run_bench(
    *,
    quick: bool = False,
    sections: tuple[str, ...] = SECTIONS,
    repeats: int | None = None,
    json_path: Path | None = None,
    echo: Callable[[str], None] = print,
    fastchess: str | None = None,
) -> dict[str, Any]:
    from .common import instant_engine, machine  # here: the CLI imports this package on every command

    plan = QUICK if quick else FULL
    if repeats:
        plan = replace(plan, repeats=repeats)
    plan = replace(plan, fastchess=fastchess)
    report = Report(echo)
    echo(f"arena bench{' --quick (tiny sizes: proves it works, figures are not meaningful)' if quick else ''}")
    echo(f"machine: {machine()}")
    echo(f"every figure is the median of {plan.repeats} run(s); baselines are measured in the same run")
    report.data["machine"] = machine()
    report.data["plan"] = plan.__dict__
    engine = instant_engine() if set(sections) - {"referee", "site", "startup"} else None
    if engine is not None:
        echo(f"instant engine: {engine.note}")
        report.data["instant_engine"] = engine.kind
    from . import sections as run

    for name in SECTIONS:
        if name in sections:
            getattr(run, name)(plan, engine, report)
    _targets(report)
    if json_path is not None:
        from ..results import strictjson  # here: `arena --help` imports this module's SECTIONS only

        report.data["targets"] = report.targets
        json_path.write_text(strictjson.dumps(strictjson.finite(report.data), indent=2) + "\n", encoding="utf-8")
        echo(f"\nfigures written to {json_path}")
    return report.data


def _cell(value: Any) -> str:
    """Numbers to three significant figures at least, with thousands separators."""
    if isinstance(value, bool) or not isinstance(value, (int, float)):
        return str(value)
    if isinstance(value, int) or abs(value) >= 100:
        return f"{value:,.0f}"
    return f"{value:.3g}" if abs(value) < 10 else f"{value:.1f}"


def _targets(report: Report) -> None:
    if not report.targets:
        return
    report.echo("\nTargets")
    report.table(
        [[t["target"], t["measured"], t["status"]] for t in report.targets],
        ["target", "measured", "status"],
        numeric=False,
    )


__all__ = ["SECTIONS", "Plan", "run_bench"]
