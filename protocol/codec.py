"""Encoding and decoding of protocol v1 lines (see PROTOCOL.md).

Pure functions shared by the referee (arena.engine.process) and the engine SDK, so the
two sides cannot drift apart.  Parsing never raises anything but
:class:`ProtocolError`, whose message quotes the offending line safely.
"""

from __future__ import annotations

import re
from collections.abc import Sequence
from dataclasses import dataclass, field

VERSION = 1
MAX_LINE = 64 * 1024

# Escape sequences first, so their parameters go with them (CSI and OSC, in their 7-bit
# ESC forms and 8-bit C1 forms \x9b and \x9d); then lone control characters, tabs and line
# breaks included, and the Unicode bidi controls that can make shown text read backwards.
_CONTROL = re.compile(
    r"(?:\x1b\[|\x9b)[0-?]*[ -/]*[@-~]|(?:\x1b\]|\x9d)[^\x07\x1b\x9c]*(?:\x07|\x1b\\|\x9c)?"
    r"|[\x00-\x1f\x7f-\x9f\u200e\u200f\u202a-\u202e\u2066-\u2069"
    # and the blanks other than the ASCII space, which would pass for one (or for
    # nothing: 'b3\u00a0' reads as 'b3'), with the invisible zero-width ones
    r"\u00a0\u1680\u2000-\u200d\u2028\u2029\u202f\u205f\u2060\u3000\ufeff]"
)


_ASCII_INT = re.compile(r"-?[0-9]{1,20}")  # 20 digits: any 64-bit number
_ASCII_NUMBER = re.compile(r"-?[0-9]{1,18}(?:\.[0-9]{1,18})?")
_ASCII_SCORE = re.compile(r"[+-]?[0-9]{1,18}(?:\.[0-9]{1,18})?")  # an info score may say +0.5


class ProtocolError(ValueError):
    """A line that is not valid protocol v1 for the side that received it."""


def sanitize(text: str, limit: int = 200) -> str:
    """Untrusted text made safe to show: escape sequences removed with their parameters,
    every other control character shown escaped (``\\x00``, ``\\u202e``) rather than
    deleted, so ``b3\\x00`` is not reported as ``b3``; truncated to ``limit`` characters."""
    clean = _CONTROL.sub(_escaped, text)
    return clean if len(clean) <= limit else clean[: limit - 1] + "…"


def _escaped(found: re.Match[str]) -> str:
    text = found.group()
    if len(text) > 1:
        return ""  # an escape sequence: its parameters would be noise
    code = ord(text)
    return f"\\x{code:02x}" if code < 0x100 else f"\\u{code:04x}"


def quote(text: str, limit: int = 200) -> str:
    """Untrusted text in quotes for a message (see :func:`sanitize`)."""
    return f"'{sanitize(text, limit)}'"


def words(line: str) -> list[str]:
    """The tokens of a protocol line: only the ASCII space separates them (PROTOCOL.md
    section 1).  ``str.split()`` would also split on, and so delete, \\x0b, \\x0c, \\x1c-\\x1f,
    \\x85, U+00A0, U+2028 and other Unicode blanks: 'move b3\\x0b' would pass as 'move b3'."""
    return [word for word in line.split(" ") if word]


def ascii_int(text: str, signed: bool = False) -> int:
    """A protocol number: ASCII digits only, at most 20 of them.  ``int()`` alone would take
    other scripts' digits, ``_`` and spaces, and ``str.isdigit()`` says yes to superscripts
    that ``int()`` then rejects; raises ProtocolError for anything else."""
    if _ASCII_INT.fullmatch(text) is None or (text.startswith("-") and not signed):
        raise ProtocolError(f"not a number in ASCII digits: {quote(text, 40)}")
    return int(text)


def ascii_float(text: str) -> float:
    """A protocol decimal number (``-?digits[.digits]``, ASCII only); raises ProtocolError."""
    if _ASCII_NUMBER.fullmatch(text) is None:
        raise ProtocolError(f"not a decimal number in ASCII digits: {quote(text, 40)}")
    return float(text)


