"""``python -m arena`` and the ``arena`` command.

Importing the CLI takes a few hundred milliseconds; a Ctrl-C in that time must give one line,
not a traceback, so SIGINT is answered quietly until the CLI is loaded, then handed back
to Python (the runner turns it into a clean stop that keeps finished games).
"""

import signal
import sys


def _interrupted_at_start(signum: int, frame: object) -> None:
    sys.stderr.write("arena: interrupted while starting; nothing was done\n")
    raise SystemExit(2)


def entry() -> None:
    try:
        previous = signal.signal(signal.SIGINT, _interrupted_at_start)
    except ValueError:  # not the main thread
        previous = None
    from .cli import main
    if previous is not None:
        signal.signal(signal.SIGINT, previous)
    main()


if __name__ == "__main__":
    entry()
