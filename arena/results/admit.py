"""Which stored games a results folder counts: those its schedule holds, with the result
their moves give.

A row copied into ``arena.db`` under an id the schedule does not have, or a game whose
seats, round or seed are not its slot's (arena/results/slots.py; a knockout's or Swiss
event's as far as its stored games draw it, arena/results/events.py), is not one of the
tournament's games; a record whose recorded result its moves do not give (a winner changed
by hand) is not a game that was played, and a row whose columns say otherwise than its
record was edited by hand too.  None of them is counted: a resume refuses the folder
naming them and the way out, and ``arena results`` and the site leave them out and name them.

Replaying every record (as ``arena verify`` does) costs about half a millisecond a Hex 9
game, more for longer games (``python benchmarks/resume_check.py``), so a record is
replayed only when its text lacks its checked mark (arena/results/store.py): a record the
referee wrote is marked as it is stored, a replayed one once it agrees, and an edit of the
text voids the mark.
"""

from __future__ import annotations

from collections.abc import Callable, Iterable, Iterator, Mapping, Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any, NamedTuple, Protocol, TypeVar

from ..record import GameRecord
from ..rules import OptionError, make_game
from ..rules.base import JsonValue
from .events import settings_event, stored_schedule
from .fingerprint import StoredSettings
from .slots import settings_slots
from .store import StorageError, StoredGame, decode_meta, fold_stored
from .verify import verify_record


class Scheduled(Protocol):
    """A game of the schedule (a slot, or the tournament's ScheduledGame)."""

    @property
    def round(self) -> int: ...
    @property
    def seats(self) -> tuple[str, ...]: ...
    @property
    def seed(self) -> int: ...
    @property
    def setup(self) -> str | None: ...


@dataclass(frozen=True)
class Refused:
    id: int
    why: str

    def as_dict(self) -> dict[str, JsonValue]:
        return {"id": self.id, "why": self.why}


@dataclass
class Admitted:
    counted: list[GameRecord] = field(default_factory=list)
    refused: list[Refused] = field(default_factory=list)
    replayed: list[StoredGame] = field(default_factory=list)  # agreed with a replay just now: mark them


def admit(stored: Iterable[StoredGame], schedule: Sequence[Scheduled] | None, played: Played | None) -> Admitted:
    """Sort ``stored`` into the games counted and the ones refused (with why).
    ``schedule[i]`` is game ``i``, ``played`` the game and options of the tournament; None:
    not known (a folder older than its settings), and then only the replay decides."""
    out = Admitted()
    for entry in stored:
        problem, replayed = judge(entry, schedule, played)
        if replayed:
            out.replayed.append(entry)
        if problem is None:
            out.counted.append(entry.record)
        else:
            out.refused.append(Refused(entry.record.id or 0, problem))
    return out


def judge(entry: StoredGame, schedule: Sequence[Scheduled] | None, played: Played | None) -> tuple[str | None, bool]:
    """Why one stored game is not counted (None: it is), and whether a replay agreed with it
    just now (its mark to be kept)."""
    record = entry.record
    problem = _slot_problem(record, schedule, played)
    replayed = False
    if problem is None and not entry.checked:
        problem = replay_problem(record)
        replayed = problem is None
    return problem or entry.columns_problem, replayed  # a record that holds up, but a row edited beside it


class Played(NamedTuple):
    """What a tournament plays: a game's name, its options (with the defaults), and whether
    it has an opening book (a game may start on a book's board only then)."""

    game: str
    options: Mapping[str, Any]
    book: bool


def _slot_problem(record: GameRecord, schedule: Sequence[Scheduled] | None, played: Played | None) -> str | None:
    if played is not None and (record.game, record.options) != (played.game, dict(played.options)):
        return (
            f"it is a game of {record.game} {record.options}; the tournament plays {played.game} {dict(played.options)}"
        )
    if played is not None and record.opening_setup and not played.book:
        return "it says it started on an opening book's board, but the tournament plays no book"
    if schedule is None:
        return None
    game_id = record.id or 0
    if not 0 <= game_id < len(schedule):
        last = f"0..{len(schedule) - 1}" if schedule else "none"
        return f"the schedule has no game {game_id} (its games are {last})"
    slot = schedule[game_id]
    if tuple(record.players or ()) != slot.seats:
        seats, scheduled = ", ".join(record.players or ()), ", ".join(slot.seats)
        return f"its seats are {seats}; the schedule's game {game_id} seats {scheduled}"
    if record.round != slot.round:
        return f"its round is {record.round}; the schedule's game {game_id} is in round {slot.round}"
    if record.seed != slot.seed:
        return f"its seed is {record.seed}; the schedule's game {game_id} has seed {slot.seed}"
    if slot.setup is not None and (record.setup != slot.setup or not record.opening_setup):
        return f"its board is not its opening's: the schedule's game {game_id} starts on the board of its book line"
    return None