# -- engine -> referee ----------------------------------------------------------


@dataclass(frozen=True)
class Id:
    key: str  # "name", "author", "games" or "go" (the optional go keys it takes)
    value: str


@dataclass(frozen=True)
class OptionDecl:
    name: str
    type: str
    default: str
    min: str | None = None
    max: str | None = None


@dataclass(frozen=True)
class ArenaOk:
    version: int


@dataclass(frozen=True)
class ReadyOk:
    pass


@dataclass(frozen=True)
class Move:
    token: str


@dataclass(frozen=True)
class Resign:
    pass


@dataclass(frozen=True)
class Info:
    text: str


SEARCH_KEYS = {"depth": int, "nodes": int, "score": float}


def search_info(text: str, known: dict[str, int | float] | None = None) -> dict[str, int | float] | None:
    """The optional search figures of an ``info`` line (PROTOCOL.md section 4): ``depth N``,
    ``nodes N`` (non-negative integers) and ``score S`` (a decimal number), over ``known``
    (the ones an earlier line of the same move gave).  Anything else, or a value that does
    not parse, is ignored: info is free text and never a fault.  Numbers are ASCII only:
    ``float()`` alone would read '\u0661\u0662' as 12, '1_000' as 1000, and 'nan' or '1e999'."""
    tokens = words(text)
    found = dict(known or {})
    for key, value in zip(tokens, tokens[1:]):
        kind = SEARCH_KEYS.get(key)
        if kind is int and _ASCII_INT.fullmatch(value) and not value.startswith("-"):
            found[key] = int(value)
        elif kind is float and _ASCII_SCORE.fullmatch(value):
            found[key] = float(value)
    return found or None


EngineMessage = Id | OptionDecl | ArenaOk | ReadyOk | Move | Resign | Info | None

_READY_OK = ReadyOk()
_RESIGN = Resign()


def parse_engine_line(line: str) -> EngineMessage:
    """Decode one line from an engine (without its newline; one trailing \\r is dropped).
    Empty lines give None."""
    if len(line) > MAX_LINE:
        raise ProtocolError(f"line longer than {MAX_LINE} bytes")
    # Only spaces are blanks (see words()): any other character stays in its token
    head, _, rest = line.removesuffix("\r").strip(" ").partition(" ")
    rest = rest.strip(" ")
    if head == "move":
        if not rest or " " in rest:
            raise ProtocolError(f"'move' needs exactly one token: {quote(line)}")
        return Move(rest)
    if head == "info":
        return Info(rest)
    if head == "readyok" and not rest:
        return _READY_OK
    if head == "" and not rest:
        return None
    if head == "resign" and not rest:
        return _RESIGN
    if head == "id":
        key, _, value = rest.partition(" ")
        if key in ("name", "author", "games", "go") and value.strip(" "):
            return Id(key, value.strip(" "))
    elif head == "arenaok":
        try:
            return ArenaOk(ascii_int(rest))
        except ProtocolError:
            pass
    elif head == "option":
        return _parse_option(line, rest)
    raise ProtocolError(f"not a protocol v1 engine line: {quote(line)}")


def _parse_option(line: str, rest: str) -> OptionDecl:
    fields: dict[str, str] = {}
    key = None
    for word in words(rest):
        if word in ("name", "type", "default", "min", "max"):
            key = word
            fields[key] = ""
        elif key is None:
            raise ProtocolError(f"malformed option line: {quote(line)}")
        else:
            fields[key] = (fields[key] + " " + word).strip(" ")
    if not fields.get("name") or fields.get("type") not in ("int", "string", "bool"):
        raise ProtocolError(f"option needs a name and a type int|string|bool: {quote(line)}")
    return OptionDecl(fields["name"], fields["type"], fields.get("default", ""), fields.get("min"), fields.get("max"))


