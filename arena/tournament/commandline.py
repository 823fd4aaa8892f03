"""``arena run`` without a tournament file: fastchess- and cutechess-style flags as the
tournament file they mean.

The flags make the data of a tournament file (:func:`flag_data`), which
:func:`~arena.tournament.config.build_tournament` validates as it validates a file, so a
value is refused in the same words either way, only naming the flag's item instead of the
key. The run writes that data to ``DIR/tournament.toml`` once the folder has accepted its
settings (:class:`TournamentFileWriter`), with every path absolute and ``out = "."`` (the
folder, relative to the file), so that file resumes the folder from any working directory, a
copy of it elsewhere plays the same games, and the same command line again resumes the folder.
Item syntax that a file does not have (``tc=10+0.1``, ``cmd="./new --threads 1"``) is
checked here, each error one line naming the flag and the item.
"""

from __future__ import annotations

import os
import re
import shlex
from collections.abc import Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import TYPE_CHECKING, Any

from ..record import GameRecord
from ..results.sprt import SprtTest
from ..rules.base import OptionValue, did_you_mean
from .config import (
    FOLDER_NAME,
    LIST_NAME,
    MAX_TOURNAMENT_NAME,
    ConfigError,
    EngineTable,
    TomlScalar,
    Tournament,
    build_tournament,
)
from .observers import QuietObserver
from .openings import book_path, suite_names

if TYPE_CHECKING:
    pass

# --engine's keys (--each takes them too, but for name and conf): fastchess's names where
# the meaning is the same, a tournament file's own key names for the rest
ENGINE_KEYS = {
    "name": "name",
    "cmd": "command",
    "args": "command",  # fastchess: more arguments after cmd's
    "proto": "protocol",
    "dir": "cwd",
    "init": "init",
    "conf": "use",
    "tc": "time_control",
    "st": "time_control",
    "timemargin": "time_control",
    "nodes": "time_control",
    "restart": "restart",
    "memory_mb": "memory_mb",
    "cpu_seconds": "cpu_seconds",
    "handshake_ms": "handshake_ms",
    "max_failures": "max_failures",
    "verify_score": "verify_score",
    "sandbox": "sandbox",
}
PREFIXED = {"option.": "options", "env.": "env"}
SPRT_KEYS = ("elo0", "elo1", "alpha", "beta", "model")
# --adjudicate's rules: a word and its items (as cutechess-cli's -resign and -draw), or one item
ADJUDICATE_RULES = {"resign": ("movecount", "score", "twosided"), "draw": ("movenumber", "movecount", "score")}
ADJUDICATE_WORDS = ("resign", "draw", "decided", "hex-decided", "maxplies=N")
# --openings item -> [openings] key: name= is file= for a shipped suite only
OPENINGS_KEYS = {
    "file": "file",
    "name": "file",
    "order": "order",
    "start": "start",
    "plies": "plies",
    "random_plies": "random_plies",
}
# A flag item's value as a tournament file would type it (:func:`_typed`): an integer, a
# boolean or text; a file's tables of such values (a clock, the openings) are built from them.
Scalar = TomlScalar
CLOCK = re.compile(r"(?:(?P<moves>\d+)/)?(?:(?P<minutes>\d+):)?(?P<seconds>\d+(?:\.\d*)?)(?:\+(?P<inc>\d+(?:\.\d*)?))?")


class FlagError(ValueError):
    """A flag's item that cannot be read; the message names the flag and the item."""


