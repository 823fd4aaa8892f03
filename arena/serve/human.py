"""A person at the table: a :class:`~arena.engine.player.Player` whose moves come from a page.

The match asks it for a move as it asks any engine, under the same :class:`TimeLimit`: the
player waits on a queue the page's requests fill, for at most the limit's seconds, and
answers with the move and the time it waited.  No answer in time is a time loss recorded
like an engine's; a resignation is a ``None`` move, as an engine's ``resign``.  The page
checks nothing itself: the referee judges the move in the match (arena/match.py).
"""

from __future__ import annotations

import queue
import time
from collections.abc import Sequence

from ..engine.player import EngineFault, Reply, TimeLimit
from ..record import Termination
from ..rules import Game, State

RESIGN = None  # what the page puts on the queue to resign


class HumanPlayer:
    """A person's seat for one game; ``moves`` is filled by the page (a move token, or
    RESIGN), and a move put there before it is asked is its first answer."""

    def __init__(self, name: str) -> None:
        self._name = name
        self.moves: queue.Queue[str | None] = queue.Queue()
        self.private: list[str] = []  # what only this seat knows (Posies' hidden posy)
        self.seat = 0
        self._quit = False

    @property
    def name(self) -> str:
        return self._name

    @property
    def alive(self) -> bool:
        return not self._quit

    def start(self) -> None:
        """A person needs no start-up."""

    def new_game(self, game: Game, seat: int, seed: int, private: Sequence[str]) -> None:
        self.seat = seat
        self.private = list(private)

    def choose_move(self, state: State, limit: TimeLimit) -> Reply:
        started = time.monotonic()
        try:
            move = self.moves.get(timeout=limit.seconds)
        except queue.Empty:
            raise EngineFault(Termination.TIMEOUT, f"no move within {limit.seconds:g} s") from None
        return Reply(move, time.monotonic() - started)

    def longest_s(self, limit: TimeLimit | None) -> float:
        return limit.seconds if limit is not None else 0.0

    def verify_result(self, state: State) -> None:
        """The referee's result is the person's: nothing to confirm."""

    def game_over(self, scores: Sequence[float], reason: str) -> None:
        """The page learns the result from the record."""

    def quit(self) -> None:
        self._quit = True
        self.moves.put(RESIGN)  # a seat still waiting for a move stops waiting

    def kill(self) -> None:
        self.quit()
