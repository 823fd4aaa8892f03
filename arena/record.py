"""The game record every layer shares: :class:`GameRecord`, how a game ended
(:class:`Termination`), the forfeit rule and how a record's starting position is set up.

One definition for the match that writes records, the store that keeps them, ``arena verify``
that re-checks them and the tables, exports and site that read them.  It stands on the rules
alone, so that every layer above may import it.
"""

from __future__ import annotations

import hashlib
import secrets
from collections.abc import KeysView, Mapping, Sequence
from enum import StrEnum
from typing import Annotated, Any

import pydantic
from pydantic import BaseModel, ConfigDict, Field, GetPydanticSchema, ValidatorFunctionWrapHandler, WrapValidator

from .rules import Game, State
from .rules.base import JsonValue, OptionValue


class Termination(StrEnum):
    """How a game ended (PROTOCOL.md section 7); the value is what records store."""

    NORMAL = "normal"  # the rules ended the game
    TIMEOUT = "timeout"  # no move within the limit
    ILLEGAL = "illegal"  # a move the rules refuse
    CRASH = "crash"  # the engine exited, closed a pipe or could not start
    PROTOCOL = "protocol"  # a line the protocol does not allow
    HANDSHAKE = "handshake"  # start-up failed, or what the engine declares does not fit
    RESIGN = "resign"  # the engine resigned
    DROPPED = "dropped"  # the engine was dropped from the tournament (max_failures)
    # Adjudications (docs/adjudication.md): arena ended a game its rules had not ended.
    MAX_PLIES = "max-plies"  # the ply limit: a draw, or the game's own count as it stands
    ADJUDICATED_RESIGN = "adjudicated-resign"  # the engines' scores said a seat had lost
    ADJUDICATED_DRAW = "adjudicated-draw"  # the engines' scores stayed near even
    DECIDED = "decided"  # one seat's win could no longer be stopped

    @property
    def is_forfeit(self) -> bool:
        """A seat lost the game by what its engine did (or was, or said), not by the rules
        or by the position (an adjudication with a result of its own, :data:`ADJUDGED`)."""
        return self is not Termination.NORMAL and self not in ADJUDGED

    @property
    def is_adjudication(self) -> bool:
        """The tournament's adjudication ended the game (arena/adjudication.py), not its rules
        or an engine's fault."""
        return self in ADJUDGED or self is Termination.ADJUDICATED_RESIGN

    @property
    def is_failure(self) -> bool:
        """An engine failure that counts towards ``max_failures``: the engine is broken,
        not merely weak (a timeout, an illegal move or a resignation is a lost game)."""
        return self in _FAILURES


_FAILURES = frozenset({Termination.CRASH, Termination.HANDSHAKE, Termination.PROTOCOL})
# Adjudications whose result the position gives (adjudged_result), not one seat's loss.
ADJUDGED = frozenset({Termination.MAX_PLIES, Termination.ADJUDICATED_DRAW, Termination.DECIDED})
FORFEITS: tuple[Termination, ...] = tuple(t for t in Termination if t.is_forfeit)


def _as_given(value: Any, handler: ValidatorFunctionWrapHandler) -> Any:
    """Numbers checked as floats but kept as given: records on disk keep ``12``, not
    ``12.0``.  Whole lists are checked at once (in pydantic's core), then copied as given."""
    checked = handler(value)
    if isinstance(value, list):
        return list(value)
    return value if type(value) is int else checked


def _one_option_error(value: Any, handler: ValidatorFunctionWrapHandler) -> Any:
    """An option's value checked as one error, not one per type it could have been."""
    try:
        return handler(value)
    except pydantic.ValidationError:
        raise ValueError("an option's value is a number, text or true/false") from None


NonNegative = Annotated[int, Field(ge=0)]
Number = Annotated[float, WrapValidator(_as_given)]
Numbers = Annotated[list[float], WrapValidator(_as_given)]
RecordedOption = Annotated[OptionValue, WrapValidator(_one_option_error)]
# A JSON object of the rules' JsonValue, checked as pydantic's own JsonValue: pydantic builds
# no validator for a recursive alias, and its own keeps every value as given.
JsonObject = Annotated[
    Mapping[str, JsonValue], GetPydanticSchema(lambda _type, handler: handler(dict[str, pydantic.JsonValue]))
]


