"""The interface every ruleset implements.

Modelled on OpenSpiel's split: a :class:`Game` holds the validated options and
builds states; a :class:`State` is one position that changes only through
:meth:`State.play`, which either applies a legal move or raises
:class:`IllegalMove` with a reason a human can act on.  Rules code is pure and
deterministic: the only randomness is the ``seed`` given to
:meth:`Game.initial_state`, which the caller records.

Moves are protocol tokens (see ``protocol/PROTOCOL.md``): one string without
whitespace, e.g. ``e5``, ``swap``, ``c3,e5,g2`` or ``c3-c7``.

A game's options are declared in plain Python (:class:`GameOptions`, :func:`option`), so that
an engine process, which builds its game from the referee's validated ``newgame`` tokens
(:meth:`Game.from_tokens`), never loads pydantic: pydantic checks options where they come
from people and files (:meth:`Game.from_options`), and is imported there, on first use.
"""

from __future__ import annotations

from abc import ABC, abstractmethod
from collections.abc import Callable, Iterable, Mapping, Sequence
from dataclasses import dataclass
from random import Random
from typing import TYPE_CHECKING, Any, ClassVar, Literal, Self, get_args, get_origin, get_type_hints

from .picture import BoardPicture, Ending
from .translation import Translation

if TYPE_CHECKING:
    from pydantic import BaseModel, ValidationError


class IllegalMove(Exception):
    """A move the rules do not allow; ``reason`` names the rule that forbids it."""

    def __init__(self, move: str, reason: str) -> None:
        super().__init__(f"illegal move {move!r}: {reason}")
        self.move = move
        self.reason = reason


class OptionError(ValueError):
    """Game options that do not validate; the message names the option and what is allowed."""


# A game option's value as a game's options hold it (a size, a switch, a layout's name), and a
# game's options by name, typed (a tournament file's, the command line's converted, a record's).
OptionValue = int | float | str | bool
Options = Mapping[str, OptionValue]
# A value of a JSON document (text, a number, true/false, null, an array, an object), read-only.
JsonValue = str | int | float | bool | None | Sequence["JsonValue"] | Mapping[str, "JsonValue"]
# What a finished game's record says of it besides the result (its winning chain, territory,
# revealed pieces): a JSON object, written into the record as it is.
Details = Mapping[str, JsonValue]


@dataclass(frozen=True)
class Option:
    """One option as a game declares it (see :func:`option`)."""

    default: OptionValue
    ge: int | float | None = None
    le: int | float | None = None
    description: str = ""
    canonical: Callable[[Any], Any] | None = None


def option(
    default: OptionValue,
    *,
    ge: float | None = None,
    le: float | None = None,
    description: str = "",
    canonical: Callable[[Any], Any] | None = None,
) -> Any:
    """Declare an option of a :class:`GameOptions`: its default, its bounds (a number's), what
    it means (the play page shows it), and ``canonical``, which turns a valid value into the
    spelling the game keeps, or raises ValueError naming what is wrong (a layout's syntax)."""
    return Option(default, ge, le, description, canonical)


