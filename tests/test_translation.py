"""What the games tell GTP programs and SGF files (arena.rules.translation): Hex's mirror,
written once in its rules, is where the swap puts the stone and how outside programs name
every cell after a swap; a game without a translation is refused by the GTP bridge and the
SGF writer with one line."""

from __future__ import annotations

import os

import pytest
from click.testing import CliRunner
from helpers import engine_toml, random_record, write_tournament

from arena.cli import main
from arena.engine.gtp import GtpEngine
from arena.engine.player import EngineFault, EngineSpec
from arena.results.sgf import SgfError, hex_game_sgf, larger_than_hexgui
from arena.rules import GAMES, GAMES_VARIABLE, make_game, register_game


def test_hex_mirror_exchanges_row_and_column_and_is_where_the_swap_puts_the_stone():
    game = make_game("hex", {"size": 5})
    names = game.board.names
    mirror = {names[cell]: names[image] for cell, image in enumerate(game.mirror)}
    assert mirror["e2"] == "b5" and mirror["b5"] == "e2" and mirror["c3"] == "c3" and mirror["a5"] == "e1"
    assert all(mirror[mirror[cell]] == cell for cell in names)
    for cell in names:
        state = game.initial_state()
        state.play(cell)
        state.play("swap")
        assert {names[i] for i, v in enumerate(state.cells) if v != -1} == {mirror[cell]}
        assert state.cells[names.index(mirror[cell])] == 1  # Blue's stone


def test_hex_translation_names_every_cell_both_ways_and_the_swap():
    translation = make_game("hex", {"size": 7, "swap": False}).translation()
    assert translation is not None
    assert (translation.size, translation.sgf_game, translation.swap_allowed) == (7, 11, False)
    assert translation.outside("swap", False) == "swap-pieces"
    assert translation.inside("swap-pieces", True) == translation.inside("swap", False) == "swap"
    for cell in make_game("hex", {"size": 7}).board.names:
        for swapped in (False, True):
            outside = translation.outside(cell, swapped)
            assert translation.inside(outside, swapped) == cell
            assert (outside == cell) == (not swapped or cell[0] == chr(ord("a") + int(cell[1:]) - 1))
    assert translation.inside("h8", True) == "h8"  # off the board: left for the referee


@pytest.mark.parametrize("name", sorted(GAMES))
def test_a_game_has_a_translation_exactly_when_it_offers_gtp_or_sgf(name):
    game = make_game(name)
    offers = "gtp" in game.protocols or "sgf" in game.exports
    assert (game.translation() is not None) == offers


def hex_record(size: int = 5):
    """A finished Hex game (id 4) of random moves."""
    return random_record("hex", {"size": size}, 4, ["red", "blue"])


@pytest.fixture
def line_game(monkeypatch):
    monkeypatch.setenv(GAMES_VARIABLE, os.environ.get(GAMES_VARIABLE, ""))  # restored afterwards
    register_game("line", "tests.games.line:LineGame")
    yield make_game("line", {"size": 4})
    GAMES.pop("line")


def test_the_gtp_bridge_refuses_a_game_without_a_translation_in_one_line(line_game):
    engine = GtpEngine(EngineSpec("gtp", ("true",), protocol="gtp"))
    with pytest.raises(EngineFault) as caught:
        engine.new_game(line_game, 0, 1, [])
    assert caught.value.code == "protocol" and str(caught.value.reason) == "GTP engines play hex only, not line"


def test_the_sgf_writer_refuses_a_game_without_a_translation_in_one_line(line_game):
    with pytest.raises(SgfError) as caught:
        hex_game_sgf(hex_record().replace(game="line"))
    assert str(caught.value) == "game 4: line is not Hex; SGF export is for Hex games"


def test_the_sgf_writer_refuses_options_the_rules_refuse_in_one_line():
    with pytest.raises(SgfError) as caught:
        hex_game_sgf(hex_record().replace(options={"size": 99, "swap": True}))
    message = str(caught.value)
    assert message.startswith("game 4: hex: option 'size'") and "\n" not in message


def test_a_board_larger_than_hexgui_draws_is_told_by_the_game_s_size():
    assert larger_than_hexgui([hex_record(size=19), hex_record(size=20)])
    assert not larger_than_hexgui([hex_record(size=19)])


@pytest.mark.slow
def test_arena_export_sgf_notes_a_board_hexgui_cannot_draw(tmp_path):
    engines = "".join(engine_toml(name, "{python}", "-m", "engines.random_engine") for name in ("r1", "r2"))
    out = tmp_path / "out"
    path = write_tournament(tmp_path, engines, options="size = 20", workers=1)
    assert CliRunner().invoke(main, ["run", str(path), "-q", "-o", str(out)]).exit_code == 0
    result = CliRunner().invoke(main, ["export", "sgf", str(out), "--per-game", "-o", str(tmp_path / "each")])
    assert result.exit_code == 0, result.output
    assert "note: HexGui draws boards up to 19x19; larger ones are valid SGF for other viewers" in result.output
    assert all("SZ[20]" in p.read_text() for p in (tmp_path / "each").iterdir())


def test_hex_tells_outside_programs_whether_its_options_allow_the_swap():
    assert make_game("hex", {"size": 7, "swap": True}).translation().swap_allowed
