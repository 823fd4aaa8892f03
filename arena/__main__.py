"""``python -m arena`` and the ``arena`` command.

Importing the CLI takes a few hundred milliseconds; a Ctrl-C in that time must give one line,
not a traceback, so SIGINT is answered quietly until the CLI is loaded, then handed back
to Python (the runner turns it into a clean stop that keeps finished games).
"""

import os
import sys

import _signal  # the C module itself: 'import signal' builds enums for milliseconds a Ctrl-C could land in


def _interrupted_at_start(signum: int, frame: object) -> None:
    # Nothing has been done yet, so nothing needs cleaning up; and an exception could land in
    # code that swallows it (a __del__, a garbage-collector callback) and lose the Ctrl-C.
    sys.stderr.write("arena: interrupted while starting; nothing was done\n")
    sys.stderr.flush()
    os._exit(2)


def entry() -> None:
    try:
        previous = _signal.signal(_signal.SIGINT, _interrupted_at_start)
    except ValueError:  # not the main thread
        previous = None
    from .cli import main
    if previous is not None:
        _signal.signal(_signal.SIGINT, previous)
    main()


if __name__ == "__main__":
    entry()
