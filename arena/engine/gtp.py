"""Driving a GTP Hex program (MoHex and the other Benzene players, KataHex, HexGui's
opponents) as an arena engine.

:class:`GtpEngine` is the second :class:`~arena.engine.player.Player` for engine programs,
next to :class:`~arena.engine.process.EngineProcess` for protocol v1: another conversation
over the same :class:`~arena.engine.transport.Transport` (start-up, non-blocking writes with
deadlines, bounded lines, crash and exit descriptions, CPU budgets).  It builds its own
``play``, ``genmove`` and clock commands from the referee's State and the TimeLimit.
Every convention it relies on is written down, with its source, in docs/gtp.md.

- Colours: GTP ``black`` is the first player (arena's Red, seat 0, joining the top and
  bottom rows), ``white`` the second (Blue).  Cell names are the same as arena's.
- Board and moves: what differs between games is asked of the game's
  :class:`~arena.rules.translation.Translation` (its board size, its swap, the cells'
  names); a game without one is refused with one line.
- Swap: arena's ``swap`` removes Red's stone and puts a Blue stone on the mirrored cell;
  Benzene's ``swap-pieces`` leaves the stone where it is, still black, and lets white
  move next: the players have changed colours.  Both describe the same position, one
  the mirror image of the other with the colours exchanged, so after a swap the bridge
  renames every cell as the translation says and exchanges the colours, in both
  directions.  The record is always in arena's convention.
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
from typing import Any

from protocol import codec

from ..record import Termination
from ..rules import Game, State, games_speaking
from ..rules.translation import Translation
from .conversation import Conversation
from .pipes import Reason
from .player import EngineFault, EngineRefused, EngineSpec, Reply, TimeLimit

log = logging.getLogger("arena.engine")

REQUIRED_COMMANDS = ("boardsize", "clear_board", "play", "genmove")
MAX_RESPONSE_LINES = 10_000
# '=' or '?', an optional numeric id (ASCII digits only), then the text (GTP 2, section 2.6).
_RESPONSE = re.compile(r"([=?])([0-9]*)(?:[ \t](.*))?")
# GTP's blanks are space and tab (GTP 2, "Whitespace"); str.strip() would also drop \x0b, \x1c,
# U+00A0, U+2028 ..., and 'b3\x0b' would be played as 'b3'
BLANKS = " \t"
COLOURS = ("black", "white")  # by arena seat, before any swap


@dataclass(frozen=True)
class GtpResponse:
    ok: bool
    text: str


def gtp_colour(seat: int, swapped: bool) -> str:
    """The GTP colour arena's ``seat`` plays: after a swap the players have changed colours."""
    return COLOURS[seat ^ swapped]


def to_gtp(ply: int, move: str, swapped: bool, translation: Translation) -> tuple[str, str]:
    """An arena move (ply counted from 0) as the (colour, vertex) of a GTP ``play``."""
    colour = COLOURS[1] if move == translation.swap_move else gtp_colour(ply % 2, swapped)
    return colour, translation.outside(move, swapped)


def from_gtp(answer: str, swapped: bool, translation: Translation) -> str:
    """A ``genmove`` answer as an arena move token (anything unknown is left for the
    referee to reject as an illegal move)."""
    return translation.inside(answer.strip(BLANKS).lower(), swapped)


def translation_of(game: Game) -> Translation:
    """How GTP programs name ``game``'s board and moves; a game they do not play is refused."""
    translation = game.translation() if "gtp" in game.protocols else None
    if translation is None:
        played = ", ".join(games_speaking("gtp"))
        raise EngineFault(Termination.PROTOCOL, f"GTP engines play {played} only, not {game.name}")
    return translation


