"""Engines as the match sees them: players of a game, and the programs behind them.

``player.py`` is the contract: a :class:`Player` is told a game, asked for moves on the
referee's State under a :class:`TimeLimit`, and answers a :class:`Reply` or raises an
:class:`EngineFault` with a recorded reason.  An engine program is a player made of a
conversation over a transport (``conversation.py``): ``process.py`` speaks protocol v1,
``gtp.py`` speaks GTP to Hex programs, both over ``transport.py``, which puts together
the engine's process (``child.py``: the process group, its exit, CPU budgets), its pipes
(``pipes.py``: deadlines, bounded lines, waiting as ``waiting.py``'s strategy says: asleep,
spinning, or sharing the worker's core) and its stderr tail (``stderrtail.py``).
``retiring.py`` sees off engines told to quit in a thread of their own.
``declared.py`` checks what an engine declares, ``preflight.py`` starts each engine once
before a tournament to learn it.  ``proctree.py`` keeps the engine's
whole process tree in hand: environment tags, sweeps, the parent-death signal and
resource limits.  The wire format itself (parsing and formatting lines) lives in
``protocol/codec.py``, which the engine SDK shares.
"""

from typing import Any

from .conversation import Conversation
from .gtp import GtpEngine
from .player import EngineFault, EngineSpec, Player, Reply, TimeLimit
from .process import EngineProcess

__all__ = [
    "Conversation",
    "EngineFault",
    "EngineProcess",
    "EngineSpec",
    "GtpEngine",
    "Player",
    "Reply",
    "TimeLimit",
    "open_engine",
]


def open_engine(spec: EngineSpec, **kwargs: Any) -> Conversation:
    """The engine object for ``spec``'s protocol (not started): protocol v1 or GTP."""
    return (GtpEngine if spec.protocol == "gtp" else EngineProcess)(spec, **kwargs)
