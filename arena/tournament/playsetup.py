"""``arena play``'s engines and clock, from the same ``--engine`` and ``--each`` items as ``arena
run`` takes (arena/tournament/commandline.py reads them), so both commands speak one vocabulary
and refuse a value in the same words.

The per-seat flags ``arena play`` took before (``--movetime``/``--base``/``--inc`` in
milliseconds, ``--engine-option SEAT:NAME=VALUE``, ``--name``, ``--protocol``, ``--init
SEAT:COMMAND``, one command per seat) still work: :func:`seat_items` checks them as it always
did and writes them as those items, with a note naming the new form for each flag given, so
scripts written against them run on.
"""

from __future__ import annotations

import shlex
from collections.abc import Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from protocol.codec import quote

from ..engine.player import EngineSpec
from ..match import TimeControl
from ..rules import Game, OptionError, games_speaking, make_game
from .commandline import FlagError, RunFlags, build_flag_tournament, flag_data, game_options
from .config import engine_name_problem


@dataclass(frozen=True)
class PlayFlags:
    """``arena play``'s game and engines, as items (``--engine``'s each, ``--each``'s)."""

    game: str
    options: Sequence[str] = ()
    engines: Sequence[Sequence[str]] = ()
    each: Sequence[str] = ()


@dataclass(frozen=True)
class SeatFlags:
    """The per-seat flags of ``arena play`` before it took items; values as given."""

    commands: Sequence[str] = ()
    movetime_ms: int | None = None
    base_ms: int | None = None
    inc_ms: int = 0
    protocols: Sequence[str] = ()
    names: Sequence[str] = ()
    engine_options: Sequence[str] = ()
    inits: Sequence[str] = ()


@dataclass(frozen=True)
class PlaySetup:
    """What a series of games needs: the game, an engine spec per seat, the names given (None:
    the engine's own ``id name``), the clock, and each engine's command line for messages."""

    game: Game
    specs: list[EngineSpec]
    names: list[str | None]
    time_control: TimeControl
    commands: list[str] = field(default_factory=list)


def play_setup(flags: PlayFlags, here: Path) -> PlaySetup:
    """The game and engines the items describe, validated as ``arena run`` validates them.
    Raises FlagError or ConfigError with one line naming the flag and item."""
    game = _game(flags.game, flags.options)
    if len(flags.engines) != game.players:
        raise FlagError(
            f"{flags.game} with these options has {game.players} seats; give {game.players} engines "
            f"(--engine cmd=... once per seat)"
        )
    data = flag_data(RunFlags(flags.game, flags.options, flags.engines, flags.each), here)
    names = [_given_name(items) for items in flags.engines]
    for index, entry in enumerate(data.raw["engines"]):
        if names[index] is None and "use" not in entry:
            entry["name"] = f"seat{index}"  # unique for the check; the engine's id name is shown
    timed = [data.labels[("engines", i)] for i, entry in enumerate(data.raw["engines"]) if "time_control" in entry]
    if timed:
        raise FlagError(f"{timed[0]}: arena play gives every seat one clock; give tc= or st= with --each")
    t = build_flag_tournament(data, Path("out") / "play", here, None)
    return PlaySetup(t.game, t.engines, names, t.time_control, [shlex.join(e.command) for e in t.engines])


def _game(name: str, options: Sequence[str]) -> Game:
    try:
        return make_game(name, game_options(options), strict=True)
    except OptionError as exc:
        raise FlagError(str(exc)) from None


def _given_name(items: Sequence[str]) -> str | None:
    return next((item.partition("=")[2] for item in items if item.partition("=")[0] == "name"), None)


def from_seat_flags(flags: PlayFlags, old: SeatFlags) -> tuple[PlayFlags, str]:
    """The old per-seat flags as ``--engine`` items per seat and ``--each`` items (before the
    ``--each`` items given), and a line naming the new form. Raises FlagError as the old flags
    were refused, in the same words."""
    game = _game(flags.game, flags.options)
    if len(old.commands) != game.players:
        raise FlagError(f"{game.name} with these options has {game.players} seats; give {game.players} engine commands")
    engines, clock = seat_items(game, old)
    return PlayFlags(flags.game, flags.options, engines, [*clock, *flags.each]), _note(old, engines, clock)


