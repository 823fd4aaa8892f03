"""Protocol v1 (protocol/PROTOCOL.md): the conversation with an arena engine.

:class:`EngineProcess` is the :class:`~arena.engine.player.Player` for engines that speak
arena's own protocol.  It turns the game into lines (``newgame``, ``seed``, ``private``,
``position``, ``go``, ``gameover``), reads the engine's through the codec and judges them:
a line the protocol does not allow where it comes is an ``EngineFault("protocol")``, a
move measured over its limit a ``timeout``.  The lines travel over a
:class:`~arena.engine.transport.Transport` (the engine's process, pipes and deadlines),
which it shares with the GTP conversation (``gtp.py``).
"""

from __future__ import annotations

import logging
import time
from collections.abc import Sequence
from typing import Any

from protocol import codec
from protocol.codec import ArenaOk, Id, Info, Move, OptionDecl, ProtocolError, ReadyOk, Resign

from ..record import Termination
from ..rules import Game, State
from .conversation import Conversation
from .declared import declaration_problem, games_problem, option_problems
from .pipes import Reason
from .player import EngineFault, EngineRefused, EngineSpec, Reply, TimeLimit
from .stderrtail import INFO_KEEP
from .transport import QUIT_GRACE

log = logging.getLogger("arena.engine")

INFO_LINES_PER_GAME = 10_000

Message = Id | OptionDecl | ArenaOk | ReadyOk | Move | Resign | Info  # a non-empty engine line


