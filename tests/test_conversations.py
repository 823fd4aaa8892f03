"""Both engine conversations, line by line, over an in-memory transport (no process).

Each test scripts what the engine says to each line arena sends (tests/scripted.py), so
it pins the exact text on the wire that the Player interface produces from a game, a
State and a TimeLimit; the real-process tests (test_engine_process.py, test_gtp.py,
test_faults.py, test_reliability.py) cover the transport under them.
"""

from __future__ import annotations

import pytest
from scripted import EOF, ScriptedTransport

from arena.engine import EngineFault, EngineProcess, EngineSpec, GtpEngine, Player, TimeLimit
from arena.engine.player import EngineRefused
from arena.match import TimeControl, play_game
from arena.record import derive_seed
from arena.rules import make_game

SPEC = EngineSpec("scripted", ("(in memory)",))
HELLO = ("arena 1", ["id name scripted", "arenaok 1"])
MOVETIME = TimeLimit(0.4, movetime_ms=300)


def v1_engine(*exchanges, spec: EngineSpec = SPEC) -> tuple[EngineProcess, ScriptedTransport]:
    transport = ScriptedTransport(HELLO, *exchanges)
    engine = EngineProcess(spec, transport=transport)
    engine.start()
    return engine, transport


def hex_state(size: int, *moves: str, swap: bool = True):
    game = make_game("hex", {"size": size, "swap": swap})
    state = game.initial_state()
    for move in moves:
        state.play(move)
    return game, state


# -- protocol v1 -------------------------------------------------------------------


def test_v1_handshake_reads_identity_and_declared_options_then_sets_them():
    spec = EngineSpec("scripted", ("(in memory)",), options=(("depth", "5"),))
    transport = ScriptedTransport(
        (
            "arena 1",
            [
                "id name deep",
                "info warming up",
                "id author me",
                "option name depth type int default 3 min 1 max 9",
                "arenaok 1",
            ],
        ),
        ("setoption depth 5", []),
    )
    engine = EngineProcess(spec, transport=transport)
    engine.start()
    assert engine.identity == {"name": "deep", "author": "me"} and engine.alive
    assert [d.name for d in engine.declared_options] == ["depth"] and transport.done()
    engine.quit()
    assert transport.sent[-1] == "quit" and not engine.alive


def test_v1_refuses_an_option_the_engine_did_not_declare():
    spec = EngineSpec("scripted", ("(in memory)",), options=(("speed", "3"),))
    engine = EngineProcess(spec, transport=ScriptedTransport(HELLO))
    with pytest.raises(EngineRefused, match="refused: .*speed"):
        engine.start()


def test_v1_a_game_on_the_wire_grows_the_position_and_makes_each_go_line_once():
    game, state = hex_state(3, "a1")
    engine, transport = v1_engine(
        ("newgame hex 1 2 size=3 swap=true", []),
        ("seed 7", []),
        ("isready", ["info loading", "readyok"]),
        ("position start moves a1", []),
        ("go movetime 300", ["info depth 2 nodes 10", "info score 0.5", "move b2"]),
    )
    engine.new_game(game, 1, 7, [])
    reply = engine.choose_move(state, MOVETIME)
    assert (reply.move, reply.info) == ("b2", {"depth": 2, "nodes": 10, "score": 0.5})
    state.play("b2")
    state.play("c1")
    transport.expect("position start moves a1 b2 c1")  # the moves since its last turn, appended
    transport.expect("go movetime 300", "move a3")
    assert engine.choose_move(state, MOVETIME).move == "a3"
    clock = TimeLimit(0.9, movetime_ms=None, clocks_ms=(900, 800), incs_ms=(10, 10))
    state.play("a3")
    state.play("b1")
    transport.expect("position start moves a1 b2 c1 a3 b1")
    transport.expect("go time 900,800 inc 10,10", "resign")
    assert engine.choose_move(state, clock).move is None  # resignation
    transport.expect("gameover 0 1 resigned")
    engine.game_over([0.0, 1.0], "resigned")
    assert transport.done() and transport.cpu_budgets == 1


def test_v1_a_new_game_starts_a_new_position_line():
    game, state = hex_state(3, "a1")
    engine, transport = v1_engine()
    for seed in (1, 2):
        for line in ("newgame hex 1 2 size=3 swap=true", f"seed {seed}"):
            transport.expect(line)
        transport.expect("isready", "readyok")
        transport.expect("position start moves a1")
        transport.expect("go movetime 300", "move b2")
        engine.new_game(game, 1, seed, [])
        engine.choose_move(state, MOVETIME)
    assert transport.done()


