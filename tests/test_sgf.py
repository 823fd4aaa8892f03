"""Hex games as SGF for HexGui, read back with sgfmill's SGF parser (not arena's writer): the
same moves, the swap as HexGui writes it, players and result."""

import os
import random

import pytest
from click.testing import CliRunner
from helpers import ascii_locale, engine_toml, game_data, random_game_record, write_tournament
from sgfmill import sgf, sgf_grammar

from arena.cli import main
from arena.record import GameRecord
from arena.results.sgf import SgfError, hex_collection_sgf, hex_game_sgf
from arena.results.sgfexport import SgfExport, export_sgf
from arena.results.site import SiteData, write_site
from arena.results.store import GameStore, read_folder
from arena.rules import GAMES, GAMES_VARIABLE, make_game, register_game
from arena.rules.hex import HexGame


def parse(text):
    """[(root properties, [(colour, value), ...]) per game] via sgfmill's grammar."""
    games = []
    for tree in sgf_grammar.parse_sgf_collection(text.encode()):
        root, *nodes = tree.sequence
        props = {k: sgf_grammar.text_value(v[0]).decode() for k, v in root.items()}
        moves = [(c, node[c][0].decode()) for node in nodes for c in ("B", "W") if c in node]
        games.append((props, moves))
    return games


def mirror(cell):
    """A cell's name after a swap, as the Hex rules give it (the same on every board that holds it)."""
    return make_game("hex", {"size": 26}).translation().after_swap[cell]


def to_arena(moves):
    """Arena's move tokens from HexGui's SGF moves (undoing the swap's mirror)."""
    out, swapped = [], False
    for _, value in moves:
        if value == "swap-pieces":
            out.append("swap")
            swapped = True
        else:
            out.append(mirror(value) if swapped else value)
    return out


def record(moves, size=5, players=("red", "blue"), seed=3, **extra):
    game = make_game("hex", {"size": size})
    state = game.initial_state()
    for m in moves:
        state.play(m)
    rng = random.Random(seed)
    while not state.is_terminal():
        state.play(state.random_move(rng))
    return GameRecord.model_validate(
        {
            "id": 4,
            "round": 1,
            "game": "hex",
            "options": game.options.model_dump(),
            "players": list(players),
            "moves": list(state.moves),
            "winner": state.winner(),
            "termination": "normal",
            "reason": state.end_reason(),
            "tournament": "t",
            **extra,
        }
    )


