"""``arena ladder``: the strength of each level of the bundled search engine, per game.

The ladder plays pairs, each its own two-engine tournament in its own folder (so a
folder never mixes settings, and the same command resumes): every level against the
random engine, every level against the next one up, and in Hex, when a MoHex binary
is given, every level against MoHex at a few playout budgets.  For each pair it
prints the level's Elo against that opponent with its interval, from
:func:`arena.results.elo.fit_elo` on the pair's games with the opponent fixed at 0
(BayesElo's prior keeps a clean sweep finite), and per level the slowest move the
referee charged and how many moves the clock cut short (fewer simulations than the
level's count: the only moves that would not replay from the seed).
"""

from __future__ import annotations

import json
from collections.abc import Callable, Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from engines.search.engine import PARTS

from .record import GameRecord
from .results.elo import fit_elo
from .results.stats import engine_stats, movers_of
from .results.store import read_folder
from .rules import GAMES, game_class
from .rules.base import Options
from .tournament.config import EngineTable, TomlScalar, load_tournament
from .tournament.runner import run_tournament

LEVELS = ("easy", "medium", "hard")
MOHEX_BUDGETS = (50, 200, 1000)
SEED = 2026
MOHEX_MOVETIME_MS = 10_000


@dataclass(frozen=True)
class Ladder:
    """A game's ladder settings: the options its games use and the move time."""

    options: Options
    movetime_ms: int
    mohex: bool = False  # MoHex, a GTP program, plays this game (Hex)


# Ten seconds a move everywhere: the levels' budgets are counts, so the clock only has to be far
# above the slowest count on a busy machine (at two seconds Hex hard's safety net cut moves at
# load 2-4, and a cut move breaks the replay by seed).
LADDER_MOVETIME_MS = 10_000


def ladders() -> dict[str, Ladder]:
    """The games with a ladder (their rules give ``ladder_options``), by name, in registry order."""
    out: dict[str, Ladder] = {}
    for name in GAMES:
        game = game_class(name)
        if game.ladder_options is not None:
            out[name] = Ladder(dict(game.ladder_options), LADDER_MOVETIME_MS, mohex="gtp" in game.protocols)
    return out


@dataclass(frozen=True)
class Pair:
    level: str  # the engine rated
    opponent: str  # fixed at 0

    @property
    def folder(self) -> str:
        return f"{self.level}-vs-{self.opponent}"


@dataclass(frozen=True)
class PairResult:
    pair: Pair
    games: int
    wins: int
    losses: int
    draws: int
    elo: float | None
    low: float | None
    high: float | None


@dataclass(frozen=True)
class LevelMoves:
    """A level's moves in the ladder: how many the referee timed, the slowest it charged (ms;
    None: no move) and how many the clock stopped before the level's simulation count."""

    moves: int
    slowest_ms: float | None
    clock_stopped: int


def pairs(mohex_budgets: Sequence[int]) -> list[Pair]:
    out = [Pair(level, "random") for level in LEVELS]
    out += [Pair(up, down) for down, up in zip(LEVELS, LEVELS[1:])]
    out += [Pair(level, f"mohex-{b}") for b in mohex_budgets for level in LEVELS]
    return out


def _engine(name: str, mohex: Path | None, movetime_ms: int, iterations: dict[str, int]) -> EngineTable:
    if name == "random":
        return {"name": name, "command": ["{python}", "-m", "engines.random_engine"]}
    if name in LEVELS:
        options: dict[str, TomlScalar] = {"level": name}
        if name in iterations:
            options["iterations"] = iterations[name]
        return {"name": name, "command": ["{python}", "-m", "engines.search"], "options": options}
    budget = int(name.removeprefix("mohex-"))
    # MoHex's strength is its playout count; its analysis before and around the search
    # (virtual connections, inferior cells) takes it from 0.1 to over 2 s of wall time a move
    # on a busy machine, so it gets a move time that never binds, and its own limit (it hears
    # no clock under a move time) sits below that. One thread, and a tree sized for these
    # budgets instead of its default gigabyte.
    movetime = max(movetime_ms, MOHEX_MOVETIME_MS)
    init = [f"param_mohex max_games {budget}", f"param_mohex max_time {movetime // 1000 - 2}"]
    init += ["param_mohex num_threads 1", "param_mohex max_nodes 1000000"]
    return {
        "name": name,
        "command": [str(mohex)],
        "protocol": "gtp",
        "init": init,
        "time_control": {"movetime_ms": movetime},
    }


def _toml(value: Any) -> str:
    if isinstance(value, bool):
        return "true" if value else "false"
    if isinstance(value, dict):
        return "{ " + ", ".join(f"{k} = {_toml(v)}" for k, v in value.items()) + " }"
    if isinstance(value, list):
        return "[" + ", ".join(_toml(v) for v in value) + "]"
    return json.dumps(value)  # strings and numbers: JSON's forms are TOML's


def tournament_text(
    game: str, pair: Pair, games: int, ladder: Ladder, mohex: Path | None, index: int, iterations: dict[str, int]
) -> str:
    lines = [
        f"# arena ladder: {pair.level} against {pair.opponent}, {game}",
        f"name = {_toml(f'ladder-{game}-{pair.folder}')}",
        f"game = {_toml(game)}",
        f"rounds = {(games + 1) // 2}  # both seat orders each round",
        f"seed = {SEED + index}",
        "workers = 1",
        "[options]",
        *(f"{k} = {_toml(v)}" for k, v in ladder.options.items()),
        "[time_control]",
        f"movetime_ms = {ladder.movetime_ms}",
    ]
    for name in (pair.level, pair.opponent):
        lines.append("[[engines]]")
        lines += [f"{k} = {_toml(v)}" for k, v in _engine(name, mohex, ladder.movetime_ms, iterations).items()]
    return "\n".join(lines) + "\n"