def test_v1_private_lines_follow_the_seed():
    game = make_game("posies", {"players": 3, "variant": 2})
    engine, transport = v1_engine()
    state = game.initial_state(5)
    private = state.private_info(2)
    transport.expect(f"newgame posies 2 3 {' '.join(game.option_tokens())}")
    transport.expect("seed 9")
    for payload in private:
        transport.expect(f"private {payload}")
    transport.expect("isready", "readyok")
    engine.new_game(game, 2, 9, private)
    assert transport.done() and private


@pytest.mark.parametrize(
    "answer, code, reason",
    [
        ([], "timeout", "no move within 400 ms"),
        (["bestmove c3"], "protocol", "not a protocol v1 engine line"),
        (["readyok"], "protocol", "expected a move, got 'readyok'"),
        (["id name twice"], "protocol", "expected a move, got 'id name twice'"),
        (["info depth 1", EOF], "crash", "closed its output"),
    ],
)
def test_v1_what_an_engine_does_wrong_is_one_engine_fault(answer, code, reason):
    game, state = hex_state(3)
    engine, _ = v1_engine(
        ("newgame hex 0 2 size=3 swap=true", []),
        ("seed 1", []),
        ("isready", ["readyok"]),
        ("position start moves", []),
        ("go movetime 300", answer),
    )
    engine.new_game(game, 0, 1, [])
    with pytest.raises(EngineFault) as fault:
        engine.choose_move(state, MOVETIME)
    assert fault.value.code == code and reason in fault.value.reason


def test_v1_a_second_move_sent_unasked_is_a_violation_not_the_next_answer():
    game, state = hex_state(3)
    engine, transport = v1_engine(
        ("newgame hex 0 2 size=3 swap=true", []),
        ("seed 1", []),
        ("isready", ["readyok"]),
        ("position start moves", []),
        ("go movetime 300", ["move a1", "info still thinking", "move b2"]),
    )
    engine.new_game(game, 0, 1, [])
    assert engine.choose_move(state, MOVETIME).move == "a1"
    state.play("a1")
    state.play("c3")
    with pytest.raises(EngineFault, match="'move b2' sent when no answer was asked for"):
        engine.choose_move(state, MOVETIME)
    assert transport.done()  # refused before anything was sent


def test_play_game_drives_scripted_players_to_the_record_and_the_gameover():
    """The match through the Player interface, down to the bytes, with no process."""
    game, _ = hex_state(2, swap=False)
    red, blue = (ScriptedTransport(HELLO) for _ in range(2))
    for seat, (transport, name) in enumerate(((red, "red"), (blue, "blue"))):
        transport.expect(f"newgame hex {seat} 2 size=2 swap=false")
        transport.expect(f"seed {derive_seed(3, 'engine', seat, name)}")
        transport.expect("isready", "readyok")
    red.expect("position start moves")
    red.expect("go movetime 100", "move a1")
    blue.expect("position start moves a1")
    blue.expect("go movetime 100", "move b1")
    red.expect("position start moves a1 b1")
    red.expect("go movetime 100", "move a2")
    for transport in (red, blue):
        transport.expect("gameover 1 0 Red connected")
    players: list[Player] = [EngineProcess(SPEC, transport=t) for t in (red, blue)]
    for player in players:
        player.start()
    record = play_game(game, players, seed=3, names=["red", "blue"], time_control=TimeControl(movetime_ms=100)).record
    assert record["moves"] == ["a1", "b1", "a2"] and record["winner"] == 0 and record["termination"] == "normal"
    assert red.done() and blue.done()


# -- GTP -------------------------------------------------------------------------

GTP_SPEC = EngineSpec("gtp", ("(in memory)",), protocol="gtp")
LISTED = ["= protocol_version", "name", "version", "list_commands", "boardsize", "clear_board", "play", "genmove"]


def gtp_engine(*extra_commands: str) -> tuple[GtpEngine, ScriptedTransport]:
    transport = ScriptedTransport(
        ("protocol_version", ["= 2", ""]),
        ("name", ["= Fake Hex", ""]),
        ("version", ["= 0.1", ""]),
        ("list_commands", [*LISTED, *extra_commands, ""]),
    )
    engine = GtpEngine(GTP_SPEC, transport=transport)
    engine.start()
    return engine, transport


def gtp_game(transport: ScriptedTransport, size: int = 5) -> None:
    transport.expect(f"boardsize {size}", "=", "")
    transport.expect("clear_board", "=", "")