@dataclass(frozen=True)
class RunFlags:
    """``arena run``'s flags for a tournament without a file, as given."""

    game: str
    options: Sequence[str] = ()
    engines: Sequence[Sequence[str]] = ()  # each --engine's items
    each: Sequence[str] = ()
    rounds: int | None = None
    workers: int | None = None
    seed: int | None = None
    sprt: Sequence[str] | None = None
    gauntlet: Sequence[str] = ()
    openings: Sequence[str] | None = None
    out: Path | None = None
    idle_engines: int | None = None
    forfeit_failed_engines: bool | None = None
    format: str | None = None  # --format: round-robin, knockout or swiss (--gauntlet makes a gauntlet)
    tiebreaks: Sequence[str] = ()  # --tiebreaks, in order
    seeds: Path | None = None  # --seeds: the rating list an event is seeded by
    adjudicate: Sequence[Sequence[str]] = ()  # each --adjudicate's items: a rule and its KEY=VALUEs


@dataclass
class FlagData:
    """A tournament file's data as the flags say it, and the flag item that set each key."""

    raw: dict[str, Any] = field(default_factory=dict)
    labels: dict[tuple[Any, ...], str] = field(default_factory=dict)  # a key's place -> the item that set it


def flag_tournament(flags: RunFlags, here: Path, engines_file: Path | None) -> tuple[Tournament, Path]:
    """The tournament the flags describe and its results folder. Relative paths (commands,
    ``dir=``, the book, the engine list, default ``./engines.toml``) are taken from ``here``."""
    data = flag_data(flags, here)
    out = flags.out or Path("out") / data.raw["name"]
    return build_flag_tournament(data, out, here, engines_file), out


def build_flag_tournament(data: FlagData, out: Path, here: Path, engines_file: Path | None) -> Tournament:
    """The flags' data validated as a tournament file in ``out`` is (``arena play``'s too)."""
    listing = engines_file or here / LIST_NAME
    return build_tournament(
        data.raw,
        out / "tournament.toml",
        listing if listing.is_absolute() else here / listing,
        list_given=engines_file is not None,
        source="command line",
        labels=data.labels,
        absolute_paths=True,
    )


def game_options(items: Sequence[str]) -> dict[str, OptionValue]:
    """-O's KEY=VALUE items, typed as a tournament file types them."""
    return dict(_items("-O", items, lambda key, value: _typed(value)))


def flag_data(flags: RunFlags, here: Path) -> FlagData:
    """The data of the tournament file the flags mean (not yet validated)."""
    data = FlagData()
    raw = data.raw
    raw["game"] = flags.game
    data.labels[("game",)] = "--game"
    if flags.options:
        raw["options"] = game_options(flags.options)
        data.labels[("options",)] = "-O / --game"
    for key, value in (
        ("rounds", flags.rounds),
        ("workers", flags.workers),
        ("seed", flags.seed),
        ("idle_engines", flags.idle_engines),
        ("forfeit_failed_engines", flags.forfeit_failed_engines),
    ):
        if value is not None:
            raw[key] = value
            data.labels[(key,)] = "--" + key.replace("_", "-")
    shared, clock = _each(flags.each, data)
    if clock:
        raw["time_control"] = clock
    if len(flags.engines) < 2:
        raise FlagError("--engine: give two or more engines, e.g. --engine cmd=./new --engine cmd=./old")
    engines = [_engine(i, items, shared, clock, here, data) for i, items in enumerate(flags.engines)]
    raw["engines"] = engines
    data.labels[("engines",)] = "--engine"
    if flags.sprt is not None:
        raw["sprt"] = dict(_items("--sprt", flags.sprt, _sprt_value, SPRT_KEYS))
        data.labels[("sprt",)] = "--sprt"
        data.labels.update({("sprt", item.partition("=")[0]): f"--sprt item {item!r}" for item in flags.sprt})
    if flags.gauntlet:
        raw["format"] = "gauntlet"
        raw["candidates"] = [name for item in flags.gauntlet for name in item.split(",") if name]
        data.labels[("candidates",)] = "--gauntlet"
    _event_flags(flags, here, data)
    if flags.openings is not None:
        raw["openings"] = _openings(flags.openings, here, data)
    if flags.adjudicate:
        raw["adjudication"] = _adjudication(flags.adjudicate, data)
    # The name first, as a file starts; then the folder: the file is written into it, so "."
    # names it wherever the file is run from
    data.raw = {"name": _name(flags, engines), "out": ".", **raw}
    return data


