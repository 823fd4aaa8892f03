import re

import pytest
from hypothesis import given
from hypothesis import strategies as st

from protocol import codec
from protocol.codec import (
    ArenaOk,
    GameOver,
    Go,
    Hello,
    Id,
    Info,
    IsReady,
    Move,
    NewGame,
    OptionDecl,
    Position,
    Private,
    ProtocolError,
    Quit,
    ReadyOk,
    Resign,
    Seed,
    SetOption,
)


@pytest.mark.parametrize(
    "msg",
    [
        Id("name", "Deep Hex 2"),
        Id("author", "Ann"),
        OptionDecl("depth", "int", "3", "1", "9"),
        OptionDecl("book", "string", "none"),
        ArenaOk(1),
        ReadyOk(),
        Move("c3,e5,g2"),
        Move("swap"),
        Resign(),
        Info("depth 3 score 0.5"),
    ],
)
def test_engine_messages_round_trip(msg):
    assert codec.parse_engine_line(codec.format_engine_message(msg)) == msg


@pytest.mark.parametrize(
    "cmd",
    [
        Hello(1),
        SetOption("depth", "5"),
        NewGame("hex", 1, 2, {"size": "9", "swap": "true"}),
        Seed(42),
        Private("hidden green"),
        IsReady(),
        Position("start", ()),
        Position("start", ("e5", "swap")),
        Go((1000, 2000), (10, 10), 500),
        Go(movetime=100),
        Go((60000, 59000), None, None, 40, 5000),
        Go(),
        GameOver((14.0, 11.0, 9.0), "no move left"),
        Quit(),
    ],
)
def test_referee_commands_round_trip(cmd):
    assert codec.parse_command(codec.format_command(cmd)) == cmd


def test_empty_lines_and_carriage_returns():
    assert codec.parse_engine_line("") is None
    assert codec.parse_engine_line("move e5\r") == Move("e5")
    assert codec.parse_command("   ") is None


@pytest.mark.parametrize(
    "line",
    [
        "move",
        "move e5 f6",
        "bestmove e5",
        "readyok now",
        "arenaok one",
        "id colour red",
        "option name x",
        "= e5",
        "MOVE e5",
        "x" * (codec.MAX_LINE + 1),
    ],
)
def test_malformed_engine_lines_are_rejected_with_the_line(line):
    with pytest.raises(ProtocolError):
        codec.parse_engine_line(line)


@pytest.mark.parametrize(
    "line",
    [
        "arena",
        "arena x",
        "newgame hex",
        "newgame hex 0 2 size",
        "position start e5",
        "go time",
        "go depth 3",
        "seed x",
        "bogus",
    ],
)
def test_malformed_referee_lines_are_rejected(line):
    with pytest.raises(ProtocolError):
        codec.parse_command(line)


def test_sanitize_strips_terminal_escapes_and_truncates():
    assert codec.sanitize("\x1b[31mred\x1b[0m ok") == "red ok"  # sequences go with their parameters
    assert len(codec.sanitize("y" * 500, 50)) == 50


@pytest.mark.slow
@given(st.text(max_size=300))
def test_parser_never_raises_anything_but_protocol_error(line):
    for parse in (codec.parse_engine_line, codec.parse_command):
        try:
            parse(line)
        except ProtocolError:
            pass


def test_sanitize_shows_lone_control_characters_escaped_not_deleted():
    assert codec.sanitize("evil\nname\tx\x07") == "evil\\x0aname\\x09x\\x07"
    assert codec.sanitize("b3\x00") == "b3\\x00"  # not 'b3', which would read as a cell
    assert codec.sanitize("abc\u202edcba\u2066x\u2069") == "abc\\u202edcba\\u2066x\\u2069"
    assert codec.sanitize(codec.sanitize("\x9b\x00")) == codec.sanitize("\x9b\x00")  # idempotent


def test_a_line_of_exactly_max_line_is_valid_and_one_more_is_not():
    exact = "info " + "x" * (codec.MAX_LINE - len("info "))
    assert len(exact) == codec.MAX_LINE == 64 * 1024
    assert codec.parse_engine_line(exact) == Info("x" * (codec.MAX_LINE - len("info ")))
    with pytest.raises(ProtocolError, match="longer than 65536"):
        codec.parse_engine_line(exact + "x")


def test_a_move_token_is_kept_exactly_as_sent():
    assert codec.parse_engine_line("move A1") == Move("A1")
    assert codec.parse_engine_line("move C3-c5/F2") == Move("C3-c5/F2")


GAMEOVER = re.compile(r"gameover(?: -?[0-9]+(?:\.[0-9]+)?)+(?: (.*))?")


@pytest.mark.parametrize(
    "scores,reason,shown",
    [
        ([1, 0], "Blue connected", "gameover 1 0 Blue connected"),
        ([0.5, 0.5], "draw by repetition", "gameover 0.5 0.5 draw by repetition"),
        ([39.0, 25.0, 19.0], "no move left", "gameover 39 25 19 no move left"),
        ([0.00001, -2.25], "", "gameover 0.00001 -2.25"),
        ([1, 0], "a\nb\x1b[31m", None),
    ],
)
def test_gameover_lines_follow_the_spec(scores, reason, shown):
    """PROTOCOL.md: one score per seat, each -?[0-9]+(.[0-9]+)?, then the reason: the rest of the
    line, control characters removed."""
    line = codec.format_gameover(scores, reason)
    match = GAMEOVER.fullmatch(line)
    assert match is not None and line.count("\n") == 0, line
    assert len(line.split()[1 : 1 + len(scores)]) == len(scores)
    if shown is not None:
        assert line == shown
