"""Re-checking game records against the rules (``arena verify``).

Input: JSON Lines, one record a line with at least ``game`` and ``moves`` (``options``,
``seed``, ``deal`` and ``setup`` optional).  Every move is replayed; where the record states a
result (``termination``, ``winner``, ``scores``, ``places``, ``forfeit_seat``), it is derived
again from the moves and each field that disagrees is reported:

- ``termination`` ``normal``: the moves must end the game, and the result is the rules' one.
- no termination: if the moves end the game, the result is the rules' one; if not, no winner,
  scores or places may be recorded.
- an adjudication whose result the position gives (``max-plies``, ``adjudicated-draw``,
  ``decided``; docs/adjudication.md): the moves must *not* end the game, no seat forfeits, and
  the result is the adjudication's where the moves end (a ``decided`` game's position must be
  decided).
- any other termination (a forfeit, one of the codes of PROTOCOL.md section 7, or a resign
  adjudication, which names its loser as a forfeit does): the moves must
  *not* end the game, the ``reason`` must name the losing seats as ``name (seat N): ...``
  (seats the game has), ``forfeit_seat`` must be the first of them, and the result is the
  forfeit's for those seats.

Output: one JSON verdict a line, carrying the record's ``id`` (null if it has none) and its
``line``; an illegal move is named by its ``ply``, counted from 0 (PROTOCOL.md section 5).
A line that is not a usable record (not JSON, wrong types, missing fields, options
the game refuses) gets a verdict of its own with ``ok: false`` and ``error.reason`` naming the
line; the lines after it are still checked.  Fields are typed strictly: ``"5"``, ``5.0`` or
``true`` where an integer belongs are errors naming the field.
"""

from __future__ import annotations

import json
import re
from collections.abc import Iterable, Iterator, Mapping
from typing import Any, NotRequired, TypedDict

from pydantic import ValidationError

from ..record import ADJUDGED, GameRecord, Termination, adjudged_result, forfeit_result, record_start
from ..rules import Game, IllegalMove, OptionError, State, make_game
from ..rules.base import JsonValue

VERDICT_KEYS = ("id", "line", "ok", "error", "over", "termination", "winner", "scores", "places", "plies", "mismatches")
SEAT_IN_REASON = re.compile(r"\(seat (\d+)\)")


class IllegalPly(TypedDict):
    """The first move the rules refuse: its ply (from 0), the move and the referee's reason."""

    ply: int
    move: str
    reason: str


class LineError(TypedDict):
    """Why a line is no usable record, naming the line."""

    reason: str


class Mismatch(TypedDict):
    """A recorded field the moves contradict: what the record says and what the moves give."""

    field: str
    recorded: JsonValue
    derived: JsonValue
    reason: NotRequired[str]


class Derived(TypedDict):
    """The result the moves give (all None where they give none)."""

    termination: Termination | None
    winner: int | None
    scores: list[float] | None
    places: list[int] | None


class Verdict(Derived):
    """The verdict on one record (:func:`verify_record`)."""

    id: int | None
    ok: bool
    error: IllegalPly | None
    over: bool
    plies: int
    mismatches: list[Mismatch]


class LineVerdict(Derived):
    """The verdict on one line of JSON Lines (:func:`verify_lines`), in ``VERDICT_KEYS``'
    order; a line that is no usable record has an error, and None where a replay would tell."""

    id: int | None
    line: int
    ok: bool
    error: IllegalPly | LineError | None
    over: bool | None
    plies: int | None
    mismatches: list[Mismatch]


class RecordError(Exception):
    """Input that cannot be read at all; the message names the line."""


class InvalidRecord(ValueError):
    """A decoded record whose fields are wrong: one problem per field, each naming it."""

    def __init__(self, problems: list[str]) -> None:
        super().__init__("; ".join(problems))
        self.problems = problems


def parse_record(data: Any) -> GameRecord:
    """The one reader of untrusted record JSON (a decoded object) into a GameRecord; raises
    InvalidRecord naming each field that is wrong (strict types: ``"5"``, ``5.0`` or
    ``true`` where an integer belongs are errors).  The store reads its rows back through it."""
    try:
        return GameRecord.model_validate(data)
    except ValidationError as exc:
        raise InvalidRecord([describe_error(err) for err in exc.errors(include_url=False)]) from None


def describe_error(err: Mapping[str, Any]) -> str:
    """One pydantic error of a record, naming the field and what it holds."""
    where = ".".join(str(part) for part in err["loc"])
    message = str(err["msg"]).removeprefix("Value error, ")
    if err["type"] == "missing":
        return f"missing {where!r}"
    if not where:
        return message
    got = repr(err.get("input"))
    return f"{where!r}: {message} (got {got if len(got) <= 40 else got[:37] + '...'})"