class GameOptions:
    """Base for each game's options, declared as annotated class attributes with :func:`option`
    (``size: int = option(11, ge=2, le=26)``): unknown keys are errors, values are immutable.
    ``declared`` holds the declarations by name, in order."""

    declared: ClassVar[dict[str, Option]] = {}

    def __init_subclass__(cls, **kwargs: Any) -> None:
        super().__init_subclass__(**kwargs)
        own = {name: value for name, value in vars(cls).items() if isinstance(value, Option)}
        cls.declared = {**cls.declared, **own}

    def __init__(self, **values: OptionValue) -> None:
        """Options already valid (see :meth:`Game.from_options`); those not given take their default."""
        unknown = set(values) - set(self.declared)
        if unknown:
            raise TypeError(f"{type(self).__name__} has no option {sorted(unknown)[0]!r}")
        for name, declared in self.declared.items():
            object.__setattr__(self, name, values.get(name, declared.default))

    def __setattr__(self, name: str, value: object) -> None:
        raise AttributeError(f"game options are immutable: cannot set {name!r}")

    @classmethod
    def prepared(cls, raw: dict[str, Any]) -> dict[str, Any]:
        """The raw options before they are checked: a game whose defaults follow another option
        (Hex Go's ply cap follows its size) fills them in here."""
        return raw

    def model_dump(self, mode: Literal["python", "json"] = "python") -> dict[str, OptionValue]:
        """Every option by name, defaults filled in (the values are JSON's in either ``mode``)."""
        return {name: getattr(self, name) for name in self.declared}

    def model_copy(self, update: Mapping[str, OptionValue]) -> Self:
        """A copy with the options in ``update`` changed (unchecked: the caller's are valid)."""
        return type(self)(**{**self.model_dump(), **update})

    def __eq__(self, other: object) -> bool:
        return isinstance(other, GameOptions) and type(other) is type(self) and self.model_dump() == other.model_dump()

    def __hash__(self) -> int:
        return hash((type(self), tuple(self.model_dump().items())))

    def __repr__(self) -> str:
        return f"{type(self).__name__}({', '.join(f'{k}={v!r}' for k, v in self.model_dump().items())})"


class Game(ABC):
    """A ruleset with fixed options.  Cheap to build; share one per match."""

    name: ClassVar[str]
    Options: ClassVar[type[GameOptions]]
    # The engine protocols that can play it: "arena" (protocol/PROTOCOL.md) always; "gtp" where
    # the game is one GTP programs play (arena.engine.gtp).
    protocols: ClassVar[tuple[str, ...]] = ("arena",)
    # Each seat's fixed colour, for tables ("score % as red"); empty where seats have none
    # (a swap or three seats decide colours per game).
    seat_names: ClassVar[tuple[str, ...]] = ()
    # The token with which the second player takes over the first move, if the game has one.
    swap_move: ClassVar[str | None] = None
    # Record formats besides arena's own that the game exports to (arena.results: "sgf").
    exports: ClassVar[tuple[str, ...]] = ()
    # Whether the starting position is dealt at random, so a record must name it (its setup).
    random_setup: ClassVar[bool] = False
    # Options for ``arena check-engine``'s games: small boards, the protocol is tested, not play.
    check_options: ClassVar[Mapping[str, OptionValue]] = {}
    # Options ``arena ladder`` rates the bundled search engine's levels at (arena.ladder); None:
    # the game has no ladder.  A board where the hard level's counts finish well within the clock.
    ladder_options: ClassVar[Mapping[str, OptionValue] | None] = None
    # Whether a finished game can leave two seats level (a draw or a shared place); False where
    # the rules always rank every seat, as Hex's (a full board holds one winning chain).  It
    # sets TrueSkill's draw probability (arena.results.ratings).
    can_draw: ClassVar[bool] = True
    # True when the seats take turns in order, one move each, from the start position's
    # player to move to the end (the swap move included): a record's movers then follow
    # without replaying it (arena.results.stats).
    takes_turns: ClassVar[bool] = False
    # Whether State.decided_winner can tell a game won before its end (arena's decided-position
    # adjudication); the tournament refuses that adjudication for a game that cannot.
    tells_decided: ClassVar[bool] = False

    def __init__(self, options: GameOptions) -> None:
        self.options = options

    @classmethod
    def from_options(cls, raw: Mapping[str, Any] | None = None, *, strict: bool = False) -> Game:
        """Validate raw options: ``strict`` for typed ones (a tournament file, a record), where
        ``"5"``, ``5.0`` or ``true`` for an integer are errors; otherwise text (the CLI's
        ``-O size=9``) is converted."""
        from pydantic import ValidationError

        model = validation_model(cls.Options)
        try:
            raw = cls.Options.prepared(dict(raw or {}))
            raw = raw if strict else _literal_ints(model, raw)
            checked = model.model_validate(raw, strict=strict)
        except ValidationError as exc:
            raise OptionError(describe_validation_error(cls.name, exc, model)) from None
        return cls(cls.Options(**checked.model_dump()))

    @classmethod
    def from_tokens(cls, tokens: Mapping[str, str]) -> Game:
        """The game of a referee's ``newgame`` line, its options as the referee sends them
        (:meth:`option_tokens`: every option, checked by :meth:`from_options`, in the text
        :func:`format_option_value` writes), read back by each option's declared type: an
        engine builds its game this way, without pydantic."""
        raw = cls.Options.prepared(dict(tokens))
        declared = cls.Options.declared
        unknown = [key for key in raw if key not in declared]
        if unknown:
            raise OptionError(f"{cls.name}: unknown option {unknown[0]!r} (allowed: {', '.join(declared)})")
        return cls(cls.Options(**{key: parse_option_value(key, raw[key], declared[key].default) for key in raw}))

    @property
    def players(self) -> int:
        return 2

    @property
    def max_plies(self) -> int | None:
        """The most plies a game can last (None: no bound); the runner's watchdog uses it."""
        return None

    @property
    def hides_information(self) -> bool:
        """Whether seats hold secrets the others must not learn (see State.deal)."""
        return False

    def option_tokens(self) -> list[str]:
        """All options, defaults filled in, as ``key=value`` protocol tokens."""
        return [f"{k}={format_option_value(v)}" for k, v in self.options.model_dump().items()]

    @abstractmethod
    def initial_state(self, seed: int = 0) -> State:
        """The starting position; games with a random setup derive it from ``seed``."""

    def state_from_setup(self, setup: str) -> State:
        """The starting position described by a protocol setup token (``start`` if none)."""
        if setup != "start":
            raise OptionError(f"{self.name} has no random setup; expected 'start', got {setup!r}")
        return self.initial_state()

    @abstractmethod
    def picture(self) -> BoardPicture:
        """How the board is drawn (arena.rules.picture): the report site's viewer draws it."""

    def translation(self) -> Translation | None:
        """How GTP programs and SGF files name this game's board and moves
        (arena.rules.translation); None where no program outside arena plays it.  A game
        with one lists ``gtp`` in :attr:`protocols` and ``sgf`` in :attr:`exports`."""
        return None

    def check_positions(self, start: Start) -> list[CheckPosition]:
        """Positions ``arena check-engine`` asks an engine to move in, on a game built with
        :attr:`check_options`; ``start(game, seed)`` gives a game's dealt starting state."""
        return []


