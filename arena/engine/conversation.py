"""An engine program as a :class:`~arena.engine.player.Player`: a conversation over a transport.

The two protocols arena speaks are two subclasses of :class:`Conversation`: protocol v1
(``process.py``) and GTP (``gtp.py``).  Each says what to send and how to read the answers;
the transport it holds (``transport.py``: the process, its pipes, deadlines and budgets)
carries the lines, and could be any other :class:`~arena.engine.transport.Transport`, such
as the scripted one the conversation tests use.  Those who start and watch engines (a
worker, a check) reach the process itself (``child.py``) and its stderr (``stderrtail.py``)
here, not through the transport.
"""

from __future__ import annotations

import subprocess
from abc import ABC, abstractmethod
from collections.abc import Sequence

from protocol.codec import OptionDecl

from ..rules import Game, State
from .child import ChildProcess
from .player import EngineSpec, Reply, TimeLimit
from .stderrtail import StderrTail
from .transport import ALONE, PipeSettings, PipeTransport, Trace, Transport

HANDSHAKE_TIMEOUT = 10.0  # default limit for the handshake and for each isready
QUIT = "quit"  # the same word in both protocols


class Conversation(ABC):
    """One engine program, spoken to in one protocol over one transport."""

    def __init__(
        self,
        spec: EngineSpec,
        *,
        pipe: PipeSettings = ALONE,
        game: str = "",
        board: Game | None = None,
        transport: Transport | None = None,
    ) -> None:
        self.spec = spec
        self.game = game  # the game it is started for: refused if it declares others
        self.board = board  # the game with its options: a GTP engine is asked at start-up if it plays it
        self.child: ChildProcess | None = None  # the engine's process (none over an in-memory transport)
        self.stderr = StderrTail()  # what it wrote on stderr
        if transport is None:
            transport = piped = PipeTransport(spec, pipe)
            self.child, self.stderr = piped.child, piped.stderr
        self.transport: Transport = transport
        self.identity: dict[str, str] = {}  # what it says it is (id name, id author ...)
        self.declared_options: list[OptionDecl] = []  # protocol v1's 'option' lines (GTP has none)

    def __repr__(self) -> str:
        return f"{type(self).__name__}({self.spec.name!r}, {self.transport!r})"

    # -- the Player protocol ------------------------------------------------------

    @property
    def name(self) -> str:
        return self.spec.name

    @property
    def alive(self) -> bool:
        return self.transport.alive

    def start(self) -> None:
        """Start the process and complete the handshake, or raise EngineFault."""
        self.launch()
        self.handshake()

    def launch(self) -> None:
        """Start the process without waiting for it (:meth:`start` then shakes hands);
        several engines launched first boot side by side.  Raises EngineFault."""
        self.transport.launch()

    @abstractmethod
    def handshake(self) -> None:
        """Learn who the engine is and what it offers; raises EngineFault."""

    @abstractmethod
    def new_game(self, game: Game, seat: int, seed: int, private: Sequence[str]) -> None: ...

    @abstractmethod
    def choose_move(self, state: State, limit: TimeLimit) -> Reply: ...

    def longest_s(self, limit: TimeLimit | None) -> float:
        """A move answers within its limit; the other exchanges within the start-up limit."""
        return self.start_limit if limit is None else limit.seconds

    def verify_result(self, state: State) -> None:
        """Nothing to confirm unless the protocol can ask (GTP's ``final_score``)."""
        return None

    @abstractmethod
    def game_over(self, scores: Sequence[float], reason: str) -> None: ...

    def quit(self) -> None:
        """Ask the engine to exit, then make sure its whole process group is gone."""
        self.transport.close(QUIT)

    def say_quit(self) -> bool:
        """Ask the engine to exit without waiting (:meth:`see_off` then waits, and kills);
        whether it was asked (if not, it is to be killed at once)."""
        return self.transport.say_goodbye(QUIT)

    def see_off(self, deadline: float) -> None:
        """After :meth:`say_quit`: wait for the exit until ``deadline`` (time.monotonic()),
        then kill what is left and reap; may run in another thread than the one that plays."""
        self.transport.see_off(deadline)

    def kill(self) -> None:
        """Kill the process group and every tagged process that left it, and reap."""
        self.transport.kill()

    # -- the transport's, for those who start and watch engines -----------------------

    @property
    def start_limit(self) -> float:
        """Seconds allowed for the handshake and for each isready."""
        ms = self.spec.handshake_ms
        return ms / 1000 if ms else HANDSHAKE_TIMEOUT

    @property
    def proc(self) -> subprocess.Popen[bytes] | None:
        return self.child.proc if self.child is not None else None

    @property
    def trace(self) -> Trace | None:
        return self.transport.trace

    @trace.setter
    def trace(self, trace: Trace | None) -> None:
        self.transport.trace = trace

    @property
    def stderr_home(self) -> str:
        return self.stderr.home

    @stderr_home.setter
    def stderr_home(self, where: str) -> None:
        self.stderr.home = where

    @property
    def stderr_tail(self) -> bytearray:
        return self.stderr.data

    def stderr_text(self) -> str:
        return self.stderr.text()
