"""Tournament files: TOML validated with pydantic into a :class:`Tournament`.

Every error names the file, the key and what is allowed, and is raised as
:class:`ConfigError` so the CLI can print it without a traceback.

**The engine list.** One list serves many tournaments: ``engines.toml`` beside the file (or
``arena run --engines FILE``), ``[[engines]]`` entries exactly as a tournament file writes
them. A tournament's entry ``use = "NAME"`` takes the listed entry; its other keys override
the listed ones (``options``, ``env`` and ``time_control`` key by key, any other key whole),
and its own ``name`` lets one listed engine play twice under two names. The tournament holds
the resolved entry, so its fingerprint does too: editing the list is a changed setting.

A listed engine's ``cwd`` is relative to the list's folder; resolved, it is written relative
to the tournament file's folder (or absolute, for a file that may be copied anywhere), so
the engine starts in the same folder wherever the list and the tournament are. The list is
read here, with the tournament's own models and errors, because a tournament is not valid
until its listed engines are.
"""

from __future__ import annotations

import copy
import json
import os
import re
import shutil
import sys
import tomllib
from collections.abc import Mapping, MutableMapping, Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Any, Literal, TypedDict

from pydantic import BaseModel, ConfigDict, Field, ValidationError, field_validator, model_validator

from protocol import codec
from protocol.codec import quote

from ..adjudication import Adjudication
from ..engine.player import EngineSpec, Sandbox
from ..engine.sandbox import sandbox_problem, with_others_hidden
from ..match import TimeControl
from ..record import GameRecord
from ..results.events import EVENTS, TIEBREAK_PAIRS, Event, most_rounds, plan_event
from ..results.slots import round_tables
from ..results.sprt import SprtSettings
from ..rules import Game, OptionError, games_speaking, make_game
from ..rules.base import did_you_mean
from .openings import Opening, OpeningPlan, OpeningsError, arrange_book, book_path, first_plies, load_openings
from .schedule import ScheduledGame, event_games, play_tables
from .validation import validation_text


class ConfigError(Exception):
    """A tournament file (or CLI input) that cannot be used; the message says why and where."""


class _Strict(BaseModel):
    # strict: "5", 5.0 or true for an integer are errors naming the key, never converted
    model_config = ConfigDict(extra="forbid", frozen=True, strict=True)


MAX_ENGINE_NAME = 64
TomlScalar = int | bool | str  # what a flag's value becomes in a file written for it


class EngineTable(TypedDict, total=False):
    """An ``[[engines]]`` table as code writes one for a file (the command line's --engine,
    the ladder's levels): checked as :class:`EngineEntry` when the file is read."""

    name: str
    use: str
    command: list[str]
    protocol: str
    cwd: str
    init: list[str]
    time_control: dict[str, TomlScalar]
    options: dict[str, TomlScalar]
    env: dict[str, TomlScalar]
    memory_mb: TomlScalar
    cpu_seconds: TomlScalar
    handshake_ms: TomlScalar
    max_failures: TomlScalar
    verify_score: TomlScalar
    sandbox: TomlScalar
    restart: str


def engine_name_problem(name: str) -> str | None:
    """Why ``name`` cannot name an engine, or None: the one rule for a tournament file's
    engines and ``arena play --name`` (names go into tables, CSV cells and file names)."""
    if not re.fullmatch(r"[A-Za-z0-9_.+-]+", name):
        return "engine names use letters, digits and _ . + - only"
    if len(name) > MAX_ENGINE_NAME:
        return f"engine names are at most {MAX_ENGINE_NAME} characters"
    return None


