"""Property tests: random and mutated input never crashes arena, and every rejection
carries a reason.

- protocol lines from an engine (the parser and the referee's line reader, over a
  real pipe) and from the referee (the SDK's parser);
- move strings for every game, in the opening and in the middle of a game;
- records for ``arena verify`` and tournament files for ``arena run``.
"""

import json
import os
import random
import time

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from arena.engine import gtp
from arena.engine.declared import declaration_problem
from arena.engine.gtp import GtpEngine
from arena.engine.pipes import LinePipes
from arena.engine.player import EngineFault, EngineSpec
from arena.engine.process import EngineProcess
from arena.results.verify import VERDICT_KEYS, verify_lines
from arena.rules import GAMES, IllegalMove, make_game
from arena.tournament.config import ConfigError, load_tournament
from protocol import codec
from protocol.codec import ProtocolError

HEX5 = make_game("hex", {"size": 5}).translation()
FAST = settings(max_examples=150, deadline=None, suppress_health_check=[HealthCheck.too_slow])

VALID_ENGINE_LINES = [
    "id name RandomBot",
    "id author Jane Doe",
    "option name depth type int default 3 min 1 max 9",
    "arenaok 1",
    "readyok",
    "move e5",
    "move c3,e5,g2",
    "move c3-c5/f2",
    "resign",
    "info depth 3 score 0.52",
    "",
]
VALID_COMMANDS = [
    "arena 1",
    "setoption depth 5",
    "newgame hex 0 2 size=9 swap=true",
    "seed 8812",
    "isready",
    "private hidden green",
    "position start moves e5 swap",
    "go time 59000,60000 inc 0,0 movetime 5000",
    "gameover 1 0 Blue connected",
    "quit",
]
NASTY = "\x00\x1b\x07\x7f\x9b\r\t \u2028\ufeff\udcff=,-/"


@st.composite
def mutated(draw, valid: list[str]) -> str:
    """A valid line with a few random edits: insert, delete, replace, duplicate."""
    line = list(draw(st.sampled_from(valid)))
    for _ in range(draw(st.integers(1, 4))):
        pos = draw(st.integers(0, len(line)))
        op = draw(st.sampled_from(["insert", "delete", "replace", "duplicate"]))
        char = draw(st.one_of(st.sampled_from(NASTY), st.characters()))
        if op == "insert" or not line:
            line.insert(pos, char)
        elif op == "delete":
            del line[min(pos, len(line) - 1)]
        elif op == "replace":
            line[min(pos, len(line) - 1)] = char
        else:
            line[pos:pos] = line[: draw(st.integers(0, len(line)))]
    return "".join(line)


# Digits of every script, superscripts, fractions, '_' and signs: str.isdigit() and int()
# disagree on many of them, and protocol numbers are ASCII digits only.
TRICKY_DIGITS = "0123456789_+-.\u00b9\u00b2\u00b3\u2070\u2081\u2460\u0661\u06f5\u0966\uff11\U0001d7ce"
NUMBER_TEXT = st.one_of(
    st.text(st.sampled_from(TRICKY_DIGITS), min_size=1, max_size=6),
    st.text(st.characters(categories=("Nd", "No", "Nl")), max_size=24),
)
ENGINE_HEADS = [
    "arenaok ",
    "option name depth type int default ",
    "option name d type int default 3 min ",
    "option name d type int default 1 min 0 max ",
    "option name b type bool default ",
    "id name ",
    "move ",
    "info depth ",
    "readyok ",
    "resign ",
]
COMMAND_HEADS = [
    "arena ",
    "seed ",
    "newgame hex ",
    "newgame hex 0 ",
    "go movetime ",
    "go time ",
    "go inc 1,",
    "gameover ",
    "setoption depth ",
    "position start moves ",
]


def with_numbers(heads: list[str]) -> st.SearchStrategy[str]:
    return st.tuples(st.sampled_from(heads), NUMBER_TEXT).map("".join)


def engine_lines() -> st.SearchStrategy[str]:
    return st.one_of(st.text(max_size=200), mutated(VALID_ENGINE_LINES), with_numbers(ENGINE_HEADS))


def checked_option_line(line: str) -> None:
    """The conformance checker's reading of an option declaration (its numbers too)."""
    msg = codec.parse_engine_line(line)
    if isinstance(msg, codec.OptionDecl):
        declaration_problem(msg)


