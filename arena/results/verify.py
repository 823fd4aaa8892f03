"""Re-checking game records against the rules (``arena verify``).

Input: JSON Lines, one record a line with at least ``game`` and ``moves``
(``options``, ``seed``, ``deal`` and ``setup`` optional; other keys ignored, so records
written by ``arena run`` verify as they are).  Output: one JSON verdict a line.
"""

from __future__ import annotations

import json
from typing import Any, Iterable, Iterator

from ..rules import IllegalMove, OptionError, make_game


class RecordError(Exception):
    """A line that is not a usable record; the message names the line."""


def verify_record(record: dict[str, Any]) -> dict[str, Any]:
    """The verdict for one parsed record; raises OptionError / ValueError for unusable ones."""
    game = make_game(record["game"], record.get("options") or {})
    state = initial_state(game, record)
    error = None
    for ply, move in enumerate(record["moves"]):
        try:
            state.play(move)
        except IllegalMove as exc:
            error = {"ply": ply, "move": move, "reason": exc.reason}
            break
    over = state.is_terminal()
    return {
        "ok": error is None,
        "error": error,
        "over": over,
        "winner": state.winner() if over else None,
        "scores": state.scores() if over else None,
        "plies": len(state.moves),
    }


def initial_state(game, record: dict[str, Any]):
    seed, setup = record.get("seed"), record.get("setup")
    if seed is not None:
        if not isinstance(seed, int) or isinstance(seed, bool) or seed < 0:
            raise ValueError("'seed' must be a non-negative integer")
        state = game.initial_state(seed)
        if setup is not None and state.setup_token() != setup:
            raise ValueError(f"'setup' does not match the setup that seed {seed} produces")
        deal = record.get("deal")
        if deal is not None:
            if not isinstance(deal, int) or isinstance(deal, bool) or deal < 0:
                raise ValueError("'deal' must be a non-negative integer")
            state.deal(deal)
        return state
    if setup is not None:
        if not isinstance(setup, str):
            raise ValueError("'setup' must be a string")
        return game.state_from_setup(setup)
    return game.initial_state()


def parse_line(number: int, line: str, source: str) -> dict[str, Any]:
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
        raise RecordError(f"{where}: missing \"game\" (a game name such as \"hex\")")
    if not isinstance(record["game"], str):
        raise RecordError(f"{where}: \"game\" must be a string (a game name such as \"hex\"), "
                          f"got {_json_type(record['game'])}")
    moves = record.get("moves")
    if not isinstance(moves, list) or not all(isinstance(m, str) for m in moves):
        raise RecordError(f"{where}: \"moves\" must be a list of move strings")
    if not isinstance(record.get("options", {}), dict):
        raise RecordError(f"{where}: \"options\" must be an object")
    return record


def _json_type(value: Any) -> str:
    if isinstance(value, bool):
        return "true" if value else "false"
    return {int: "a number", float: "a number", list: "a list", dict: "an object",
            type(None): "null"}.get(type(value), type(value).__name__)


def _decoded(lines: Iterable[str | bytes], source: str) -> Iterator[str]:
    """The lines as text; a line that is not UTF-8 (a binary file) is a RecordError."""
    for number, line in enumerate(lines, 1):
        if isinstance(line, bytes):
            try:
                line = line.decode("utf-8")
            except UnicodeDecodeError:
                raise RecordError(f"{source}, line {number}: not UTF-8 text; records are JSON Lines (one "
                                  f"JSON object a line, UTF-8), as arena run writes to games.jsonl") from None
        yield line


def verify_lines(lines: Iterable[str | bytes], source: str) -> Iterator[dict[str, Any]]:
    """Verdicts for each non-blank line; raises RecordError naming the bad line."""
    for number, line in enumerate(_decoded(lines, source), 1):
        if not line.strip():
            continue
        record = parse_line(number, line, source)
        try:
            yield verify_record(record)
        except (OptionError, ValueError) as exc:
            raise RecordError(f"{source}, line {number}: {exc}") from None
