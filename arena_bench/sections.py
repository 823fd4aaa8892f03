"""The sections of ``arena bench``: measure, print a table, note the targets."""

from __future__ import annotations

import os
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path
from typing import TYPE_CHECKING

from arena.engine.waiting import SPIN_S
from arena.rules import make_game
from engines.search.engine import PARTS
from protocol import codec

from .clock import clock_accuracy
from .common import InstantEngine, med
from .engines import LADDER_LEVELS, clock_mode_times, ladder_moves, search_speed
from .fastchess import FastchessRun, find_fastchess, play_fastchess, uci_mover
from .pipes import RoundTrip, move_messages, ping_pong, python_peer
from .referee import all_games, openspiel_hex, random_playout
from .site import site as site_section
from .tournaments import TournamentRun, machine_parallel_wall, play_tournament

if TYPE_CHECKING:
    from .plan import Plan, Report

PLACEMENTS = {"free": "free (default)", "pinned": "pinned to one core", "affinity": "affinity = true"}
FASTCHESS_RATIO = 0.5  # the target: arena's manager CPU per move at most this times fastchess's

GO_LINE = codec.format_go(None, None, 1000)  # what the benchmark tournaments send


def referee(plan: Plan, engine: InstantEngine | None, report: Report) -> None:
    report.echo("\n1. Referee speed per game (one core, no processes)")
    games = [random_playout(make_game("hex", {"size": 11}), seed) for seed in range(20)]
    messages = move_messages(games, GO_LINE)
    one_core = sorted(os.sched_getaffinity(0))[-1:]
    pinned: list[float] = []
    free: list[float] = []

    def round_trips() -> None:
        # On a VM a wake-up on another vCPU can cost tens of microseconds (the free
        # round trip is then about 50 us instead of 7); both processes on one core give
        # the pipe's own cost, the strictest yardstick.
        with _pinned(one_core):
            pinned.append(ping_pong(python_peer(), messages, round_trips=plan.round_trips).wall_us)
        free.append(ping_pong(python_peer(), messages, round_trips=plan.round_trips).wall_us)

    figures = all_games(
        plan.repeats, plan.referee_budget_s, lambda text: report.echo(f"   {text}"), between=round_trips
    )
    pipe = med(pinned)
    rows = []
    for f in figures:
        ratio = f.us_per_validated_move / pipe
        rows.append(
            [
                f.game,
                f.options,
                med(f.playouts_per_s),
                f.plies / f.playouts,
                med(f.moves_validated_per_s),
                f.us_per_validated_move,
                ratio,
            ]
        )
        limit = 5 if f.game == "hexgo" else 1
        report.target(
            f"{f.game}: validating a move <= {limit} pipe round trip{'s' if limit > 1 else ''}",
            f"{f.us_per_validated_move:.2f} us = {ratio:.2f} round trips",
            ratio <= limit,
        )
    report.table(
        rows,
        ["game", "options", "playouts/s", "plies/game", "moves validated/s", "us/validated move", "x pipe round trip"],
    )
    report.echo(
        f"pipe round trip (Python <-> Python, Hex 11x11 position+go lines, between the rounds): "
        f"{pipe:.1f} us with both on one core (the yardstick), {med(free):.1f} us as scheduled"
    )
    report.data["referee"] = {
        "games": [f.as_dict() for f in figures],
        "pipe_round_trip_us": pipe,
        "pipe_round_trip_scheduled_us": med(free),
    }
    spiel = openspiel_hex(11, plan.repeats, plan.referee_budget_s)
    if spiel is None:
        report.echo("OpenSpiel: not installed (pip install -e '.[bench]'); comparison skipped")
        report.target("Hex 11x11 random playouts >= 1.5x OpenSpiel", "open-spiel not installed", None)
        return
    report.echo(
        f"\nHex 11x11 without swap against OpenSpiel {spiel.version}, {spiel.playouts} playouts, "
        f"same seeds, alternating runs; identical games: {'yes' if spiel.identical else 'NO'}; "
        f"batched games identical to OpenSpiel's along the same orders: {'yes' if spiel.batched_identical else 'NO'}"
    )
    report.table(
        [
            [
                "random playouts/s: playout() / legal_actions()",
                med(spiel.arena_playouts_per_s),
                med(spiel.openspiel_playouts_per_s),
                spiel.playout_ratio,
            ],
            [
                "random playouts/s: random_move()+play() / legal_actions()",
                med(spiel.arena_stepwise_playouts_per_s),
                med(spiel.openspiel_playouts_per_s),
                spiel.stepwise_playout_ratio,
            ],
            [
                "random playouts/s: playout() / driver keeps the empty cells",
                med(spiel.arena_playouts_per_s),
                med(spiel.openspiel_own_list_playouts_per_s),
                spiel.own_list_playout_ratio,
            ],
            [
                "random playouts/s: batched (numpy) / the same orders, move by move",
                med(spiel.arena_batched_playouts_per_s),
                med(spiel.openspiel_ordered_playouts_per_s),
                spiel.ratio("arena_batched_playouts_per_s", "openspiel_ordered_playouts_per_s"),
            ],
            [
                "random playouts/s: batched (numpy) / driver keeps the empty cells",
                med(spiel.arena_batched_playouts_per_s),
                med(spiel.openspiel_own_list_playouts_per_s),
                spiel.ratio("arena_batched_playouts_per_s", "openspiel_own_list_playouts_per_s"),
            ],
            [
                "moves validated/s",
                med(spiel.arena_moves_validated_per_s),
                med(spiel.openspiel_moves_validated_per_s),
                spiel.validation_ratio,
            ],
        ],
        ["arena / OpenSpiel", "arena", "OpenSpiel", "ratio"],
    )
    report.data["referee"]["openspiel_hex11"] = spiel.as_dict()
    report.target(
        "Hex 11x11 random playouts >= 1.5x OpenSpiel",
        f"{spiel.playout_ratio:.2f}x (step by step {spiel.stepwise_playout_ratio:.2f}x)",
        spiel.playout_ratio >= 1.5,
    )
    report.target(
        "Hex 11x11 batched random playouts >= 1.5x the strongest Python driver of OpenSpiel",
        f"{spiel.batched_ratio:.2f}x (the strongest: "
        f"{'it keeps the empty cells' if 'own_list' in spiel.strongest_openspiel else 'the same orders'})"
        f"; the same games: {'yes' if spiel.batched_identical else 'NO'}",
        spiel.batched_ratio >= 1.5 and spiel.batched_identical,
    )