def seat_items(game: Game, old: SeatFlags) -> tuple[list[list[str]], list[str]]:
    """The old per-seat flags as ``--engine`` items per seat and ``--each``'s clock items."""
    seats = len(old.commands)
    protocol_of = _per_seat("--protocol", old.protocols, seats, allow_one=True) or ["arena"] * seats
    names = _per_seat("--name", old.names, seats, allow_one=False)
    for name in names:
        if (problem := engine_name_problem(name)) is not None:
            raise FlagError(f"--name {quote(name, 80)}: {problem}")
    setoptions = _by_seat("--engine-option", old.engine_options, seats, split_value=True)
    init_lines = _by_seat("--init", old.inits, seats, split_value=False)
    _check_protocols(game, protocol_of, setoptions, init_lines)
    engines = [
        [f"cmd={command}"]
        + ([f"proto={protocol_of[seat]}"] if old.protocols else [])
        + ([f"name={names[seat]}"] if names else [])
        + [f"option.{name}={value}" for name, value in setoptions[seat]]
        + [f"init={line}" for line in init_lines[seat]]
        for seat, command in enumerate(old.commands)
    ]
    return engines, _clock_items(old)


def _check_protocols(
    game: Game, protocol_of: list[str], setoptions: list[list[Any]], init_lines: list[list[Any]]
) -> None:
    if "gtp" in protocol_of and "gtp" not in game.protocols:
        only = ", ".join(games_speaking("gtp"))
        raise FlagError(f"--protocol gtp: arena drives GTP engines for {only} only, not {game.name}")
    for seat, protocol in enumerate(protocol_of):
        if protocol == "gtp" and setoptions[seat]:
            raise FlagError(
                f"--engine-option {seat}:...: seat {seat} speaks GTP; send settings with --init {seat}:COMMAND"
            )
        if protocol == "arena" and init_lines[seat]:
            raise FlagError(f"--init {seat}:...: seat {seat} speaks protocol v1; use --engine-option {seat}:NAME=VALUE")


def _clock_items(old: SeatFlags) -> list[str]:
    """--movetime, --base and --inc (milliseconds) as --each's st= and tc= (seconds); neither
    given: a second a move, as before."""
    items = []
    if old.movetime_ms or not old.base_ms:
        items.append(f"st={_seconds(old.movetime_ms or 1000)}")
    if old.base_ms:
        items.append(f"tc={_seconds(old.base_ms)}" + (f"+{_seconds(old.inc_ms)}" if old.inc_ms else ""))
    return items


def _seconds(ms: int) -> str:
    return f"{ms // 1000}.{ms % 1000:03d}".rstrip("0").rstrip(".")


def _note(old: SeatFlags, engines: list[list[str]], clock: list[str]) -> str:
    """One line naming the items the old flags given now are."""
    given = {
        "--movetime": old.movetime_ms,
        "--base": old.base_ms,
        "--inc": old.inc_ms,
        "--protocol": old.protocols,
        "--name": old.names,
        "--engine-option": old.engine_options,
        "--init": old.inits,
    }
    flags = [flag for flag, value in given.items() if value]
    new = " ".join(f"--engine {' '.join(shlex.quote(item) for item in items)}" for items in engines)
    timed = any(flag in flags for flag in ("--movetime", "--base", "--inc"))
    old_form = ", ".join([*flags, "engine commands without --engine"])
    return f"{old_form}: now {new}" + (f" --each {' '.join(clock)}" if timed else "") + "; the old form still works"


def _per_seat(flag: str, values: Sequence[str], seats: int, allow_one: bool) -> list[str]:
    """A flag given once per seat (or, if ``allow_one``, once for all of them)."""
    if not values:
        return []
    if allow_one and len(values) == 1:
        return list(values) * seats
    if len(values) != seats:
        raise FlagError(
            f"{flag}: give it once per seat ({seats} times, in seat order)"
            + (" or once for all seats" if allow_one else "")
            + f"; got {len(values)}"
        )
    return list(values)


def _by_seat(flag: str, items: Sequence[str], seats: int, split_value: bool) -> list[list[Any]]:
    """``SEAT:NAME=VALUE`` (or ``SEAT:TEXT``) items grouped by seat."""
    grouped: list[list[Any]] = [[] for _ in range(seats)]
    for item in items:
        seat, colon, rest = item.partition(":")
        if not colon or not (seat.isascii() and seat.isdigit()) or int(seat) >= seats:
            raise FlagError(f"{flag} {item!r}: start with the seat number (0 to {seats - 1}) and ':'")
        if any(ch in rest for ch in "\r\n\x00"):
            raise FlagError(f"{flag} {item!r}: one line only")
        if split_value:
            name, eq, value = rest.partition("=")
            if not eq or not name or " " in name:
                raise FlagError(f"{flag} {item!r}: write SEAT:NAME=VALUE, e.g. {flag} 0:depth=3")
            grouped[int(seat)].append((name, value))
        elif rest.strip():
            grouped[int(seat)].append(rest.strip())
    return grouped
