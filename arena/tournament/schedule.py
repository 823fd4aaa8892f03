"""Matchmaking: which engines play which game in which seats, with which seed.

A *table* is a set of engines (a pair, or three for 3-player games).  Every
table plays every seat order in every round, and all seat orders of one table
and round share one seed, so each setup is played from every seat (paired
openings).  The schedule is a pure function of the tournament, which is what
lets a killed run resume: a game's index identifies it.
"""

from __future__ import annotations

from dataclasses import dataclass
from itertools import combinations, permutations
from typing import Sequence

from ..match import derive_seed
from .openings import Opening, opening_for


@dataclass(frozen=True)
class ScheduledGame:
    index: int                 # position in the schedule; also the rating order
    round: int
    seats: tuple[str, ...]     # engine name per seat
    seed: int
    opening: Opening = ()      # moves played before the engines take over


def round_robin(engines: Sequence[str], players: int, rounds: int, master_seed: int,
                openings: Sequence[Opening] = ()) -> list[ScheduledGame]:
    """Every table of ``players`` engines, every seat order, ``rounds`` times.

    Games are ordered round by round so that a partial run covers all tables.  With
    an opening book, all seat orders of a table in a round share one opening, like
    they share a seed.
    """
    games: list[ScheduledGame] = []
    tables = list(combinations(engines, players))
    for rnd in range(rounds):
        for table_no, table in enumerate(tables):
            seed = derive_seed(master_seed, "round", rnd, "table", table_no)
            opening = opening_for(list(openings), rnd, table_no, len(tables))
            for seats in permutations(table):
                games.append(ScheduledGame(len(games), rnd, tuple(seats), seed, opening))
    return games