def manager(plan: Plan, engine: InstantEngine | None, report: Report) -> None:
    assert engine is not None
    report.echo(
        f"\n2. Manager overhead per move (Hex {plan.manager_size}x{plan.manager_size}, "
        f"two instant engines, 1 worker, {2 * plan.manager_rounds} games)"
    )
    allowed = sorted(os.sched_getaffinity(0))
    # Free: the scheduler places processes (the default). Pinned: the whole tree on one core,
    # as `taskset -c N arena run` does; on a VM every wake-up of a process on another vCPU
    # can cost tens of microseconds, which pinning avoids.
    # Affinity: the tournament file's `affinity = true`, each worker and its engines on a core
    # of their own while the coordinator roams; its ping-pong baseline is the one-core one.
    placements = (
        {"free": allowed, "pinned": allowed[-1:], "affinity": allowed[-1:]} if len(allowed) > 1 else {"free": allowed}
    )
    runs: dict[str, list[TournamentRun]] = {p: [] for p in placements}
    py_trips: dict[str, list[RoundTrip]] = {p: [] for p in placements}
    spinning_trips: list[RoundTrip] = []  # free placement only: the one where arena spins
    c_trips: dict[str, list[RoundTrip]] = {p: [] for p in placements}
    fastchess, mover, absent = _fastchess_side(plan)
    fastchess_runs: list[FastchessRun] = []
    fastchess_figures: dict[str, float] | None = None  # None: not measured
    for _ in range(plan.repeats):  # interleaved, so load changes hit all alike
        if fastchess is not None and mover is not None:  # a pair: fastchess, then arena's runs
            fastchess_runs.append(play_fastchess(fastchess, mover, plan.fastchess_rounds))
        for placement, cpus in placements.items():
            run = play_tournament(
                engine,
                workers=1,
                rounds=plan.manager_rounds,
                size=plan.manager_size,
                cpus=allowed if placement == "affinity" else cpus,
                affinity=placement == "affinity",
                note=report.echo,
            )
            runs[placement].append(run)
            messages = move_messages(run.moves, GO_LINE)
            with _pinned(cpus):
                py_trips[placement].append(ping_pong(python_peer(), messages, round_trips=plan.round_trips))
                if placement == "free":
                    spinning_trips.append(
                        ping_pong(python_peer(), messages, spin_s=SPIN_S, round_trips=plan.round_trips)
                    )
                c_trips[placement].append(ping_pong(engine.argv, messages, round_trips=plan.round_trips))
    figures = {p: _manager_figures(runs[p], py_trips[p], c_trips[p]) for p in placements}
    figures["free"]["pingpong_python_spinning"] = med([t.wall_us for t in spinning_trips])
    theirs = med([r.manager_cpu_us for r in fastchess_runs]) if fastchess_runs else None
    report.table(
        [
            [
                PLACEMENTS[p],
                f["cpu"],
                f["site_cpu"],
                f["cpu"] - f["site_cpu"],
                f["pingpong_parent_cpu"],
                f["cpu"] / f["pingpong_parent_cpu"],
                *([f["cpu"] / theirs] if theirs else []),
            ]
            for p, f in figures.items()
        ]
        + ([["fastchess, -concurrency 1", theirs]] if theirs else []),
        [
            "manager CPU per move (us)",
            "arena",
            "of which the live site",
            "without the site",
            "raw ping-pong, parent CPU",
            "ratio",
            *(["x fastchess"] if theirs else []),
        ],
    )
    if fastchess_runs:
        f = fastchess_runs[0]
        report.echo(
            f"fastchess ({fastchess}): chess between two random UCI movers (benchmarks/uci_random_mover.c), "
            f"{f.games} games, {f.moves:,} moves a run, their own CPU "
            f"({med([r.engine_cpu_s / r.moves * 1e6 for r in fastchess_runs]):.1f} us/move) excluded; "
            "runs alternate with arena's"
        )
        fastchess_figures = {
            "cpu": med([r.manager_cpu_us for r in fastchess_runs]),
            "moves": f.moves,
            "games": f.games,
            "wall": med([r.wall_s / r.moves * 1e6 for r in fastchess_runs]),
            "engine_cpu": med([r.engine_cpu_s / r.moves * 1e6 for r in fastchess_runs]),
        }
    else:
        report.echo(f"fastchess: not measured: {absent}")
    report.echo("")
    spinning = figures["free"]["pingpong_python_spinning"]
    report.table(
        [
            [
                PLACEMENTS[p],
                f["wall"],
                f["pingpong_python"],
                f["wall"] / f["pingpong_python"],
                f["pingpong_c"],
                f["wall"] / f["pingpong_c"],
            ]
            for p, f in figures.items()
        ]
        + [["  free, reader spinning", figures["free"]["wall"], spinning, figures["free"]["wall"] / spinning]],
        ["wall time per move (us)", "arena", "raw ping-pong Py<->Py", "ratio", "raw ping-pong Py<->C engine", "ratio"],
    )
    free = figures["free"]
    report.echo(
        f"{free['moves']:,} moves per run; the engines' own CPU ({free['engine_cpu']:.1f} us/move) "
        "is excluded from the manager's"
    )
    report.data["manager"] = {**figures, "fastchess": fastchess_figures}
    others = [(p, figures[p]) for p in ("pinned", "affinity") if p in figures]
    also = lambda key: "".join(f" ({PLACEMENTS[p]}: {f[key]:.1f} us)" for p, f in others)
    report.target(
        f"manager CPU per move, live site on, <= {FASTCHESS_RATIO}x fastchess's (side by side)",
        f"{free['cpu']:.1f} us = {free['cpu'] / theirs:.2f}x fastchess's {theirs:.1f} us{also('cpu')}"
        if theirs
        else f"{free['cpu']:.1f} us; fastchess not measured ({absent})",
        free["cpu"] <= FASTCHESS_RATIO * theirs if theirs else None,
    )
    report.target(
        "the live site's share of the manager's CPU per move",
        f"{free['site_cpu']:.1f} us of {free['cpu']:.1f} us ({100 * free['site_cpu'] / free['cpu']:.0f}%)",
        None,
    )
    # Free: against the stricter of its two ping-pongs (plain, and spinning as arena does).
    free_ratio = free["wall"] / min(free["pingpong_python"], spinning)
    report.target(
        "wall per move <= 3x raw ping-pong (Python<->Python)",
        f"{free['wall']:.1f} us = {free_ratio:.2f}x the spinning ping-pong "
        f"({free['wall'] / free['pingpong_python']:.2f}x the plain one)",
        free_ratio <= 3,
    )
    if "affinity" in figures:
        ratio = figures["affinity"]["wall"] / figures["affinity"]["pingpong_python"]
        report.target(
            "wall per move <= 3x raw ping-pong, with affinity = true",
            f"{figures['affinity']['wall']:.1f} us = {ratio:.2f}x",
            ratio <= 3,
        )