def format_engine_message(msg: Id | OptionDecl | ArenaOk | ReadyOk | Move | Resign | Info) -> str:
    match msg:
        case Id(key, value):
            return f"id {key} {value}"
        case OptionDecl(name, type_, default, lo, hi):
            bounds = (f" min {lo}" if lo is not None else "") + (f" max {hi}" if hi is not None else "")
            return f"option name {name} type {type_} default {default}{bounds}"
        case ArenaOk(version):
            return f"arenaok {version}"
        case ReadyOk():
            return "readyok"
        case Move(token):
            return f"move {token}"
        case Resign():
            return "resign"
        case Info(text):
            return f"info {text}"
    raise TypeError(f"not an engine message: {msg!r}")


# -- referee -> engine ----------------------------------------------------------


@dataclass(frozen=True)
class Hello:
    version: int


@dataclass(frozen=True)
class SetOption:
    name: str
    value: str


@dataclass(frozen=True)
class NewGame:
    game: str
    seat: int
    players: int
    options: dict[str, str] = field(default_factory=dict)


@dataclass(frozen=True)
class Seed:
    value: int


@dataclass(frozen=True)
class Private:
    payload: str


@dataclass(frozen=True)
class IsReady:
    pass


@dataclass(frozen=True)
class Position:
    setup: str
    moves: tuple[str, ...]


@dataclass(frozen=True)
class Go:
    time: tuple[int, ...] | None = None
    inc: tuple[int, ...] | None = None
    movetime: int | None = None
    movestogo: int | None = None  # only to an engine that declared it (``id go``)
    nodes: int | None = None  # likewise


@dataclass(frozen=True)
class GameOver:
    scores: tuple[float, ...]
    reason: str


@dataclass(frozen=True)
class Quit:
    pass


RefereeCommand = Hello | SetOption | NewGame | Seed | Private | IsReady | Position | Go | GameOver | Quit


_TOKEN = re.compile(r"[!-~]+")  # printable ASCII, no space: a name the engine splits off as one word
# What may not appear in a one-line value: control characters (line feeds, carriage returns,
# NUL) and the characters that str.splitlines() and other readers also take as line breaks.
_NOT_ONE_LINE = re.compile(r"[\x00-\x1f\x7f-\x9f\u2028\u2029]")


def option_problem(name: str, value: str) -> str | None:
    """Why ``setoption NAME VALUE`` cannot be sent as written, or None: a name must be one
    token and a value one line, else the engine would read a different command (a value
    ``"3\\nquit"`` would make it quit)."""
    if not _TOKEN.fullmatch(name):
        return f"option name {quote(name, 60)} must be one word of printable ASCII characters (no spaces)"
    if _NOT_ONE_LINE.search(value):
        return f"option {name} = {quote(value, 60)} must be one line without control characters"
    return None


def format_setoption(name: str, value: str) -> str:
    """The ``setoption`` line; raises ValueError for a name or value it cannot carry."""
    problem = option_problem(name, value)
    if problem is not None:
        raise ValueError(problem)
    return f"setoption {name} {value}"


def format_newgame(game: str, seat: int, players: int, option_tokens: Sequence[str]) -> str:
    return " ".join(["newgame", game, str(seat), str(players), *option_tokens])


def format_position(setup: str, moves: Sequence[str]) -> str:
    return f"position {setup} moves {' '.join(moves)}" if moves else f"position {setup} moves"


def format_go(
    time: Sequence[int] | None = None,
    inc: Sequence[int] | None = None,
    movetime: int | None = None,
    movestogo: int | None = None,
    nodes: int | None = None,
) -> str:
    parts = ["go"]
    if time is not None:
        parts += ["time", ",".join(str(int(t)) for t in time)]
    if inc is not None:
        parts += ["inc", ",".join(str(int(i)) for i in inc)]
    if movetime is not None:
        parts += ["movetime", str(int(movetime))]
    if movestogo is not None:
        parts += ["movestogo", str(int(movestogo))]
    if nodes is not None:
        parts += ["nodes", str(int(nodes))]
    return " ".join(parts)


