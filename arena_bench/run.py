"""One ``arena bench`` run: the chosen sections in order, the targets, the JSON file."""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import replace
from pathlib import Path
from typing import Any

from arena.machine import machine
from arena.results import strictjson

from . import sections as run
from .common import instant_engine
from .plan import FULL, QUICK, SECTIONS, Report

# Loaded only when a bench runs (the command imports this module then), so it imports what it
# needs at the top.


def run_bench(
    *,
    quick: bool = False,
    sections: tuple[str, ...] = SECTIONS,
    repeats: int | None = None,
    json_path: Path | None = None,
    echo: Callable[[str], None] = print,
    fastchess: str | None = None,
) -> dict[str, Any]:
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
    for name in SECTIONS:
        if name in sections:
            getattr(run, name)(plan, engine, report)
    _targets(report)
    if json_path is not None:
        report.data["targets"] = report.targets
        json_path.write_text(strictjson.dumps(strictjson.finite(report.data), indent=2) + "\n", encoding="utf-8")
        echo(f"\nfigures written to {json_path}")
    return report.data


def _targets(report: Report) -> None:
    if not report.targets:
        return
    report.echo("\nTargets")
    report.table(
        [[t["target"], t["measured"], t["status"]] for t in report.targets],
        ["target", "measured", "status"],
        numeric=False,
    )