def _fastchess_side(plan: Plan) -> tuple[Path | None, Path | None, str]:
    """The fastchess binary and the UCI mover for the side-by-side, or why there is none."""
    binary, why = find_fastchess(plan.fastchess)
    if binary is None:
        return None, None, why
    mover, why = uci_mover()
    return (binary, mover, "") if mover is not None else (None, None, why)


def _manager_figures(runs: list[TournamentRun], py: list[RoundTrip], c: list[RoundTrip]) -> dict[str, float]:
    return {
        "moves": runs[0].plies,
        "cpu": med([r.manager_cpu_s / r.plies * 1e6 for r in runs]),
        "site_cpu": med([r.site_cpu_s / r.plies * 1e6 for r in runs]),
        "wall": med([r.wall_s / r.plies * 1e6 for r in runs]),
        "engine_cpu": med([r.engine_cpu_s / r.plies * 1e6 for r in runs]),
        "pingpong_python": med([t.wall_us for t in py]),
        "pingpong_c": med([t.wall_us for t in c]),
        "pingpong_parent_cpu": med([t.cpu_us for t in c]),
    }


@contextmanager
def _pinned(cpus: list[int]) -> Iterator[None]:
    """This process (and the children it starts meanwhile) on ``cpus`` only."""
    before = os.sched_getaffinity(0)
    os.sched_setaffinity(0, cpus)
    try:
        yield
    finally:
        os.sched_setaffinity(0, before)


