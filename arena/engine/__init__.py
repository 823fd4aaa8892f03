"""Driving one engine process, and nothing above it.

``process.py`` starts an engine, does the protocol handshake, sends positions and reads moves
under deadlines, and turns everything an engine does wrong into an ``EngineFault`` with a
recorded reason; open it to see how a move is asked for and timed. ``proctree.py`` keeps the
engine's whole process tree in hand: environment tags, sweeps, the parent-death signal and
resource limits. The wire format itself (parsing and formatting lines) lives in
``protocol/codec.py``, which the engine SDK shares.
"""
