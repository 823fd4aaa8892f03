"""Write an arena engine in a few lines of Python.

    from protocol.sdk import Engine, run

    class FirstLegal(Engine):
        name = "first-legal"

        def choose_move(self, state, clock):
            return state.legal_moves()[0]

    if __name__ == "__main__":
        run(FirstLegal())

The SDK speaks protocol v1 (PROTOCOL.md): it answers the handshake, keeps the
position up to date with arena's own rules library, and calls
:meth:`Engine.choose_move` on every ``go``.
"""

from __future__ import annotations

import random
import sys
from collections.abc import Callable
from dataclasses import dataclass
from typing import IO, Any

from arena.rules import Game, State, game_class

from . import codec
from .codec import GameOver, Go, Hello, IsReady, NewGame, Position, Private, Quit, Seed, SetOption


@dataclass(frozen=True)
class Clock:
    """Time available for the current move, all in milliseconds (None: not limited)."""

    seat: int
    remaining: tuple[int, ...] | None
    increment: tuple[int, ...] | None
    movetime: int | None
    movestogo: int | None = None  # moves left in this period, this one included (tc=40/60)
    nodes: int | None = None  # a node budget for this move (for an engine whose go_keys has "nodes")

    def budget_ms(self, moves_to_go: int = 30, safety_ms: int = 50) -> int | None:
        """A simple time allotment for this move, keeping ``safety_ms`` in hand: the clock
        shared among the period's moves left, or ``moves_to_go`` without periods."""
        budgets = []
        if self.movetime is not None:
            budgets.append(self.movetime - safety_ms)
        if self.remaining is not None:
            inc = self.increment[self.seat] if self.increment else 0
            budgets.append(self.remaining[self.seat] // (self.movestogo or moves_to_go) + inc - safety_ms)
        return max(1, min(budgets)) if budgets else None


class Engine:
    """Subclass and implement :meth:`choose_move`.  Attributes set for each game:
    ``game``, ``seat``, ``players``, ``rng`` (seeded by the referee's ``seed``)
    and ``private`` (payloads of ``private`` lines, e.g. ``["hidden green"]``)."""

    name = "engine"
    author = "anonymous"
    # Options the engine declares: name -> (type, default).  Values arrive in on_option.
    options: dict[str, tuple[str, Any]] = {}
    # The optional go keys it takes (declared as 'id go'): the Clock reads movestogo; an
    # engine that keeps to a node budget adds "nodes" and reads Clock.nodes.
    go_keys: tuple[str, ...] = ("movestogo",)

    def __init__(self) -> None:
        self.game: Game | None = None
        self.seat = 0
        self.players = 2
        self.rng = random.Random(0)
        self.private: list[str] = []
        self.option_values: dict[str, str] = {name: str(d) for name, (_, d) in self.options.items()}
        self._send: Callable[[str], None] | None = None  # set by run(): where info lines go

    def info(self, text: str) -> None:
        """Send ``info <text>`` (e.g. ``depth 7 nodes 1200``, PROTOCOL.md section 4) while
        choosing a move: the referee keeps the search keys with the move.  Outside
        :func:`run` (an engine driven in-process) it goes nowhere."""
        if self._send is not None:
            self._send(f"info {text}")

    def choose_move(self, state: State, clock: Clock) -> str | None:
        """Return the move token for ``state`` (this engine's seat is to move), or None
        to resign."""
        raise NotImplementedError

    def on_option(self, name: str, value: str) -> None:
        self.option_values[name] = value

    def on_new_game(self) -> None:
        """Hook called after ``newgame``, ``seed`` and ``private`` lines were received."""

    def on_game_over(self, scores: tuple[float, ...], reason: str) -> None:
        """Hook called on ``gameover``."""


class _Session:
    def __init__(self, engine: Engine, out: IO[str]) -> None:
        self.engine = engine
        self.out = out
        self.setup = "start"
        self.state: State | None = None
        self.ready_for_game = False
        engine._send = self.send

    def send(self, line: str) -> None:
        self.out.write(line + "\n")
        self.out.flush()

    def handle(self, cmd: codec.RefereeCommand) -> bool:
        """Act on one command; False means quit."""
        engine = self.engine
        match cmd:
            case Hello():
                self.send(f"id name {engine.name}")
                self.send(f"id author {engine.author}")
                if engine.go_keys:
                    self.send(f"id go {','.join(engine.go_keys)}")
                for name, (type_, default) in engine.options.items():
                    self.send(f"option name {name} type {type_} default {default}")
                self.send(f"arenaok {codec.VERSION}")
            case SetOption(name, value):
                engine.on_option(name, value)
            case NewGame(game, seat, players, options):
                engine.game = game_class(game).from_tokens(options)
                engine.seat, engine.players, engine.private = seat, players, []
                self.state = None
                self.ready_for_game = True
            case Seed(value):
                engine.rng = random.Random(value)
            case Private(payload):
                engine.private.append(payload)
            case IsReady():
                if self.ready_for_game:
                    engine.on_new_game()
                    self.ready_for_game = False
                self.send("readyok")
            case Position(setup, moves):
                self._update_position(setup, moves)
            case Go(time, inc, movetime, movestogo, nodes):
                assert self.state is not None, "go before position"
                clock = Clock(engine.seat, time, inc, movetime, movestogo, nodes)
                move = engine.choose_move(self.state.clone(), clock)
                self.send("resign" if move is None else f"move {move}")
            case GameOver(scores, reason):
                engine.on_game_over(scores, reason)
            case Quit():
                return False
        return True

    def _update_position(self, setup: str, moves: tuple[str, ...]) -> None:
        """Replay only the new moves when the position extends the previous one."""
        assert self.engine.game is not None, "position before newgame"
        state = self.state
        if state is None or setup != self.setup or tuple(state.moves) != moves[: len(state.moves)]:
            state = self.engine.game.state_from_setup(setup)
            for payload in self.engine.private:
                state.apply_private(self.engine.seat, payload)
            self.setup = setup
        for move in moves[len(state.moves) :]:
            state.play(move)
        self.state = state


def run(engine: Engine, stdin: IO[str] = sys.stdin, stdout: IO[str] = sys.stdout) -> None:
    """Serve the protocol on stdin/stdout until ``quit`` or end of input."""
    session = _Session(engine, stdout)
    for line in stdin:
        try:
            cmd = codec.parse_command(line)
        except codec.ProtocolError as exc:
            # A later protocol version may add commands: note it and carry on.
            sys.stderr.write(f"arena sdk: ignored {exc}\n")
            continue
        if cmd is not None and not session.handle(cmd):
            break