def scaling(plan: Plan, engine: InstantEngine | None, report: Report) -> None:
    assert engine is not None
    cores = os.cpu_count() or 1
    report.echo(
        f"\n3. Parallel scaling (Hex {plan.scaling_size}x{plan.scaling_size}, engines burning "
        f"{plan.scaling_busy_us} us CPU per move, {2 * plan.scaling_rounds} games)"
    )
    counts = list(range(1, cores + 1))
    rates: dict[int, list[float]] = {k: [] for k in counts}
    raw: dict[int, list[float]] = {k: [] for k in counts}
    for _ in range(plan.repeats):
        for k in counts:  # interleaved, arena and the bare machine side by side
            run = play_tournament(
                engine,
                workers=k,
                rounds=plan.scaling_rounds,
                size=plan.scaling_size,
                engine_args=("--busy-us", str(plan.scaling_busy_us)),
                note=report.echo,
            )
            rates[k].append(run.games / run.wall_s)
            raw[k].append(
                1
                / machine_parallel_wall(
                    engine, processes=k, moves=run.plies, size=plan.scaling_size, busy_us=plan.scaling_busy_us
                )
            )
    base, raw_base = med(rates[1]), med(raw[1])
    rows = [[k, med(rates[k]), med(rates[k]) / (k * base) * 100, med(raw[k]) / (k * raw_base) * 100] for k in counts]
    report.table(
        rows, ["workers", "games/s", "efficiency vs 1 worker (%)", "machine alone: same CPU work in k processes (%)"]
    )
    report.data["scaling"] = [
        {"workers": k, "games_per_s": r, "efficiency": e / 100, "machine_efficiency": m / 100} for k, r, e, m in rows
    ]
    if cores >= 2:
        eff, machine_eff = rows[1][2], rows[1][3]
        report.target(
            ">= 90% parallel efficiency at 2 workers", f"{eff:.1f}% (the machine alone: {machine_eff:.1f}%)", eff >= 90
        )


def memory(plan: Plan, engine: InstantEngine | None, report: Report) -> None:
    assert engine is not None
    workers = os.cpu_count() or 1
    report.echo(f"\n4. Memory (peak RSS; Hex 11x11 tournament, instant engines, {workers} workers)")
    runs = [
        play_tournament(engine, workers=workers, rounds=plan.memory_rounds, size=11, sample_rss=True, note=report.echo)
        for _ in range(plan.repeats)
    ]
    rows = [["coordinator", med([r.coordinator_rss_kib for r in runs]) / 1024]]
    sampled = [r.worker_rss_kib for r in runs if r.worker_rss_kib and len(r.worker_rss_kib) == workers]
    if sampled:
        rows += [[f"worker {i + 1}", med([s[i] for s in sampled]) / 1024] for i in range(workers)]
    else:
        rows.append(["largest worker (or engine)", med([r.largest_child_rss_kib for r in runs]) / 1024])
    report.table(rows, ["process", "peak RSS (MiB)"])
    report.data["memory_mib"] = {name: value for name, value in rows}


def clock(plan: Plan, engine: InstantEngine | None, report: Report) -> None:
    assert engine is not None
    report.echo(
        f"\n5. Clock accuracy (an engine sleeping {plan.clock_sleep_us / 1000:g} ms per move, "
        f"Hex {plan.clock_size}x{plan.clock_size})"
    )
    runs = [
        clock_accuracy(engine, games=plan.clock_games, size=plan.clock_size, sleep_us=plan.clock_sleep_us)
        for _ in range(plan.repeats)
    ]
    figures = [r.as_dict() for r in runs]
    pick = lambda key: med([f[key] for f in figures])
    report.table(
        [
            ["referee's measurement (Reply.elapsed)", pick("measured_error_median_ms"), pick("measured_error_p99_ms")],
            [
                "charged in the record (times_ms, whole ms)",
                pick("recorded_error_median_ms"),
                pick("recorded_error_p99_ms"),
            ],
        ],
        ["referee minus engine's own time", "median (ms)", "99th percentile (ms)"],
    )
    report.echo(f"{runs[0].moves} moves per run")
    report.data["clock"] = {key: pick(key) for key in figures[0]}
    err = pick("measured_error_median_ms")
    report.target("clock error median <= 1 ms", f"{err:.3f} ms", abs(err) <= 1)


