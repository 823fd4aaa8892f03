"""A Python that has imported what arena's commands load (numpy, scipy, pydantic, jinja2,
click, and arena's runner, results and site), and forks a fresh ``python -m arena`` for each
command the tests run (tests/helpers.py: run_arena).

Those imports were about a second of CPU in each of some two hundred arena processes a suite
run starts. What arena reads as it loads is its environment's ``ARENA_GAMES`` only
(arena.rules): this Python is started without it, and a command given it runs as a plain
process (tests/helpers.py). The child is a real process in every other way: its own
environment, folder, standard streams, signals, workers, engines, exit code and atexit
handlers.

One request a line on stdin (JSON: ``args``, ``cwd``, ``env``, ``stdin``, ``stdout``,
``stderr``, the last three file paths); the answers, a line each on stdout: the child's pid,
then its exit code as subprocess gives it (minus the signal that ended it). One command at a
time; the caller runs any other at once as a process of its own.
"""

import json
import os
import runpy
import sys

# The command line and what a run, the results and the site load (numpy, scipy, pydantic,
# jinja2, click, ... come with them).
PRELOADED = ("arena.cli", "arena.cli.run", "arena.tournament.runner", "arena.results.site", "logging.handlers")


def read_line() -> bytes:
    """A request from fd 0, read without Python's buffer (the child reads its own stdin there)."""
    line = b""
    while not line.endswith(b"\n"):
        chunk = os.read(0, 65536)
        if not chunk:
            os._exit(0)  # the tests' process is gone
        line += chunk
    return line


def serve() -> dict:
    """Returns only in a child, with the request it is to run."""
    for name in PRELOADED:
        __import__(name)
    while True:
        request = json.loads(read_line())
        pid = os.fork()
        if pid == 0:
            return request
        os.write(1, f"{pid}\n".encode())
        _, status = os.waitpid(pid, 0)
        os.write(1, f"{os.waitstatus_to_exitcode(status)}\n".encode())


def become(request: dict) -> None:
    """This process as ``python -m arena ARGS`` started in the request's folder and environment."""
    os.chdir(request["cwd"])
    os.environ.clear()
    os.environ.update(request["env"])
    for fd, stream in enumerate(("stdin", "stdout", "stderr")):
        opened = os.open(request[stream], os.O_RDONLY if fd == 0 else os.O_WRONLY)
        os.dup2(opened, fd)
        os.close(opened)
    sys.argv = ["-m", *request["args"]]
    sys.path[0] = os.getcwd()  # as under python -m


if __name__ == "__main__":
    become(serve())
    runpy.run_module("arena", run_name="__main__", alter_sys=True)  # SystemExit ends it as python's own would