class EngineProcess(Conversation):
    """An engine that speaks protocol v1, as a Player."""

    def __init__(self, spec: EngineSpec, **kwargs: Any) -> None:
        super().__init__(spec, **kwargs)
        self._info_lines = 0
        # The position line last sent, grown by the moves played since rather than joined
        # afresh each move (a long Bases game's line passes 64 KiB), and the moves it holds.
        self._position: str | None = None
        self._plies = 0
        self._limit: TimeLimit | None = None  # the limit the go line below was made from
        self._go_line = ""

    # -- start-up ---------------------------------------------------------------

    def handshake(self) -> None:
        limit = self.start_limit
        deadline = time.monotonic() + limit
        send = self.transport.send
        send(f"arena {codec.VERSION}", deadline)
        while True:
            msg = self._read_message(deadline, Termination.HANDSHAKE, f"no arenaok within {limit:g} s of 'arena 1'")
            if isinstance(msg, ArenaOk):
                if msg.version != codec.VERSION:
                    raise EngineFault(
                        Termination.HANDSHAKE, f"engine speaks protocol {msg.version}, arena speaks {codec.VERSION}"
                    )
                break
            if isinstance(msg, Id):
                self.identity[msg.key] = codec.sanitize(msg.value, 80)
            elif isinstance(msg, OptionDecl):
                problem = declaration_problem(msg) or (
                    "declared twice" if any(d.name == msg.name for d in self.declared_options) else None
                )
                if problem is not None:  # the engine's own line is wrong: a fault, as any malformed line
                    raise EngineFault(Termination.PROTOCOL, f"option {msg.name!r} ({_describe(msg)}): {problem}")
                self.declared_options.append(msg)
            elif not isinstance(msg, Info):
                raise EngineFault(Termination.PROTOCOL, f"unexpected {_describe(msg)} during the handshake")
        problems = option_problems(self.declared_options, self.spec.options)
        if problems:  # a tournament refuses these before its first game (preflight.py)
            raise EngineRefused(problems[0])
        if self.game and (problem := games_problem(self.identity, self.game)) is not None:
            raise EngineRefused(f"it {problem}")
        for name, value in self.spec.options:
            send(codec.format_setoption(name, value), deadline)

    def isready(self) -> None:
        """``isready``, and wait for ``readyok`` within the start-up limit."""
        deadline = time.monotonic() + self.start_limit
        self.transport.send("isready", deadline)
        self._await_ready(deadline)

    def _await_ready(self, deadline: float) -> None:
        reason = f"no readyok within {self.start_limit:g} s of 'isready'"
        while True:
            msg = self._read_message(deadline, Termination.HANDSHAKE, reason)
            if isinstance(msg, ReadyOk):
                return
            if not isinstance(msg, Info):
                raise EngineFault(Termination.PROTOCOL, f"expected readyok, got {_describe(msg)}")

    # -- games ------------------------------------------------------------------

    def new_game(self, game: Game, seat: int, seed: int, private: Sequence[str]) -> None:
        """Announce a game and wait for ``readyok``."""
        self._info_lines = 0
        self._position = None
        self.transport.renew_cpu_budget()
        lines = [codec.format_newgame(game.name, seat, game.players, game.option_tokens()), f"seed {seed}"]
        lines += [f"private {p}" for p in private]
        lines.append("isready")
        deadline = time.monotonic() + self.start_limit
        self.transport.send("\n".join(lines), deadline)
        self._await_ready(deadline)

    def choose_move(self, state: State, limit: TimeLimit) -> Reply:
        """``position`` and ``go`` for ``state`` under ``limit``, and the engine's answer."""
        moves = state.moves
        position = self._position
        if position is None or len(moves) < self._plies:  # a new game (or not its next position)
            position = codec.format_position(state.setup_token(), moves)
        elif len(moves) > self._plies:
            position += " " + " ".join(moves[self._plies :])
        self._position, self._plies = position, len(moves)
        if limit is not self._limit:  # without a game clock a seat's limit is the same object every move
            self._limit, self._go_line = limit, self._format_go(limit)
        return self.go(position, self._go_line, limit.seconds)

    def _format_go(self, limit: TimeLimit) -> str:
        """The ``go`` line; ``movestogo`` and ``nodes`` only for an engine that declared them
        (``id go movestogo,nodes``): an engine of the first protocol text refuses unknown keys."""
        takes = self.identity.get("go", "").split(",")
        return codec.format_go(
            limit.clocks_ms,
            limit.incs_ms,
            limit.movetime_ms,
            limit.movestogo if "movestogo" in takes else None,
            limit.nodes if "nodes" in takes else None,
        )

    def go(self, position_line: str, go_line: str, limit: float) -> Reply:
        """Send these ``position`` and ``go`` lines; wait at most ``limit`` seconds for the answer."""
        transport = self.transport
        self._discard_unsolicited()
        transport.check_cpu_budget()
        start = time.monotonic()
        deadline = start + limit
        transport.send(f"{position_line}\n{go_line}", deadline)
        reason = lambda: f"no move within {limit * 1000:.0f} ms"  # formatted only on a timeout
        waiting = transport.waiting
        waiting.begin()
        info = None
        said = None
        try:
            while True:
                msg = self._read_message(deadline, Termination.TIMEOUT, reason)
                if isinstance(msg, (Move, Resign)):
                    elapsed = time.monotonic() - start
                    if elapsed > limit:  # the measured time decides, even for a line already read
                        raise EngineFault(
                            Termination.TIMEOUT,
                            f"{_describe(msg)} came after {elapsed * 1000:.0f} ms, "
                            f"over the limit of {limit * 1000:.0f} ms",
                        )
                    waiting.answered(elapsed)
                    return Reply(msg.token if isinstance(msg, Move) else None, elapsed, info, said)
                if not isinstance(msg, Info):
                    raise EngineFault(Termination.PROTOCOL, f"expected a move, got {_describe(msg)}")
                info = codec.search_info(msg.text, info)
                said = msg.text
        finally:
            waiting.end()

    def game_over(self, scores: Sequence[float], reason: str) -> None:
        """Tell the engine the result; an engine that cannot take it is left for quit()."""
        try:
            self.transport.send(codec.format_gameover(scores, reason), time.monotonic() + QUIT_GRACE)
        except EngineFault:
            pass

    # -- reading ----------------------------------------------------------------

    def _read_message(self, deadline: float, code: Termination, reason: Reason) -> Message:
        """The next non-empty protocol message, or EngineFault(code, reason) at the deadline."""
        while True:
            line = self.transport.read_line(deadline, code, reason)
            try:
                msg = codec.parse_engine_line(line)
            except ProtocolError as exc:
                raise EngineFault(Termination.PROTOCOL, str(exc)) from None
            except Exception:  # a parser bug: still the engine's line, never a crash of the run
                log.exception("%s: cannot parse %s", self.spec.name, codec.quote(line))
                raise EngineFault(Termination.PROTOCOL, f"unreadable line {codec.quote(line)}") from None
            if isinstance(msg, Info):
                self._log_info(msg.text)
            if msg is not None:
                return msg

    def _discard_unsolicited(self) -> None:
        """Lines that came while nothing was asked (PROTOCOL.md section 4): info is logged,
        anything else, above all a second move, is a violation rather than a future answer."""
        if not self.transport.poll_lines():
            return  # nothing came (the usual case)
        while self.transport.has_line():
            msg = self._read_message(0.0, Termination.PROTOCOL, "unreachable: a full line is buffered")
            if not isinstance(msg, Info):
                raise EngineFault(Termination.PROTOCOL, f"{_describe(msg)} sent when no answer was asked for")

    def _log_info(self, text: str) -> None:
        self._info_lines += 1
        if self._info_lines <= INFO_LINES_PER_GAME and log.isEnabledFor(logging.DEBUG):
            log.debug("%s info %s", self.spec.name, codec.sanitize(text, INFO_KEEP))


def _describe(msg: Message) -> str:
    """The line an engine sent, quoted for a reason (what it wrote, not a class name)."""
    return codec.quote(codec.format_engine_message(msg), 80)