def run_ladder(
    game: str,
    out: Path,
    *,
    games: int = 20,
    workers: int = 2,
    mohex: Path | None = None,
    mohex_budgets: Sequence[int] = MOHEX_BUDGETS,
    options: Options | None = None,
    iterations: dict[str, int] | None = None,
    echo: Callable[[str], None] = print,
) -> tuple[list[PairResult], dict[str, LevelMoves]]:
    """Play (or resume) every pair into ``out``; the pairs' results and, per level, its
    slowest charged move and the moves the clock cut short.  ``options`` overrides game
    options of the ladder's, ``iterations`` a level's simulation count (the engine's
    ``iterations`` option: a quick ladder, not the levels' stated strength)."""
    base = ladders()[game]
    ladder = Ladder({**base.options, **(options or {})}, base.movetime_ms, base.mohex)
    iterations = iterations or {}
    results: list[PairResult] = []
    records_by_level: dict[str, list[GameRecord]] = {level: [] for level in LEVELS}
    for index, pair in enumerate(pairs(mohex_budgets if mohex is not None else ())):
        folder = out / pair.folder
        folder.mkdir(parents=True, exist_ok=True)
        path = folder / "ladder.toml"
        path.write_text(tournament_text(game, pair, games, ladder, mohex, index, iterations), encoding="utf-8")
        summary = run_tournament(load_tournament(path), folder, workers)
        if summary.errors:
            raise RuntimeError(f"{folder}: {len(summary.errors)} game(s) not recorded; run the same command again")
        _, records = read_folder(folder)
        result = pair_result(pair, records)
        results.append(result)
        echo(result_line(result))
        for level in LEVELS:
            if level in (pair.level, pair.opponent):
                records_by_level[level] += records
    counts = {level: iterations.get(level, PARTS[game].budgets[level]) for level in LEVELS}
    moves = {level: move_times(level, records_by_level[level], counts[level]) for level in LEVELS}
    return results, moves


def pair_result(pair: Pair, records: list[GameRecord]) -> PairResult:
    fit = fit_elo(records, [pair.level, pair.opponent], anchor=pair.opponent)
    rating = next(r for r in fit.ratings if r.engine == pair.level)
    wins = losses = draws = 0
    for record in records:
        players, scores = record.players or [], record.scores or []
        mine, theirs = scores[players.index(pair.level)], scores[players.index(pair.opponent)]
        wins += mine > theirs
        losses += mine < theirs
        draws += mine == theirs
    return PairResult(pair, len(records), wins, losses, draws, rating.elo, rating.low, rating.high)


def move_times(level: str, records: list[GameRecord], budget: int) -> LevelMoves:
    """The level's slowest charged move, its moves and those the clock stopped before
    ``budget`` simulations (a search that ran at all and fewer than its count)."""
    stats = engine_stats(records).get(level)
    cut = timed = 0
    for record in records:
        movers, infos = movers_of(record), record.move_info or []
        seat = (record.players or []).index(level)
        first = record.opening_plies or 0
        for k, info in enumerate(infos):
            if movers is None or first + k >= len(movers) or movers[first + k] != seat:
                continue
            timed += 1
            nodes = info.get("nodes") if isinstance(info, dict) else None
            cut += isinstance(nodes, int) and 0 < nodes < budget
    slowest = stats.max_move_ms if stats is not None else None
    return LevelMoves(timed, slowest, cut)


def _elo(value: float | None) -> str:
    return "unbounded" if value is None else f"{value:+.0f}"


def result_line(r: PairResult) -> str:
    return (
        f"{r.pair.level} against {r.pair.opponent}: {r.wins}-{r.losses}-{r.draws} in {r.games} games, "
        f"Elo {_elo(r.elo)} [{_elo(r.low)}, {_elo(r.high)}]"
    )


def tables(results: Sequence[PairResult], moves: dict[str, LevelMoves], movetime_ms: int) -> str:
    """The ladder's tables as text: against random, against the next level, against MoHex,
    and the move times."""
    from tabulate import tabulate  # here: the CLI imports this module only when a ladder runs

    headers = ["level", "opponent", "games", "won-lost-drawn", "score %", "Elo", "95% interval"]

    def rows(keep: Callable[[PairResult], bool]) -> list[list[Any]]:
        return [
            [
                r.pair.level,
                r.pair.opponent,
                r.games,
                f"{r.wins}-{r.losses}-{r.draws}",
                f"{100 * (r.wins + r.draws / 2) / r.games:.1f}" if r.games else "",
                _elo(r.elo),
                f"[{_elo(r.low)}, {_elo(r.high)}]",
            ]
            for r in results
            if keep(r)
        ]

    parts = [
        ("Against random", rows(lambda r: r.pair.opponent == "random")),
        ("Against the next level down", rows(lambda r: r.pair.opponent in LEVELS)),
        ("Against MoHex (playouts a move)", rows(lambda r: r.pair.opponent.startswith("mohex-"))),
    ]
    out = []
    for title, body in parts:
        if body:
            out += [f"{title} (Elo of the level, the opponent at 0):", tabulate(body, headers=headers), ""]
    timing = [
        [level, m.moves, "" if m.slowest_ms is None else m.slowest_ms, m.clock_stopped] for level, m in moves.items()
    ]
    out.append(f"Move times the referee charged (move time {movetime_ms} ms):")
    out.append(tabulate(timing, headers=["level", "moves", "slowest ms", "stopped by the clock"]))
    return "\n".join(out)