Start = Callable[["Game", int], "State"]


@dataclass(frozen=True)
class CheckPosition:
    """One conformance position: its label and how to reach it (deterministically)."""

    label: str
    build: Callable[[], State]


class State(ABC):
    """One position.  Mutated only by :meth:`play`; use :meth:`clone` to branch."""

    game: Game  # each game's State narrows it to its own Game
    _moves: list[str]  # every state keeps its canonical move list here
    cells: Sequence[int]  # every cell's contents, as the game codes them (see Game.picture)

    @property
    def moves(self) -> list[str]:
        """Canonical tokens of the moves played so far (do not modify)."""
        return self._moves

    def current_player(self) -> int:
        """Seat to move; undefined once the game is over.  Default: seats take turns."""
        return len(self._moves) % self.game.players

    @abstractmethod
    def is_terminal(self) -> bool: ...

    @abstractmethod
    def play(self, move: str) -> None:
        """Apply ``move`` for the player to move or raise :class:`IllegalMove`.

        On IllegalMove the state is unchanged.
        """

    @abstractmethod
    def legal_moves(self) -> list[str]:
        """Every legal move token for the player to move (empty when terminal)."""

    def random_move(self, rng: Random) -> str:
        """A random legal move: ``rng.choice(self.legal_moves())``.  Games whose move
        lists are long override it with a sampler that does not build the list."""
        legal = self.legal_moves()
        if not legal:
            raise ValueError("the game is over")
        return rng.choice(legal)

    def playout(self, rng: Random, max_plies: int) -> bool:
        """Play :meth:`random_move` until the game ends (True) or ``max_plies`` more
        plies have been played (False): the rollout of Monte Carlo engines and the
        bench's random games.  Games may override it with a faster loop that plays
        the very same moves."""
        play, sample, is_terminal = self.play, self.random_move, self.is_terminal
        for _ in range(max_plies):
            if is_terminal():
                return True
            play(sample(rng))
        return is_terminal()

    @abstractmethod
    def scores(self) -> list[float]:
        """Per-seat result of a finished game: the game's own points where it has
        them, else 1 / 0 (0.5 each for a draw)."""

    @abstractmethod
    def winner(self) -> int | None:
        """The single winning seat of a finished game, or None (draw, shared top, not over)."""

    @abstractmethod
    def clone(self) -> State: ...

    @abstractmethod
    def render(self) -> str:
        """A text diagram of the position for terminals and logs."""

    def end_reason(self) -> str:
        """Why the game ended, in a few words (e.g. ``connection``, ``board full``)."""
        return "game over"

    def setup_token(self) -> str:
        """The protocol setup token of this game's starting position."""
        return "start"

    def private_info(self, seat: int) -> list[str]:
        """Protocol ``private`` payloads for ``seat`` only (hidden pieces); usually none."""
        return []

    def deal(self, seed: int) -> None:  # noqa: B027 (a hook: most games have nothing to deal)
        """Draw the private part of the setup (hidden pieces) from its own seed, before the
        first move.  Games without hidden information have nothing to draw."""

    def apply_private(self, seat: int, payload: str) -> None:
        """Learn a ``private`` payload meant for ``seat`` (engine side); raises ValueError
        for payloads the game does not send."""
        raise ValueError(f"{self.game.name} sends no private information, got {payload!r}")

    def play_placements(self, moves: Sequence[str]) -> list[tuple[int, int, int]]:
        """Play the leading ``moves`` that only put a piece on an empty cell, the one cell the
        token names (``picture().move_cells``), changing nothing else: for each, the seat that
        moved, the cell and the piece (its value in ``cells``).  Stops before the first move
        that is anything else (a capture, a swap, an illegal move: :meth:`play`'s to judge).
        A replay of many games (the report site's) asks it for the frames of such moves
        without comparing boards; a game that cannot tell plays none (the default)."""
        return []

    def details(self) -> Details:
        """Extra facts for the game record (winning chain, territory, revealed pieces)."""
        return {}

    def seat_colours(self) -> list[str]:
        """Each seat's colour by now, as the viewer names it ("" for none)."""
        return list(self.game.seat_names) or [""] * self.game.players

    def status(self, players: Sequence[str]) -> str:
        """What a spectator knows besides the board (scores, groups), seats named ``players``;
        never a hidden piece or a score that would give one away."""
        return ""

    def ending(self, players: Sequence[str]) -> Ending:
        """What a finished game shows (its winning chain, territory, hidden pieces)."""
        return Ending()

    def count_so_far(self) -> list[float] | None:
        """Each seat's score by the game's own count in an unfinished position (HexGo's
        territory, Posies' points), for a game arena stops at its ply limit; None where the
        game has no count before its end: the stopped game is then a draw."""
        return None

    def decided_winner(self) -> int | None:
        """The seat whose win no play can stop any more, where the game can tell (see
        ``Game.tells_decided``); None: not decided, or not known.  Never a guess: a seat
        named here wins whatever is played."""
        return None

    def places(self) -> list[int]:
        """Finishing place per seat (0 = first); equal scores share a place."""
        scores = self.scores()
        return [sum(1 for other in scores if other > mine) for mine in scores]