def site(plan: Plan, engine: InstantEngine | None, report: Report) -> None:
    site_section(plan, report)


def engines(plan: Plan, engine: InstantEngine | None, report: Report) -> None:
    level = plan.engine_level
    report.echo(
        f"\n7. Bundled search engine (level {level}, default game options, one core, "
        f"{plan.repeats} run(s) per position)"
    )
    figures = [search_speed(game, level, plan.repeats) for game in sorted(PARTS)]
    report.table(
        [[f.game, f.budget, f.iterations_per_s, med(f.cpu_s), max(f.cpu_s), max(f.wall_s)] for f in figures],
        [
            "game",
            "iterations a move",
            "iterations/s (CPU)",
            "move CPU s (median)",
            "move CPU s (max)",
            "move wall s (max)",
        ],
    )
    slowest = max(figures, key=lambda f: max(f.cpu_s))
    report.target(
        f"level {level} moves within 1 s on one core",
        f"slowest {max(slowest.cpu_s):.2f} s CPU ({slowest.game})",
        max(slowest.cpu_s) <= 1.0,
    )
    _ladder_moves(plan, report)
    charged = clock_mode_times(plan.engine_movetime_ms, plan.engine_clock_games)
    report.echo(
        f"level time under movetime {plan.engine_movetime_ms} ms (Hex 9x9, {len(charged)} moves): "
        f"the referee charged median {med(charged):.0f} ms, max {max(charged)} ms"
    )
    report.data["engines"] = {
        "search": [f.as_dict() for f in figures],
        "clock_mode": {"movetime_ms": plan.engine_movetime_ms, "charged_ms": charged},
    }
    report.target(
        "level time answers within its movetime",
        f"max {max(charged)} ms of {plan.engine_movetime_ms} ms",
        max(charged) < plan.engine_movetime_ms,
    )


def _ladder_moves(plan: Plan, report: Report) -> None:
    """The levels at the ladders' move times: the slowest move per game and level."""
    games = sorted(PARTS) if plan.ladder_games_all else ["hex"]
    levels = LADDER_LEVELS if plan.ladder_games_all else ("easy",)
    options = {} if plan.ladder_games_all else {"size": 5}
    figures = [ladder_moves(game, level, plan.ladder_games, options) for game in games for level in levels]
    report.echo(
        f"\nLadder games against random ({plan.ladder_games} a level, the ladders' options and move times"
        f"{'' if plan.ladder_games_all else ', Hex 5x5 only'}): the slowest move per game the referee charged"
    )
    report.table(
        [[f.game, f.level, f.movetime_ms, " ".join(map(str, f.slowest_ms)), f.moves, f.clock_stopped] for f in figures],
        ["game", "level", "move time ms", "slowest ms per game", "moves", "stopped by the clock"],
    )
    report.data["engines_ladder_moves"] = [f.as_dict() for f in figures]
    hard = [f for f in figures if f.level == "hard"]
    if hard:
        report.target(
            "level hard within its ladder move time in every game, the clock never stopping it",
            ", ".join(f"{f.game} {max(f.slowest_ms)}/{f.movetime_ms} ms, {f.clock_stopped} stopped" for f in hard),
            all(max(f.slowest_ms) < f.movetime_ms and not f.clock_stopped for f in hard),
        )


PROGRESS_MODES = {"off": None, "lines (not a terminal)": "lines", "live (rich, a terminal)": "live"}