class EngineEntry(_Strict):
    name: str = Field(min_length=1, max_length=MAX_ENGINE_NAME)
    command: list[str] = Field(min_length=1)
    options: dict[str, str | int | float | bool] = {}
    cwd: str | None = None
    memory_mb: int | None = Field(None, gt=0)
    cpu_seconds: int | None = Field(None, gt=0)
    handshake_ms: int | None = Field(None, gt=0, le=600_000)
    max_failures: int = Field(3, ge=0)
    protocol: Literal["arena", "gtp"] = "arena"  # gtp: a GTP Hex program (docs/gtp.md)
    init: list[str] = []  # gtp: commands sent after start-up, answers checked
    time_control: TimeControlEntry | None = None  # this engine's own clock (time odds)
    env: dict[str, str] = {}  # environment variables set for this engine
    verify_score: bool = False  # gtp: ask final_score at each game's end (docs/gtp.md)
    sandbox: bool = False  # run it in a sandbox (docs/sandbox.md)
    restart: Literal["auto", "always"] = "auto"  # always: a fresh process every game (auto: after a fault)

    @field_validator("init")
    @classmethod
    def _one_line_commands(cls, init: list[str]) -> list[str]:
        for line in init:
            if not line.strip() or any(ch in line for ch in "\r\n\x00"):
                raise ValueError(f"each init entry is one GTP command on one line (got {line!r})")
        return init

    @field_validator("env")
    @classmethod
    def _env_names(cls, env: dict[str, str]) -> dict[str, str]:
        for key, value in env.items():
            if not re.fullmatch(r"[A-Za-z_][A-Za-z0-9_]*", key) or "\x00" in value:
                raise ValueError(
                    f"env: {key!r} is not a variable name (letters, digits, _) or its value holds a NUL byte"
                )
        return env

    @model_validator(mode="after")
    def _protocol_keys(self) -> EngineEntry:
        if self.protocol == "gtp" and self.options:
            raise ValueError(
                "a GTP engine takes no 'options'; send its settings as GTP commands with "
                'init = ["param_mohex max_games 1000"]'
            )
        if self.protocol == "arena" and self.init:
            raise ValueError("'init' is for protocol = \"gtp\" engines; protocol v1 engines take 'options'")
        if self.protocol == "arena" and self.verify_score:
            raise ValueError(
                "'verify_score' is for protocol = \"gtp\" engines (GTP's final_score); the referee scores every game"
            )
        return self

    @field_validator("name")
    @classmethod
    def _plain_name(cls, name: str) -> str:
        if (problem := engine_name_problem(name)) is not None:
            raise ValueError(problem)
        return name


class TimeControlEntry(_Strict):
    movetime_ms: int | None = Field(default=None, gt=0)
    base_ms: int | None = Field(default=None, gt=0)
    inc_ms: int = Field(default=0, ge=0)
    margin_ms: int = Field(default=100, ge=0, le=10_000)
    moves: int | None = Field(default=None, gt=0)  # moves per period: base_ms again after each (tc=40/60)
    nodes: int | None = Field(default=None, gt=0)  # a node budget a move, for engines that take one

    @model_validator(mode="after")
    def _some_limit(self) -> TimeControlEntry:
        if self.movetime_ms is None and self.base_ms is None:
            raise ValueError("set movetime_ms and/or base_ms")
        if self.moves is not None and self.base_ms is None:
            raise ValueError("moves is the moves per period of a clock: set base_ms, the period's time, too")
        return self


EngineEntry.model_rebuild()  # its time_control refers to TimeControlEntry, defined after it


def unique_names(engines: list[EngineEntry]) -> list[EngineEntry]:
    """A tournament's (or an engine list's) engines, each under its own name."""
    names = [e.name for e in engines]
    dupes = sorted({n for n in names if names.count(n) > 1})
    if dupes:
        raise ValueError(f"engine names must be unique; repeated: {', '.join(dupes)}")
    return engines


class OpeningsEntry(_Strict):
    """``[openings]``: a book and/or random plies (``openings = "book.txt"`` is the short form)."""

    file: str | None = None  # relative to the tournament file
    order: Literal["sequential", "random"] = "sequential"
    start: int = Field(default=1, ge=1)  # the book's first opening to use (1-based)
    random_plies: int = Field(default=0, ge=0, le=1000)  # random legal moves after the book's
    plies: int | None = Field(default=None, ge=1)  # the book's first moves only, as fastchess's plies


IDLE_ENGINES = 4  # a tournament's default idle_engines


class ClusterEntry(_Strict):
    address: str = Field(min_length=1)  # tcp://HOST:PORT of a Dask scheduler, or local:N (docs/cluster.md)