def test_a_game_without_swap_reads_back_with_the_same_moves():
    r = record(["c3", "b2"])
    [(props, moves)] = parse(hex_game_sgf(r))
    assert (props["FF"], props["GM"], props["SZ"]) == ("4", "11", "5")
    assert props["AP"].startswith("arena:") and (props["PB"], props["PW"]) == ("red", "blue")
    assert props["RE"] == ("B+" if r["winner"] == 0 else "W+")
    assert [c for c, _ in moves] == ["B", "W"] * (len(moves) // 2) + ["B"] * (len(moves) % 2)
    assert [v for _, v in moves] == r["moves"] == to_arena(moves)


def test_the_swap_is_written_as_hexgui_writes_it():
    # docs/gtp.md's example: e2, swap, c4, a1 on 5x5 is B[e2] W[swap-pieces] W[d3] B[a1].
    r = record(["e2", "swap", "c4", "a1"])
    [(props, moves)] = parse(hex_game_sgf(r))
    assert moves[:4] == [("B", "e2"), ("W", "swap-pieces"), ("W", "d3"), ("B", "a1")]
    assert to_arena(moves) == r["moves"]
    # the swapper (seat 1) holds Black from the swap on; the result names the winner's colour
    assert (props["PB"], props["PW"]) == ("blue", "red")
    assert props["RE"] == ("W+" if r["winner"] == 0 else "B+")
    assert "blue swapped" in props["C"]
    # the colours alternate after the swap: seat 0 is White
    assert [c for c, _ in moves[2:]] == ["W", "B"] * ((len(moves) - 2) // 2) + ["W"] * ((len(moves) - 2) % 2)


def test_the_comment_says_the_end_and_who_swapped_and_a_game_without_sgf_is_refused_naming_it():
    r = record(["e2", "swap", "c4", "a1"])
    [(props, _)] = parse(hex_game_sgf(r))
    assert props["C"] == f"normal: {r['reason']}. blue swapped: from the swap on, blue plays Black and red White"
    assert (props["EV"], props["RO"], props["GN"]) == ("t", "1", "game 4")
    [(plain, _)] = parse(hex_game_sgf(record(["c3"])))
    assert plain["C"] == f"normal: {record(['c3'])['reason']}" and "swapped" not in plain["C"]
    [(bare, _)] = parse(hex_game_sgf(record(["c3"]).replace(reason=None, termination=None)))
    assert bare["C"] == "normal: "  # a record that stored neither
    with pytest.raises(SgfError) as refused:
        hex_game_sgf(r.replace(game="groups"))
    assert str(refused.value) == "game 4: groups is not Hex; SGF export is for Hex games"


def test_rounds_are_numbered_as_the_report_numbers_them(tmp_path):
    # Rounds count from 0 in the records, the report and the SGF's RO alike.
    for round_ in (0, 1):
        r = record(["c3"])
        r = r.replace(round=round_, places=[0, 1] if r["winner"] == 0 else [1, 0])
        [(props, _)] = parse(hex_game_sgf(r))
        site = write_site(tmp_path / str(round_), SiteData("t", "hex", r["options"], ["red", "blue"], [r])).parent
        listed = (site / "lists" / "0.html").read_text(encoding="utf-8")
        assert props["RO"] == str(round_) and game_data(site, 4)["round"] == round_
        assert f'?game=4">4</a></td><td>{round_}</td>' in listed


def test_forfeits_and_escaping():
    r = record(["a1"], reason="red (seat 0): no move within 1100 ms] \\ odd", termination="timeout", winner=1)
    [(props, _)] = parse(hex_game_sgf(r))
    assert props["RE"] == "W+T" and props["C"].endswith("no move within 1100 ms] \\ odd")
    assert parse(hex_game_sgf(r.replace(termination="crash")))[0][0]["RE"] == "W+F"
    with pytest.raises(SgfError, match="not Hex"):
        hex_game_sgf(r.replace(game="groups"))


def test_the_root_says_utf8_so_a_reader_decodes_the_text():
    # sgfmill decodes text by the root's CA, as FF[4] says (ISO-8859-1 without one): a file
    # written in UTF-8 without CA[UTF-8] read back 'Zug ungÃ¼ltig'.
    reason = "Zug ungültig: 棋 ½"
    r = record(["a1"], reason=reason, players=("Jürgen", "blue"), termination="illegal", winner=1)
    data = hex_game_sgf(r).encode("utf-8")
    game = sgf.Sgf_game.from_bytes(data)
    assert game.get_charset() == "UTF-8" and game.root.get_raw("CA") == b"UTF-8"
    assert game.root.get("C") == f"illegal: {reason}" and game.root.get("PB") == "Jürgen"
    assert parse(data.decode("utf-8"))[0][0]["CA"] == "UTF-8"


@pytest.mark.slow
def test_arena_export_sgf_writes_every_hex_game_of_a_folder(tmp_path):
    engines = engine_toml("r1", "{python}", "-m", "engines.random_engine") + engine_toml(
        "r2", "{python}", "-m", "engines.random_engine"
    )
    out = tmp_path / "out"
    result = CliRunner().invoke(main, ["run", str(write_tournament(tmp_path, engines, seed=8)), "-q", "-o", str(out)])
    assert result.exit_code == 0, result.output
    _, records = read_folder(out)
    sgf = tmp_path / "all.sgf"
    result = CliRunner().invoke(main, ["export", "sgf", str(out), "-o", str(sgf)])
    assert result.exit_code == 0, result.output
    assert "HexGui opens the first game of a file with several; --per-game" in result.output
    games = parse(sgf.read_text())
    assert len(games) == len(records) == 2
    for (props, moves), r in zip(games, records):
        assert to_arena(moves) == r["moves"] and props["GN"] == f"game {r['id']}"
        replay = make_game("hex", r["options"]).initial_state()
        for m in to_arena(moves):
            replay.play(m)
        assert replay.winner() == r["winner"]
    one = tmp_path / "one.sgf"
    result = CliRunner().invoke(main, ["export", "sgf", str(out), "--game", "1", "--game", "1", "-o", str(one)])
    assert result.exit_code == 0 and len(parse(one.read_text())) == 1 and "note:" not in result.output
    each = tmp_path / "each"
    result = CliRunner().invoke(main, ["export", "sgf", str(out), "--per-game", "-o", str(each)])
    assert result.exit_code == 0 and sorted(p.name for p in each.iterdir()) == ["game-0.sgf", "game-1.sgf"]
    result = CliRunner().invoke(main, ["export", "sgf", str(out), "--game", "9", "-o", str(one)])
    assert result.exit_code == 2 and "no game 9" in result.output


def sgf_folder(tmp_path, sizes=(3, 3, 3)):
    """A results folder of Hex games (ids 0, 1, 2 ...) of the board ``sizes``, no engine run."""
    out = tmp_path / "out"
    with GameStore(out) as store:
        store.open({})
        for k, size in enumerate(sizes):
            store.add(random_game_record(k, ["r1", "r2"], size=size, seed=k))
    return out


def test_export_sgf_writes_the_chosen_games_in_the_order_asked_once_each(tmp_path):
    out = sgf_folder(tmp_path)
    _, records = read_folder(out)
    target = tmp_path / "all.sgf"
    written = export_sgf(out, target)
    assert written == SgfExport(
        3, ["HexGui opens the first game of a file with several; --per-game writes one file a game"]
    )
    assert target.read_text(encoding="utf-8") == "".join(hex_game_sgf(r) for r in records)
    assert hex_collection_sgf(records) == target.read_text(encoding="utf-8")
    assert [p["GN"] for p, _ in parse(target.read_text())] == ["game 0", "game 1", "game 2"]
    one = tmp_path / "one.sgf"
    assert export_sgf(out, one, [2, 0, 2]) == SgfExport(2, [written.notes[0]])
    assert one.read_text(encoding="utf-8") == hex_game_sgf(records[2]) + hex_game_sgf(records[0])
    assert export_sgf(out, one, [1]) == SgfExport(1, [])  # one game: nothing to say
    assert one.read_text(encoding="utf-8") == hex_game_sgf(records[1])
    assert hex_collection_sgf([]) == ""


def test_export_sgf_per_game_writes_a_file_a_game_into_a_new_folder(tmp_path):
    out = sgf_folder(tmp_path)
    _, records = read_folder(out)
    each = tmp_path / "new" / "each"
    assert export_sgf(out, each, per_game=True) == SgfExport(3, [])
    assert sorted(p.name for p in each.iterdir()) == ["game-0.sgf", "game-1.sgf", "game-2.sgf"]
    assert all((each / f"game-{r['id']}.sgf").read_text(encoding="utf-8") == hex_game_sgf(r) for r in records)
    assert export_sgf(out, each, [1], per_game=True) == SgfExport(1, [])  # the folder is there already
    assert (each / "game-1.sgf").read_text(encoding="utf-8") == hex_game_sgf(records[1])


def test_export_sgf_says_which_boards_hexgui_cannot_draw_and_which_games_are_not_there(tmp_path):
    out = sgf_folder(tmp_path, sizes=(3, 20, 19))
    large = "HexGui draws boards up to 19x19; larger ones are valid SGF for other viewers"
    several = "HexGui opens the first game of a file with several; --per-game writes one file a game"
    assert export_sgf(out, tmp_path / "a.sgf") == SgfExport(3, [several, large])
    assert export_sgf(out, tmp_path / "b.sgf", [1]) == SgfExport(1, [large])
    assert export_sgf(out, tmp_path / "c.sgf", [2, 0]) == SgfExport(2, [several])  # 19x19 is HexGui's
    assert export_sgf(out, tmp_path / "each", per_game=True) == SgfExport(3, [large])
    with pytest.raises(SgfError) as refused:
        export_sgf(out, tmp_path / "d.sgf", [0, 7, 9, 7])
    assert str(refused.value) == f"{out}: no game 7, 9, 7 (games stored: 3, ids 0..2)"
    assert not (tmp_path / "d.sgf").exists()
    empty = tmp_path / "empty"
    with GameStore(empty) as store:
        store.open({})
    with pytest.raises(SgfError) as nothing:
        export_sgf(empty, tmp_path / "e.sgf", [3])
    assert str(nothing.value) == f"{empty}: no game 3 (games stored: 0, ids 0..0)"


def test_export_sgf_writes_utf8_whatever_the_locale(tmp_path):
    out = tmp_path / "out"
    with GameStore(out) as store:
        store.open({})
        store.add(random_game_record(0, ["Jürgen", "棋"], seed=1))
    _, records = read_folder(out)
    with ascii_locale():
        export_sgf(out, tmp_path / "all.sgf")
        export_sgf(out, tmp_path / "each", per_game=True)
    expected = hex_game_sgf(records[0]).encode("utf-8")
    assert "PB[Jürgen]" in hex_game_sgf(records[0]) or "PW[Jürgen]" in hex_game_sgf(records[0])
    assert (tmp_path / "all.sgf").read_bytes() == expected == (tmp_path / "each" / "game-0.sgf").read_bytes()


def test_the_date_is_the_day_the_game_started_and_absent_when_not_stored():
    r = record(["c3"], started="2026-12-04T23:59:58.250+00:00")
    [(props, _)] = parse(hex_game_sgf(r))
    assert props["DT"] == "2026-12-04"
    [(bare, _)] = parse(hex_game_sgf(record(["c3"])))
    assert "DT" not in bare


def test_after_a_swap_the_result_names_the_winners_colour_for_either_seat():
    """The swapper (seat 1) plays Black from the swap on: seat 0 winning is W+, seat 1 B+."""
    won = {}
    for seed in range(40):
        r = record(["e2", "swap"], seed=seed)
        won.setdefault(r["winner"], r)
    assert sorted(won) == [0, 1]
    assert [parse(hex_game_sgf(won[seat]))[0][0]["RE"] for seat in (0, 1)] == ["W+", "B+"]
    forfeit = won[1].replace(termination="timeout")
    assert parse(hex_game_sgf(forfeit))[0][0]["RE"] == "B+T"


def test_a_game_nobody_won_is_a_draw_only_when_adjudged_and_else_has_no_result():
    r = record(["a1"])
    for termination, result in (("max-plies", "0"), ("adjudicated-draw", "0")):
        [(props, _)] = parse(hex_game_sgf(r.replace(winner=None, termination=termination)))
        assert props["RE"] == result, termination
    for termination in ("crash", "timeout"):  # every seat forfeited
        [(props, _)] = parse(hex_game_sgf(r.replace(winner=None, termination=termination)))
        assert "RE" not in props, termination


class UntranslatedHex(HexGame):
    """A game that says it exports SGF but gives no translation of its board."""

    def translation(self):
        return None


@pytest.fixture
def second_sgf_game(monkeypatch):
    monkeypatch.setenv(GAMES_VARIABLE, os.environ.get(GAMES_VARIABLE, ""))  # restored afterwards
    register_game("plainhex", f"{__name__}:UntranslatedHex")
    yield
    GAMES.pop("plainhex")


def test_with_two_games_exporting_sgf_a_refusal_names_both_and_a_game_without_a_translation_says_so(second_sgf_game):
    r = record(["c3"])
    with pytest.raises(SgfError) as refused:
        hex_game_sgf(r.replace(game="groups"))
    assert str(refused.value) == "game 4: groups is not Hex or Plainhex; SGF export is for Hex or Plainhex games"
    with pytest.raises(SgfError) as untranslated:
        hex_game_sgf(r.replace(game="plainhex"))
    assert str(untranslated.value) == "game 4: the rules of plainhex give no SGF translation"