def _event_flags(flags: RunFlags, here: Path, data: FlagData) -> None:
    """--format, --tiebreaks and --seeds as the file's keys (the rating list's path made
    absolute: the written file is in the results folder)."""
    if flags.format is not None:
        if flags.gauntlet and flags.format != "gauntlet":
            raise FlagError(f"--format {flags.format} and --gauntlet: a gauntlet is its own format; give one of them")
        data.raw["format"] = flags.format
        data.labels[("format",)] = "--format"
    if flags.tiebreaks:
        data.raw["tiebreaks"] = [name for item in flags.tiebreaks for name in item.split(",") if name]
        data.labels[("tiebreaks",)] = "--tiebreaks"
    if flags.seeds is not None:
        data.raw["seeds"] = str((here / flags.seeds).resolve())
        data.labels[("seeds",)] = "--seeds"


def _name(flags: RunFlags, engines: list[EngineTable]) -> str:
    """The folder's name (the tournament's): --out's last part, else the engines'."""
    names = [str(e.get("name", e.get("use", ""))) for e in engines]
    joined = "-vs-".join(names) if len(names) == 2 else f"{flags.game}-{len(names)}-engines"
    fits = [name for name in (flags.out.name if flags.out else "", joined) if _fits(name)]
    return fits[0] if fits else f"{flags.game}-run"


def _fits(name: str) -> bool:
    return bool(FOLDER_NAME.fullmatch(name)) and len(name) <= MAX_TOURNAMENT_NAME


def _each(items: Sequence[str], data: FlagData) -> tuple[list[tuple[str, str]], dict[str, Scalar]]:
    """--each: the clock all engines share (the file's [time_control]), and the items every
    --engine gets before its own."""
    shared: list[tuple[str, str]] = []
    clock: dict[str, Scalar] = {}
    for item in items:
        key, value = _split("--each", item)
        if key in ("name", "conf"):
            raise FlagError(f"--each item {item!r}: every engine has its own {key}; give it with --engine")
        _known("--each", item, key)
        if ENGINE_KEYS.get(key) == "time_control":
            clock.update(_clock("--each", item, key, value))
            data.labels.update({("time_control", k): f"--each item {item!r}" for k in _clock_keys(key)})
        else:
            shared.append((item, key))
    return shared, clock


def _engine(
    index: int,
    items: Sequence[str],
    shared: list[tuple[str, str]],
    each_clock: dict[str, Scalar],
    here: Path,
    data: FlagData,
) -> EngineTable:
    """One --engine as a file's [[engines]] entry: --each's items first, then its own (an
    engine's own tc=, st= or timemargin= add to --each's clock, as fastchess's do)."""
    given = [(item, *_split("--engine", item)) for item in items]
    own_name = next((value for _, key, value in given if key == "name"), None)
    conf = next((value for _, key, value in given if key == "conf"), None)
    number = f"#{index + 1}" + (f" (conf={conf})" if conf else "")
    who = f"--engine {own_name or number}"
    entry: EngineTable = {}
    clock: dict[str, Scalar] = {}
    args: list[str] = []
    for item, key in shared:
        _set(entry, clock, args, item, key, _split("--each", item)[1], "--each", index, here, data)
    for item, key, value in given:
        _known(who, item, key)
        _set(entry, clock, args, item, key, value, who, index, here, data)
    if clock:
        # An engine's own tc= is a whole clock: --each's moves per period do not carry into it.
        inherited = {k: v for k, v in each_clock.items() if not (k == "moves" and "base_ms" in clock)}
        entry["time_control"] = {**inherited, **clock}
    if "command" not in entry and "use" not in entry:
        raise FlagError(f"{who}: give cmd=COMMAND (or conf=NAME, an entry of the engine list)")
    if args:
        if "command" not in entry:
            raise FlagError(f"{who}: args= adds to cmd=; give cmd= too")
        entry["command"] = entry["command"] + args
    data.labels[("engines", index)] = who
    if "use" not in entry:
        entry.setdefault("cwd", str(here))  # the folder arena was started in, as arena play does
        entry = {"name": entry.pop("name", "") or _default_name(entry["command"], index), **entry}
    return entry