# A tournament's name becomes a folder under out/: no separators, no '.', '..' or hidden names.
FOLDER_NAME = re.compile(r"[A-Za-z0-9_-][A-Za-z0-9_.-]*")
MAX_TOURNAMENT_NAME = 64


class TournamentFile(_Strict):
    name: str = Field(min_length=1, max_length=MAX_TOURNAMENT_NAME)
    # The results folder, relative to this file (default: out/<name> in the folder arena runs
    # in; --out wins). Where the games go, not how they go: free to change (fingerprint.FREE)
    out: str | None = Field(None, min_length=1)
    game: str
    options: dict[str, Any] = {}
    rounds: int = Field(1, ge=1, le=100_000)  # with [sprt]: the most pairs (long tests need many)
    seed: int = Field(0, ge=0)
    workers: int = Field(1, ge=1, le=256)
    affinity: bool = False  # pin each worker and its engines to one core
    # Engines a worker keeps running beside the game it plays, those needed last quit first
    # (docs/performance.md measures the default); how games run, not how they go.
    idle_engines: int = Field(IDLE_ENGINES, ge=0, le=100_000)
    # An engine that fails the start-up check stops the run (exit 3) unless forfeits are chosen:
    # then its games are lost unplayed, and left out of every rating (docs/reliability.md)
    forfeit_failed_engines: bool = False
    time_control: TimeControlEntry = TimeControlEntry(movetime_ms=1000)
    openings: str | OpeningsEntry | None = None  # book file (relative to this file) or [openings]
    format: Literal["round-robin", "gauntlet", "knockout", "swiss"] = "round-robin"
    candidates: list[str] = []  # gauntlet: the engines that play all the others
    # knockout and swiss: a rating list (relative to this file) the engines are seeded by,
    # best first (default: the file's order); see docs/events.md
    seeds: str | None = Field(None, min_length=1)
    # swiss: each table plays every seat order (false: one game, first seats balanced)
    both_seats: bool = True
    # knockout: tie-break pairs a level match plays at most before the higher seed goes through
    tiebreak_pairs: int = Field(TIEBREAK_PAIRS, ge=0, le=100)
    # the event standings' tiebreaks, in order (shown, not how games go: free to change)
    tiebreaks: list[Literal["buchholz", "buchholz-cut1", "sonneborn-berger", "direct-encounter", "wins"]] = []
    sprt: SprtSettings | None = None  # two engines: stop when the test decides (arena/results/sprt.py)
    # [adjudication]: games ended before their rules end them (arena/adjudication.py), all off by default
    adjudication: Adjudication = Adjudication()
    engines: list[EngineEntry] = Field(min_length=2)
    cluster: ClusterEntry | None = None  # play on a Dask cluster (override with --cluster)
    # BayesElo's prior of the tables' Elo: virtual draws per engine (0: maximum likelihood);
    # what is shown, not how games go, so it may change between runs (arena/results/elo.py)
    elo_prior: float = Field(2.0, ge=0, le=1000, allow_inf_nan=False)

    @field_validator("name")
    @classmethod
    def _folder_name(cls, name: str) -> str:
        if not FOLDER_NAME.fullmatch(name):
            raise ValueError(
                "use letters, digits and _ . - only, not starting with '.' (the name is the output folder's name)"
            )
        return name

    @field_validator("out")
    @classmethod
    def _folder_path(cls, out: str | None) -> str | None:
        if out is not None and any(ch in out for ch in "\r\n\x00"):
            raise ValueError("a folder's path on one line, without NUL bytes")
        return out

    @field_validator("engines")
    @classmethod
    def _unique_names(cls, engines: list[EngineEntry]) -> list[EngineEntry]:
        return unique_names(engines)

    @model_validator(mode="after")
    def _format(self) -> TournamentFile:
        names = [e.name for e in self.engines]
        unknown = [c for c in self.candidates if c not in names]
        if unknown:
            meant = did_you_mean(unknown[0], names)
            hint = f"; did you mean {meant!r}?" if meant is not None else ""
            raise ValueError(f"candidates: {', '.join(unknown)} not among the engines ({', '.join(names)}){hint}")
        if self.format == "gauntlet" and not self.candidates:
            raise ValueError('format = "gauntlet" needs candidates = [...], the engines that play all others')
        if self.format != "gauntlet" and self.candidates:
            raise ValueError('candidates only apply to format = "gauntlet"; add it or remove candidates')
        if self.format not in EVENTS and self.seeds is not None:
            raise ValueError('seeds only apply to format = "knockout" or "swiss"; set one or remove seeds')
        if self.sprt is not None and (len(self.engines) != 2 or self.format != "round-robin"):
            raise ValueError(
                "[sprt] tests one engine against another: list exactly two engines "
                "(the first is the one tested) and no gauntlet"
            )
        return self

    @property
    def openings_entry(self) -> OpeningsEntry:
        if isinstance(self.openings, str):
            return OpeningsEntry(file=self.openings)
        return self.openings or OpeningsEntry()


