"""Driving a GTP Hex program (MoHex and the other Benzene players, KataHex, HexGui's
opponents) as an arena engine.

:class:`GtpEngine` is the second implementation of the engine interface the match uses
(``start``, ``new_game``, ``go``, ``game_over``, ``quit``, ``kill``), next to
:class:`~arena.engine.process.EngineProcess` for protocol v1: it shares that class's
process, deadline and fault machinery (start-up, non-blocking writes with deadlines,
bounded lines, crash and exit descriptions, CPU budgets) and replaces only the
conversation.  Every convention it relies on is written down, with its source, in
docs/gtp.md.

- Colours: GTP ``black`` is the first player (arena's Red, seat 0, joining the top and
  bottom rows), ``white`` the second (Blue).  Cell names are the same as arena's.
- Swap: arena's ``swap`` removes Red's stone and puts a Blue stone on the mirrored cell;
  Benzene's ``swap-pieces`` leaves the stone where it is, still black, and lets white
  move next: the players have changed colours.  Both describe the same position, one
  the mirror image of the other with the colours exchanged, so after a swap the bridge
  mirrors every cell (row <-> column) and exchanges the colours, in both directions.
  The record is always in arena's convention.
- Faults: a ``?`` answer to ``genmove`` is a protocol fault carrying its text; a ``?``
  answer to ``play`` means the engine rejected a legal move (protocol fault too).
  Nothing the engine writes raises anything but EngineFault.
"""

from __future__ import annotations

import logging
import re
import time
from collections.abc import Sequence
from dataclasses import dataclass
from functools import cache

from protocol import codec
from protocol.codec import Go, Position

from ..rules import games_speaking
from ..rules.hexgrid import Board
from .process import EngineFault, EngineProcess, EngineRefused, Reply

log = logging.getLogger("arena.engine")

REQUIRED_COMMANDS = ("boardsize", "clear_board", "play", "genmove")
MAX_RESPONSE_LINES = 10_000
# '=' or '?', an optional numeric id (ASCII digits only), then the text (GTP 2, section 2.6).
_RESPONSE = re.compile(r"([=?])([0-9]*)(?:[ \t](.*))?")
# GTP's blanks are space and tab (GTP 2, "Whitespace"); str.strip() would also drop \x0b, \x1c,
# U+00A0, U+2028 ..., and 'b3\x0b' would be played as 'b3'
BLANKS = " \t"
SWAP_ANSWERS = ("swap-pieces", "swap")  # Benzene's name; HexGui and LittleGolem also say 'swap'
COLOURS = ("black", "white")  # by arena seat, before any swap


@dataclass(frozen=True)
class GtpResponse:
    ok: bool
    text: str


@cache
def mirror_table(size: int) -> dict[str, str]:
    """Cell name -> the name of the cell mirrored across the a1 diagonal (row <-> column)."""
    board = Board.rhombus(size)
    return {board.name(i): board.name(board.at(c, r)) for i, (r, c) in enumerate(board.coords)}


def gtp_colour(seat: int, swapped: bool) -> str:
    """The GTP colour arena's ``seat`` plays: after a swap the players have changed colours."""
    return COLOURS[seat ^ swapped]


def to_gtp(ply: int, move: str, swapped: bool, size: int) -> tuple[str, str]:
    """An arena move (ply counted from 0) as the (colour, vertex) of a GTP ``play``."""
    if move == "swap":
        return COLOURS[1], SWAP_ANSWERS[0]
    return gtp_colour(ply % 2, swapped), mirror_table(size)[move] if swapped else move


def from_gtp(answer: str, swapped: bool, size: int) -> str:
    """A ``genmove`` answer as an arena move token (anything unknown is left for the
    referee to reject as an illegal move)."""
    vertex = answer.strip(BLANKS).lower()
    if vertex in SWAP_ANSWERS:
        return "swap"
    if swapped:
        return mirror_table(size).get(vertex, vertex)
    return vertex