class GameRecord(BaseModel):
    """One game as every layer sees it: what the match wrote, what the store keeps and what
    ``arena verify`` re-checks.  Only ``game`` and ``moves`` are required, since a record
    given to ``arena verify`` may be partial; arena itself writes every field but the ones
    its match did not have (no ``move_info`` when no engine reported any, no
    ``opening_plies`` without a book, no ``started`` for a game lost before it began) and
    the runner adds ``id``, ``round`` and ``tournament``.

    The fields are in the order games.jsonl writes them; :meth:`to_json` gives the fields
    the record was made with, and unknown keys after them.  Types are strict (``"5"``,
    ``5.0`` or ``true`` where an integer belongs are errors); parse untrusted JSON with
    ``arena.results.verify.parse_record``, which names the field that is wrong.  Records are
    frozen: a change is a copy (:meth:`replace` checks it; the runner adds its own fields
    with ``model_copy``).  Attribute access is plain, with no validation per read.

    The JSON view, for code and tests that read records as JSON: ``record["key"]``,
    ``record.get("key")``, ``"key" in record`` and ``keys()`` (so ``{**record}`` and
    ``dict(record)`` give :meth:`to_json`); a key is there when :meth:`to_json` would write it."""

    model_config = ConfigDict(strict=True, frozen=True, extra="allow", allow_inf_nan=False)

    game: str
    options: dict[str, RecordedOption] = {}
    setup: str | None = None
    seed: NonNegative | None = None
    engine_seeds: list[int] | None = None  # empty: no engine was told of the game
    players: list[str] | None = None
    moves: list[str]
    times_ms: Numbers | None = None  # per move, the forfeiting one included
    termination: Termination | None = Field(None, strict=False)  # its value, as JSON holds it
    reason: str | None = None
    forfeit_seat: NonNegative | None = None
    winner: NonNegative | None = None
    scores: Numbers | None = None
    places: list[int] | None = None
    details: JsonObject | None = None
    deal: NonNegative | None = None  # the seed of the hidden part (see new_deal)
    move_info: list[JsonObject | None] | None = None  # per move: depth, nodes, score reported
    started: str | None = None
    duration_s: Number | None = None
    opening_plies: NonNegative | None = None  # the first moves were a book's, untimed
    opening_setup: bool | None = None  # true: the setup was a book's, not the one the seed deals
    faults: list[str] | None = None  # protocol faults that left the result standing (verify_score)
    id: int | None = None
    round: NonNegative | None = None
    tournament: str | None = None

    def replace(self, **changes: Any) -> GameRecord:
        """A copy with ``changes``, checked as any record is (``model_copy(update=...)``
        would take a termination code as a plain string)."""
        return type(self).model_validate({**self.to_json(), **changes})

    def to_json(self) -> dict[str, Any]:
        """The record as games.jsonl and arena.db hold it (plain values, keys in order)."""
        given = self.model_fields_set
        values = self.__dict__
        json = {name: values[name] for name in type(self).model_fields if name in given}
        json.update(self.__pydantic_extra__ or {})
        return json

    def __getitem__(self, key: str) -> Any:
        missing = object()
        if (value := self.get(key, missing)) is missing:
            raise KeyError(key)
        return value

    def __contains__(self, key: object) -> bool:
        return key in self.model_fields_set or key in (self.__pydantic_extra__ or {})

    def get(self, key: str, default: Any = None) -> Any:
        # Without going through ``in`` and ``[]``: the tables ask every record of a folder this way.
        fields = self.__dict__  # every model field, a default where the record has none
        if key in fields:
            return fields[key] if key in self.__pydantic_fields_set__ else default
        extra = self.__pydantic_extra__
        return extra.get(key, default) if extra else default

    def keys(self) -> KeysView[str]:
        return self.to_json().keys()


def lost_before_start(record: GameRecord | Mapping[str, Any]) -> bool:
    """A game lost before its first move because an engine did not play it: it could not
    start, or it was dropped (``max_failures``).  Such a record names no engine seeds (no
    engine was told of the game); a game an engine started and then lost, by a crash, a
    time loss or an illegal move, was played.  Records read as JSON are asked the same."""
    termination = record.get("termination")
    return record.get("engine_seeds") == [] and termination is not None and termination != Termination.NORMAL


def forfeit_result(state: State, offenders: Sequence[int]) -> tuple[list[float], list[int]]:
    """Scores and places after a forfeit (PROTOCOL.md section 7): the offender is last
    alone (several offenders share the last place); with more than two seats the
    others are placed by their scores so far.  The referee and ``arena verify`` both
    use it, so they agree by construction."""
    players = state.game.players
    bad = set(offenders)
    flat = [0.0 if seat in bad else 1.0 for seat in range(players)]
    if players == 2:
        scores = flat
    else:
        try:
            scores = [float(s) for s in state.scores()]
        except ValueError:  # a game without running scores: the others share first place
            scores = flat
    others = [scores[s] for s in range(players) if s not in bad]
    places = [len(others) if seat in bad else sum(1 for o in others if o > scores[seat]) for seat in range(players)]
    return scores, places


