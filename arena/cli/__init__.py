"""The ``arena`` command line: a thin layer over the modules that do the work.

A module per command (or small group of commands): each parses its flags, calls one function
of the library and prints. Every expected failure (bad tournament file, unknown game, locked
output folder, unreadable records) is reported as one clear message and exit code 2; a run
ends with its verdict's code (arena/tournament/verdict.py: 0 to 3, 130 and 143).
"""

from __future__ import annotations

from .checks import check_engine, verify
from .export import export
from .group import Failure, main
from .ladder import ladder
from .openings import openings
from .play import play
from .results import ratings, report, results
from .run import run
from .serve import serve

for _command in (run, results, report, ratings, serve, play, check_engine, verify, export, openings, ladder):
    main.add_command(_command)

__all__ = ["Failure", "main"]