def test_gtp_start_up_asks_who_the_engine_is_and_what_it_offers():
    engine, transport = gtp_engine("time_left")
    assert engine.identity == {"name": "Fake Hex", "version": "0.1"}
    assert "time_left" in engine.commands and "genmove" in engine.commands and transport.done()


def test_gtp_an_engine_without_genmove_is_refused():
    transport = ScriptedTransport(
        ("protocol_version", ["= 2", ""]),
        ("name", ["= Fake", ""]),
        ("version", ["=", ""]),
        ("list_commands", ["= boardsize", "clear_board", "play", ""]),
    )
    with pytest.raises(EngineRefused, match="genmove"):
        GtpEngine(GTP_SPEC, transport=transport).start()


def test_gtp_builds_play_and_genmove_from_the_state_through_a_swap():
    """Blue swaps (Benzene's swap-pieces), then every cell is mirrored and the colours
    exchanged, both ways; the engine is told only the moves it has not seen."""
    game, state = hex_state(5, "b3")
    engine, transport = gtp_engine("time_settings")
    gtp_game(transport)
    transport.expect("play black b3", "=", "")
    transport.expect("time_settings 0 1 1", "=", "")  # a movetime is a byo-yomi of one stone, once a game
    transport.expect("genmove white", "= swap-pieces", "")
    engine.new_game(game, 1, 99, [])
    assert engine.choose_move(state, MOVETIME).move == "swap"
    state.play("swap")
    state.play("a2")
    transport.expect("play white b1", "=", "")  # Red's a2, in the engine's mirrored colours
    transport.expect("genmove black", "= c4", "")
    assert engine.choose_move(state, MOVETIME).move == "d3"
    engine.game_over([1.0, 0.0], "Red connected")  # GTP has no game-over command: nothing sent
    assert transport.done()


def test_gtp_the_game_clock_is_told_before_each_move():
    game, state = hex_state(5)
    engine, transport = gtp_engine("time_settings", "time_left")
    gtp_game(transport)
    clock = TimeLimit(4.1, clocks_ms=(4000, 6500), incs_ms=None)
    transport.expect("time_settings 4 0 0", "=", "")
    transport.expect("time_left black 4 0", "=", "")
    transport.expect("genmove black", "= e5", "")
    engine.new_game(game, 0, 1, [])
    assert engine.choose_move(state, clock).move == "e5"
    state.play("e5")
    state.play("a1")
    transport.expect("play white a1", "=", "")
    transport.expect("time_left black 3 0", "=", "")
    transport.expect("genmove black", "= D4", "")
    assert engine.choose_move(state, TimeLimit(3.6, clocks_ms=(3500, 6000))).move == "d4"
    assert transport.done()


@pytest.mark.parametrize(
    "answer, reason",
    [
        (["? no legal move", ""], "'genmove black' answered '? no legal move'"),
        (["bestmove a1", ""], "not a GTP response: 'bestmove a1'"),
        ([], "no move within 400 ms"),
    ],
)
def test_gtp_a_bad_genmove_answer_is_a_fault(answer, reason):
    game, state = hex_state(5)
    engine, transport = gtp_engine()
    gtp_game(transport)
    transport.expect("genmove black", *answer)
    engine.new_game(game, 0, 1, [])
    with pytest.raises(EngineFault) as fault:
        engine.choose_move(state, MOVETIME)
    assert reason in fault.value.reason


def test_gtp_resigns_rejects_legal_moves_and_plays_only_games_that_offer_gtp():
    game, state = hex_state(5, "c3")
    engine, transport = gtp_engine()
    gtp_game(transport)
    transport.expect("play black c3", "? illegal move", "")
    engine.new_game(game, 1, 1, [])
    with pytest.raises(EngineFault, match="rejected the legal move 'play black c3'"):
        engine.choose_move(state, MOVETIME)
    gtp_game(transport)
    transport.expect("genmove black", "= resign", "")
    engine.new_game(game, 0, 1, [])
    assert engine.choose_move(game.initial_state(), MOVETIME).move is None
    with pytest.raises(EngineFault, match="GTP engines play hex only, not groups"):
        engine.new_game(make_game("groups", {"size": 4}), 0, 1, [])
    assert transport.done()


def test_gtp_an_answer_sent_unasked_is_a_violation():
    game, _ = hex_state(5)
    engine, transport = gtp_engine()
    transport.expect("boardsize 5", "=", "", "= again", "")
    with pytest.raises(EngineFault, match="'= again' sent when no answer was asked for"):
        engine.new_game(game, 0, 1, [])
    assert transport.sent == ["protocol_version", "name", "version", "list_commands", "boardsize 5"]