@dataclass
class GtpEngine(EngineProcess):
    """A GTP (version 2) Hex program behind the engine interface of the match."""

    commands: frozenset[str] = frozenset()
    _size: int = 0
    _seat: int = 0
    _told: int = 0  # plies of the game the engine knows (it played or was told)
    _swapped: bool = False
    _timed: bool = False  # time_settings sent for this game

    # -- start-up -------------------------------------------------------------

    def handshake(self) -> None:
        """No 'arena 1': ask who the engine is and what it offers, then send the
        tournament's init commands, each answer checked."""
        limit = self.start_limit
        deadline = time.monotonic() + limit
        reason = lambda: f"no answer within {limit:g} s during start-up"
        version = self.command("protocol_version", deadline, "handshake", reason)
        if version.ok and version.text.strip() not in ("2", ""):
            log.warning("%s: speaks GTP %s, arena expects 2", self.spec.name, codec.sanitize(version.text, 20))
        name = self.command("name", deadline, "handshake", reason)
        if name.ok and name.text.strip():
            self.identity["name"] = codec.sanitize(name.text.strip(), 80)
        version = self.command("version", deadline, "handshake", reason)
        if version.ok and version.text.strip():
            self.identity["version"] = codec.sanitize(version.text.strip(), 80)
        listed = self.command("list_commands", deadline, "handshake", reason, lines=True)
        if not listed.ok:
            raise EngineFault("handshake", f"'list_commands' failed: {codec.quote(listed.text, 120)}")
        self.commands = frozenset(line.strip(BLANKS) for line in listed.text.split("\n") if line.strip(BLANKS))
        missing = [c for c in REQUIRED_COMMANDS if c not in self.commands]
        if missing:
            raise EngineRefused(
                f"it does not list the GTP command(s) {', '.join(missing)} that arena needs (see docs/gtp.md)"
            )
        for line in self.spec.init:
            answer = self.command(line, deadline, "handshake", reason)
            if not answer.ok:
                raise EngineRefused(
                    f"its init command '{codec.sanitize(line, 80)}' was answered '? {codec.sanitize(answer.text, 120)}'"
                )

    # -- games ----------------------------------------------------------------

    def new_game(
        self, game: str, seat: int, players: int, option_tokens: Sequence[str], seed: int, private: Sequence[str]
    ) -> None:
        """``boardsize`` and ``clear_board``; Benzene's ``param_game allow_swap`` when offered.
        GTP has no seed: the seed is recorded but not sent."""
        if game not in games_speaking("gtp") or players != 2:
            raise EngineFault("protocol", f"GTP engines play {', '.join(games_speaking('gtp'))} only, not {game}")
        self._info_lines = 0
        if self.spec.cpu_seconds and self.proc is not None:
            self._renew_cpu_budget(self.proc.pid, self.spec.cpu_seconds)
        options = dict(token.partition("=")[::2] for token in option_tokens)  # arena's own tokens
        self._size, self._seat = int(options["size"]), seat
        self._told, self._swapped, self._timed = 0, False, False
        deadline = time.monotonic() + self.start_limit
        reason = f"no answer within {self.start_limit:g} s to the new game's set-up"
        self.checked(f"boardsize {self._size}", deadline, "handshake", reason)
        self.checked("clear_board", deadline, "handshake", reason)
        if "param_game" in self.commands:
            allow = "1" if options.get("swap") == "true" else "0"
            answer = self.command(f"param_game allow_swap {allow}", deadline, "handshake", reason)
            if not answer.ok:  # param_game is Benzene's; another program's may not know allow_swap
                log.info("%s: 'param_game allow_swap' failed: %s", self.spec.name, codec.sanitize(answer.text, 80))

    def go(self, position_line: str, go_line: str, limit: float) -> Reply:
        """Tell the engine the moves it has not seen, its clock where it takes one, then
        ``genmove``; the answer is translated back to arena's convention."""
        if self._cpu_limit is not None:
            self._check_cpu_limit()
        position = codec.parse_command(position_line)  # arena's own lines: they parse
        clock = codec.parse_command(go_line)
        assert isinstance(position, Position) and isinstance(clock, Go)
        setup_deadline = time.monotonic() + self.start_limit
        setup_reason = f"no answer within {self.start_limit:g} s to 'play'"
        for ply in range(self._told, len(position.moves)):
            move = position.moves[ply]
            colour, vertex = to_gtp(ply, move, self._swapped, self._size)
            answer = self.command(f"play {colour} {vertex}", setup_deadline, "timeout", setup_reason)
            if not answer.ok:
                raise EngineFault(
                    "protocol",
                    f"rejected the legal move 'play {colour} {vertex}' "
                    f"(arena {move!r}): '? {codec.sanitize(answer.text, 120)}'",
                )
            self._swapped |= move == "swap"
        self._told = len(position.moves)
        colour = gtp_colour(self._seat, self._swapped)
        self._send_clock(clock, colour, setup_deadline)
        start = time.monotonic()
        deadline = start + limit
        answer = self.command(f"genmove {colour}", deadline, "timeout", lambda: f"no move within {limit * 1000:.0f} ms")
        elapsed = time.monotonic() - start
        if elapsed > limit:  # the measured time decides, even for an answer already buffered
            raise EngineFault(
                "timeout",
                f"'genmove {colour}' answered after {elapsed * 1000:.0f} ms, over the limit of {limit * 1000:.0f} ms",
            )
        if not answer.ok:
            raise EngineFault("protocol", f"'genmove {colour}' answered '? {codec.sanitize(answer.text, 120)}'")
        if answer.text.strip(BLANKS).lower() == "resign":
            return Reply(None, elapsed)
        move = from_gtp(answer.text, self._swapped, self._size)
        self._told += 1  # the engine played its own move on its board
        self._swapped |= move == "swap"
        return Reply(move, elapsed)

    def _send_clock(self, clock: Go, colour: str, deadline: float) -> None:
        """Where the engine offers them: ``time_settings`` once a game (the standard GTP
        command: main time, byo-yomi time and stones; a per-move limit is sent as a
        byo-yomi of one stone), and ``time_left`` before every move (GTP's three-argument
        form with ``time_settings``, Benzene's two-argument form without it).  Without
        them the engine's own settings apply; arena's clock still decides time losses."""
        reason = f"no answer within {self.start_limit:g} s to the clock commands"
        standard = "time_settings" in self.commands
        if standard and not self._timed and (clock.time or clock.movetime):
            main = clock.time[self._seat] // 1000 if clock.time else 0
            byo = (clock.movetime // 1000 or 1) if clock.movetime and not clock.time else 0
            self.checked(f"time_settings {main} {byo} {1 if byo else 0}", deadline, "timeout", reason)
            self._timed = True
        if clock.time is not None and "time_left" in self.commands:
            seconds = max(clock.time[self._seat], 0) // 1000
            self.checked(f"time_left {colour} {seconds}" + (" 0" if standard else ""), deadline, "timeout", reason)

    def game_over(self, line: str) -> None:
        """GTP has no game-over command: nothing to tell."""

    # -- the conversation ------------------------------------------------------

    def checked(self, text: str, deadline: float, code: str, reason, fault: str = "protocol") -> GtpResponse:
        """A command whose ``?`` answer is a fault that quotes the answer."""
        answer = self.command(text, deadline, code, reason)
        if not answer.ok:
            raise EngineFault(fault, f"'{codec.sanitize(text, 80)}' answered '? {codec.sanitize(answer.text, 120)}'")
        return answer

    def command(self, text: str, deadline: float, code: str, reason, lines: bool = False) -> GtpResponse:
        """Send one command and read its response; ``lines``: a multi-line response
        (read up to its empty line), otherwise the first line is the answer and the
        empty line that ends it is skipped before the next one."""
        self._refuse_unsolicited()
        self.send(text, deadline)
        return self._read_response(deadline, code, reason, lines)

    def _read_response(self, deadline: float, code: str, reason, lines: bool) -> GtpResponse:
        while not (line := self._read_line(deadline, code, reason)).strip(BLANKS):
            pass  # the empty line that ended the previous response
        match = _RESPONSE.fullmatch(line.strip(BLANKS))
        if match is None:
            raise EngineFault("protocol", f"not a GTP response: {codec.quote(line, 120)}")
        body = [match.group(3) or ""]
        if lines:
            while (more := self._read_line(deadline, code, reason)).strip(BLANKS):
                body.append(more)
                if len(body) > MAX_RESPONSE_LINES:
                    raise EngineFault("protocol", f"response longer than {MAX_RESPONSE_LINES} lines")
        return GtpResponse(match.group(1) == "=", "\n".join(body).strip(BLANKS + "\n"))

    def _refuse_unsolicited(self) -> None:
        """Non-empty lines that came when nothing was asked (a second answer, a
        multi-line answer to a one-line command) are a protocol violation."""
        if not self._buffer and self._news is not None and not self._news.poll(0):
            return
        self._pump(0)
        while self._buffer.find(b"\n") >= 0:
            line = self._read_line(0.0, "protocol", "unreachable: a full line is buffered")
            if line.strip(BLANKS):
                raise EngineFault("protocol", f"{codec.quote(line, 80)} sent when no answer was asked for")