def _set(
    entry: EngineTable,
    clock: dict[str, Scalar],
    args: list[str],
    item: str,
    key: str,
    value: str,
    who: str,
    index: int,
    here: Path,
    data: FlagData,
) -> None:
    label = f"{who} item {item!r}"
    target = ENGINE_KEYS.get(key)
    place: tuple[Any, ...] = ("engines", index, target or key)
    if target == "command" and key == "cmd":
        entry["command"] = _words(who, item, value)
    elif key == "args":
        args[:] = _words(who, item, value)
    elif target == "time_control":
        clock.update(_clock(who, item, key, value))
        data.labels.update({(*place, k): label for k in _clock_keys(key)})
        return
    elif target == "init":
        entry.setdefault("init", []).append(value)
        place = ("engines", index, "init", len(entry["init"]) - 1)
    elif target == "cwd":
        entry["cwd"] = os.path.normpath(here / value)
    elif target is not None:
        _put(entry, target, value)
    else:
        prefix = next(p for p in PREFIXED if key.startswith(p))
        table, name = PREFIXED[prefix], key[len(prefix) :]
        if table == "env":
            entry.setdefault("env", {})[name] = value
        else:
            entry.setdefault("options", {})[name] = _typed(value)
        place = ("engines", index, table, name)
    data.labels[place] = label


def _put(entry: EngineTable, key: str, value: str) -> None:
    """One of an entry's plain keys: a name as given, a number or a switch typed."""
    match key:
        case "name" | "use" | "protocol":
            entry[key] = value
        case "restart":  # cutechess's on/off as well as the file's always/auto
            entry[key] = {"on": "always", "off": "auto"}.get(value, value)
        case "memory_mb" | "cpu_seconds" | "handshake_ms" | "max_failures" | "verify_score" | "sandbox":
            entry[key] = _typed(value)
        case _:  # a key added to ENGINE_KEYS needs its place here
            raise AssertionError(f"--engine key {key!r} has no place in an entry")


def _known(who: str, item: str, key: str) -> None:
    if key in ENGINE_KEYS or any(key.startswith(p) and len(key) > len(p) for p in PREFIXED):
        return
    name = key.partition(".")[2]  # options.depth: option.depth is what it means
    keys = [*ENGINE_KEYS, *(prefix + name for prefix in PREFIXED if name)]
    raise FlagError(_unknown(who, item, key, keys, [*ENGINE_KEYS, "option.NAME", "env.NAME"]))


def _unknown(who: str, item: str, key: str, known: Sequence[str], shown: Sequence[str]) -> str:
    """An unknown key of a flag's item, with the known key it most likely misspells."""
    meant = did_you_mean(key, known)
    hint = f" (did you mean {meant!r}?)" if meant is not None else ""
    return f"{who} item {item!r}: unknown key {key!r}{hint}; the keys are {', '.join(shown)}"