class Tournament:
    """A validated tournament: the file's data plus the built game and engine specs."""

    def __init__(
        self,
        path: Path,
        data: TournamentFile,
        game: Game,
        engines: list[EngineSpec],
        openings: list[Opening] | None = None,
        raw: dict[str, Any] | None = None,
        seeded: Sequence[str] = (),
    ) -> None:
        self.path = path
        self.raw = raw  # the data as validated, listed engines resolved: what a written file holds
        self.data = data
        self.game = game
        self.engines = engines
        self.openings = openings or []
        self.seeded = tuple(seeded) or tuple(e.name for e in engines)  # an event's seed order, best first
        self.time_control = _time_control(data.time_control)
        # Engines with a clock of their own (time odds); the others play on time_control.
        self.time_controls = {e.name: _time_control(e.time_control) for e in data.engines if e.time_control}

    @property
    def name(self) -> str:
        return self.data.name

    @property
    def folder(self) -> Path:
        """The results folder the file names (``out``, relative to the file, so the file
        finds its folder from any working directory), else ``out/<name>`` here."""
        return self.path.parent / self.data.out if self.data.out is not None else Path("out") / self.name

    @property
    def max_failures(self) -> dict[str, int]:
        """Per engine: consecutive failures after which it is dropped (0: never)."""
        return {e.name: e.max_failures for e in self.data.engines}

    @property
    def event(self) -> Event | None:
        """A knockout's or Swiss event's settings, None for a static format."""
        if self.data.format not in EVENTS:
            return None
        d = self.data
        return Event(d.format, self.seeded, self.game.players, d.rounds, d.seed, d.both_seats, d.tiebreak_pairs)

    @property
    def opening_plan(self) -> OpeningPlan:
        return OpeningPlan(tuple(self.openings), self.data.openings_entry.random_plies, self.game)


def load_tournament(path: str | Path, engines_file: Path | None = None) -> Tournament:
    """The tournament of a file; its ``use = "NAME"`` entries come from ``engines_file``,
    else from the ``engines.toml`` beside the file (the engine list, below)."""
    path = Path(path)
    raw = read_toml(path, "tournament file")
    return build_tournament(raw, path, engines_file or path.parent / LIST_NAME, list_given=engines_file is not None)


def build_schedule(t: Tournament, stored: Sequence[GameRecord] = ()) -> list[ScheduledGame]:
    """The schedule of a tournament file: its format, rounds, seed and openings
    (arena/tournament/schedule.py draws it); a knockout's or Swiss event's as far as the
    ``stored`` games take it (arena/results/events.py)."""
    if (event := t.event) is not None:
        return event_games(plan_event(event, {r.id or 0: r for r in stored}).slots, t.opening_plan)
    names = [e.name for e in t.engines]
    tables = round_tables(names, t.game.players, t.data.format, t.data.candidates)
    return play_tables(tables, t.data.rounds, t.data.seed, t.opening_plan)


LIST_NAME = "engines.toml"  # the engine list a tournament file finds beside itself


