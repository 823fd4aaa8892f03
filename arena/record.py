"""The game record every layer shares: how a game ended, and (to come here) the record itself.

One definition for the match that writes records, the store that keeps them, ``arena verify``
that re-checks them and the tables, exports and site that read them.  It stands on the rules
alone, so that every layer above may import it.
"""

from __future__ import annotations

from enum import StrEnum


class Termination(StrEnum):
    """How a game ended (PROTOCOL.md section 7); the value is what records store."""

    NORMAL = "normal"  # the rules ended the game
    TIMEOUT = "timeout"  # no move within the limit
    ILLEGAL = "illegal"  # a move the rules refuse
    CRASH = "crash"  # the engine exited, closed a pipe or could not start
    PROTOCOL = "protocol"  # a line the protocol does not allow
    HANDSHAKE = "handshake"  # start-up failed, or what the engine declares does not fit
    RESIGN = "resign"  # the engine resigned
    DROPPED = "dropped"  # the engine was dropped from the tournament (max_failures)

    @property
    def is_forfeit(self) -> bool:
        """A seat lost the game by what its engine did (or was), not by the rules."""
        return self is not Termination.NORMAL

    @property
    def is_failure(self) -> bool:
        """An engine failure that counts towards ``max_failures``: the engine is broken,
        not merely weak (a timeout, an illegal move or a resignation is a lost game)."""
        return self in _FAILURES


_FAILURES = frozenset({Termination.CRASH, Termination.HANDSHAKE, Termination.PROTOCOL})
FORFEITS: tuple[Termination, ...] = tuple(t for t in Termination if t.is_forfeit)
