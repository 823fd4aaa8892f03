"""Adjudication: ending a game its rules have not ended (docs/adjudication.md).

Four rules, each off unless set, each its own termination in the record (arena/record.py):

- ``max_plies``: at that many plies the game stops (``max-plies``): a draw, or the game's own
  count where it has one (``State.count_so_far``: HexGo's territory, Posies' points).
- ``resign`` (cutechess-cli's ``-resign movecount=N score=S [twosided=true]``): a seat whose
  own ``info score`` was at most -S on each of its last N moves loses
  (``adjudicated-resign``); with ``twosided`` its opponent's must also have been at least S
  on each of its last N.  Two seats only: a third seat has no single opponent to win.
- ``draw`` (``-draw movenumber=M movecount=N score=S``): from each seat's M-th move on, when
  every seat's score stayed within S of 0 on each of its last N moves, a draw
  (``adjudicated-draw``); for games that can be drawn, of two seats.
- ``decided``: the game asks its position whether a seat's win can still be stopped
  (``State.decided_winner``; Hex: a chain of safe gaps) and ends it as that seat's win
  (``decided``).

Scores are the engines' own (PROTOCOL.md section 4): from the view of the seat that moved,
in its own units, the last ``score`` sent before each move; a move without one breaks a run.
:class:`Adjudication` is a tournament's settings (the ``[adjudication]`` table, validated
here); :class:`Adjudicator` watches one game and says when it ends.
"""

from __future__ import annotations

from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass

from pydantic import BaseModel, ConfigDict, Field

from .record import Termination
from .rules import Game, State
from .rules.base import JsonValue


class _Rule(BaseModel):
    model_config = ConfigDict(extra="forbid", frozen=True, strict=True)


class ResignRule(_Rule):
    movecount: int = Field(ge=1, le=10_000)  # the loser's moves in a row with its score at most -score
    score: float = Field(gt=0, allow_inf_nan=False)  # in the engines' units (centipawns, say)
    twosided: bool = False  # the winner's score must be at least +score on its moves too


class DrawRule(_Rule):
    movenumber: int = Field(default=0, ge=0, le=100_000)  # each seat's moves before the rule applies
    movecount: int = Field(ge=1, le=10_000)  # every seat's moves in a row with its score near 0
    score: float = Field(ge=0, allow_inf_nan=False)  # how near: |score| at most this


class Adjudication(_Rule):
    """A tournament's ``[adjudication]`` table: which rules end a game early (all off by default)."""

    max_plies: int | None = Field(default=None, ge=1, le=100_000)
    resign: ResignRule | None = None
    draw: DrawRule | None = None
    decided: bool = False

    @property
    def active(self) -> bool:
        return self != Adjudication()

    def problem(self, game: Game) -> str | None:
        """Why these rules cannot apply to ``game`` (None: they can), naming the key."""
        if self.resign is not None and game.players != 2:
            return (
                f"resign: the resign adjudication gives the game to the one opponent of the seat whose score "
                f"says it lost, and {game.name} seats {game.players}; remove resign"
            )
        if self.draw is not None and not game.can_draw:
            return f"draw: a {game.name} game cannot be drawn; remove draw"
        if self.draw is not None and game.players != 2:
            return f"draw: the draw adjudication reads two engines' scores, and {game.name} seats {game.players}"
        if self.decided and not game.tells_decided:
            return f"decided: {game.name} cannot tell a decided position; remove decided"
        return None


@dataclass(frozen=True)
class Ending:
    """How an adjudicated game ends: its termination, the reason's detail and, for a
    resign adjudication, the seat that lost."""

    code: Termination
    reason: str
    loser: int | None = None


class Adjudicator:
    """One game's watch: :meth:`before_move` (the ply limit) and :meth:`after_move` (scores
    and decided positions), each an :class:`Ending` when the game ends there."""

    def __init__(self, rules: Adjudication, players: int) -> None:
        self.rules = rules
        self.scores: list[list[float | None]] = [[] for _ in range(players)]  # each seat's, move by move

    def before_move(self, state: State) -> Ending | None:
        limit = self.rules.max_plies
        if limit is not None and len(state.moves) >= limit:
            counted = state.count_so_far() is not None
            how = "scored by the game's count as it stands" if counted else "a draw"
            return Ending(Termination.MAX_PLIES, f"ply limit {limit} reached: {how}")
        return None

    def after_move(self, state: State, seat: int, info: Mapping[str, JsonValue] | None) -> Ending | None:
        score = (info or {}).get("score")
        self.scores[seat].append(float(score) if isinstance(score, int | float) else None)
        if state.is_terminal():
            return None
        return self._resign() or self._draw() or self._decided(state)

    def _resign(self) -> Ending | None:
        rule = self.rules.resign
        if rule is None:
            return None
        for seat, other in ((0, 1), (1, 0)):
            lost = _last(self.scores[seat], rule.movecount, lambda s: s <= -rule.score)
            if lost and (not rule.twosided or _last(self.scores[other], rule.movecount, lambda s: s >= rule.score)):
                both = f" and its opponent's at least {rule.score:g}" if rule.twosided else ""
                return Ending(
                    Termination.ADJUDICATED_RESIGN,
                    f"adjudicated: its score was at most {-rule.score:g} on its last {rule.movecount} moves{both}",
                    seat,
                )
        return None

    def _draw(self) -> Ending | None:
        rule = self.rules.draw
        if rule is None or any(len(moves) < rule.movenumber for moves in self.scores):
            return None
        if all(_last(moves, rule.movecount, lambda s: abs(s) <= rule.score) for moves in self.scores):
            return Ending(
                Termination.ADJUDICATED_DRAW,
                f"adjudicated: every score within {rule.score:g} of 0 on each seat's last {rule.movecount} moves",
            )
        return None

    def _decided(self, state: State) -> Ending | None:
        if not self.rules.decided or (winner := state.decided_winner()) is None:
            return None
        return Ending(Termination.DECIDED, f"adjudicated: seat {winner}'s win can no longer be stopped")


def _last(scores: Sequence[float | None], count: int, holds: Callable[[float], bool]) -> bool:
    """Whether the last ``count`` scores were all given and all pass ``holds``."""
    tail = scores[-count:]
    return len(tail) == count and all(s is not None and holds(s) for s in tail)