def read_toml(path: Path, what: str) -> dict[str, Any]:
    """A TOML file as data; every way it cannot be read is one :class:`ConfigError` naming it."""
    try:
        raw = tomllib.loads(path.read_text(encoding="utf-8"))
    except FileNotFoundError:
        raise ConfigError(f"{path}: no such {what}") from None
    except (OSError, UnicodeDecodeError) as exc:
        raise ConfigError(f"{path}: cannot read the file ({exc})") from None
    except tomllib.TOMLDecodeError as exc:
        raise ConfigError(f"{path}: not valid TOML: {exc}. Fix the syntax at that line.") from None
    except (ValueError, RecursionError) as exc:  # a 5,000-digit number, arrays nested 5,000 deep
        raise ConfigError(
            f"{path}: cannot read the file: {_limit_text(exc)}; "
            f"numbers have at most 4300 digits and arrays nest a few levels"
        ) from None
    _refuse_huge_integers(path, raw)
    return raw


def build_tournament(
    raw: dict[str, Any],
    path: Path,
    engine_list: Path,
    *,
    list_given: bool = False,
    source: str | None = None,
    labels: Mapping[tuple[Any, ...], str] | None = None,
    absolute_paths: bool = False,
) -> Tournament:
    """Validate a tournament given as TOML data: a file's, or the one ``arena run``'s flags
    make (arena/tournament/commandline.py), so both are checked by the same code.

    ``path`` is where the file is (engine folders and the book are relative to it);
    ``engine_list`` the list ``use = "NAME"`` entries come from (read when one is used, or
    when ``list_given``); errors start with ``source`` (default: the path) and name a key
    by ``labels`` where it has one (a flag's item); ``absolute_paths`` writes a listed
    engine's folder absolute (for a file that may be copied anywhere)."""
    where = source or str(path)
    labels = labels or {}
    base = path.resolve().parent
    _refuse_huge_integers(where, raw)  # a file's were refused as it was read; the flags' here
    raw = resolve_uses(raw, where, engine_list, list_given, None if absolute_paths else base, labels)
    try:
        data = TournamentFile.model_validate(raw)
    except ValidationError as exc:
        raise ConfigError(f"{where}: {validation_text(exc, path.name, labels, TournamentFile)}") from None
    try:
        game = make_game(data.game, data.options, strict=True)
    except OptionError as exc:
        raise ConfigError(f"{where}: {labels.get(('options',), '[options] / game')}: {exc}") from None
    if len(data.engines) < game.players:
        raise ConfigError(
            f"{where}: engines: {data.game} with these options needs at least "
            f"{game.players} engines, {'the file lists' if source is None else 'there are'} {len(data.engines)}"
        )
    gtp = [e.name for e in data.engines if e.protocol == "gtp"]
    if gtp and "gtp" not in game.protocols:
        raise ConfigError(
            f"{where}: engines: {', '.join(gtp)} speak GTP, which arena drives for "
            f"{', '.join(games_speaking('gtp'))} only; "
            f"this tournament is {data.game}"
        )
    _check_clocks(where, data)
    engines = with_others_hidden([engine_spec(where, base, entry) for entry in data.engines])
    if data.format == "gauntlet" and len(data.engines) - len(data.candidates) < game.players - 1:
        raise ConfigError(
            f"{where}: candidates: a gauntlet table has one candidate and {game.players - 1} "
            f"other engine(s); list more engines that are not candidates"
        )
    _check_event(where, data, game)
    if (problem := data.adjudication.problem(game)) is not None:
        raise ConfigError(f"{where}: {labels.get(('adjudication',), '[adjudication]')} {problem}")
    seeded = _seed_order(f"{where}: {labels.get(('seeds',), 'seeds')}", base, data)
    book_where = f"{where}: {labels.get(('openings',), 'openings')}"
    openings = _openings(book_where, base, data, game)
    t = Tournament(path, data, game, engines, openings, raw=raw, seeded=seeded)
    if data.openings_entry.random_plies:
        try:  # every table's random plies, drawn now: fail before any game
            build_schedule(t)
        except OpeningsError as exc:
            raise ConfigError(f"{book_where}: {exc}") from None
    return t