def _clock(who: str, item: str, key: str, value: str) -> dict[str, Scalar]:
    """tc=[MINUTES:]SECONDS[+INC] (fastchess's and cutechess's), st=SECONDS a move (cutechess's),
    timemargin=MS (fastchess's) as a file's time_control keys."""
    if key == "timemargin":
        return {"margin_ms": _typed(value)}
    if key == "nodes":
        if not (value.isascii() and value.isdigit()) or int(value) <= 0:  # "²" is a digit int() refuses
            raise FlagError(f"{who} item {item!r}: nodes is a node budget a move, a whole number over 0 (nodes=5000)")
        return {"nodes": int(value)}
    if key == "st":
        seconds = _seconds(value)
        if seconds is None or seconds <= 0:
            raise FlagError(f"{who} item {item!r}: st is the seconds a move, a number over 0 (st=0.5)")
        return {"movetime_ms": round(seconds * 1000)}
    match = CLOCK.fullmatch(value)
    if match is None:
        raise FlagError(
            f"{who} item {item!r}: write tc=[MOVES/]SECONDS[+INCREMENT], e.g. tc=10+0.1, tc=1:30+1 or tc=40/60"
        )
    base = (int(match["minutes"] or 0) * 60 + float(match["seconds"])) * 1000
    if round(base) <= 0:
        raise FlagError(f"{who} item {item!r}: the clock's base must be over 0 seconds")
    clock: dict[str, Scalar] = {"base_ms": round(base)}
    if match["moves"] is not None:
        if int(match["moves"]) <= 0:
            raise FlagError(f"{who} item {item!r}: the moves per period must be over 0 (tc=40/60)")
        clock["moves"] = int(match["moves"])
    if match["inc"] is not None:
        clock["inc_ms"] = round(float(match["inc"]) * 1000)
    return clock


def _clock_keys(key: str) -> tuple[str, ...]:
    return {
        "tc": ("base_ms", "inc_ms", "moves"),
        "st": ("movetime_ms",),
        "timemargin": ("margin_ms",),
        "nodes": ("nodes",),
    }[key]


def _openings(items: Sequence[str], here: Path, data: FlagData) -> dict[str, Scalar]:
    entry: dict[str, Scalar] = {}
    given = _items("--openings", items, lambda key, value: value, tuple(OPENINGS_KEYS))
    if {"file", "name"} <= {key for key, _ in given}:
        raise FlagError("--openings: give a shipped suite's name= or a book's file=, not both")
    for key, value in given:
        if key == "name" and value not in suite_names():
            raise FlagError(
                f"--openings item 'name={value}': no opening suite of that name ships with arena "
                "(`arena openings list` names them; a book of your own is file=PATH)"
            )
        field = OPENINGS_KEYS[key]
        entry[field] = _book_file(value, here) if field == "file" else value if key == "order" else _typed(value)
        data.labels[("openings", field)] = f"--openings item '{key}={value}'"  # value as typed
    data.labels[("openings",)] = "--openings"
    return entry


def _book_file(value: str, here: Path) -> str:
    """``--openings file=``: a shipped suite's short name as given (as a file names one), else
    a path made absolute from the folder the command ran in."""
    return value if book_path(value, here) != here / value else os.path.normpath(here / value)


def _adjudication(groups: Sequence[Sequence[str]], data: FlagData) -> dict[str, Scalar | dict[str, Scalar]]:
    """--adjudicate's rules as the file's [adjudication] table: ``resign movecount=N score=S
    [twosided=true]``, ``draw movenumber=M movecount=N score=S``, ``decided`` (``hex-decided``
    too) and ``maxplies=N``, each --adjudicate one rule."""
    table: dict[str, Scalar | dict[str, Scalar]] = {}
    data.labels[("adjudication",)] = "--adjudicate"
    for items in groups:
        word, rest = (items[0], items[1:]) if items else ("", [])
        who = f"--adjudicate {word}"
        if word in ADJUDICATE_RULES:
            table[word] = dict(_items(who, rest, _number_value, ADJUDICATE_RULES[word]))
            data.labels[("adjudication", word)] = who
            for item in rest:
                data.labels[("adjudication", word, item.partition("=")[0])] = f"{who} item {item!r}"
        elif word in ("decided", "hex-decided") and not rest:
            table["decided"] = True
        elif word.partition("=")[0] in ("maxplies", "max_plies") and not rest:
            table["max_plies"] = _typed(word.partition("=")[2])
            data.labels[("adjudication", "max_plies")] = f"--adjudicate item {word!r}"
        else:
            raise FlagError(
                f"--adjudicate {' '.join(items)!r}: give one rule an --adjudicate: {', '.join(ADJUDICATE_WORDS)} "
                f"(e.g. --adjudicate resign movecount=3 score=600)"
            )
    return table