class GtpEngine(Conversation):
    """A GTP (version 2) Hex program, as a Player."""

    def __init__(self, spec: EngineSpec, **kwargs: Any) -> None:
        super().__init__(spec, **kwargs)
        self.commands: frozenset[str] = frozenset()
        self._translation: Translation | None = None  # the game's, from new_game on
        self._seat = 0
        self._told = 0  # plies of the game the engine knows (it played or was told)
        self._swapped = False
        self._timed = False  # time_settings sent for this game

    # -- start-up -------------------------------------------------------------

    def handshake(self) -> None:
        """No 'arena 1': ask who the engine is and what it offers, then send the
        tournament's init commands, each answer checked."""
        limit = self.start_limit
        deadline = time.monotonic() + limit
        reason = lambda: f"no answer within {limit:g} s during start-up"
        start_up = Termination.HANDSHAKE
        version = self.command("protocol_version", deadline, start_up, reason)
        if version.ok and version.text.strip() not in ("2", ""):
            log.warning("%s: speaks GTP %s, arena expects 2", self.spec.name, codec.sanitize(version.text, 20))
        name = self.command("name", deadline, start_up, reason)
        if name.ok and name.text.strip():
            self.identity["name"] = codec.sanitize(name.text.strip(), 80)
        version = self.command("version", deadline, start_up, reason)
        if version.ok and version.text.strip():
            self.identity["version"] = codec.sanitize(version.text.strip(), 80)
        listed = self.command("list_commands", deadline, start_up, reason, lines=True)
        if not listed.ok:
            raise EngineFault(start_up, f"'list_commands' failed: {codec.quote(listed.text, 120)}")
        self.commands = frozenset(line.strip(BLANKS) for line in listed.text.split("\n") if line.strip(BLANKS))
        missing = [c for c in REQUIRED_COMMANDS if c not in self.commands]
        if missing:
            raise EngineRefused(
                f"it does not list the GTP command(s) {', '.join(missing)} that arena needs (see docs/gtp.md)"
            )
        for line in self.spec.init:
            answer = self.command(line, deadline, start_up, reason)
            if not answer.ok:
                raise EngineRefused(
                    f"its init command '{codec.sanitize(line, 80)}' was answered '? {codec.sanitize(answer.text, 120)}'"
                )
        if self.spec.verify_score and "final_score" not in self.commands:
            raise EngineRefused("verify_score = true, but it does not list the GTP command final_score")
        if self.board is not None and "gtp" in self.board.protocols:
            # The board the games will ask for, asked now: a size the program does not play
            # refuses the tournament before its first game instead of forfeiting every game.
            size = translation_of(self.board).size
            answer = self.command(f"boardsize {size}", deadline, start_up, reason)
            if not answer.ok:
                raise EngineRefused(
                    f"it answered 'boardsize {size}' with '? {codec.sanitize(answer.text, 120)}': it does not play "
                    f"{self.board.name} {' '.join(self.board.option_tokens())} (choose a board it plays)"
                )

    # -- games ----------------------------------------------------------------

    def new_game(self, game: Game, seat: int, seed: int, private: Sequence[str]) -> None:
        """``boardsize`` and ``clear_board``; Benzene's ``param_game allow_swap`` when offered.
        GTP has no seed: the seed is recorded but not sent."""
        translation = self._translation = translation_of(game)  # the game says whether GTP programs play it
        self.transport.renew_cpu_budget()
        self._seat = seat
        self._told, self._swapped, self._timed = 0, False, False
        deadline = time.monotonic() + self.start_limit
        reason = f"no answer within {self.start_limit:g} s to the new game's set-up"
        self.checked(f"boardsize {translation.size}", deadline, Termination.HANDSHAKE, reason)
        self.checked("clear_board", deadline, Termination.HANDSHAKE, reason)
        if "param_game" in self.commands:
            allow = "1" if translation.swap_allowed else "0"
            answer = self.command(f"param_game allow_swap {allow}", deadline, Termination.HANDSHAKE, reason)
            if not answer.ok:  # param_game is Benzene's; another program's may not know allow_swap
                log.info("%s: 'param_game allow_swap' failed: %s", self.spec.name, codec.sanitize(answer.text, 80))

    def choose_move(self, state: State, limit: TimeLimit) -> Reply:
        """Tell the engine the moves it has not seen, its clock where it takes one, then
        ``genmove``; the answer is translated back to arena's convention."""
        self.transport.check_cpu_budget()
        setup_deadline = time.monotonic() + self.start_limit
        self._tell_moves(state.moves, setup_deadline)
        colour = gtp_colour(self._seat, self._swapped)
        self._send_clock(limit, colour, setup_deadline)
        seconds = limit.seconds
        start = time.monotonic()
        deadline = start + seconds
        answer = self.command(
            f"genmove {colour}", deadline, Termination.TIMEOUT, lambda: f"no move within {seconds * 1000:.0f} ms"
        )
        elapsed = time.monotonic() - start
        if elapsed > seconds:  # the measured time decides, even for an answer already buffered
            raise EngineFault(
                Termination.TIMEOUT,
                f"'genmove {colour}' answered after {elapsed * 1000:.0f} ms, over the limit of {seconds * 1000:.0f} ms",
            )
        if not answer.ok:
            raise EngineFault(
                Termination.PROTOCOL, f"'genmove {colour}' answered '? {codec.sanitize(answer.text, 120)}'"
            )
        if answer.text.strip(BLANKS).lower() == "resign":
            return Reply(None, elapsed)
        translation = self._game_translation()
        move = from_gtp(answer.text, self._swapped, translation)
        self._told += 1  # the engine played its own move on its board
        self._swapped |= move == translation.swap_move
        return Reply(move, elapsed)

    def _tell_moves(self, moves: Sequence[str], deadline: float) -> None:
        """``play`` each move of the game the engine has not seen (its opponents', an opening's)."""
        reason = f"no answer within {self.start_limit:g} s to 'play'"
        translation = self._game_translation()
        for ply in range(self._told, len(moves)):
            move = moves[ply]
            colour, vertex = to_gtp(ply, move, self._swapped, translation)
            answer = self.command(f"play {colour} {vertex}", deadline, Termination.TIMEOUT, reason)
            if not answer.ok:
                raise EngineFault(
                    Termination.PROTOCOL,
                    f"rejected the legal move 'play {colour} {vertex}' "
                    f"(arena {move!r}): '? {codec.sanitize(answer.text, 120)}'",
                )
            self._swapped |= move == translation.swap_move
        self._told = len(moves)

    def _game_translation(self) -> Translation:
        if self._translation is None:
            raise RuntimeError("a GTP engine was asked for a move before its game began")
        return self._translation

    def _send_clock(self, limit: TimeLimit, colour: str, deadline: float) -> None:
        """Where the engine offers them: ``time_settings`` once a game (the standard GTP
        command: main time, byo-yomi time and stones; a per-move limit is sent as a
        byo-yomi of one stone), and ``time_left`` before every move (GTP's three-argument
        form with ``time_settings``, Benzene's two-argument form without it).  Without
        them the engine's own settings apply; arena's clock still decides time losses."""
        reason = f"no answer within {self.start_limit:g} s to the clock commands"
        clocks, movetime, to_go = limit.clocks_ms, limit.movetime_ms, limit.movestogo
        standard = "time_settings" in self.commands
        if standard and not self._timed and (clocks or movetime):
            self.checked(
                f"time_settings {_time_settings(clocks, self._seat, movetime, to_go)}",
                deadline,
                Termination.TIMEOUT,
                reason,
            )
            self._timed = True
        if clocks is not None and "time_left" in self.commands:
            seconds = max(clocks[self._seat], 0) // 1000
            stones = f" {to_go or 0}" if standard else ""
            self.checked(f"time_left {colour} {seconds}{stones}", deadline, Termination.TIMEOUT, reason)

    def longest_s(self, limit: TimeLimit | None) -> float:
        """Before ``genmove``, the moves it has not seen and its clock are sent under the
        start-up limit (``choose_move``'s set-up deadline)."""
        return self.start_limit + (limit.seconds if limit is not None else 0.0)

    def verify_result(self, state: State) -> None:
        """With ``verify_score``: tell the engine the moves it has not seen (the winning
        one, when it was the opponent's) and ask ``final_score``; an answer other than the
        referee's winner (``B+``/``W+`` in the engine's colours) is a protocol fault that
        quotes both.  A board out of step with the referee's would go unnoticed otherwise."""
        if not self.spec.verify_score:
            return
        deadline = time.monotonic() + self.start_limit
        self._tell_moves(state.moves, deadline)
        winner = state.winner()
        expected = "cannot score" if winner is None else gtp_colour(winner, self._swapped)[0].upper() + "+"
        answer = self.command(
            "final_score", deadline, Termination.TIMEOUT, f"no answer within {self.start_limit:g} s to 'final_score'"
        )
        text = answer.text.strip(BLANKS)
        if answer.ok and (text.upper().startswith(expected.upper())):
            return
        raise EngineFault(
            Termination.PROTOCOL,
            f"'final_score' answered '{'=' if answer.ok else '?'} {codec.sanitize(text, 80)}', but the referee's "
            f"result is {expected} ({state.end_reason()}"
            + (", the colours exchanged by the swap" if self._swapped else "")
            + ")",
        )

    def game_over(self, scores: Sequence[float], reason: str) -> None:
        """GTP has no game-over command: nothing to tell."""

    # -- the conversation ------------------------------------------------------

    def checked(self, text: str, deadline: float, code: Termination, reason: Reason) -> GtpResponse:
        """A command whose ``?`` answer is a fault that quotes the answer."""
        answer = self.command(text, deadline, code, reason)
        if not answer.ok:
            raise EngineFault(
                Termination.PROTOCOL, f"'{codec.sanitize(text, 80)}' answered '? {codec.sanitize(answer.text, 120)}'"
            )
        return answer

    def command(
        self, text: str, deadline: float, code: Termination, reason: Reason, lines: bool = False
    ) -> GtpResponse:
        """Send one command and read its response; ``lines``: a multi-line response
        (read up to its empty line), otherwise the first line is the answer and the
        empty line that ends it is skipped before the next one."""
        self._refuse_unsolicited()
        self.transport.send(text, deadline)
        return self._read_response(deadline, code, reason, lines)

    def _read_response(self, deadline: float, code: Termination, reason: Reason, lines: bool) -> GtpResponse:
        read_line = self.transport.read_line
        while not (line := read_line(deadline, code, reason)).strip(BLANKS):
            pass  # the empty line that ended the previous response
        match = _RESPONSE.fullmatch(line.strip(BLANKS))
        if match is None:
            raise EngineFault(Termination.PROTOCOL, f"not a GTP response: {codec.quote(line, 120)}")
        body = [match.group(3) or ""]
        if lines:
            while (more := read_line(deadline, code, reason)).strip(BLANKS):
                body.append(more)
                if len(body) > MAX_RESPONSE_LINES:
                    raise EngineFault(Termination.PROTOCOL, f"response longer than {MAX_RESPONSE_LINES} lines")
        return GtpResponse(match.group(1) == "=", "\n".join(body).strip(BLANKS + "\n"))

    def _refuse_unsolicited(self) -> None:
        """Non-empty lines that came when nothing was asked (a second answer, a
        multi-line answer to a one-line command) are a protocol violation."""
        if not self.transport.poll_lines():
            return
        while self.transport.has_line():
            line = self.transport.read_line(0.0, Termination.PROTOCOL, "unreachable: a full line is buffered")
            if line.strip(BLANKS):
                raise EngineFault(Termination.PROTOCOL, f"{codec.quote(line, 80)} sent when no answer was asked for")


def _time_settings(clocks: tuple[int, ...] | None, seat: int, movetime: int | None, to_go: int | None) -> str:
    """GTP's ``time_settings main byo_yomi stones`` for arena's clock, told before a seat's
    first move: a clock as main time; moves per period as Canadian byo-yomi (the period's
    time for its moves: ``time_left`` then gives what is left and the moves to go, though
    arena adds an unused remainder to the next period where byo-yomi would drop it); a time
    a move as a byo-yomi of one stone."""
    if clocks is not None and to_go:
        return f"0 {clocks[seat] // 1000} {to_go}"
    main = clocks[seat] // 1000 if clocks else 0
    byo = (movetime // 1000 or 1) if movetime and not clocks else 0
    return f"{main} {byo} {1 if byo else 0}"