def _check_event(where: str, data: TournamentFile, game: Game) -> None:
    """A knockout is for games of two seats; a Swiss event has no more rounds than its
    field can play without a rematch."""
    if data.format == "knockout" and game.players != 2:
        raise ConfigError(
            f"{where}: format: a knockout is played between two engines a match, and {data.game} with these "
            f"options seats {game.players}; play a swiss or a round-robin"
        )
    if data.format == "swiss" and data.rounds > (most := most_rounds(len(data.engines), game.players)):
        raise ConfigError(
            f"{where}: rounds: a swiss of {len(data.engines)} engines at tables of {game.players} can always be "
            f"paired without a rematch for {most} rounds at most; lower rounds (or play a round-robin)"
        )


def _seed_order(where: str, base: Path, data: TournamentFile) -> list[str]:
    """The engines best seed first: as a rating list ranks them (its engines not in the
    tournament ignored, the tournament's not in it after the others, in the file's order),
    else the file's order."""
    names = [e.name for e in data.engines]
    if data.seeds is None:
        return names
    ranked = rating_list_order(base / data.seeds, where)
    known = [n for n in ranked if n in names]
    return list(dict.fromkeys(known + names))


def rating_list_order(path: Path, where: str) -> list[str]:
    """Engine names best first from a rating list: ``arena ratings --format json``'s
    output, a results.json (its standings), or a JSON object of name -> rating."""
    try:
        doc = json.loads(path.read_text(encoding="utf-8"))
    except FileNotFoundError:
        raise ConfigError(f"{where}: no such rating list {path}") from None
    except (OSError, UnicodeDecodeError, ValueError) as exc:
        raise ConfigError(f"{where}: {path} is not a JSON rating list ({exc})") from None
    if isinstance(doc, dict) and all(isinstance(v, (int, float)) and not isinstance(v, bool) for v in doc.values()):
        return sorted(doc, key=lambda name: -doc[name])
    rows = doc.get("engines", doc.get("standings")) if isinstance(doc, dict) else None
    if isinstance(rows, list) and all(isinstance(r, dict) for r in rows):
        names = [r.get("name", r.get("engine")) for r in rows]
        if all(isinstance(n, str) for n in names):
            return [str(n) for n in names]
    raise ConfigError(
        f"{where}: {path} is not a rating list: give 'arena ratings --format json' output, a results.json, "
        f'or a JSON object of engine name -> rating ({{"new": 2100, "old": 2000}})'
    )


def _openings(where: str, base: Path, data: TournamentFile, game: Game) -> list[Opening] | None:
    entry = data.openings_entry
    try:
        book = load_openings(book_path(entry.file, base), game) if entry.file is not None else []
        if entry.start > max(len(book), 1):
            raise OpeningsError(f"start = {entry.start} but the book has {len(book)} opening(s)")
    except OpeningsError as exc:
        raise ConfigError(f"{where}: {exc}") from None
    if entry.plies is not None:  # fastchess's plies: each line's first moves only
        book = [first_plies(game, opening, entry.plies) for opening in book]
    return arrange_book(book, entry.order, entry.start, data.seed) or None


def _time_control(tc: TimeControlEntry) -> TimeControl:
    return TimeControl(tc.movetime_ms, tc.base_ms, tc.inc_ms, tc.margin_ms, tc.moves, tc.nodes)


def _check_clocks(where: str, data: TournamentFile) -> None:
    """Every seat's go line lists every seat's clock, so either all engines have one or none."""
    own = [(e.name, e.time_control) for e in data.engines if e.time_control is not None]
    clocked = {name: tc.base_ms is not None for name, tc in own}
    default = data.time_control.base_ms is not None
    if len(own) < len(data.engines):
        clocked["[time_control]"] = default
    if len(set(clocked.values())) > 1:
        with_clock = [name for name, has in clocked.items() if has]
        without = [name for name, has in clocked.items() if not has]
        raise ConfigError(
            f"{where}: time_control: {', '.join(with_clock)} play with a game clock (base_ms) "
            f"but {', '.join(without)} without; give every engine a clock or none"
        )


