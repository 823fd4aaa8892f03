"""``arena check-engine``'s engine: one command line (or its words) with the protocol, handshake
time and GTP commands the flags give, and the game options checked against each game named,
every mistake one line naming the flag before any engine starts."""

from __future__ import annotations

import shlex
from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from ..engine.conformance import check_game
from ..engine.player import EngineSpec, Sandbox
from ..engine.sandbox import sandbox_problem
from ..rules import OptionError, games_speaking
from .commandline import FlagError
from .config import ConfigError


@dataclass(frozen=True)
class CheckSetup:
    """The engine to check and the game options of the timed and whole-game checks."""

    spec: EngineSpec
    board: Mapping[str, Any]


def check_setup(
    command: Sequence[str],
    games: Sequence[str],
    protocol: str,
    handshake_ms: int,
    inits: Sequence[str],
    board: Mapping[str, Any],
    sandbox: bool = False,
) -> CheckSetup:
    """The engine ``command`` starts, checked as the flags say (``sandbox``: in its sandbox,
    seeing its folder, this one). Raises FlagError."""
    if sandbox and (problem := sandbox_problem()) is not None:
        raise FlagError(f"--sandbox: {problem}")
    if inits and protocol != "gtp":
        raise FlagError("--init is for GTP engines (--protocol gtp); a protocol-1 engine gets options instead")
    named = list(games) or (games_speaking("gtp") if protocol == "gtp" else [])
    if board and not named:
        raise FlagError("-O: name the game it is for with --game (e.g. --game hex -O size=11)")
    for name in named if board else []:
        try:
            check_game(name, board)
        except OptionError as exc:
            raise FlagError(f"-O: {exc}") from None
    for line in inits:
        if "\n" in line or "\r" in line or not line.strip():
            raise FlagError(f"--init {line!r}: one GTP command on one line")
    spec = command_spec(0, " ".join(shlex.quote(w) for w in command) if len(command) > 1 else command[0])
    confined = Sandbox() if sandbox else None
    return CheckSetup(
        EngineSpec(
            "engine",
            spec.command,
            str(Path.cwd()) if sandbox else None,
            protocol=protocol,
            handshake_ms=handshake_ms,
            init=tuple(inits),
            sandbox=confined,
        ),
        board,
    )


def command_spec(seat: int, command: str, protocol: str = "arena") -> EngineSpec:
    """The engine one quoted command line starts (``arena check-engine``'s), its program found
    as a tournament file's is."""
    from .config import resolve_program

    try:
        argv = shlex.split(command)
    except ValueError as exc:
        raise FlagError(f"engine {seat}: cannot split command {command!r}: {exc}") from None
    if not argv:
        raise FlagError(f"engine {seat}: empty command")
    try:
        argv[0] = resolve_program(argv[0], Path.cwd(), f"engine {seat}")
    except ConfigError as exc:
        raise FlagError(str(exc)) from None
    return EngineSpec(f"seat{seat}", tuple(argv), protocol=protocol)