def progress(plan: Plan, engine: InstantEngine | None, report: Report) -> None:
    assert engine is not None
    report.echo(
        f"\n8. Live progress: coordinator CPU per move (Hex {plan.manager_size}x{plan.manager_size}, two "
        f"instant engines, 1 worker, {2 * plan.progress_rounds} games; output discarded)"
    )
    runs: dict[str, list[TournamentRun]] = {label: [] for label in PROGRESS_MODES}
    for _ in range(plan.repeats):  # interleaved, so load changes hit all modes alike
        for label, mode in PROGRESS_MODES.items():
            runs[label].append(
                play_tournament(engine, workers=1, rounds=plan.progress_rounds, size=plan.manager_size, progress=mode)
            )
    per_move = lambda values: med(values) * 1e6
    manager_off = per_move([r.manager_cpu_s / r.plies for r in runs["off"]])
    rows, figures = [], {}
    for label, mode in PROGRESS_MODES.items():
        manager = per_move([r.manager_cpu_s / r.plies for r in runs[label]])
        inside = per_move([r.progress_cpu_s / r.plies for r in runs[label]])
        share = 100 * inside / manager_off
        rows.append([label, manager, manager / manager_off, inside, share])
        figures[mode or "off"] = {"manager_cpu_us": manager, "progress_cpu_us": inside, "share_pct": share}
    report.table(
        rows,
        ["progress", "manager CPU per move (us)", "x off", "in the progress (us/move)", "% of the manager's CPU (off)"],
    )
    report.echo(
        "the middle columns compare whole runs (noisy on a shared machine); the last two time the "
        "progress calls themselves"
    )
    report.data["progress"] = figures
    worst = max(f["share_pct"] for f in figures.values())
    report.target("live progress <= 1% of the manager's CPU per move", f"{worst:.2f}% (worst mode)", worst <= 1)


def startup(plan: Plan, engine: InstantEngine | None, report: Report) -> None:
    from .startup import BUDGET_S, measure

    runs = plan.startup_runs or 4 * plan.repeats + 1
    report.echo(f"\n9. Start-up: CPU of a whole process (user + system), median of {runs} runs")
    figures = measure(runs)
    report.table(
        [[label, figures.cpu_s[label] * 1e3, figures.wall_s[label] * 1e3] for label in figures.cpu_s],
        ["command", "CPU (ms)", "wall (ms)"],
    )
    report.data["startup"] = {"cpu_s": figures.cpu_s, "wall_s": figures.wall_s}
    arena = {label: cpu for label, cpu in figures.cpu_s.items() if label.startswith("arena")}
    slowest = max(arena, key=arena.__getitem__)
    report.target(
        f"arena --version, --help and an input error under {BUDGET_S} s of CPU",
        f"{arena[slowest]:.3f} s ({slowest})",
        arena[slowest] < BUDGET_S,
    )
    engine_starts(runs, report)


def engine_starts(runs: int, report: Report) -> None:
    from .startup import ENGINE_BUDGET_S, ENGINE_STARTS, ONE_GAME, measure

    report.echo(f"\nAn engine started for one game: handshake, a Hex game, quit; median of {runs} runs")
    figures = measure(runs, ENGINE_STARTS, given=ONE_GAME)
    report.table(
        [[label, figures.cpu_s[label] * 1e3, figures.wall_s[label] * 1e3] for label in figures.cpu_s],
        ["engine", "CPU (ms)", "wall (ms)"],
    )
    report.data["engine_starts"] = {"cpu_s": figures.cpu_s, "wall_s": figures.wall_s}
    random_s = figures.cpu_s["random engine: start, a game, quit"]
    report.target(
        f"the random engine's start under {ENGINE_BUDGET_S} s of CPU", f"{random_s:.3f} s", random_s < ENGINE_BUDGET_S
    )


SANDBOX_START_S = 0.050  # the target: a sandboxed engine starts at most this much later
SANDBOX_MANAGER_RATIO = 1.10  # the target: manager CPU and wall per move sandboxed, within 10%