def engine_spec(where: str, base: Path, entry: EngineEntry) -> EngineSpec:
    """How to start a validated entry, its folder and program relative to ``base``; errors
    start with ``where`` (a tournament's engines, and the engines the play page offers)."""
    cwd = (base / entry.cwd) if entry.cwd else base
    if not cwd.is_dir():
        raise ConfigError(f"{where}: engine {entry.name!r}: cwd {str(cwd)!r} is not a folder")
    command = [sys.executable if part == "{python}" else part for part in entry.command]
    command[0] = resolve_program(command[0], cwd, f"{where}: engine {entry.name!r}")
    if entry.sandbox and (problem := sandbox_problem()) is not None:
        raise ConfigError(f"{where}: engine {entry.name!r}: sandbox = true, but {problem}")
    options = tuple((k, _option_text(v)) for k, v in entry.options.items())
    for name, value in options:
        # Sent as "setoption NAME VALUE": a space or a line break would change the command
        if (problem := codec.option_problem(name, value)) is not None:
            raise ConfigError(
                f"{where}: engine {entry.name!r}: options: {problem}; protocol options are one word = one line"
            )
    return EngineSpec(
        entry.name,
        tuple(command),
        str(cwd),
        options,
        entry.memory_mb,
        entry.cpu_seconds,
        entry.handshake_ms,
        entry.protocol,
        tuple(entry.init),
        tuple(entry.env.items()),
        entry.verify_score,
        Sandbox() if entry.sandbox else None,
        entry.restart == "always",
    )


def resolve_program(program: str, cwd: Path, where: str) -> str:
    """Find an engine's executable now, so a typo fails before any game starts."""
    if os.sep in program:
        candidate = Path(program) if Path(program).is_absolute() else cwd / program
        if not candidate.exists():
            raise ConfigError(f"{where}: command {program!r} does not exist (looked in {cwd})")
        if candidate.is_dir():
            raise ConfigError(
                f"{where}: command {program!r} is a directory, not a program; give the "
                f"engine's executable (or its interpreter and script)"
            )
        if not os.access(candidate, os.X_OK):
            raise ConfigError(
                f"{where}: command {program!r} is not executable; run chmod +x on it "
                f"or start it through its interpreter"
            )
        return str(candidate)
    found = shutil.which(program)
    if found is None:
        raise ConfigError(f"{where}: command {program!r} is not on PATH; give a path or install it")
    return found


def _option_text(value: object) -> str:
    return ("true" if value else "false") if isinstance(value, bool) else str(value)


MAX_INTEGER_BITS = 64  # no key takes more: seeds are 64-bit, sizes and milliseconds far less


def _refuse_huge_integers(path: str | Path, raw: Mapping[str, object]) -> None:
    """TOML reads 0x, 0o and 0b integers of any length (0x and 5,000 f's), which Python
    then cannot print or hash into a seed; refuse them here, naming the key."""
    stack: list[tuple[str, object]] = [(key, value) for key, value in raw.items()]
    while stack:
        where, value = stack.pop()
        if isinstance(value, dict):
            stack += [(f"{where}.{key}", item) for key, item in value.items()]
        elif isinstance(value, list):
            stack += [(f"{where}.{i}", item) for i, item in enumerate(value)]
        elif isinstance(value, int) and value.bit_length() > MAX_INTEGER_BITS:
            raise ConfigError(
                f"{path}: key {where!r}: a {value.bit_length()}-bit number; no key takes "
                f"one over {MAX_INTEGER_BITS} bits (at most {2**MAX_INTEGER_BITS - 1})"
            )


def _limit_text(exc: BaseException) -> str:
    if isinstance(exc, RecursionError):
        return "values nested too deep"
    return str(exc).split(";")[0]


# -- the engine list -----------------------------------------------------------
MERGED = ("options", "env", "time_control")  # tables an entry's overrides merge into key by key


class EngineListFile(_Strict):
    engines: list[EngineEntry] = Field(min_length=1)

    @field_validator("engines")
    @classmethod
    def _unique_names(cls, engines: list[EngineEntry]) -> list[EngineEntry]:
        return unique_names(engines)


@dataclass(frozen=True)
class EngineList:
    path: Path
    entries: dict[str, dict[str, Any]]  # each listed entry as the file gives it, by name


