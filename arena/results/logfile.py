"""``arena.log``, the run's log in its results folder: bounded, and quiet when it cannot write.

An engine that crashes leaves its last stderr in the log; a long run of crashing engines must
not grow the folder without end, so the log rotates once (``arena.log`` and ``arena.log.1``,
together at most twice :data:`MAX_BYTES`, the newest messages kept).  A full disk makes every
log call fail; :mod:`logging` would print a ``--- Logging error ---`` traceback for each,
burying the one message that matters (the CLI's), so the first failure is reported in one
line and the log is given up.  The worker processes fork with this handler and write the same
file, so the disk fills under all of them at once: the "given up" mark is shared, and whichever
process fails first says so for the whole run.
"""

from __future__ import annotations

import logging
import logging.handlers
import multiprocessing
import sys
from pathlib import Path

MAX_BYTES = 4 << 20


class RunLog(logging.handlers.RotatingFileHandler):
    def __init__(self, path: Path, max_bytes: int = MAX_BYTES) -> None:
        super().__init__(path, maxBytes=max_bytes, backupCount=1, encoding="utf-8", delay=True)
        self.given_up = multiprocessing.get_context("fork").Value("b", 0)  # shared with the forked workers

    @property
    def failed(self) -> bool:
        return bool(self.given_up.value)

    def emit(self, record: logging.LogRecord) -> None:
        if not self.failed:
            super().emit(record)

    def handleError(self, record: logging.LogRecord) -> None:
        with self.given_up.get_lock():  # two workers failing at once: one line
            if self.given_up.value:
                return
            self.given_up.value = 1
        error = sys.exc_info()[1]
        sys.stderr.write(f"arena: cannot write {self.baseFilename} ({error}); the run goes on without its log\n")


FORMAT = "%(asctime)s %(processName)s %(name)s %(levelname)s %(message)s"


def attach_run_log(out: Path) -> RunLog:
    """Send arena's log (``arena.*`` loggers, INFO and up) to ``out``'s arena.log, as
    ``arena run`` does; the folder is made if it does not exist."""
    out.mkdir(parents=True, exist_ok=True)
    handler = RunLog(out / "arena.log")
    handler.setFormatter(logging.Formatter(FORMAT))
    root = logging.getLogger("arena")
    root.setLevel(logging.INFO)
    root.addHandler(handler)
    return handler
