"""``arena check-engine``: a conformance script for one engine, like fastchess's
``--compliance``.

Each check starts the engine afresh (so one fault shows in one check), drives it
through the real engine layer (:mod:`arena.engine.process` or :mod:`arena.engine.gtp`)
and the referee's rules, and yields one :class:`Check` with PASS/FAIL, what went wrong,
the exact lines exchanged (from an in-memory transcript) and the PROTOCOL.md section to
read.  Checks that cannot run because the engine did not start are skipped.  Whole games
are played here, through the :class:`~arena.engine.player.Player` interface against
built-in random players, not through :mod:`arena.match` (which stands above the engines).
"""

from __future__ import annotations

import random
import time
from collections.abc import Callable, Iterator, Mapping, Sequence
from dataclasses import dataclass, field
from functools import partial
from typing import Any

from protocol import codec

from ..record import Termination, derive_seed, starting_state
from ..rules import GAMES, Game, IllegalMove, OptionError, State, game_class, make_game
from ..rules.base import CheckPosition
from . import open_engine
from .conversation import Conversation
from .player import EngineFault, EngineSpec, Player, Reply, TimeLimit
from .process import EngineProcess

MOVETIME_MS = 300  # the "move within movetime" check
CLOCK_MS = 3000  # each seat's clock in the "move on a game clock" check
POSITION_MOVETIME_MS = 5000  # the position checks: generous, they test answers, not speed
MARGIN_MS = 100
NODES_CHECK = 100  # the node budget of the "move within a node budget" check
GO_KEYS = ("movestogo", "nodes")  # the optional go keys an engine may declare ('id go')
EXCHANGE_SHOWN = 14  # lines of the exchange shown on a failure


def check_game(name: str, options: Mapping[str, Any] | None = None) -> Game:
    """The game as the checks play it: its ``check_options`` (small boards: the checks test
    the protocol, not strength, and whole games are played), with ``options`` (``-O``) over
    them; raises OptionError for options the game refuses."""
    return make_game(name, {**game_class(name).check_options, **(options or {})}, strict=True)


def board_text(game: Game) -> str:
    """A game with its options as the checks name it: ``hex size=11 swap=true``."""
    return " ".join((game.name, *game.option_tokens()))


def dealt_start(game: Game, seed: int) -> State:
    """A game's starting state as the referee deals it (the start of ``check_positions``)."""
    return starting_state(game, seed)[0]


@dataclass
class Check:
    name: str
    passed: bool | None  # None: skipped
    detail: str = ""
    exchange: list[str] = field(default_factory=list)
    hint: str = ""


class _Memory:
    """An in-memory transcript (the :class:`~arena.engine.trace.SeatTrace` interface)."""

    def __init__(self) -> None:
        self.lines: list[str] = []
        self._t0 = time.monotonic()

    def _add(self, arrow: str, text: str) -> None:
        stamp = time.monotonic() - self._t0
        self.lines += [f"{stamp:8.3f} {arrow} {codec.sanitize(line, 160)}" for line in text.split("\n")]

    def sent(self, text: str) -> None:
        self._add(">", text)

    def received(self, line: str) -> None:
        self._add("<", line)

    def stderr(self, chunk: bytes) -> None:
        for line in chunk.decode(errors="replace").splitlines():
            self._add("!", line)


class NotDeclared(Exception):
    """``--game`` asked for a game the engine's ``id games`` line leaves out: nothing is
    checked, as a tournament of that game would refuse the engine before its first game."""


class _Failed(Exception):
    def __init__(self, detail: str) -> None:
        super().__init__(detail)
        self.detail = detail


class _RandomSeat:
    """The other seats in whole-game checks, a Player in-process: random legal moves
    (never a swap, so a swap is only ever tested where a check means to)."""

    name = "arena-random"
    alive = True

    def __init__(self, game: Game, seed: int) -> None:
        self.game, self.rng = game, random.Random(seed)

    def start(self) -> None:
        pass

    def new_game(self, game: Game, seat: int, seed: int, private: Sequence[str]) -> None:
        pass

    def choose_move(self, state: State, limit: TimeLimit) -> Reply:
        swap = self.game.swap_move
        moves = [m for m in state.legal_moves() if m != swap] if swap else None
        return Reply(self.rng.choice(moves) if moves else state.random_move(self.rng), 0.0)

    def longest_s(self, limit: TimeLimit | None) -> float:
        return 0.0

    def verify_result(self, state: State) -> None:
        pass

    def game_over(self, scores: Sequence[float], reason: str) -> None:
        pass

    def quit(self) -> None:
        pass

    def kill(self) -> None:
        pass