def _check_shape(rec: GameRecord, players: int) -> None:
    """What a record says of itself that needs no replay to be wrong."""
    if rec.times_ms is not None and any(t < 0 for t in rec.times_ms):
        raise ValueError("'times_ms': every time is a non-negative number of milliseconds")
    if rec.opening_plies is not None and rec.opening_plies > len(rec.moves):
        raise ValueError(f"'opening_plies' is {rec.opening_plies}, more than the {len(rec.moves)} moves")
    if rec.players is not None and len(rec.players) != players:
        raise ValueError(f"'players' names {len(rec.players)} engine(s); this game has {players} seats")
    for field in ("scores", "places"):
        if (value := getattr(rec, field)) is not None and len(value) != players:
            raise ValueError(f"{field!r} has {len(value)} entries; this game has {players} seats")


def verify_record(rec: GameRecord) -> Verdict:
    """The verdict for one parsed record; raises OptionError / ValueError for unusable ones."""
    game = make_game(rec.game, rec.options, strict=True)
    _check_shape(rec, game.players)
    state = record_start(game, rec)
    error: IllegalPly | None = None
    for ply, move in enumerate(rec.moves):
        try:
            state.play(move)
        except IllegalMove as exc:
            error = {"ply": ply, "move": move, "reason": exc.reason}
            break
    over = state.is_terminal()
    derived: Derived = {"termination": None, "winner": None, "scores": None, "places": None}
    mismatches: list[Mismatch] = []
    if error is None:
        derived, mismatches = _derive(rec, state, game)
    elif over:
        derived.update({"winner": state.winner(), "scores": state.scores(), "places": state.places()})
    return {
        "id": rec.id,
        "ok": error is None and not mismatches,
        "error": error,
        "over": over,
        **derived,
        "plies": len(state.moves),
        "mismatches": mismatches,
    }


def _derive(rec: GameRecord, state: State, game: Game) -> tuple[Derived, list[Mismatch]]:
    """The result the moves give and how it differs from the recorded one."""
    over = state.is_terminal()
    mismatches: list[Mismatch] = []

    def differs(field: str, derived: JsonValue) -> None:
        recorded = getattr(rec, field)
        if field in rec.model_fields_set and recorded != derived:
            mismatches.append({"field": field, "recorded": recorded, "derived": derived})

    termination: Termination | None
    if rec.termination is not None and rec.termination in ADJUDGED:
        return _adjudged(rec, state, rec.termination)
    if rec.termination is None or rec.termination is Termination.NORMAL:
        termination = Termination.NORMAL if over else None
        if rec.forfeit_seat is not None:
            mismatches.append(
                {
                    "field": "forfeit_seat",
                    "recorded": rec.forfeit_seat,
                    "derived": None,
                    "reason": "a game that ended by the rules has no forfeiting seat",
                }
            )
        if rec.termination is Termination.NORMAL and not over:
            mismatches.append(
                {
                    "field": "termination",
                    "recorded": "normal",
                    "derived": "not over",
                    "reason": "the recorded moves do not end the game",
                }
            )
        if not over:  # no result: a recorded one has nothing to stand on
            for field in ("winner", "scores", "places"):
                if getattr(rec, field) is not None:
                    mismatches.append(
                        {
                            "field": field,
                            "recorded": getattr(rec, field),
                            "derived": None,
                            "reason": "the moves do not end the game and no forfeit is recorded",
                        }
                    )
            return {"termination": termination, "winner": None, "scores": None, "places": None}, mismatches
        winner, scores, places = state.winner(), state.scores(), state.places()
    else:
        termination = rec.termination
        if over:
            mismatches.append(
                {
                    "field": "termination",
                    "recorded": rec.termination,
                    "derived": "normal",
                    "reason": "the recorded moves end the game by the rules",
                }
            )
        offenders, problem = _offenders(rec, game.players)
        if problem:
            mismatches.append({"field": "reason", "recorded": rec.reason, "derived": None, "reason": problem})
        if not offenders:
            return {"termination": termination, "winner": None, "scores": None, "places": None}, mismatches
        if (problem := _code_problem(rec, state)) is not None:
            mismatches.append({"field": "termination", "recorded": rec.termination, "derived": None, "reason": problem})
        scores, places = forfeit_result(state, offenders)
        winner = places.index(0) if places.count(0) == 1 else None
        if rec.forfeit_seat is None:
            mismatches.append(
                {
                    "field": "forfeit_seat",
                    "recorded": None,
                    "derived": offenders[0],
                    "reason": "a forfeit records the seat that lost it",
                }
            )
        differs("forfeit_seat", offenders[0])
    for field, value in (("winner", winner), ("scores", scores), ("places", places)):
        differs(field, value)
    return {"termination": termination, "winner": winner, "scores": scores, "places": places}, mismatches