def random_position(
    game: Game, start: Start, accept: Callable[[State], bool], seed: int = 1, tries: int = 400
) -> State:
    """The first position of seeded random games that ``accept`` takes (not over)."""
    rng = Random(seed)
    for _ in range(tries):
        state = start(game, rng.randrange(1 << 30))
        while not state.is_terminal():
            if accept(state):
                return state
            state.play(state.random_move(rng))
    raise RuntimeError(f"no {game.name} position found for a conformance check")


def draw_below(getrandbits: Callable[[int], int], n: int) -> int:
    """A random index below ``n`` drawn exactly as ``Random.choice`` draws it (its
    ``_randbelow``: rejection sampling on ``n.bit_length()`` random bits), so that a
    sampler over a list it keeps itself makes the same choice, with the same draws,
    as ``rng.choice`` of that list."""
    k = n.bit_length()
    r = getrandbits(k)
    while r >= n:
        r = getrandbits(k)
    return r


_VALIDATION_MODELS: dict[type[GameOptions], type[BaseModel]] = {}


def validation_model(options: type[GameOptions]) -> type[BaseModel]:
    """The pydantic model that checks a game's options, built from their declaration on first
    use (its fields carry each option's type, default, bounds and meaning)."""
    if options not in _VALIDATION_MODELS:
        _VALIDATION_MODELS[options] = _built_model(options)
    return _VALIDATION_MODELS[options]


