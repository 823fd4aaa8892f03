"""What a bench run measures and how it prints: the sections, the sizes of a full and a quick
run, and the report that collects the printed tables and the JSON figures."""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass
from typing import Any

SECTIONS = (
    "referee", "manager", "scaling", "memory", "clock", "site", "engines", "progress", "startup", "sandbox", "watching",
)  # fmt: skip


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
    sandbox_starts: int = 21  # engine starts, each way
    sandbox_blocks: int = 31  # pairs of blocks of games, sandboxed and not, alternated
    sandbox_block_games: int = 20  # games per block
    watch_rounds: int = 250  # 2 games per round: 500 games, about 26,000 moves, a run
    watch_shown_rounds: int = 20  # ... and with engines that think, so every game is shown: 40 games
    # ... in this many pairs of runs a repeat: a run's figure moves by +-15% with the host, and
    # two runs side by side move together, so short runs alternated often pin the ratio best
    watch_shown_pairs: int = 3
    watch_sleep_us: int = 2000  # what those engines think a move (asleep): a game lasts about 0.25 s
    round_trips: int | None = None  # per pipe ping-pong; None: the pipes' own minimum (quick: unsettled)
    startup_runs: int | None = None  # runs of each command; None: 4 a repeat and one (a process is cheap and noisy)


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
    sandbox_starts=2,
    sandbox_blocks=2,
    sandbox_block_games=1,
    startup_runs=1,
    watch_rounds=2,
    watch_shown_rounds=1,
    watch_shown_pairs=1,
    round_trips=2_000,
)


class Report:
    """Collects printed text and the JSON figures."""

    def __init__(self, echo: Callable[[str], None]) -> None:
        self.echo = echo
        self.data: dict[str, Any] = {}
        self.targets: list[dict[str, Any]] = []

    def table(self, rows: list[list[Any]], headers: list[str], numeric: bool = True) -> None:
        from tabulate import tabulate  # here: `arena --help` imports this module for the section names

        align = ("left",) + ("right" if numeric else "left",) * (len(headers) - 1)
        self.echo(
            tabulate([[_cell(v) for v in row] for row in rows], headers=headers, disable_numparse=True, colalign=align)
        )

    def target(self, what: str, measured: str, met: bool | None) -> None:
        self.targets.append(
            {"target": what, "measured": measured, "status": "n/a" if met is None else "met" if met else "MISSED"}
        )


def _cell(value: Any) -> str:
    """Numbers to three significant figures at least, with thousands separators."""
    if isinstance(value, bool) or not isinstance(value, (int, float)):
        return str(value)
    if isinstance(value, int) or abs(value) >= 100:
        return f"{value:,.0f}"
    return f"{value:.3g}" if abs(value) < 10 else f"{value:.1f}"
