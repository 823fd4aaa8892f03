"""The seat of a game, as the match sees it: a :class:`Player`.

A player is told a game (its rules, its seat, its seed, what only it may know), is asked
for moves on the referee's :class:`~arena.rules.State` under a :class:`TimeLimit`, and
is told the result.  What it says back is a :class:`Reply`; whatever it does wrong is one
:class:`EngineFault` carrying the termination code recorded in the game, and nothing
else ever comes out of it.  How a player talks to an engine program (protocol v1 in
``process.py``, GTP in ``gtp.py``) and over what (``transport.py``) is its own business:
the match never sees a wire line.  Like python-chess's ``Protocol`` and cutechess's
``ChessPlayer``, a built-in opponent (check-engine's random seat) is just another player.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass, replace
from typing import NamedTuple, Protocol

from ..record import Termination
from ..rules import Game, State


class EngineFault(Exception):
    """The engine broke the protocol; ``code`` is the recorded termination."""

    def __init__(self, code: Termination, reason: str) -> None:
        super().__init__(reason)
        self.code = code
        self.reason = reason


class EngineRefused(EngineFault):
    """The engine started, but what it declares does not fit the tournament (options it
    did not declare, values out of range, another game in ``id games``): a fault of the
    tournament's entry as much as of the engine, refused before any game where possible."""

    def __init__(self, problem: str) -> None:
        super().__init__(Termination.HANDSHAKE, f"refused: {problem}")


@dataclass(frozen=True)
class Sandbox:
    """An untrusted engine's sandbox (``sandbox.py`` makes it): the paths it must not see
    (the results folder, the other engines' folders and programs, set by the tournament)
    and its limits beside ``memory_mb`` and ``cpu_seconds``."""

    hidden: tuple[str, ...] = ()
    processes: int = 64  # processes and threads, the sandbox's own two included
    scratch_mb: int = 64  # its scratch folder and its /tmp, each

    def hiding(self, paths: Sequence[str]) -> Sandbox:
        """The same sandbox hiding ``paths`` too."""
        return replace(self, hidden=tuple(dict.fromkeys([*self.hidden, *paths])))


@dataclass(frozen=True)
class EngineSpec:
    """How to start an engine: a name for tables and an argument list (no shell)."""

    name: str
    command: tuple[str, ...]
    cwd: str | None = None
    options: tuple[tuple[str, str], ...] = ()
    memory_mb: int | None = None  # address-space limit, enforced by the kernel (sandboxed: a cgroup's)
    cpu_seconds: int | None = None  # CPU-time limit per game, per process
    handshake_ms: int | None = None  # handshake / isready limit (default HANDSHAKE_TIMEOUT)
    protocol: str = "arena"  # "arena" (protocol v1, process.py) or "gtp" (gtp.py)
    init: tuple[str, ...] = ()  # GTP only: commands sent after start-up, answers checked
    env: tuple[tuple[str, str], ...] = ()  # environment variables set for the engine
    verify_score: bool = False  # GTP only: ask final_score at each game's end (docs/gtp.md)
    sandbox: Sandbox | None = None  # run in a sandbox (docs/sandbox.md); None: as it is
    restart: bool = False  # a fresh process every game (otherwise only after a fault)


class TimeLimit(NamedTuple):
    """What one move may take.  ``seconds`` is the referee's limit, margin included: an
    answer measured over it is a time loss.  The rest is what the engine is told of its
    time (PROTOCOL.md section 5): a fixed time per move, and with a game clock every
    seat's time left (never below 0), when any seat has one, every seat's increment, and
    with moves per period the moves left before the clock is topped up.
    A named tuple: with a game clock the match makes one every move, and it is cheap."""

    seconds: float
    movetime_ms: int | None = None
    clocks_ms: tuple[int, ...] | None = None
    incs_ms: tuple[int, ...] | None = None
    movestogo: int | None = None  # with moves per period: this seat's moves left in it, this one included
    nodes: int | None = None  # a node budget, for an engine that declares it takes one


@dataclass
class Reply:
    """A player's answer: a move token, or None for resignation."""

    move: str | None
    elapsed: float  # seconds, as the referee measured them
    info: dict[str, int | float] | None = None  # depth / nodes / score its info lines gave
    said: str | None = None  # its last info line's text, as sent (engine text: show it escaped)


class Player(Protocol):
    """One seat's player, at the level of the game.  Every method but :meth:`kill` may raise
    :class:`EngineFault`, and nothing else."""

    @property
    def name(self) -> str:
        """The name for tables when the tournament gives none."""
        ...

    @property
    def alive(self) -> bool:
        """Whether it can still play (an engine whose process ended cannot)."""
        ...

    def start(self) -> None:
        """Get ready to play games (an engine: start its process and shake hands)."""

    def new_game(self, game: Game, seat: int, seed: int, private: Sequence[str]) -> None:
        """A game begins: ``seat`` is its own, ``seed`` its per-game seed, ``private`` what
        only this seat may know (Posies' hidden colour)."""

    def choose_move(self, state: State, limit: TimeLimit) -> Reply:
        """The move for ``state``, its seat to move, within ``limit``.  The states of one
        game are its successive positions, so a player may send only what changed."""
        ...

    def longest_s(self, limit: TimeLimit | None) -> float:
        """The longest the next call may take in seconds: :meth:`choose_move` under
        ``limit``, or with None any other exchange of a game (:meth:`new_game`,
        :meth:`verify_result`).  The watchdog that finds a stopped worker times it."""
        ...

    def verify_result(self, state: State) -> None:
        """The game ended by the rules in ``state``: a player that is asked to (a GTP
        engine's ``verify_score``) confirms the result on its own board, or raises
        EngineFault quoting both results; the others do nothing."""

    def game_over(self, scores: Sequence[float], reason: str) -> None:
        """The game ended with ``scores`` (by seat) for ``reason``; never raises: a player
        that cannot take the news is left to :meth:`quit`."""

    def quit(self) -> None:
        """Stop for good, politely first."""

    def kill(self) -> None:
        """Stop for good, now."""