def _adjudged(rec: GameRecord, state: State, code: Termination) -> tuple[Derived, list[Mismatch]]:
    """An adjudication's result where the moves end, and how the record differs from it."""
    mismatches: list[Mismatch] = []
    if state.is_terminal():
        mismatches.append(
            {
                "field": "termination",
                "recorded": code,
                "derived": "normal",
                "reason": "the recorded moves end the game by the rules",
            }
        )
    if rec.forfeit_seat is not None:
        mismatches.append(
            {
                "field": "forfeit_seat",
                "recorded": rec.forfeit_seat,
                "derived": None,
                "reason": "an adjudicated game has no forfeiting seat",
            }
        )
    try:
        scores, places = adjudged_result(state, code)
    except ValueError as exc:
        mismatches.append({"field": "termination", "recorded": code, "derived": None, "reason": str(exc)})
        return {"termination": code, "winner": None, "scores": None, "places": None}, mismatches
    winner = places.index(0) if places.count(0) == 1 else None
    for field, value in (("winner", winner), ("scores", scores), ("places", places)):
        recorded = getattr(rec, field)
        if field in rec.model_fields_set and recorded != value:
            mismatches.append({"field": field, "recorded": recorded, "derived": value})
    return {"termination": code, "winner": winner, "scores": scores, "places": places}, mismatches


# The referee's own wording of the forfeits a record can re-derive (arena/match.py, arena/tournament/worker.py).
_OWN_WORDS = {
    Termination.RESIGN: re.compile(r"resigned"),
    Termination.DROPPED: re.compile(r"dropped from the tournament\b.*"),
    Termination.ILLEGAL: re.compile(r"illegal move '(.*)': .*", re.S),
    Termination.ADJUDICATED_RESIGN: re.compile(r"adjudicated: its score was at most .*"),
}


def _code_problem(rec: GameRecord, state: State) -> str | None:
    """What contradicts the forfeit's code in its reason: a resignation, a drop and an illegal
    move are worded by the referee, so the words and the code must go together, and the move
    an 'illegal' reason quotes must be illegal where the recorded moves end."""
    seats, detail = _split_reason(rec)
    if seats is None:
        detail = (rec.reason or "").split(": ", 1)[1] if ": " in (rec.reason or "") else ""
    worded = next((code for code, words in _OWN_WORDS.items() if words.fullmatch(detail)), None)
    if worded != rec.termination and (worded is not None or rec.termination in _OWN_WORDS):
        return (
            f"the reason reads as {worded.value!r}"
            if worded
            else f"a {str(rec.termination)!r} forfeit's reason is worded by the referee, and this one is not"
        )
    if worded is Termination.ILLEGAL and (quoted := _OWN_WORDS[worded].fullmatch(detail)) is not None:
        move = quoted.group(1)
        if "\\" not in move and _is_legal(state, move):  # an escaped token cannot be replayed as written
            return f"the reason calls {move!r} illegal, but it is legal where the recorded moves end"
    return None


def _is_legal(state: State, move: str) -> bool:
    try:
        state.clone().play(move)
    except Exception:  # IllegalMove, or a token the referee cannot read at all: not legal either
        return False
    return True


def _split_reason(rec: GameRecord) -> tuple[list[int] | None, str]:
    """A forfeit's reason as the referee writes it, "NAME (seat N)[, NAME (seat M)]: detail":
    the seats and the detail.  With ``players`` the names are matched as recorded, so an
    engine named "x (seat 1): y" does not confuse it; None: no such prefix."""
    reason = rec.reason or ""
    if rec.players is None:
        head, sep, detail = reason.partition(": ")
        return ([int(n) for n in SEAT_IN_REASON.findall(head)] if sep else None), detail
    seats: list[int] = []
    pos = 0
    while True:
        seat = next(
            (
                k
                for k, name in enumerate(rec.players)
                if k not in seats and reason.startswith(f"{name} (seat {k})", pos)
            ),
            None,
        )
        if seat is None:
            return None, ""
        seats.append(seat)
        pos += len(f"{rec.players[seat]} (seat {seat})")
        if reason.startswith(": ", pos):
            return seats, reason[pos + 2 :]
        if not reason.startswith(", ", pos):
            return None, ""
        pos += 2


