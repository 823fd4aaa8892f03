"""Driving one engine process, and nothing above it.

``process.py`` starts an engine, does the protocol handshake, sends positions and reads moves
under deadlines, and turns everything an engine does wrong into an ``EngineFault`` with a
recorded reason; open it to see how a move is asked for and timed. ``proctree.py`` keeps the
engine's whole process tree in hand: environment tags, sweeps, the parent-death signal and
resource limits. The wire format itself (parsing and formatting lines) lives in
``protocol/codec.py``, which the engine SDK shares. ``gtp.py`` drives GTP Hex programs
behind the same interface, on the same process machinery.
"""

from .gtp import GtpEngine
from .process import EngineProcess, EngineSpec


def open_engine(spec: EngineSpec, **kwargs) -> EngineProcess:
    """The engine object for ``spec``'s protocol (not started): protocol v1 or GTP."""
    return (GtpEngine if spec.protocol == "gtp" else EngineProcess)(spec, **kwargs)