# Every parser of text that comes from the other side (each may raise ProtocolError only).
# The GTP bridge's reader has its own test below.
ENGINE_TEXT_PARSERS = [codec.parse_engine_line, checked_option_line]
REFEREE_TEXT_PARSERS = [codec.parse_command]


@settings(max_examples=400, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(
    st.one_of(
        engine_lines(),
        with_numbers(COMMAND_HEADS),
        st.text(max_size=300),
        st.binary(max_size=200).map(lambda b: b.decode("utf-8", "replace")),
    )
)
@pytest.mark.slow
def test_every_parser_of_the_other_sides_text_raises_only_protocol_error(line):
    for parse in ENGINE_TEXT_PARSERS + REFEREE_TEXT_PARSERS:
        try:
            parse(line)
        except ProtocolError as exc:
            assert str(exc) and not any(ch in str(exc) for ch in "\x00\x1b\x07\x9b\n")


@FAST
@given(engine_lines())
def test_engine_line_parser_returns_a_message_or_a_reasoned_protocol_error(line):
    try:
        msg = codec.parse_engine_line(line)
    except ProtocolError as exc:
        assert str(exc)
        assert not any(ch in str(exc) for ch in "\x1b\x07\x9b")  # the reason quotes safely
    else:
        if msg is not None:
            codec.format_engine_message(msg)


@FAST
@given(st.one_of(st.text(max_size=200), mutated(VALID_COMMANDS)))
def test_command_parser_returns_a_command_or_a_reasoned_protocol_error(line):
    try:
        codec.parse_command(line)
    except ProtocolError as exc:
        assert str(exc)


def reader_over_pipe(payload: bytes, kind: type[EngineProcess] = EngineProcess) -> EngineProcess:
    """An EngineProcess (or a GtpEngine) reading ``payload`` (then end of file) from a real pipe."""
    proc = kind(EngineSpec("fuzz", ("none",)))
    streams = []
    for data in (b"", payload, b""):  # stdin (never written), stdout, stderr (empty)
        read_fd, write_fd = os.pipe()
        os.write(write_fd, data)
        os.close(write_fd)
        os.set_blocking(read_fd, False)
        streams.append(os.fdopen(read_fd, "rb", buffering=0))
    proc.transport.pipes = LinePipes(*streams, None, proc.transport.waiting, lambda chunk: None)
    return proc


@FAST
@given(
    st.one_of(
        st.binary(max_size=4000),
        st.lists(st.one_of(engine_lines(), st.text(max_size=30), with_numbers(ENGINE_HEADS)), max_size=20).map(
            lambda lines: "\n".join(lines).encode("utf-8", "surrogatepass")
        ),
    )
)
@pytest.mark.slow
def test_referee_line_reader_turns_any_byte_stream_into_messages_or_one_fault(payload):
    proc = reader_over_pipe(payload)
    try:
        for _ in range(len(payload) + 2):
            try:
                proc._read_message(time.monotonic() + 5, "timeout", "no move")
            except EngineFault as exc:
                assert exc.code in ("protocol", "crash") and exc.reason
                break
        else:
            pytest.fail("the stream never ended")
    finally:
        proc.transport.pipes.close()


def positions(game_name: str) -> list:
    """The opening and two positions reached by random legal moves."""
    game = make_game(game_name)
    states = []
    for seed, plies in ((1, 0), (2, 3), (3, 12)):
        state = game.initial_state(seed)
        rng = random.Random(seed)
        for _ in range(plies):
            if state.is_terminal():
                break
            state.play(state.random_move(rng))
        states.append(state)
    return states


MOVE_CHARS = "abcdefghijklmnopqrstuvwxyz0123456789,-/" + NASTY


@pytest.mark.slow
@pytest.mark.parametrize("game_name", sorted(GAMES))
def test_every_referee_rejects_random_moves_with_a_reason_and_an_unchanged_state(game_name):
    states = positions(game_name)
    legal = [m for s in states if not s.is_terminal() for m in s.legal_moves()[:50]] or ["a1"]

    @settings(max_examples=300, deadline=None, suppress_health_check=[HealthCheck.too_slow])
    @given(
        st.sampled_from(range(len(states))),
        st.one_of(
            st.text(alphabet=MOVE_CHARS, max_size=16),
            st.text(max_size=12),
            mutated(legal),
            st.tuples(st.sampled_from("abcdefg"), NUMBER_TEXT).map("".join),
        ),
    )
    def check(which, move):
        state = states[which].clone()
        before = list(state.moves)
        try:
            state.play(move)
        except IllegalMove as exc:
            assert isinstance(exc.reason, str) and exc.reason.strip()
            assert state.moves == before
        else:
            assert len(state.moves) == len(before) + 1

    check()


RECORD_VALUES = st.recursive(
    st.none() | st.booleans() | st.integers(-3, 2**70) | st.floats() | st.text(max_size=10),
    lambda inner: st.lists(inner, max_size=4) | st.dictionaries(st.text(max_size=5), inner, max_size=4),
    max_leaves=8,
)


@st.composite
def records(draw) -> str:
    record = draw(
        st.dictionaries(st.sampled_from(["game", "moves", "options", "seed", "setup", "x"]), RECORD_VALUES, max_size=6)
    )
    if draw(st.booleans()):
        record["game"] = draw(st.sampled_from(sorted(GAMES) + ["chess"]))
    if draw(st.booleans()):
        record["moves"] = draw(st.lists(st.text(alphabet=MOVE_CHARS, max_size=8), max_size=6))
    if draw(st.booleans()):
        record["options"] = draw(
            st.dictionaries(st.sampled_from(["size", "swap", "players", "variant", "q"]), RECORD_VALUES, max_size=3)
        )
    text = json.dumps(record)
    return draw(st.sampled_from([text, text[: draw(st.integers(0, len(text)))]]))


@pytest.mark.slow
@FAST
@given(st.lists(records(), min_size=1, max_size=3))
def test_verify_gives_every_line_a_verdict_and_bad_ones_an_error_naming_the_line(lines):
    verdicts = list(verify_lines(lines, "fuzz.jsonl"))
    assert [v["line"] for v in verdicts] == [n for n, line in enumerate(lines, 1) if line.strip()]
    for verdict in verdicts:
        assert tuple(verdict) == VERDICT_KEYS
        if not verdict["ok"] and verdict["error"] is not None:
            reason = verdict["error"]["reason"]
            assert reason and ("ply" in verdict["error"] or reason.startswith(f"fuzz.jsonl, line {verdict['line']}: "))


TOURNAMENT = """name = "fuzz"
game = "hex"
rounds = 2
seed = 1
[options]
size = 7
[time_control]
movetime_ms = 500
[[engines]]
name = "a"
command = ["true"]
max_failures = 2
[[engines]]
name = "b"
command = ["true"]
memory_mb = 100
"""


@pytest.mark.slow  # seconds: each example a tournament file written and loaded
@FAST
@given(mutated([TOURNAMENT]))
def test_tournament_files_load_or_give_one_config_error(tmp_path_factory, text):
    path = tmp_path_factory.mktemp("t") / "t.toml"
    path.write_text(text, encoding="utf-8", errors="surrogatepass")
    try:
        load_tournament(path)
    except ConfigError as exc:
        message = str(exc)
        assert message.startswith(str(path)) and "\n" not in message.strip()


GTP_RESPONSES = [
    "= ",
    "=",
    "= e5",
    "=12 swap-pieces",
    "? unknown command",
    "= resign",
    "",
    "= boardsize\nclear_board\nplay\ngenmove\n",
]


@FAST
@given(
    st.one_of(
        st.binary(max_size=2000),
        st.lists(
            st.one_of(mutated(GTP_RESPONSES), st.text(max_size=30), with_numbers(["=", "?", "= "])), max_size=20
        ).map(lambda lines: "\n".join(lines).encode("utf-8", "surrogatepass")),
    )
)
@pytest.mark.slow
def test_gtp_responses_of_any_bytes_are_answers_or_one_fault(payload):
    """The GTP bridge's reader: arbitrary bytes give responses, then one EngineFault."""
    proc = reader_over_pipe(payload, GtpEngine)
    try:
        for _ in range(len(payload) + 2):
            try:
                answer = proc._read_response(time.monotonic() + 5, "timeout", "no answer", lines=True)
            except EngineFault as exc:
                assert exc.code in ("protocol", "crash") and exc.reason
                break
            gtp.from_gtp(answer.text, swapped=True, translation=HEX5)  # any answer: a token for the referee
        else:
            pytest.fail("the stream never ended")
    finally:
        proc.transport.pipes.close()