def _number_value(key: str, value: str) -> Any:
    """A number as a file types it (an integer, else a decimal), true/false, or the text."""
    typed = _typed(value)
    if isinstance(typed, str) and (number := _seconds(typed)) is not None:
        return number
    return typed


def _items(flag: str, items: Sequence[str], convert: Any, keys: Sequence[str] | None = None) -> list[tuple[str, Any]]:
    out = []
    for item in items:
        key, value = _split(flag, item)
        if keys is not None and key not in keys:
            raise FlagError(_unknown(flag, item, key, keys, keys))
        out.append((key, convert(key, value)))
    return out


def _split(flag: str, item: str) -> tuple[str, str]:
    key, eq, value = item.partition("=")
    if not eq or not key or any(ch in item for ch in "\r\n\x00"):
        raise FlagError(f"{flag} item {item!r}: write KEY=VALUE on one line, e.g. {_EXAMPLES.get(flag, 'cmd=./new')}")
    return key, value


_EXAMPLES = {"-O": "-O size=11", "--sprt": "--sprt elo0=0 elo1=5", "--openings": "--openings file=book.txt"}


def _words(who: str, item: str, value: str) -> list[str]:
    """A command line split as a shell would (never run through one), as ``arena play`` does."""
    try:
        words = shlex.split(value)
    except ValueError as exc:
        raise FlagError(f"{who} item {item!r}: cannot split the command ({exc})") from None
    if not words:
        raise FlagError(f"{who} item {item!r}: an empty command")
    return words


def _default_name(command: list[str], index: int) -> str:
    """fastchess's default: the program's file name (a Python module's, for ``python -m``)."""
    word = command[command.index("-m") + 1] if "-m" in command[:-1] else Path(command[0]).stem
    name = re.sub(r"[^A-Za-z0-9_.+-]", "_", word.rsplit(".", 1)[-1])[:64]
    return name or f"engine{index + 1}"


def _typed(text: str) -> Scalar:
    """A value typed as a tournament file would type it: ASCII digits an integer, true/false
    a boolean, anything else text (so the file's checks refuse memory_mb=abc by name)."""
    if re.fullmatch(r"-?[0-9]{1,20}", text):
        return int(text)
    return {"true": True, "false": False}.get(text, text)


def _seconds(text: str) -> float | None:
    try:
        value = float(text)
    except ValueError:
        return None
    return value if value == value and value not in (float("inf"), float("-inf")) else None


def _sprt_value(key: str, value: str) -> Any:
    if key == "model":
        return value
    number = _seconds(value)
    return value if number is None else number  # text: refused by [sprt]'s own check, naming the item


class TournamentFileWriter(QuietObserver):
    """Writes the run's tournament file into its folder once the folder took its settings
    (a refused run leaves the folder's file as it was)."""

    def __init__(self, path: Path, text: str) -> None:
        self.path = path
        self.text = text

    def on_start(self, total: int, stored: Sequence[GameRecord], sprt: SprtTest | None) -> None:
        try:
            self.path.write_text(self.text, encoding="utf-8")
        except OSError as exc:
            raise ConfigError(f"{self.path}: cannot write the tournament file ({exc.strerror})") from None


def tournament_text(t: Tournament, command_line: str) -> str:
    """The tournament file of a run from the command line: its data as TOML (tomli-w: a
    writer that quotes every string TOML's way), the command line as a comment."""
    import tomli_w

    head = (
        "# Written by arena run from this command line; 'arena run FILE' plays the same games\n"
        "# (the same settings: 'out' names this folder, so it resumes it from any working directory;\n"
        "# a copy elsewhere, its 'out' removed or changed, plays them into a new folder).\n"
        f"# {command_line}\n\n"
    )
    return head + tomli_w.dumps(t.raw or {})
