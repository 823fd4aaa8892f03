"""Matchmaking: which engines play which game in which seats, with which seed.

A *table* is a set of engines (a pair, or three for 3-player games).  Every
table plays every seat order in every round, and all seat orders of one table
and round share one seed, so each setup is played from every seat (paired
openings).  The schedule is a pure function of the tournament, which is what
lets a killed run resume: a game's index identifies it.  (A tournament's schedule is
:func:`arena.tournament.config.build_schedule`: its format, rounds, seed and openings,
drawn by the functions here.)

Formats: a round-robin (every table of the engines) or a gauntlet (every table
with exactly one candidate: candidates meet every other engine, not each other).
Between two engines a round is a *pair*: games 2k and 2k + 1 share seed and
opening with the seats swapped, which the SPRT counts on.  A knockout or Swiss event draws
its games wave by wave (arena/results/events.py); :func:`event_games` gives them openings.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from itertools import combinations

from ..results.slots import Slot, slots  # where the numbering lives
from .openings import Opening, OpeningPlan, Start


@dataclass(frozen=True)
class ScheduledGame:
    index: int  # position in the schedule; also the rating order
    round: int
    seats: tuple[str, ...]  # engine name per seat
    seed: int
    opening: Opening = ()  # moves played before the engines take over
    setup: str | None = None  # a book's board (Posies' suites), played instead of the one the seed deals


def round_robin(
    engines: Sequence[str], players: int, rounds: int, master_seed: int, openings: Sequence[Opening] | OpeningPlan = ()
) -> list[ScheduledGame]:
    """Every table of ``players`` engines, every seat order, ``rounds`` times."""
    return play_tables(list(combinations(engines, players)), rounds, master_seed, openings)


def play_tables(
    tables: list[tuple[str, ...]], rounds: int, master_seed: int, openings: Sequence[Opening] | OpeningPlan = ()
) -> list[ScheduledGame]:
    """Every table in every seat order, ``rounds`` times.

    Games are ordered round by round so that a partial run covers all tables.  All
    seat orders of a table in a round share one seed and one opening."""
    plan = openings if isinstance(openings, OpeningPlan) else OpeningPlan(tuple(openings))
    games: list[ScheduledGame] = []
    start = Start()
    table: tuple[int, int] | None = None
    for slot in slots(tables, rounds, master_seed):
        if table != (slot.round, slot.table_no):  # one opening for the seat orders of a table in a round
            table = slot.round, slot.table_no
            start = plan.start(slot.round, slot.table_no, len(tables), slot.seed)
        games.append(ScheduledGame(slot.index, slot.round, slot.seats, slot.seed, start.moves, start.setup))
    return games


def event_games(drawn: Sequence[Slot], openings: OpeningPlan) -> list[ScheduledGame]:
    """An event's games drawn so far, each table's seat orders sharing one opening: the
    book's openings in turn, table after table as the event drew them."""
    games: list[ScheduledGame] = []
    start = Start()
    table: tuple[int, int, int] | None = None
    tables = -1
    for slot in drawn:
        if table != (slot.round, slot.table_no, slot.seed):
            table, tables = (slot.round, slot.table_no, slot.seed), tables + 1
            start = openings.start(tables, 0, 1, slot.seed)
        games.append(ScheduledGame(slot.index, slot.round, slot.seats, slot.seed, start.moves, start.setup))
    return games