class Conformance:
    """The checks for one engine command."""

    def __init__(self, spec: EngineSpec, games: Sequence[str] = (), options: Mapping[str, Any] | None = None) -> None:
        self.spec = spec
        self.requested = list(games)
        self.options = dict(options or {})  # -O: the board of the whole-game checks
        self.games: list[str] = []
        self.declared: list[codec.OptionDecl] = []
        self.identity: dict[str, str] = {}

    @property
    def gtp(self) -> bool:
        return self.spec.protocol == "gtp"

    def run(self) -> Iterator[Check]:
        first = self._check("handshake", "section 2 (session) and 3-4 (the handshake lines)", self._handshake)
        yield first
        checks: list[tuple[str, str, Callable[[], str]]] = []
        if not self.gtp:
            checks.append(("options", "sections 3-4 (option and setoption)", self._options))
        for game in self.games:
            for position in check_game(game).check_positions(dealt_start):
                checks.append(
                    (
                        f"{game}: {position.label}",
                        f"section 6 (move tokens) and docs/rules/{game}.md",
                        partial(self._position, position),
                    )
                )
        main = self.games[0] if self.games else next(iter(GAMES))
        board = board_text(self._board(main)) if first.passed else main
        checks.append((f"move within movetime ({board})", "section 5 (clocks)", lambda: self._movetime(main)))
        checks.append((f"move on a game clock, no movetime ({board})", "section 5 (clocks)", lambda: self._clock(main)))
        takes = self.identity.get("go", "").split(",") if first.passed else []
        if "movestogo" in takes:
            checks.append((f"move with moves to go ({board})", "section 5 (clocks)", lambda: self._period(main)))
        if "nodes" in takes:
            checks.append(
                (f"move within a node budget ({board})", "sections 3-4 (go nodes)", lambda: self._nodes(main))
            )
        checks.append(
            (
                f"several games in one process ({board})",
                "section 2 (one process, many games)",
                lambda: self._several_games(main),
            )
        )
        if not self.gtp:
            checks.append(
                (
                    f"isready after gameover ({board})",
                    "section 3 (gameover, isready)",
                    lambda: self._after_gameover(main),
                )
            )
        checks.append(("quit within 1 s", "section 8 (quit grace)", self._quit))
        for name, hint, body in checks:
            if not first.passed:
                yield Check(name, None, "skipped: the engine did not complete the handshake")
            else:
                yield self._check(name, hint, body)

    # -- the machinery -------------------------------------------------------

    def _check(self, name: str, hint: str, body: Callable[[], str]) -> Check:
        self._memory = _Memory()
        self._engines: list[Conversation] = []
        try:
            detail = body()
            return Check(name, True, detail)
        except _Failed as exc:
            return Check(name, False, exc.detail, self._memory.lines[-EXCHANGE_SHOWN:], self._where(hint))
        except EngineFault as exc:
            return Check(
                name, False, f"{exc.code}: {exc.reason}", self._memory.lines[-EXCHANGE_SHOWN:], self._where(hint)
            )
        finally:
            for engine in self._engines:
                engine.kill()

    def _where(self, hint: str) -> str:
        """What to read about a failed check: a GTP engine's conventions are in docs/gtp.md."""
        if self.gtp:
            return "docs/gtp.md (the GTP commands arena sends, and what it expects back)"
        return f"PROTOCOL.md {hint}"

    def _start(self, spec: EngineSpec | None = None) -> Conversation:
        engine = open_engine(spec or self.spec)
        engine.trace = self._memory
        self._engines.append(engine)
        engine.start()
        return engine

    # -- the checks ----------------------------------------------------------

    def _handshake(self) -> str:
        engine = self._start()
        self.identity = dict(engine.identity)
        self.declared = list(engine.declared_options)
        if not self.identity.get("name"):
            raise _Failed("no 'id name' line: tables would show the engine's command instead")
        declared_games = [g for g in self.identity.get("games", "").split(",") if g]
        unknown = [g for g in declared_games if g not in GAMES]
        if unknown:
            raise _Failed(f"'id games' names unknown games {', '.join(unknown)}; known: {', '.join(GAMES)}")
        strange = [k for k in self.identity.get("go", "").split(",") if k and k not in GO_KEYS]
        if strange:
            raise _Failed(f"'id go' names keys arena does not send: {', '.join(strange)}; known: {', '.join(GO_KEYS)}")
        undeclared = [g for g in self.requested if declared_games and g not in declared_games]
        if undeclared and not self.gtp:
            raise NotDeclared(
                f"{self.identity['name']!r} declares 'id games {self.identity['games']}', not "
                f"{', '.join(undeclared)}: check it with --game {declared_games[0]} (or no --game: the games it "
                f"declares), or add {', '.join(undeclared)} to its 'id games' line"
            )
        games = self.requested or declared_games or [next(iter(GAMES))]
        if self.gtp:
            games = [g for g in GAMES if "gtp" in game_class(g).protocols]
        self.games = sorted(games, key=list(GAMES).index)
        try:
            board = board_text(self._board(self.games[0]))
        except OptionError as exc:
            raise _Failed(f"-O: {exc}") from None
        what = "GTP" if self.gtp else "protocol 1"
        return (
            f"{self.identity['name']!r} speaks {what}; {len(self.declared)} option(s); checking "
            f"{', '.join(self.games)}"
            + (
                ""
                if self.requested or declared_games or self.gtp
                else " (declare 'id games' or pass --game for others)"
            )
            + f"; timed and whole games on {board}"
        )

    def _board(self, game_name: str) -> Game:
        """The game the timed and whole-game checks play (``-O`` options on the check board);
        the position checks keep their own small boards, built for what they test."""
        return check_game(game_name, self.options)

    def _options(self) -> str:
        # A malformed declaration already failed the handshake (the engine layer refuses it).
        if not self.declared:
            return "no options declared"
        spec = EngineSpec(
            self.spec.name,
            self.spec.command,
            self.spec.cwd,
            tuple((d.name, d.default) for d in self.declared),
            handshake_ms=self.spec.handshake_ms,
        )
        engine = self._start(spec)  # sends each declared option once, with its default
        self._isready(engine, "after setoption")
        return f"set {', '.join(d.name for d in self.declared)} once each to the default; readyok"

    def _position(self, position: CheckPosition) -> str:
        state = position.build()
        game, seat = state.game, state.current_player()
        engine = self._start()
        engine.new_game(game, seat, 12345, state.private_info(seat))
        reply = engine.choose_move(state, _movetime_limit(POSITION_MOVETIME_MS))
        move = self._legal(state, reply)
        return f"answered {move} after {' '.join(state.moves) or 'the start'}"

    def _movetime(self, game_name: str) -> str:
        game = self._board(game_name)
        state = dealt_start(game, 7)
        engine = self._start()
        engine.new_game(game, 0, 7, state.private_info(0))
        reply = engine.choose_move(state, _movetime_limit(MOVETIME_MS))
        move = self._legal(state, reply)
        return f"answered {move} in {reply.elapsed * 1000:.0f} ms (movetime {MOVETIME_MS})"

    def _clock(self, game_name: str) -> str:
        """A move when the tournament has a game clock and no movetime (``go time ...`` alone):
        an engine that waits for a movetime never moves in such a tournament."""
        game = self._board(game_name)
        state = dealt_start(game, 9)
        engine = self._start()
        engine.new_game(game, 0, 9, state.private_info(0))
        reply = engine.choose_move(
            state, TimeLimit((CLOCK_MS + MARGIN_MS) / 1000, clocks_ms=(CLOCK_MS,) * game.players)
        )
        move = self._legal(state, reply)
        return f"answered {move} in {reply.elapsed * 1000:.0f} ms with {CLOCK_MS} ms on each clock"

    def _period(self, game_name: str) -> str:
        """The last move of a period (``go time ... movestogo 1``), for an engine that
        declares ``id go movestogo``: it may spend what is left, but must still answer."""
        game = self._board(game_name)
        state = dealt_start(game, 11)
        engine = self._start()
        engine.new_game(game, 0, 11, state.private_info(0))
        clocks = (CLOCK_MS,) * game.players
        reply = engine.choose_move(state, TimeLimit((CLOCK_MS + MARGIN_MS) / 1000, None, clocks, None, 1))
        move = self._legal(state, reply)
        return f"answered {move} in {reply.elapsed * 1000:.0f} ms with {CLOCK_MS} ms for its last move of the period"

    def _nodes(self, game_name: str) -> str:
        """A move under ``go movetime ... nodes N``, for an engine that declares ``id go
        nodes``: a legal move, and no ``info nodes`` over the budget."""
        game = self._board(game_name)
        state = dealt_start(game, 13)
        engine = self._start()
        engine.new_game(game, 0, 13, state.private_info(0))
        limit = TimeLimit((POSITION_MOVETIME_MS + MARGIN_MS) / 1000, POSITION_MOVETIME_MS, nodes=NODES_CHECK)
        reply = engine.choose_move(state, limit)
        move = self._legal(state, reply)
        searched = (reply.info or {}).get("nodes")
        if searched is not None and searched > NODES_CHECK:
            raise _Failed(f"answered {move} after 'info nodes {searched}': over the budget of {NODES_CHECK}")
        said = f" (info nodes {searched:g})" if searched is not None else " (no info nodes)"
        return f"answered {move} with a budget of {NODES_CHECK} nodes" + said

    def _several_games(self, game_name: str) -> str:
        game = self._board(game_name)
        engine = self._start()
        plies = []
        for number in range(2):
            seat = number % game.players
            plies.append(str(self._whole_game(game, engine, seat, seed=100 + number)))
            if not engine.alive:
                raise _Failed(f"the engine exited after game {number + 1}: it must wait for the next 'newgame'")
        return f"two games in one process, {' and '.join(plies)} plies, seats 0 and 1"

    def _after_gameover(self, game_name: str) -> str:
        game = self._board(game_name)
        engine = self._start()
        self._whole_game(game, engine, 0, seed=200)
        self._isready(engine, "after gameover")
        return "readyok after gameover"

    def _quit(self) -> str:
        engine = self._start()
        assert engine.child is not None  # the checks start the program itself
        start = time.monotonic()
        engine.transport.send("quit", start + 1.0)
        if not engine.child.wait_exit(1.0):
            raise _Failed(
                "still running 1 s after 'quit' (arena kills it then, but waits that second "
                "at the end of every tournament)"
            ) from None
        return f"exited {(time.monotonic() - start) * 1000:.0f} ms after quit"

    # -- helpers ---------------------------------------------------------------

    def _whole_game(self, game: Game, engine: Player, seat: int, seed: int) -> int:
        """Play ``engine`` in ``seat`` against random players to the end, as a match would
        (gameover included); the plies played, or _Failed if the engine lost by a fault."""
        players: list[Player] = [_RandomSeat(game, seed + s) for s in range(game.players)]
        players[seat] = engine
        state = dealt_start(game, seed)
        limit = _movetime_limit(POSITION_MOVETIME_MS)

        def lost(code: Termination, reason: str) -> _Failed:
            return _Failed(f"lost game {seed} as seat {seat}: {code}: {reason}")

        try:  # only the engine can fault: the random players never do
            for s, player in enumerate(players):  # each seat's seed as a match derives it
                player.new_game(game, s, derive_seed(seed, "engine", s, player.name), state.private_info(s))
            while not state.is_terminal():
                reply = players[state.current_player()].choose_move(state, limit)
                if reply.move is None:
                    raise lost(Termination.RESIGN, "resigned")
                try:
                    state.play(reply.move)
                except IllegalMove as exc:
                    raise lost(Termination.ILLEGAL, f"illegal move {codec.quote(exc.move, 60)}: {exc.reason}") from None
        except EngineFault as exc:
            raise lost(exc.code, exc.reason) from None
        for player in players:
            if player.alive:
                player.game_over(state.scores(), state.end_reason())
        return len(state.moves)

    def _isready(self, engine: Conversation, when: str) -> None:
        assert isinstance(engine, EngineProcess)  # a protocol v1 check: GTP has no isready
        try:
            engine.isready()
        except EngineFault as exc:
            raise _Failed(f"no readyok {when}: {exc.reason}") from None

    @staticmethod
    def _legal(state: State, reply: Reply) -> str:
        if reply.move is None:
            raise _Failed("resigned: a conformance position always has a legal move to play")
        try:
            state.clone().play(reply.move)
        except IllegalMove as exc:
            raise _Failed(f"illegal move {codec.quote(exc.move, 60)}: {exc.reason}") from None
        return reply.move


def _movetime_limit(movetime_ms: int) -> TimeLimit:
    """A fixed time per move, and the referee's margin over it."""
    return TimeLimit((movetime_ms + MARGIN_MS) / 1000, movetime_ms)


def format_check(check: Check) -> list[str]:
    """The lines printed for one check."""
    status = {True: "PASS", False: "FAIL", None: "SKIP"}[check.passed]
    lines = [f"{status}  {check.name}" + (f": {check.detail}" if check.detail else "")]
    if check.passed is False:
        if check.exchange:
            lines.append("      exchange (> to the engine, < from it, ! its stderr; seconds):")
            lines += [f"      {line}" for line in check.exchange]
        lines.append(f"      see {check.hint}")
    return lines