def adjudged_result(state: State, code: Termination) -> tuple[list[float], list[int]]:
    """Scores and places of a game adjudicated with ``code`` (one of :data:`ADJUDGED`) where
    ``state`` stands: at the ply limit the game's own count where it has one, else a draw;
    a draw adjudication, a draw; a decided game, a win for its decided seat.  The referee
    and ``arena verify`` both use it, so they agree by construction.  Raises ValueError for
    a decided game whose position is not decided."""
    players = state.game.players
    scores: list[float] | None = None
    if code is Termination.MAX_PLIES:
        scores = state.count_so_far()
    elif code is Termination.DECIDED:
        winner = state.decided_winner()
        if winner is None:
            raise ValueError("the position is not decided")
        scores = [1.0 if seat == winner else 0.0 for seat in range(players)]
    if scores is None:
        scores = [0.5] * players
    scores = [float(s) for s in scores]
    return scores, [sum(1 for other in scores if other > mine) for mine in scores]


def derive_seed(*parts: object) -> int:
    """A stable 63-bit seed from any parts (stable across processes and runs)."""
    digest = hashlib.blake2b(":".join(map(str, parts)).encode(), digest_size=8).digest()
    return int.from_bytes(digest, "big") >> 1


def starting_state(
    game: Game, seed: int, names: Sequence[str] = (), deal: int | None = None, setup: str | None = None
) -> tuple[State, int]:
    """The setup ``seed`` gives (or the book's ``setup`` token, in a game that deals its
    board), with its hidden part dealt from ``deal`` (a new deal, see :func:`new_deal`, when
    None; a replay passes the record's)."""
    if deal is None:
        deal = new_deal(game, seed, names)
    state = game.initial_state(seed) if setup is None else game.state_from_setup(setup)
    state.deal(deal)
    return state, deal


def new_deal(game: Game, seed: int, names: Sequence[str]) -> int:
    """The seed of a game's hidden part.  Where seats hide information (Posies variant 2) it
    is drawn from the operating system's randomness when the game starts and is known only
    to the referee until the record is written at the end: a deal derived from the master
    seed could be computed by any engine that reads the tournament file, or that tries
    small seeds against the public setup.  Other games keep a deal derived from the seed and
    the seat order, so their reruns are identical."""
    if game.hides_information:
        return secrets.randbits(63)
    return derive_seed(seed, "deal", *names)


def replay_start(
    game: Game,
    seed: int | None = None,
    setup: str | None = None,
    deal: int | None = None,
    opening_setup: bool | None = None,
) -> State:
    """The state a record starts from: its seed's setup (with its own deal if it has one),
    or its setup token (a deal, if given, draws the hidden part: Posies variant 2).  A
    record whose ``opening_setup`` says its board was an opening book's starts from its setup
    token whatever its seed deals (the seed gave the engines' seeds, and the deal where it
    is not secret); no other record's setup may differ from its seed's.  Raises ValueError
    when the record cannot say (a hidden part without its deal, a setup its seed does not
    give)."""
    if opening_setup:
        if setup is None:
            raise ValueError(
                "'opening_setup' is true but the record has no 'setup': the book's board is recorded there"
            )
        seed = None  # the setup is the book's
    if seed is not None:
        if deal is None and game.hides_information:
            raise ValueError(
                f"missing 'deal': this {game.name} game's hidden pieces are drawn apart from its seed "
                "and recorded in 'deal'"
            )
        state = game.initial_state(seed)
        if setup is not None and state.setup_token() != setup:
            raise ValueError(f"'setup' does not match the setup that seed {seed} produces")
    elif setup is not None:
        if deal is None and game.hides_information:
            raise ValueError(f"missing 'deal': this {game.name} game's record carries its hidden pieces there")
        state = game.state_from_setup(setup)
    elif game.random_setup:
        raise ValueError(f"missing 'setup' (or 'seed'): a {game.name} record names its random board there")
    else:
        state = game.initial_state()
    if deal is not None:
        state.deal(deal)
    return state


def record_start(game: Game, record: GameRecord) -> State:
    """The state ``record`` starts from (:func:`replay_start` of its seed, setup, deal and
    book-board mark)."""
    return replay_start(game, record.seed, record.setup, record.deal, record.opening_setup)