def format_gameover(scores: Sequence[float], reason: str) -> str:
    shown = " ".join(_number(s) for s in scores)
    return f"gameover {shown} {sanitize(reason)}".rstrip()


def _number(value: float) -> str:
    """ASCII decimal, as PROTOCOL.md's gameover defines it: never an exponent (1e-05)."""
    if float(value).is_integer():
        return str(int(value))
    return f"{value:.6f}".rstrip("0").rstrip(".")


def format_command(cmd: RefereeCommand) -> str:
    match cmd:
        case Hello(version):
            return f"arena {version}"
        case SetOption(name, value):
            return format_setoption(name, value)
        case NewGame(game, seat, players, options):
            return format_newgame(game, seat, players, [f"{k}={v}" for k, v in options.items()])
        case Seed(value):
            return f"seed {value}"
        case Private(payload):
            return f"private {payload}"
        case IsReady():
            return "isready"
        case Position(setup, moves):
            return format_position(setup, moves)
        case Go(time, inc, movetime, movestogo, nodes):
            return format_go(time, inc, movetime, movestogo, nodes)
        case GameOver(scores, reason):
            return format_gameover(scores, reason)
        case Quit():
            return "quit"
    raise TypeError(f"not a referee command: {cmd!r}")


def parse_command(line: str) -> RefereeCommand | None:
    """Decode one line from the referee (engine side), with or without its line end.
    Empty lines give None."""
    tokens = words(line.removesuffix("\n").removesuffix("\r"))
    if not tokens:
        return None
    head, args = tokens[0], tokens[1:]
    try:
        match head:
            case "arena":
                return Hello(ascii_int(args[0]))
            case "setoption":
                return SetOption(args[0], " ".join(args[1:]))
            case "newgame":
                options = dict(_split_option(tok) for tok in args[3:])
                return NewGame(args[0], ascii_int(args[1]), ascii_int(args[2]), options)
            case "seed":
                return Seed(ascii_int(args[0]))
            case "private":
                return Private(" ".join(args))
            case "isready":
                return IsReady()
            case "position":
                if len(args) < 2 or args[1] != "moves":
                    raise ProtocolError("position needs '<setup> moves ...'")
                return Position(args[0], tuple(args[2:]))
            case "go":
                return _parse_go(args)
            case "gameover":
                numbers = []
                for word in args:
                    try:
                        numbers.append(ascii_float(word))
                    except ProtocolError:
                        break
                return GameOver(tuple(numbers), " ".join(args[len(numbers) :]))
            case "quit":
                return Quit()
    except (IndexError, ValueError) as exc:
        if isinstance(exc, ProtocolError):
            raise
        raise ProtocolError(f"malformed {quote(head, 40)} command: {quote(line)}") from None
    raise ProtocolError(f"unknown command: {quote(line)}")


def _split_option(token: str) -> tuple[str, str]:
    key, eq, value = token.partition("=")
    if not eq or not key:
        raise ProtocolError(f"game option must be key=value, got {quote(token, 60)}")
    return key, value


def _parse_go(args: list[str]) -> Go:
    values: dict[str, str] = {}
    for key, value in zip(args[::2], args[1::2]):
        if key not in ("time", "inc", "movetime", "movestogo", "nodes"):
            raise ProtocolError(f"unknown go parameter {quote(key, 40)}")
        values[key] = value
    if len(args) % 2:
        raise ProtocolError("go parameters come in key value pairs")

    def per_seat(key: str) -> tuple[int, ...] | None:
        return tuple(ascii_int(v, signed=True) for v in values[key].split(",")) if key in values else None

    def single(key: str) -> int | None:
        return ascii_int(values[key]) if key in values else None

    return Go(per_seat("time"), per_seat("inc"), single("movetime"), single("movestogo"), single("nodes"))