def sandbox(plan: Plan, engine: InstantEngine | None, report: Report) -> None:
    from arena.engine.sandbox import sandbox_problem

    from .sandboxing import start_times, worker_per_move

    assert engine is not None
    report.echo("\n10. Sandbox: an engine's start and the worker per move, sandboxed and not (alternated)")
    if (problem := sandbox_problem()) is not None:
        report.echo(f"not measured: {problem}")
        report.target("sandboxed engine start <= +50 ms", f"not measured ({problem})", None)
        return
    starts = start_times(engine.argv, plan.sandbox_starts)
    report.table(
        [
            ["as it is", starts.plain_s * 1e3],
            ["sandboxed", starts.sandboxed_s * 1e3],
            ["difference", (starts.sandboxed_s - starts.plain_s) * 1e3],
        ],
        [f"instant engine, launch to arenaok (ms, median of {starts.runs})", "wall"],
    )
    per_move = worker_per_move(
        engine.argv, size=plan.manager_size, games=plan.sandbox_block_games, blocks=plan.sandbox_blocks
    )
    ways = {"as it is": per_move.plain, "sandboxed": per_move.sandboxed}
    figures: dict[str, dict[str, float]] = {
        name: {field: med([getattr(b, field) for b in blocks]) for field in ("cpu_us", "wall_us")}
        for name, blocks in ways.items()
    }
    cpu_ratio, wall_ratio = per_move.ratio("cpu_us"), per_move.ratio("wall_us")
    figures["ratio"] = {"cpu_us": cpu_ratio, "wall_us": wall_ratio}
    moves = sum(b.moves for b in per_move.plain)
    labels = {"ratio": "sandboxed / as it is, median of the pairs"}
    report.table(
        [[labels.get(name, name), f["cpu_us"], f["wall_us"]] for name, f in figures.items()]
        + [
            [
                "the pairs' ratios, quartiles",
                *("{:.2f}-{:.2f}".format(*per_move.quartiles(f)) for f in ("cpu_us", "wall_us")),
            ]
        ],
        [f"worker's own per move (us), Hex {plan.manager_size}x{plan.manager_size}", "CPU", "wall"],
    )
    report.echo(
        f"the worker's own CPU (getrusage RUSAGE_SELF: its threads, not bubblewrap's nor the engines'), "
        f"{plan.sandbox_blocks} pairs of {plan.sandbox_block_games}-game blocks alternated, {moves:,} moves each way "
        "after a game to start the engines; medians of the blocks, ratio: the median of the pairs' ratios"
    )
    report.data["sandbox"] = {
        "start_plain_s": starts.plain_s,
        "start_sandboxed_s": starts.sandboxed_s,
        "manager": figures,
        "moves": moves,
    }
    extra = starts.sandboxed_s - starts.plain_s
    report.target(
        f"sandboxed engine start <= +{SANDBOX_START_S * 1e3:.0f} ms",
        f"+{extra * 1e3:.1f} ms ({starts.sandboxed_s * 1e3:.1f} vs {starts.plain_s * 1e3:.1f} ms)",
        extra <= SANDBOX_START_S,
    )
    report.target(
        "manager CPU and wall per move sandboxed within 10%",
        f"CPU {cpu_ratio:.2f}x, wall {wall_ratio:.2f}x",
        max(cpu_ratio, wall_ratio) <= SANDBOX_MANAGER_RATIO,
    )


WATCH_VIEWERS = 20
WATCH_IDLE_RATIO = 1.03  # the target: a server nobody watches leaves the manager's CPU per move as it was
WATCH_VIEWERS_RATIO = 1.10  # ... and 20 pages watching raise it by under 10%
WATCH_LATENCY_S = 0.5  # a move's median delay to an open page


def watching(plan: Plan, engine: InstantEngine | None, report: Report) -> None:
    assert engine is not None
    report.echo(
        f"\n11. Watching: the manager's CPU per move with `arena run --serve` (Hex {plan.manager_size}x"
        f"{plan.manager_size}, two instant engines, 1 worker pinned to a core, {2 * plan.watch_rounds} games; "
        "alternated)"
    )
    viewers = f"{WATCH_VIEWERS} pages watching"
    modes = {"no server": (False, 0), "server, nobody watching": (True, 0), viewers: (True, WATCH_VIEWERS)}
    latencies: list[float] = []
    ratios = _watching_modes(plan, engine, modes, plan.watch_rounds, (), latencies, report, "instant")
    instant_moves = len(latencies)
    report.echo(
        f"moves sent to the pages: {instant_moves} (an instant engine's game is over in milliseconds, before it "
        "lasted long enough to be shown: it goes straight to the standings)"
    )
    # The same with engines that think a little, so that every game lasts long enough to be
    # shown move by move: what 20 pages cost a run whose games they do see, and the delay.
    shown = {label: modes[label] for label in ("no server", viewers)}
    report.echo(
        f"\nThe same with engines that think {plan.watch_sleep_us / 1000:g} ms a move (asleep: every game lasts "
        f"long enough to be shown), {2 * plan.watch_shown_rounds} games a run, {plan.watch_shown_pairs} pairs of "
        "runs a repeat; alternated"
    )
    thinking = ("--sleep-us", str(plan.watch_sleep_us))
    shown_ratios = _watching_modes(
        plan, engine, shown, plan.watch_shown_rounds, thinking, latencies, report, "shown", plan.watch_shown_pairs
    )
    report.echo(f"moves sent to the pages: {len(latencies) - instant_moves}")
    latency = med(latencies) if latencies else float("nan")
    report.echo(
        f"a move's delay from the worker to a page's feed: median {latency * 1000:.0f} ms over "
        f"{len(latencies)} moves sent (a game is shown once it lasted 0.05 s; the feed looks every 0.2 s)"
    )
    report.data["watching"]["latency_median_s"] = latency
    idle, watched, watched_shown = med(ratios[list(modes)[1]]), med(ratios[viewers]), med(shown_ratios[viewers])
    measured = watched == watched and watched_shown == watched_shown  # not NaN: the runs had a steady part
    report.target(
        f"manager CPU per move, a server nobody watches, <= {WATCH_IDLE_RATIO}x no server",
        f"{idle:.3f}x",
        idle <= WATCH_IDLE_RATIO if measured else None,
    )
    report.target(
        f"manager CPU per move, {WATCH_VIEWERS} pages watching, < {WATCH_VIEWERS_RATIO}x no server",
        f"{watched:.3f}x",
        watched < WATCH_VIEWERS_RATIO if measured else None,
    )
    report.target(
        f"the same, engines thinking {plan.watch_sleep_us / 1000:g} ms a move (every game shown), "
        f"< {WATCH_VIEWERS_RATIO}x",
        f"{watched_shown:.3f}x",
        watched_shown < WATCH_VIEWERS_RATIO if measured else None,
    )
    report.target(
        f"a move's median delay to an open page < {WATCH_LATENCY_S} s",
        f"{latency:.3f} s",
        latency < WATCH_LATENCY_S if latencies else None,
    )