def _offenders(rec: GameRecord, players: int) -> tuple[list[int], str | None]:
    """The seats a forfeit's reason names ("name (seat 1): ..."; else its forfeit_seat), and
    what is wrong with the reason, if anything."""
    split, _ = _split_reason(rec)
    if split is None and rec.players is not None:  # the names do not match: read the seat numbers
        split = [int(n) for n in SEAT_IN_REASON.findall((rec.reason or "").split(": ", 1)[0])]
    named = split or []
    seats = [s for s in dict.fromkeys(named) if s < players]
    if len(seats) < len(set(named)):
        return seats, f"the reason names a seat the game does not have ({players} seats)"
    if seats:
        return seats, None
    fallback = [rec.forfeit_seat] if rec.forfeit_seat is not None and rec.forfeit_seat < players else []
    if rec.reason is None:
        return fallback, None if fallback else "a forfeit must name the seat that lost it"
    return fallback, "a forfeit's reason names the seat that lost it, as 'name (seat N): ...'"


def parse_line(number: int, line: str, source: str) -> GameRecord:
    """One line of JSON Lines as a record; RecordError for a line that is no record at all,
    ValueError for one whose fields are wrong."""
    where = f"{source}, line {number}"
    try:
        record = json.loads(line)
    except json.JSONDecodeError as exc:
        raise RecordError(f"{where}: not valid JSON ({exc.msg} at column {exc.colno})") from None
    except ValueError as exc:  # valid JSON that Python will not hold: an integer of 5,000 digits
        raise RecordError(f"{where}: {str(exc).split(';')[0]}; numbers in records have at most 4300 digits") from None
    except RecursionError:
        raise RecordError(f"{where}: values nested too deep to be a record") from None
    if not isinstance(record, dict):
        raise RecordError(f"{where}: a record must be a JSON object")
    if "game" not in record:
        raise RecordError(f'{where}: missing "game" (a game name such as "hex")')
    if not isinstance(record["game"], str):
        raise RecordError(
            f'{where}: "game" must be a string (a game name such as "hex"), got {_json_type(record["game"])}'
        )
    moves = record.get("moves")
    if not isinstance(moves, list) or not all(isinstance(m, str) for m in moves):
        raise RecordError(f'{where}: "moves" must be a list of move strings')
    if not isinstance(record.get("options", {}), dict):
        raise RecordError(f'{where}: "options" must be an object')
    return parse_record(record)


def _json_type(value: Any) -> str:
    if isinstance(value, bool):
        return "true" if value else "false"
    return {int: "a number", float: "a number", list: "a list", dict: "an object", type(None): "null"}.get(
        type(value), type(value).__name__
    )


def verify_lines(lines: Iterable[str | bytes], source: str) -> Iterator[LineVerdict]:
    """One verdict for each non-blank line, a bad line's included (``ok`` false, ``error``
    naming the line)."""
    for number, line in enumerate(lines, 1):
        record: Any = None
        try:
            text = _text(line, number, source)
            if not text.strip():
                continue
            record = _json_or_none(text)  # for the id of a record that turns out unusable
            verdict = _numbered(verify_record(parse_line(number, text, source)), number)
        except RecordError as exc:
            verdict = _bad(number, str(exc))
        except (OptionError, ValueError) as exc:
            verdict = _bad(number, f"{source}, line {number}: {exc}")
        if verdict["id"] is None and isinstance(record, dict) and _plain_int(record.get("id")):
            verdict["id"] = record["id"]
        yield verdict


def _numbered(verdict: Verdict, number: int) -> LineVerdict:
    return {"id": verdict["id"], "line": number, **verdict}  # the id first, as VERDICT_KEYS


def _text(line: str | bytes, number: int, source: str) -> str:
    if isinstance(line, bytes):
        try:
            return line.decode("utf-8")
        except UnicodeDecodeError:
            raise RecordError(
                f"{source}, line {number}: not UTF-8 text; records are JSON Lines (one "
                f"JSON object a line, UTF-8), as arena run writes to games.jsonl"
            ) from None
    return line


def _bad(number: int, reason: str) -> LineVerdict:
    return {
        "id": None,
        "line": number,
        "ok": False,
        "error": {"reason": reason},
        "over": None,
        "termination": None,
        "winner": None,
        "scores": None,
        "places": None,
        "plies": None,
        "mismatches": [],
    }


def _json_or_none(text: str) -> Any:
    try:
        return json.loads(text)
    except (ValueError, RecursionError):
        return None


def _plain_int(value: Any) -> bool:
    return isinstance(value, int) and not isinstance(value, bool)