def _built_model(options: type[GameOptions]) -> type[BaseModel]:
    from typing import Annotated

    from pydantic import AfterValidator, ConfigDict, Field, create_model

    hints = get_type_hints(options)
    fields: dict[str, Any] = {}
    for name, declared in options.declared.items():
        hint = hints[name] if declared.canonical is None else Annotated[hints[name], AfterValidator(declared.canonical)]
        fields[name] = (hint, Field(declared.default, ge=declared.ge, le=declared.le, description=declared.description))
    config = ConfigDict(extra="forbid", frozen=True)
    model: type[BaseModel] = create_model(options.__name__, __config__=config, **fields)
    return model


def parse_option_value(key: str, text: str, default: OptionValue) -> OptionValue:
    """An option's value from its protocol token, typed as its default: the inverse of
    :func:`format_option_value`."""
    try:
        if isinstance(default, bool):
            return {"true": True, "false": False}[text]
        return type(default)(text)
    except (KeyError, ValueError):
        raise OptionError(f"option {key!r}: {shown_input(text)} is not a {type(default).__name__}") from None


def _literal_ints(model: type[BaseModel], raw: dict[str, object]) -> dict[str, object]:
    """Options arrive as text from the protocol and the CLI; pydantic converts "9" for an
    int field but not for ``Literal[2, 3]``, so convert those here."""
    for key, value in raw.items():
        field = model.model_fields.get(key)
        if field is None or not isinstance(value, str) or get_origin(field.annotation) is not Literal:
            continue
        choices = get_args(field.annotation)
        if all(type(c) is int for c in choices) and value.lstrip("-").isdigit():
            raw[key] = int(value)
    return raw


def format_option_value(value: OptionValue) -> str:
    if isinstance(value, bool):
        return "true" if value else "false"
    return str(value)


def describe_validation_error(game: str, exc: ValidationError, model: type[BaseModel]) -> str:
    parts = []
    for err in exc.errors():
        where = ".".join(str(p) for p in err["loc"]) or "options"
        if err["type"] == "extra_forbidden":
            allowed = ", ".join(model.model_fields) or "none"
            meant = did_you_mean(where, model.model_fields)
            hint = f"did you mean {meant!r}? " if meant is not None else ""
            parts.append(f"unknown option {where!r} ({hint}allowed: {allowed})")
        else:
            parts.append(f"option {where!r}: {err['msg']} (got {shown_input(err.get('input'))})")
    return f"{game}: " + "; ".join(parts)


def did_you_mean(word: str, known: Iterable[str]) -> str | None:
    """The known name that ``word`` most likely misspells, for an error message (difflib's
    closest, as click's suggestions; a little stricter, so 'colour' suggests nothing rather
    than 'cluster'), or None."""
    import difflib  # only for a message: a process that writes none need not load it

    found = difflib.get_close_matches(word, list(known), n=1, cutoff=0.7)
    return found[0] if found else None


def shown_input(value: Any, limit: int = 60) -> str:
    """A rejected value for an error message: its repr, truncated (a 4,000-digit option would
    fill the screen), and never an error itself (repr of an int over 4300 digits raises)."""
    try:
        text = repr(value)
    except ValueError:
        return "a number too long to show"
    return text if len(text) <= limit else text[: limit - 3] + "..."