def _watching_modes(
    plan: Plan,
    engine: InstantEngine,
    modes: dict[str, tuple[bool, int]],
    rounds: int,
    engine_args: tuple[str, ...],
    latencies: list[float],
    report: Report,
    key: str,
    per_repeat: int = 1,
) -> dict[str, list[float]]:
    """Each mode's run (its ``serve`` and pages) ``per_repeat`` times a repeat, the modes one
    after the other; their table, and each mode's ratios to the first mode's, turn by turn (NaN
    without a steady part)."""
    # A move's cost, without what a run pays once (the server's start, the engines' starts, the
    # final report): each run's CPU from its first game stored to its last (arena_bench/child.py).
    manager: dict[str, list[float]] = {label: [] for label in modes}
    worker: dict[str, list[float]] = {label: [] for label in modes}  # the worker's share
    server: dict[str, list[float]] = {label: [] for label in modes}  # the server process's, per move
    loads: list[float] = []
    # The run pinned to one core, the pages (this process's threads) to another where there is
    # one: the pages' own CPU is a browser's, and must not slow the run it watches.
    allowed = sorted(os.sched_getaffinity(0))
    run_cpus, page_cpus = (allowed[-1:], allowed[:-1]) if len(allowed) > 1 else (allowed, allowed)
    turns = plan.repeats * per_repeat
    for _ in range(turns):  # interleaved, so load changes hit all modes alike
        for label, (serve, viewers) in modes.items():
            loads.append(os.getloadavg()[0])
            with _pinned(page_cpus):
                run = play_tournament(
                    engine,
                    workers=1,
                    rounds=rounds,
                    size=plan.manager_size,
                    engine_args=engine_args,
                    cpus=run_cpus,
                    serve=serve,
                    viewers=viewers,
                    latencies=latencies if viewers else None,
                    note=report.echo,
                )
            plies = max(run.steady_plies, 1)
            manager[label].append(run.steady_manager_cpu_s / plies * 1e6)
            worker[label].append(run.steady_workers_cpu_s / plies * 1e6)
            server[label].append(run.steady_server_cpu_s / plies * 1e6)
    per_move = {label: med(values) for label, values in manager.items()}
    # Each turn's modes ran one after the other: their ratio is what load that changes between
    # turns leaves alone, and its spread over the turns says how far to trust it.
    bases = manager[next(iter(modes))]
    ratios = {label: _paired_ratios(manager[label], bases) for label in modes}
    report.table(
        [
            [label, cpu, med(worker[label]), med(ratios[label]), _spread(ratios[label]), med(server[label])]
            for label, cpu in per_move.items()
        ],
        ["", "manager CPU per move (us)", "the worker's", "x no server", "range", "server's CPU per move (us)"],
    )
    report.echo(
        f"per move: from each run's first game stored to its last, the median of {turns} runs; "
        "x no server: the median of each turn's ratio, range: their least and greatest; the manager is "
        "the coordinator and the worker (engines apart), the server a process of its own"
    )
    report.echo(f"load average (1 min) at the runs: {min(loads):.1f}-{max(loads):.1f}")
    report.data.setdefault("watching", {})[key] = {
        "manager_cpu_us": per_move,
        "ratios": ratios,
        "worker_cpu_us": {label: med(values) for label, values in worker.items()},
        "server_cpu_us": {label: med(values) for label, values in server.items()},
        "load": [min(loads), max(loads)],
    }
    if min(min(values) for values in manager.values()) <= 0:  # runs too short to have a steady part (--quick)
        return {label: [float("nan")] for label in modes}
    return ratios


def _paired_ratios(values: list[float], bases: list[float]) -> list[float]:
    """Each value over its base (a base at or below zero, a --quick run's noise: no ratio)."""
    return [value / base if base > 0 else float("nan") for value, base in zip(values, bases, strict=True)]


def _spread(ratios: list[float]) -> str:
    return f"{min(ratios):.2f}-{max(ratios):.2f}"
