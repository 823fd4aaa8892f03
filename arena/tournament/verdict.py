"""How a run ends: its last line and its exit code, one table for every ending, so that a
script (a CI job running an SPRT, say) can act on the code alone (docs/command-line.md).

The codes, as ``arena run --help`` lists them:

* 0, finished: every scheduled game played by the engines it names (or the SPRT decided on
  such games), no engine dropped;
* 1, finished but not a full verdict: an engine was dropped, the SPRT ended with no decision
  (an engine did not play one of its pairs), or games were not recorded (arena's own failures);
* 2, bad input or refused settings (the CLI's ``Failure``);
* 3, an engine failed its start-up check: the run stopped before its first game;
* 130 and 143, interrupted by Ctrl-C (SIGINT) or SIGTERM: 128 + the signal, as a shell reports it.

This module imports nothing at load, so the CLI reads the codes at no cost.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from typing import TYPE_CHECKING

if TYPE_CHECKING:
    from ..results.sprt import SprtSummary

FINISHED = 0
NOT_A_FULL_VERDICT = 1
BAD_INPUT = 2
START_UP_FAILURE = 3
INTERRUPTED = 130  # 128 + SIGINT (2); the signal module's enums would cost the CLI's start-up
TERMINATED = 143  # 128 + SIGTERM (15)


class Terminated(KeyboardInterrupt):
    """SIGTERM: it stops a run as Ctrl-C does (finished games kept, engines killed), and the
    run exits with its own code (:data:`TERMINATED`)."""


def interrupt_code(exc: KeyboardInterrupt) -> int:
    """The exit code of a run stopped by ``exc``: SIGTERM's, else Ctrl-C's."""
    return TERMINATED if isinstance(exc, Terminated) else INTERRUPTED


_SIGTERM = 15
_stops_received: list[int] = []  # the exit code of each stop signal, in order


def raise_on_stop(signum: int, frame: object) -> None:
    """The ``arena`` command's handler of Ctrl-C and SIGTERM once its CLI is loaded: raise
    KeyboardInterrupt (:class:`Terminated` for SIGTERM), and remember the stop.  The memory is
    for an interrupt that code on its way up wraps (pydantic, building a model's schema in a
    command's first import, turns it into a SchemaError) or that a finalizer drops."""
    _stops_received.append(TERMINATED if signum == _SIGTERM else INTERRUPTED)
    raise Terminated if signum == _SIGTERM else KeyboardInterrupt


def stops_so_far() -> int:
    """How many stop signals :func:`raise_on_stop` has taken: a command or a run notes it as
    it starts, and answers only the stops taken after (a test's process takes many)."""
    return len(_stops_received)


def stop_since(since: int = 0) -> int | None:
    """The exit code of the last stop signal :func:`raise_on_stop` took after the first
    ``since``, if any."""
    return _stops_received[-1] if len(_stops_received) > since else None


def raise_lost_stop(since: int) -> None:
    """Raise again the last stop taken after the first ``since``.  Python prints and drops an
    exception raised in a finalizer (a ``__del__``, a garbage collector's callback), so a stop
    signal landing in one would let a run go on, and end as if never stopped."""
    code = stop_since(since)
    if code is not None:
        raise Terminated if code == TERMINATED else KeyboardInterrupt


class StartupFailure(Exception):
    """An engine failed its start-up check (it could not start, or did not answer): the run
    stops before its first game, unless forfeits were chosen (``forfeit_failed_engines``)."""


def startup_failure(where: str, failed: Sequence[tuple[str, str]]) -> StartupFailure:
    """The stop for the engines that failed their start-up check (name, fault as
    ``code: reason``), in one line: each engine with its cause, what to fix, and the way to
    play on with forfeits."""
    causes = "; ".join(f"engine {name!r} failed its start-up check ({fault})" for name, fault in failed)
    fixes = sorted({_STARTUP_FIX.get(fault.partition(":")[0], _STARTUP_FIX["crash"]) for _, fault in failed})
    return StartupFailure(
        f"{where}: {causes}. The run stopped before its first game: {'; '.join(fixes)}; "
        f"or give --forfeit-failed-engines (forfeit_failed_engines = true) to play on, its games lost unplayed"
    )


_STARTUP_FIX = {  # by the fault's code (a Termination value): what the user can change
    "crash": "check the engine's command, arguments and folder ('arena check-engine COMMAND' runs it alone)",
    "handshake": "check that the engine answers 'arena 1' with 'arenaok' (protocol/PROTOCOL.md; "
    "'arena check-engine COMMAND'), or raise its handshake_ms if it starts slowly",
    "protocol": "check what the engine prints at start-up against protocol/PROTOCOL.md ('arena check-engine COMMAND')",
}


@dataclass(frozen=True)
class Verdict:
    """A finished run's last line and exit code."""

    text: str
    code: int


def run_verdict(dropped: Mapping[str, str], sprt: SprtSummary | None, errors: Sequence[str]) -> Verdict:
    """The verdict of a run that played to its end: ``dropped`` engines (name -> why), its
    SPRT as it ended (None without one) and the games it could not record."""
    problems = []
    if sprt is not None and sprt.unplayed:
        problems.append(f"SPRT no decision: {sprt.unplayed}")
    if dropped:
        names = ", ".join(dropped)
        problems.append(f"finished with {'an engine' if len(dropped) == 1 else 'engines'} dropped ({names})")
    if errors:
        problems.append(f"{len(errors)} game(s) not recorded; run the same command again to play them")
    if problems:
        return Verdict("; ".join(problems), NOT_A_FULL_VERDICT)
    if sprt is not None:
        from ..results.sprt import outcome_text  # numpy: only once a run has played

        outcome = outcome_text(sprt.decision, sprt.engine)
        return Verdict(f"finished: SPRT {outcome} after {sprt.pairs} pairs", FINISHED)
    return Verdict("finished: every scheduled game played", FINISHED)