def replay_problem(record: GameRecord) -> str | None:
    """What a replay of the moves (``arena verify``) finds wrong with the record, or None."""
    try:
        verdict = verify_record(record)
    except (OptionError, ValueError) as exc:
        return f"it cannot be replayed ({exc})"
    if (error := verdict["error"]) is not None:
        return f"its move {error['move']!r} at ply {error['ply']} is illegal ({error['reason']})"
    if verdict["mismatches"]:
        first = verdict["mismatches"][0]
        return f"its {first['field']} is {_shown(first['recorded'])} but its moves give {_shown(first['derived'])}" + (
            f" ({first['reason']})" if "reason" in first else ""
        )
    return None


def _shown(value: Any) -> str:
    return "none" if value is None else str(value)


def refusal_text(db_path: Path, refused: Sequence[Refused]) -> str:
    """What a refused folder tells the user: the games, why, and the ways out."""
    ids = sorted({r.id for r in refused})
    shown = "; ".join(f"game {r.id}: {r.why}" for r in refused[:5]) + (
        f"; and {len(refused) - 5} more" if len(refused) > 5 else ""
    )
    where = db_path.parent
    return (
        f"{db_path} holds {len(ids)} game(s) that are not the tournament's as played, and a resume never "
        f'counts them: {shown}. Delete them (sqlite3 {db_path} "DELETE FROM games WHERE id IN '
        f'({", ".join(map(str, ids))})") and run the same command, which plays the scheduled games then '
        f"missing; or start a new folder with --out; 'arena verify {where / 'games.jsonl'}' shows each "
        f"record's replay."
    )


def refused_line(refused: Sequence[Refused]) -> str:
    """The line ``arena results`` and the site show for the games they leave out."""
    ids = ", ".join(str(r.id) for r in refused)
    why = "; ".join(f"game {r.id}: {r.why}" for r in refused[:3]) + ("; ..." if len(refused) > 3 else "")
    return (
        f"not counted: game(s) {ids}, which are not the tournament's as played ({why}). Delete those rows "
        f"from arena.db and run the tournament again to play them, or start a new folder; "
        f"'arena verify games.jsonl' shows each record's replay."
    )


@dataclass
class FolderGames:
    """A folder read for its tables: the meta table, its settings and the games it counts."""

    meta: dict[str, str]
    settings: StoredSettings | None
    counted: list[GameRecord]
    refused: list[Refused]


@dataclass
class CountedStream:
    """A folder read for its tables as its games stream: the meta table, its settings, the
    games it counts one at a time, and (filled as ``counted`` is read) the games it refuses."""

    meta: dict[str, str]
    settings: StoredSettings | None
    counted: Iterator[GameRecord]
    refused: list[Refused]


Counted = TypeVar("Counted")


def read_counted(folder: Path) -> FolderGames:
    """A results folder's games as its tables count them, as a list (see fold_counted)."""
    return fold_counted(folder, _listed)


def _listed(found: CountedStream) -> FolderGames:
    counted = list(found.counted)  # read first: it fills found.refused
    return FolderGames(found.meta, found.settings, counted, found.refused)


def fold_counted(folder: Path, fold: Callable[[CountedStream], Counted]) -> Counted:
    """``fold`` over a results folder's games as its tables count them, each read, judged and
    handed over in turn, so a reader that keeps only counts (a rating list) never holds the
    folder's records.  Read-only (nothing is marked: a record without its mark is replayed on
    every read until a run marks it); ``fold`` may run twice (arena/results/store.py)."""

    def counting(meta: dict[str, str], stored: Iterator[StoredGame]) -> Counted:
        settings = decode_meta(folder, "settings", meta.get("settings"))
        if settings is None:  # older than stored settings: only the replay can tell
            return fold(_judged(meta, None, stored, None, None))
        try:
            players = make_game(settings["game"], settings["options"]).players
            if settings_event(settings, players) is not None:  # its rounds come from its games: held
                held = list(stored)
                schedule = stored_schedule(settings, players, [entry.record for entry in held])
                stored = iter(held)
            else:
                schedule = settings_slots(settings, players)
        except (OptionError, KeyError, TypeError, ValueError) as exc:
            raise StorageError(f"{folder}: the stored settings do not make a tournament ({exc})") from None
        played = Played(settings["game"], settings["options"], settings.get("openings") is not None)
        return fold(_judged(meta, settings, stored, schedule, played))

    return fold_stored(folder, counting)


def _judged(
    meta: dict[str, str],
    settings: StoredSettings | None,
    stored: Iterator[StoredGame],
    schedule: Sequence[Scheduled] | None,
    played: Played | None,
) -> CountedStream:
    refused: list[Refused] = []

    def counted() -> Iterator[GameRecord]:
        for entry in stored:
            problem, _ = judge(entry, schedule, played)
            if problem is None:
                yield entry.record
            else:
                refused.append(Refused(entry.record.id or 0, problem))

    return CountedStream(meta, settings, counted(), refused)
