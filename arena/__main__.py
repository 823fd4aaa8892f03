"""``python -m arena`` and the ``arena`` command.

Importing the CLI takes a few hundred milliseconds; a Ctrl-C (or SIGTERM) in that time must
give one line, not a traceback or silence, so both are answered quietly until the CLI is
loaded; then SIGTERM raises KeyboardInterrupt like Ctrl-C (its subclass ``Terminated``, for
its own exit code), which every command turns into one line (and a run into a clean stop
that keeps finished games).  Either stop exits with 128 + the signal (130, 143), as a shell
reports a process the signal ended.

The handlers go in before any other import: under ``python -m arena`` this module's first
lines are arena's first lines, and a stop that lands while ``typing`` (say) is imported would
otherwise end in a traceback through this file.
"""

import os  # os and sys are loaded before any script runs: importing them costs nothing
import sys

TYPE_CHECKING = False  # mypy reads this name as typing.TYPE_CHECKING; importing typing costs ms
if TYPE_CHECKING:  # _signal has no stubs; signal's are the same functions, typed
    import signal as _signal
    from typing import Any
else:  # the C module itself: 'import signal' builds enums for milliseconds a Ctrl-C could land in
    import _signal


def _interrupted_at_start(signum: int, frame: object) -> None:
    # Nothing has been done yet, so nothing needs cleaning up; and an exception could land in
    # code that swallows it (a __del__, a garbage-collector callback) and lose the Ctrl-C.
    sys.stderr.write("arena: interrupted while starting; nothing was done\n")
    sys.stderr.flush()
    os._exit(128 + signum)


def _answer_stops_quietly() -> "list[Any]":
    """Install the start-up handlers; the handlers they replace (none off the main thread)."""
    try:
        return [_signal.signal(sig, _interrupted_at_start) for sig in (_signal.SIGINT, _signal.SIGTERM)]
    except ValueError:  # not the main thread
        return []


# Under 'python -m arena' at once; the console script calls entry() after importing this.
_held = _answer_stops_quietly() if __name__ == "__main__" else None


def _drop_lost_stop(unraisable: "Any") -> None:
    # A stop signal's exception raised in a finalizer (a __del__, a collector's callback) is
    # dropped by Python, which prints its traceback; raise_on_stop noted the stop and the run
    # raises it again at its next step, so the traceback would only break the one line.
    if not isinstance(unraisable.exc_value, KeyboardInterrupt):
        sys.__unraisablehook__(unraisable)


def entry() -> None:
    previous = _held if _held is not None else _answer_stops_quietly()
    from .cli import main
    from .tournament.verdict import raise_on_stop  # loaded with the CLI: no cost

    if previous:
        ignored = previous[0] is _signal.SIG_IGN  # a shell's background job keeps ignoring Ctrl-C
        _signal.signal(_signal.SIGINT, previous[0] if ignored else raise_on_stop)
        _signal.signal(_signal.SIGTERM, raise_on_stop)  # from here on, SIGTERM stops as Ctrl-C does
        sys.unraisablehook = _drop_lost_stop
    main()


if __name__ == "__main__":
    entry()
