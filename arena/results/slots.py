"""The schedule's numbering: which game id is which table, seat order, round and seed.

A pure function of the engines (in the file's order), the format, the rounds and the master
seed.  The tournament builds its schedule on it (arena/tournament/schedule.py adds the
openings), and a results folder is checked against it: a stored game whose id, seats,
round or seed no slot has is not one of the tournament's games (arena/results/admit.py).
"""

from __future__ import annotations

from collections.abc import Iterator, Mapping, Sequence
from dataclasses import dataclass
from itertools import combinations, permutations
from typing import Any

from ..record import derive_seed


@dataclass(frozen=True)
class Slot:
    index: int  # the game id
    round: int
    table_no: int
    seats: tuple[str, ...]  # engine name per seat
    seed: int
    # The board of a book's opening (Posies' suites), where the schedule knows it: a folder's
    # settings keep a digest of the book, not its lines, so their slots say None.
    setup: str | None = None


def gauntlet_tables(engines: Sequence[str], candidates: Sequence[str], players: int) -> list[tuple[str, ...]]:
    """Each candidate with every choice of ``players - 1`` engines that are not candidates."""
    others = [e for e in engines if e not in candidates]
    return [(candidate, *rest) for candidate in candidates for rest in combinations(others, players - 1)]


def round_tables(
    engines: Sequence[str], players: int, format: str, candidates: Sequence[str] = ()
) -> list[tuple[str, ...]]:
    """The tables of a round: every set of ``players`` engines, or a gauntlet's."""
    if format == "gauntlet":
        return gauntlet_tables(engines, candidates, players)
    return list(combinations(engines, players))


def slots(tables: Sequence[tuple[str, ...]], rounds: int, master_seed: int) -> Iterator[Slot]:
    """Every table in every seat order, round by round (so that a partial run covers all
    tables); all seat orders of a table in a round share one seed."""
    index = 0
    for rnd in range(rounds):
        for table_no, table in enumerate(tables):
            seed = derive_seed(master_seed, "round", rnd, "table", table_no)
            for seats in permutations(table):
                yield Slot(index, rnd, table_no, tuple(seats), seed)
                index += 1


def settings_slots(settings: Mapping[str, Any], players: int) -> list[Slot]:
    """The slots of a folder's stored settings (arena/tournament/settings.py); raises
    KeyError, TypeError or ValueError for settings that are not a tournament's."""
    names = [engine["name"] for engine in settings["engines"]]
    tables = round_tables(names, players, settings.get("format", "round-robin"), settings.get("candidates") or ())
    return list(slots(tables, int(settings["rounds"]), int(settings["seed"])))