def load_engine_list(path: Path) -> EngineList:
    """The list at ``path``, every entry checked as a tournament file's entry is."""
    raw = read_toml(path, "engine list")
    if raw.get("engines") == []:  # pydantic's too_short would say a tournament's two-engine rule
        raise ConfigError(
            f"{path}: an engine list needs at least one engine ([[engines]] blocks); {path.name} has none"
        )
    try:
        EngineListFile.model_validate(raw)
    except ValidationError as exc:
        raise ConfigError(f"{path}: {validation_text(exc, path.name, model=EngineListFile)}") from None
    return EngineList(path, {entry["name"]: entry for entry in raw["engines"]})


def resolve_uses(
    raw: dict[str, Any],
    where: str,
    list_path: Path,
    list_given: bool,
    base: Path | None,
    labels: Mapping[tuple[Any, ...], str],
) -> dict[str, Any]:
    """``raw`` with every ``use = "NAME"`` entry replaced by the listed entry and its
    overrides. The list is read when an entry uses it (or when it was given by name, so a
    broken list is found at once); ``base`` is the folder a listed ``cwd`` is written
    relative to (None: absolute); ``labels`` name an entry by the flag that gave it."""
    engines = raw.get("engines")
    if not isinstance(engines, list):
        return raw
    uses = [i for i, entry in enumerate(engines) if isinstance(entry, dict) and "use" in entry]
    if not uses and not list_given:
        return raw
    if not list_path.is_file() and not list_given:
        first = uses[0]
        raise ConfigError(
            f"{where}: {_entry(labels, first)}: use = {_shown(engines[first]['use'])} needs an engine list, and "
            f"there is no {list_path}; write one ([[engines]] entries) or name it with --engines FILE"
        )
    listing = load_engine_list(list_path)
    resolved: list[Any] = []
    used: dict[str, tuple[str, str]] = {}  # a resolved engine's name -> where its entry is, the listed name
    for i, entry in enumerate(engines):
        if i in uses:
            entry = _resolve(entry, _entry(labels, i), where, listing, used, base)
        resolved.append(entry)
    return {**raw, "engines": resolved}


def _resolve(
    entry: dict[str, Any],
    at: str,
    where: str,
    listing: EngineList,
    used: dict[str, tuple[str, str]],
    base: Path | None,
) -> dict[str, Any]:
    listed_name = entry["use"]
    if not isinstance(listed_name, str) or listed_name not in listing.entries:
        names = ", ".join(listing.entries)
        meant = did_you_mean(listed_name, listing.entries) if isinstance(listed_name, str) else None
        hint = f"did you mean {meant!r}? " if meant is not None else ""
        raise ConfigError(
            f"{where}: {at}: use = {_shown(listed_name)} is not in {listing.path} ({hint}it lists {names})"
        )
    name = entry.get("name", listed_name)
    if isinstance(name, str) and used.get(name, ("", None))[1] == listed_name:
        raise ConfigError(
            f"{where}: {at}: {listed_name!r} from {listing.path} is used twice under the name {name!r} "
            f"({used[name][0]} too); give one of them its own name"
        )
    if isinstance(name, str):
        used[name] = (at, listed_name)
    out = copy.deepcopy(listing.entries[listed_name])
    _move_cwd(out, listing.path.resolve().parent, base)
    for key, value in entry.items():
        if key == "use":
            continue
        if key in MERGED and isinstance(value, dict) and isinstance(out.get(key), dict):
            out[key] = {**out[key], **value}
        else:
            out[key] = value
    return out


def _move_cwd(entry: MutableMapping[str, object], list_dir: Path, base: Path | None) -> None:
    """A listed ``cwd`` (relative to the list) as the tournament file writes it."""
    cwd = entry.get("cwd")
    if isinstance(cwd, str) and os.path.isabs(cwd):
        return
    folder = os.path.normpath(os.path.join(list_dir, cwd if isinstance(cwd, str) else "."))
    if base is None:
        entry["cwd"] = folder
    elif (moved := os.path.relpath(folder, base)) != "." or cwd is not None:
        entry["cwd"] = moved


def _entry(labels: Mapping[tuple[Any, ...], str], i: int) -> str:
    return labels.get(("engines", i), f"engines.{i}")


def _shown(value: Any) -> str:
    return quote(value, 80) if isinstance(value, str) else repr(value)
