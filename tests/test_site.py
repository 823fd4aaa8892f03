"""The report site, opened from disk in a real headless Chromium driven by Playwright.

Screenshots go to $ARENA_ARTIFACTS when it is set (CI keeps them), else to the test's
temporary folder.
"""

from __future__ import annotations

import csv
import io
import json
import math
import re
from pathlib import Path

import pytest
from click.testing import CliRunner, Result
from helpers import (
    WIDE,
    ZOO,
    artifacts,
    ascii_locale,
    engine_toml,
    game_address,
    game_data,
    random_game_record,
    random_record,
    run_arena,
    site_of,
    write_tournament,
)

from arena.cli import main
from arena.results.export import summarize
from arena.results.site import SiteData, palette, plots, write_site
from arena.results.stats import EngineStats
from arena.results.tiebreaks import EventSummary
from arena.rules import make_game

HOSTILE = Path(__file__).resolve().parent / "engines" / "hostile_engine.py"
pytestmark = pytest.mark.timeout(180)  # a browser, and a real tournament run
EVIL = "<script>document.title='pwned'</script><b>evil</b>\x1b[2J\x1b]0;title\x07"

# The page's code for each value of the rules' state.cells, written out here on purpose
# (not imported from the site): the test checks the site against the rules themselves.
EXPECTED = {
    "hex": {-1: "", 0: "red", 1: "blue"},
    "groups": {-1: "", 0: "white", 1: "black"},
    "hexgo": {-1: "", 0: "black", 1: "white"},
    "posies": {-1: "", 0: "pink", 1: "purple", 2: "green"},
    "bases": {0: "", 1: "red", 2: "blue", 3: "wall"},
}


@pytest.fixture
def page(browser):
    context = browser.new_context(viewport={"width": 1280, "height": 1000})
    pg = context.new_page()
    pg.errors = []
    pg.on("pageerror", lambda exc: pg.errors.append(str(exc)))
    requests: list[str] = []
    pg.on("request", lambda request: requests.append(request.url))
    yield pg
    context.close()
    # Self-contained: everything a page loaded came from the site's folder on disk.
    assert requests and all(url.startswith("file://") for url in requests), requests


def shot(page, tmp_path: Path, name: str) -> Path:
    path = artifacts(tmp_path) / f"{name}.png"
    page.screenshot(path=str(path), full_page=True)
    assert path.stat().st_size > 5000
    return path


# -- one game of each game, stepped through ply by ply ------------------------


def referee_positions(record: dict) -> list:
    """The referee's state after every ply of ``record``."""
    game = make_game(record["game"], record["options"])
    state = game.initial_state(record["seed"])
    state.deal(record["deal"])
    positions = [state.clone()]
    for move in record["moves"]:
        state.play(move)
        positions.append(state.clone())
    return positions


def shown_cells(page) -> dict[str, str]:
    return page.evaluate(
        "() => Object.fromEntries(Array.from(document.querySelectorAll('#board [data-cell]'))"
        ".map(n => [n.dataset.cell, n.dataset.state]))"
    )


def cells_with(page, cls: str) -> set[str]:
    return set(page.evaluate(f"() => Array.from(document.querySelectorAll('#board .{cls}')).map(n => n.dataset.cell)"))


def step_through(page, record: dict) -> list:
    """Go to the start, then press the right arrow through the game, checking every ply."""
    positions = referee_positions(record)
    board = positions[0].game.board
    codes = EXPECTED[record["game"]]
    page.click("#first")
    for ply, state in enumerate(positions):
        if ply:
            page.keyboard.press("ArrowRight")
        assert page.input_value("#ply") == str(ply)
        expected = {board.names[i]: codes[v] for i, v in enumerate(state.cells)}
        assert shown_cells(page) == expected, f"{record['game']} ply {ply}"
    return positions


def arena_in_process(*args: object) -> Result:
    """An arena command run in this process (click's CliRunner): its stdout, exit code, output."""
    return CliRunner().invoke(main, [str(arg) for arg in args])


@pytest.mark.slow
def test_hex_viewer_steps_every_ply_and_lights_the_winning_chain(page, tmp_path):
    record = random_record("hex", {"size": 5}, 3, ["red-bot", EVIL], first=("b2", "swap"))
    record = record.replace(
        move_info=[{"depth": 3 + k, "score": EVIL, "nodes": None} for k in range(len(record["moves"]))]
    )
    site = site_of(tmp_path, [record], ["red-bot", EVIL])
    page.goto(game_address(site, 3))
    assert page.title() == "Game 3 · arena · viewer"
    final = referee_positions(record)[-1]
    # It opens at the end, the winning chain glowing.
    assert cells_with(page, "chain") == set(final.winning_chain()) and final.winning_chain()
    shot(page, tmp_path, "hex-end")
    # The move list: every move with its time and the mover's clock (60 s + 0.1 s a move).
    rows = [r.locator("td").all_text_contents() for r in page.locator("#moves tbody tr").all()]
    assert [r[2] for r in rows[1:]] == record["moves"] and [r[3] for r in rows[1:]] == list(
        map(str, record["times_ms"])
    )
    assert rows[2][1] == EVIL and rows[1][4] == str(60000 + 100 - record["times_ms"][0])
    assert rows[1][5] == f"depth 3, score {EVIL}"  # the engine's own info, shown as text
    # Plies count from 0, as in the records and PROTOCOL.md: the first move is ply 0.
    assert [r[0] for r in rows] == [""] + [str(p) for p in range(len(record["moves"]))]
    step_through(page, record)
    assert cells_with(page, "chain") == set(final.winning_chain())
    page.click("#first")
    assert cells_with(page, "chain") == set() and set(shown_cells(page).values()) == {""}
    # The swap: Red's b2 leaves, a Blue stone appears on the mirrored cell b2 (on the diagonal).
    page.fill("#ply", "2")
    page.dispatch_event("#ply", "change")
    assert shown_cells(page)["b2"] == "blue" and cells_with(page, "last") == {"b2"}
    page.click("#moves tr[data-ply='0']")  # ply 0: one ply played
    assert shown_cells(page)["b2"] == "red" and page.input_value("#ply") == "1"
    assert page.evaluate("location.hash") == "#played=1"
    page.keyboard.press("End")
    assert page.input_value("#ply") == str(len(record["moves"]))
    assert page.text_content("#board [data-cell='c3'] title") == "c3"
    # Engine text: shown as text, nothing of it run or parsed.
    assert EVIL.replace("\x1b", "\ufffd") not in page.content()
    assert page.locator("strong.player").nth(1).text_content() == EVIL
    assert page.title() == "Game 3 · arena · viewer" and page.locator("#players b").count() == 0
    assert not page.errors


@pytest.mark.slow
@pytest.mark.parametrize(
    "game_name, options, seed",
    [
        ("groups", {"size": 3}, 5),
        ("hexgo", {"size": 3}, 0),  # a game with captures
        ("bases", {"max_plies": 40}, 1),  # a base occupied
        ("posies", {"variant": 0, "players": 3}, 5),
    ],
)
def test_viewer_shows_the_referees_position_at_every_ply(page, tmp_path, game_name, options, seed):
    players = ["alpha", "beta", "gamma"][: make_game(game_name, options).players]
    record = random_record(game_name, options, seed, players)
    site = site_of(tmp_path, [record], players)
    page.goto(game_address(site, seed))
    shot(page, tmp_path, f"{game_name}-end")
    positions = step_through(page, record)
    final = positions[-1]
    if game_name == "hexgo":  # captured stones are marked where they were; territory at the end
        details = final.details()
        shown = cells_with(page, "territory-black") | cells_with(page, "territory-white")
        empty = {
            h for houses in details["territory_houses"] for h in houses if final.cells[final.game.board.index(h)] == -1
        }
        assert shown == empty
        assert final.captures, "pick a seed whose game has captures"
        for capture in details["captures"]:  # the record's details name the ply the move list shows
            row = page.locator(f"#moves tr[data-ply='{capture['ply']}']")
            assert row.locator("td").first.text_content() == str(capture["ply"])
            assert row.locator("td").nth(2).text_content() == record["moves"][capture["ply"]]
            row.click()
            assert cells_with(page, "gone") == set(capture["blocked"]) | set(capture["dominated"])
            assert page.input_value("#ply") == str(capture["ply"] + 1)  # plies played
    if game_name == "bases":
        assert cells_with(page, "occupied") == set(final.details()["occupied_base"])
    if game_name == "posies":  # each ply marks the pair it removed and the group the mover kept
        page.keyboard.press("Home")
        kept_somewhere = False
        for ply, (before, after) in enumerate(zip(positions, positions[1:]), 1):
            page.keyboard.press("ArrowRight")
            pair = set(record["moves"][ply - 1].split("/")[0].split("-"))
            emptied = {before.game.board.names[i] for i, (a, b) in enumerate(zip(before.cells, after.cells)) if a != b}
            assert cells_with(page, "last") == pair and cells_with(page, "gone") == emptied
            assert cells_with(page, "kept") == emptied - pair
            kept_somewhere |= bool(emptied - pair)
        assert kept_somewhere, "pick a seed whose game has a split"
        assert "score" in page.text_content("#status")  # variant 0: scores are public
    assert not page.errors


@pytest.mark.slow
def test_hidden_posies_appear_only_at_the_end(page, tmp_path):
    record = random_record("posies", {"variant": 2}, 11, ["alpha", "beta"])
    site = site_of(tmp_path, [record], ["alpha", "beta"])
    final = referee_positions(record)[-1]
    hidden = final.details()["hidden"]
    # The page holds the record's deal seed nowhere, and the hidden colours only in its last frame.
    source = (site / "games" / "0.html").read_text(encoding="utf-8")  # the viewer page of games 0-499
    data = game_data(site, 11)
    assert str(record["deal"]) not in source and '"deal"' not in source
    assert all("hidden" not in json.dumps(frame) for frame in data["frames"][:-1])
    page.goto(game_address(site, 11) + "#played=0")
    step_through(page, record)
    page.keyboard.press("Home")
    for ply in range(len(record["moves"])):
        assert page.is_hidden("#end")
        text = page.inner_text("main")
        assert "hidden posy" not in text and "score" not in page.text_content("#status"), ply
        page.keyboard.press("ArrowRight")
    assert page.is_visible("#end")
    end = page.text_content("#end")
    for seat, colour in enumerate(hidden):
        assert f"{record['players'][seat]}: score {final.scores()[seat]:g}, hidden posy {colour}" in end
    assert f"left in the bag: {final.details()['bag']}" in end
    shot(page, tmp_path, "posies-hidden-revealed")
    assert not page.errors


# -- a real run: the site replaces the old single page --------------------------

ENGINES = (
    engine_toml("random", "{python}", "-m", "engines.random_engine")
    + engine_toml("pathfinder", "{python}", "-m", "engines.hex_pathfinder")
    + engine_toml("hostile", "{python}", str(HOSTILE))
    + engine_toml("dud", "{python}", ZOO, "crash_start", "1", extra="max_failures = 1")
)


@pytest.mark.slow
def test_a_run_writes_the_site_with_untrusted_text_escaped(page, tmp_path):
    forfeits = "forfeit_failed_engines = true"  # the dud fails its start-up check: play on
    path = write_tournament(tmp_path, ENGINES, name="report", rounds=2, workers=1, extra=forfeits)
    out = tmp_path / "out"
    run = run_arena("run", path, "--out", out)
    assert run.returncode == 1, run.stderr  # finished with the dud dropped
    assert "\x1b" not in run.stdout  # terminal escapes from the engine never reach the terminal
    site = out / "report"
    page.goto((site / "index.html").as_uri())
    assert page.title() == "arena · report"  # no onerror handler ran
    assert page.locator("main img[src='x']").count() == 0
    results = json.loads((out / "results.json").read_text())
    records = [json.loads(line) for line in (out / "games.jsonl").read_text().splitlines()]
    illegal = [r for r in records if r["termination"] == "illegal"]
    assert illegal and all(r["players"][r["forfeit_seat"]] == "hostile" for r in illegal)
    shown = page.locator("#standings tbody tr td:nth-child(2)").all_text_contents()
    assert shown == [row["engine"] for row in results["standings"]]
    dropped = page.locator("#dropped tbody tr").first.locator("td").all_text_contents()
    assert dropped[0] == "dud" and dropped[1].startswith("1 consecutive failures, the last in game")
    assert page.locator("img[src='plots/ratings.svg']").count() == 1
    elo = page.locator("#elo tbody tr td:first-child").all_text_contents()
    assert sorted(elo) == sorted(f"{name} (dropped)" if name == "dud" else name for name in shown)
    dud_row = page.locator("#standings tbody tr").last.locator("td").all_text_contents()
    assert dud_row[0] == "-" and dud_row[1] == "dud" and dud_row[-1] == "dropped"  # marked, not ranked
    assert 'http-equiv="refresh"' not in (site / "index.html").read_text()  # the run is over
    shot(page, tmp_path, "standings")
    page.goto((site / "crosstable.html").as_uri())
    assert page.locator("#head-to-head tbody tr").count() == len(results["head_to_head"])
    heads = page.locator("#head-to-head thead th").all_text_contents()
    for row, pair in zip(page.locator("#head-to-head tbody tr").all(), results["head_to_head"]):
        cells = row.locator("td").all_text_contents()  # every pair finite, its sweeps marked
        assert cells[heads.index("head-to-head Elo")] == f"{pair['elo_diff']}{'†' * pair['elo_virtual_draws']}"
        assert float(cells[heads.index("± 95% (Wilson)")]) == pair["elo_margin"] < 2000
    assert page.locator("#cross tbody tr").count() == 4
    page.goto((site / "engines.html").as_uri())
    faults = {
        row[0]: row for row in (r.locator("td").all_text_contents() for r in page.locator("#faults tbody tr").all())
    }
    headers = page.locator("#faults thead th").all_text_contents()
    assert int(faults["hostile"][headers.index("illegal")]) == len(illegal)
    widths = "t => [t.querySelector('caption').getBoundingClientRect().width, t.getBoundingClientRect().width]"
    caption, table = page.locator("#faults").evaluate(widths)
    assert caption <= table + 1  # its caption reads over its columns, not past them
    assert page.locator("#no-faults").count() == 0
    stats = page.locator("#engine-stats tbody tr td:first-child").all_text_contents()
    assert sorted(stats) == sorted(row["engine"] for row in results["standings"])
    # The games list, filtered in the browser; the hostile move's text is shown, not run.
    page.goto((site / "games.html").as_uri())
    total = results["games"]
    assert page.text_content("#count") == f"{total} of {total} games"
    page.select_option("#f-termination", "illegal")
    assert page.text_content("#count") == f"{len(illegal)} of {total} games"
    reasons = page.locator("#games tbody td:nth-child(7)").all_text_contents()
    assert all("<img/src=x/onerror=document.title='pwned'>" in r for r in reasons)
    page.select_option("#f-engine", label="dud")
    page.select_option("#f-termination", "")
    with_dud = sum("dud" in r["players"] for r in records)
    assert page.text_content("#count") == f"{with_dud} of {total} games"
    page.locator("#games tbody a").first.click()
    page.locator("#board [data-cell]").first.wait_for()  # the viewer draws the board once its script ran
    assert page.title().startswith("Game ")
    assert page.locator("#board [data-cell]").count() == 25
    shot(page, tmp_path, "game-of-dud")
    page.goto((site / "settings.html").as_uri())
    assert "hex_pathfinder" in page.text_content("#settings")
    assert not page.errors
    # 'arena report' writes the same site again from the folder alone.
    again = arena_in_process("report", out, "-o", tmp_path / "again")
    assert again.exit_code == 0, again.output
    assert (tmp_path / "again" / "games" / "0.html").read_text() == (site / "games" / "0.html").read_text()


@pytest.mark.slow
def test_games_not_recorded_and_bad_folders(tmp_path):
    record = random_record("hex", {"size": 3}, 1, ["a", "b"])
    not_recorded = ["game 7 not recorded: internal error <b>boom</b>"]
    summary = summarize([record], ["a", "b"], tournament="t", game="hex", options=record["options"], players=2)
    summary.not_recorded = not_recorded
    data = SiteData("t", "hex", record["options"], ["a", "b"], [record], summary=summary)
    index = write_site(tmp_path / "site", data).read_text()
    assert '<td class="name">game 7 not recorded: internal error &lt;b&gt;boom&lt;/b&gt;</td>' in index
    empty = write_site(tmp_path / "site2", SiteData("t", "hex", record["options"], ["a", "b"], [record])).read_text()
    assert "Games not recorded" not in empty and "Dropped engines" not in empty
    bad = arena_in_process("report", tmp_path / "nowhere")
    assert bad.exit_code == 2 and "no arena.db here" in bad.output and "Traceback" not in bad.output


def terminal_table(text: str, title: str) -> list[list[str]]:
    """The rows of a plain table the terminal printed under ``title``, cut at its columns
    (the dashes under the headers mark them: a cell may hold a space)."""
    text = "\n" + text
    lines = text[text.index(f"\n{title}\n") + len(title) + 2 :].splitlines()
    spans = [m.span() for m in re.finditer(r"-+", lines[1])]
    rows = []
    for line in lines[2:]:
        if not line.strip():
            break
        rows.append([line[a : b if k + 1 < len(spans) else None].strip() for k, (a, b) in enumerate(spans)])
    return rows


def markdown_table(text: str, title: str) -> list[list[str]]:
    lines = text[text.index(f"## {title}\n\n") :].splitlines()[4:]  # after the headers and the |---| line
    table = lines[: next((k for k, line in enumerate(lines) if not line.startswith("|")), len(lines))]
    return [[cell.strip() for cell in line.strip("|").split("|")] for line in table]


SUMMARY_ENGINES = (
    engine_toml("random", "{python}", "-m", "engines.random_engine")
    + engine_toml("pathfinder", "{python}", "-m", "engines.hex_pathfinder")
    + engine_toml("dud", "{python}", ZOO, "crash_start", "1", extra="max_failures = 1")
)


@pytest.mark.slow
def test_the_terminal_json_markdown_csv_and_site_show_the_same_standings(page, tmp_path):
    """One summary of a folder, which every layer renders: the run's closing table, `arena
    results` as a table, JSON, Markdown and CSV, the run's own report site and `arena
    report`'s show the same standings row for row, a dropped engine last and unranked."""
    from arena.results.export import standings_table, summarize_folder

    forfeits = "forfeit_failed_engines = true"  # the dud fails its start-up check: play on
    path = write_tournament(tmp_path, SUMMARY_ENGINES, rounds=2, options="size = 3", extra=forfeits)
    out = tmp_path / "out"
    run = run_arena("run", path, "--out", out, env=WIDE)
    assert run.returncode == 1, run.stderr  # finished with the dud dropped
    headers, rows = standings_table(summarize_folder(out))
    shown = [["" if cell is None else str(cell) for cell in row] for row in rows]
    assert [row[1] for row in shown][-1] == "dud" and shown[-1][0] == "-" and shown[-1][-1] == "dropped"
    assert terminal_table(run.stdout, "Standings") == shown
    # `arena results` and `arena report` only read the folder: in process, as the run is not
    table = arena_in_process("results", out, "--wide")
    assert terminal_table(table.stdout, "Standings") == shown
    assert markdown_table(arena_in_process("results", out, "--format", "md").stdout, "Standings") == shown
    assert markdown_table((out / "standings.md").read_text(), "Standings") == shown
    columns = ("rank", "engine", "games", "wins", "losses", "draws", "score_pct", "mu", "sigma", "conservative")
    picked = [headers.index(h) for h in ("rank", "engine", "games", "wins", "losses", "draws", "score %")]
    picked += [headers.index(h) for h in ("mu", "sigma", "mu-3sigma")]
    expected = [[row[k] for k in picked] for row in shown]
    document = json.loads(arena_in_process("results", out, "--format", "json").stdout)
    as_json = [
        ["-" if st["rank"] is None else str(st["rank"]), *(str(st[c]) for c in columns[1:])]
        for st in document["standings"]
    ]
    assert as_json == expected
    csv_rows = csv.DictReader(io.StringIO(arena_in_process("results", out, "--format", "csv").stdout))
    assert [[row["rank"] or "-", *(row[c] for c in columns[1:])] for row in csv_rows] == expected
    cells = "rows => rows.map(r => [...r.cells].map(c => c.textContent))"
    again = arena_in_process("report", out, "-o", tmp_path / "again")
    assert again.exit_code == 0, again.output
    for site in (out / "report", tmp_path / "again"):
        page.goto((site / "index.html").as_uri())
        assert page.locator("#standings thead th").all_text_contents() == headers
        assert page.locator("#standings tbody tr").evaluate_all(cells) == shown
    assert not page.errors


@pytest.mark.slow
def test_a_running_tournament_refreshes_its_site_at_most_every_interval(tmp_path):
    from arena.tournament.config import load_tournament
    from arena.tournament.observers import live_site

    t = load_tournament(write_tournament(tmp_path, ENGINES, name="live", options="size = 3"))
    records = [random_record("hex", {"size": 3}, seed, ["random", "pathfinder"]) for seed in range(3)]
    live = live_site(tmp_path / "report", t, interval=3600)
    live._due = 0  # the first game is past due
    live.add(records[0], 1, 24)
    live.wait()  # the refresh is written in a thread of its own
    index = (tmp_path / "report" / "index.html").read_text()
    assert "running: 1 of 24 games finished" in index and 'http-equiv="refresh"' in index
    live.add(records[1], 2, 24)  # within the interval: not rewritten
    assert "running: 1 of 24" in (tmp_path / "report" / "index.html").read_text()
    with pytest.raises(KeyError):  # the second game is not on its viewer page yet
        game_data(tmp_path / "report", 1)
    live.stopped()  # Ctrl-C: the pages stop reloading, the games so far are shown
    index = (tmp_path / "report" / "index.html").read_text()
    assert "running:" not in index and 'http-equiv="refresh"' not in index and "2 games" in index
    live.finish(
        summarize(records, ["random", "pathfinder"], tournament="live", game="hex", options={"size": 3}, players=2)
    )
    index = (tmp_path / "report" / "index.html").read_text()
    assert "running:" not in index and 'http-equiv="refresh"' not in index and "3 games" in index
    assert [game_data(tmp_path / "report", r["id"])["id"] for r in records] == [r["id"] for r in records]
    game_page = (tmp_path / "report" / "games" / "0.html").read_text()
    assert 'http-equiv="refresh"' not in game_page  # a finished game's page never changes


SPRT_ENGINES = engine_toml("search-medium", "{python}", "-m", "engines.hex_pathfinder") + engine_toml(
    "random", "{python}", "-m", "engines.random_engine"
)


@pytest.mark.slow
def test_an_sprt_reads_as_the_terminal_does_with_every_elo_labelled(page, tmp_path):
    """A real SPRT run: the site's SPRT block is the terminal's and `arena results`' lines,
    with no Python values, its LLR plotted; beside it each Elo says what it counts and how."""
    extra = "[sprt]\nelo0 = 0\nelo1 = 10\n[openings]\nrandom_plies = 2\n"
    path = write_tournament(tmp_path, SPRT_ENGINES, name="sprt", rounds=200, seed=3, extra=extra)
    out = tmp_path / "out"
    run = run_arena("run", path, "--out", out, "-q", env=WIDE)  # the block's lines unwrapped
    assert run.returncode == 0, run.stderr
    shown = arena_in_process("results", out, "--wide")
    assert shown.exit_code == 0, shown.output
    block = shown.stdout[shown.stdout.index("SPRT search-medium vs random") :].splitlines()[:3]
    assert block[0].endswith("search-medium passes (H1 accepted: Elo 10 rather than 0)"), block
    assert re.fullmatch(
        r"LLR \d\.\d\d \(-2\.94, 2\.94\) after \d+ pairs; Ptnml\(LL LD WL\+DD WD WW\): \[[\d, ]+\]", block[1]
    )
    assert block[2].startswith("SPRT Elo (") and " pairs, pentanomial): " in block[2]
    assert "\n".join(block) in run.stdout  # the run's own tables end with the same block
    page.goto((out / "report" / "index.html").as_uri())
    assert page.locator("#sprt p").all_text_contents() == block
    # The page opens with the verdict and its plot, the standings below them.
    assert page.locator("main h2").first.text_content() == "SPRT"
    order = "([a, b]) => !!(document.querySelector(a).compareDocumentPosition(document.querySelector(b)) & 4)"
    assert page.evaluate(order, ["#sprt", "img[src='plots/sprt.svg']"])
    assert page.evaluate(order, ["img[src='plots/sprt.svg']", "#standings"])
    text = page.text_content("main") or ""
    for python in ("None", "False", "decision H", "elo_high", "llr_history"):
        assert python not in text, python
    assert page.locator("img[src='plots/sprt.svg']").evaluate("img => img.naturalWidth") > 100
    assert "search-medium vs random: search-medium passes" in (out / "report" / "plots" / "sprt.svg").read_text()
    results = json.loads((out / "results.json").read_text())
    games = results["games"]
    assert page.text_content("#elo caption").startswith(f"Bradley-Terry Elo (field, {games} games); anchor: ")
    assert f"Bradley-Terry Elo (field, {games} games)" in shown.stdout and "BT Elo (field)" in shown.stdout
    sprt, (pair,) = results["sprt"], results["head_to_head"]
    assert sprt["elo"]["label"] == f"SPRT Elo ({sprt['pairs']} pairs, pentanomial)" and results["elo"]["label"]
    assert pair["elo_label"].startswith(f"head-to-head Elo ({games} games, Wilson")
    page.goto((out / "report" / "crosstable.html").as_uri())
    assert "head-to-head Elo" in page.locator("#head-to-head thead th").all_text_contents()
    assert "each pair from its own games" in page.text_content("#head-to-head caption")
    shot(page, tmp_path, "sprt")
    assert not page.errors


@pytest.mark.slow
def test_the_games_list_pages_and_filters_a_large_index_in_the_browser(page, tmp_path):
    names = ["a", "b", "c"]
    records = [random_record("hex", {"size": 2}, i, [names[i % 3], names[(i + 1) % 3]]) for i in range(250)]
    site = write_site(tmp_path / "site", SiteData("t", "hex", records[0]["options"], names, records)).parent
    page.goto((site / "games.html").as_uri())
    assert page.text_content("#count") == "250 of 250 games" and page.text_content("#page") == "page 1 of 3"
    assert page.locator("#games tbody tr").count() == 100
    page.click("#next")
    page.click("#next")
    assert page.text_content("#page") == "page 3 of 3" and page.locator("#games tbody tr").count() == 50
    assert page.locator("#games tbody tr a").first.text_content() == "200"
    page.select_option("#f-engine", label="c")
    with_c = [r for r in records if "c" in r["players"]]
    assert page.text_content("#count") == f"{len(with_c)} of 250 games" and page.text_content("#page") == "page 1 of 2"
    shown = page.locator("#games tbody tr td:nth-child(3)").all_text_contents()
    assert shown == [" vs ".join(r["players"]) for r in with_c[:100]]
    won = page.locator("#games tbody tr td:nth-child(4)").all_text_contents()
    assert won == [f"{r['players'][r['winner']]} wins" for r in with_c[:100]]


@pytest.mark.slow
def test_a_record_the_rules_cannot_replay_gets_a_page_saying_so(page, tmp_path):
    good = random_record("hex", {"size": 3}, 1, ["a", "b"])
    bad = random_record("hex", {"size": 3}, 2, ["a", "b"]).replace(moves=["a1", "a1<b>"])
    site = write_site(tmp_path / "site", SiteData("t", "hex", good["options"], ["a", "b"], [good, bad])).parent
    page.goto(game_address(site, 2))
    text = page.text_content("#replay-error")
    assert "cannot be replayed" in text and "a1 a1<b>" in text and page.locator("#replay-error b").count() == 0
    page.goto(game_address(site, 1))
    assert page.locator("#board [data-cell]").count() == 9
    # The list's viewer page asked for no game (or one not on it) says where to pick one.
    for address in ((site / "games" / "0.html").as_uri(), game_address(site, 1).replace("game=1", "game=7")):
        page.goto(address)
        assert page.is_visible("#no-game") and page.is_hidden("#game-head") and page.is_hidden(".viewer")
        assert page.get_attribute("#no-game a", "href") == "../lists/0.html"
    assert not page.errors


# -- the site's look: no Python values, sortable tables, colours, dark mode ----------

# A Python value shown as such: a word None/True/False, or a list's or dict's repr.
PYTHON_VALUE = re.compile(r"\b(?:None|True|False)\b|\['|\{'")
SUMMARY = ("index.html", "crosstable.html", "engines.html", "games.html", "settings.html")
FIVE_GAMES = [
    ("hex", {"size": 5}, 3),
    ("groups", {"size": 3}, 5),
    ("hexgo", {"size": 3}, 0),
    ("bases", {"max_plies": 40}, 1),
    ("posies", {"variant": 0, "players": 3}, 5),
]


def python_values(page) -> list[str]:
    """The Python values in the page's visible text."""
    return PYTHON_VALUE.findall(page.inner_text("body"))


def column(page, table: str, k: int) -> list[str]:
    return page.locator(f"#{table} tbody tr td:nth-child({k + 1})").all_text_contents()


@pytest.mark.slow
def test_no_page_of_a_real_sprt_run_shows_a_python_value(page, tmp_path):
    """A real SPRT run with an engine given options, and booleans in the settings: every
    page's visible text, at the first and last ply of a game too, holds no Python value,
    and the settings page is a table of what the file says."""
    engines = engine_toml("searcher", "{python}", "-m", "engines.search", extra='options = { level = "easy" }')
    engines += engine_toml("random", "{python}", "-m", "engines.random_engine", extra="max_failures = 0")
    extra = "affinity = false\n[sprt]\nelo0 = 0\nelo1 = 10\n[openings]\nrandom_plies = 2\n"
    path = write_tournament(
        tmp_path, engines, name="plain", rounds=100, seed=5, extra=extra, time_control="movetime_ms = 100"
    )
    out = tmp_path / "out"
    run = run_arena("run", path, "--out", out, "-q")
    assert run.returncode == 0, run.stderr
    site = out / "report"
    for name in SUMMARY:
        page.goto((site / name).as_uri())
        assert python_values(page) == [], name
    for game in ("0", "1"):
        page.goto(game_address(site, int(game)))
        assert python_values(page) == [], game
        page.click("#first")
        assert python_values(page) == [], game
    page.goto((site / "settings.html").as_uri())
    rows = {
        row.locator("th").text_content(): row.locator("td .line").all_text_contents()
        for row in page.locator("#tournament-settings tbody tr").all()
    }
    assert rows["options"] == ["size = 5", "swap = yes"] and rows["affinity"] == ["no"]
    assert "elo0 = 0" in rows["sprt"] and rows["openings"][-1] == "random_plies = 2"
    assert "paths" not in rows and "cluster" not in rows  # arena's own marker; unset
    headers = page.locator("#engine-settings thead th").all_text_contents()
    searcher = page.locator("#engine-settings tbody tr").first.locator("td")
    assert searcher.nth(headers.index("options")).text_content() == "level = easy"
    assert searcher.nth(headers.index("command")).text_content() == "{python} -m engines.search"
    shot(page, tmp_path, "settings")
    assert not page.errors


def five_game_sites(tmp_path: Path) -> dict[str, Path]:
    """A small site of each game: random games between its players, one game per pairing."""
    sites = {}
    for game_name, options, seed in FIVE_GAMES:
        players = ["alpha", "beta", "gamma"][: make_game(game_name, options).players]
        pairs = [players] if len(players) > 2 else [["alpha", "beta"], ["beta", "gamma"], ["gamma", "alpha"]]
        engines = sorted({p for pair in pairs for p in pair})
        records = [
            random_record(game_name, options, seed + k, pair).replace(id=k, round=k) for k, pair in enumerate(pairs)
        ]
        data = SiteData(f"arena · {game_name}", game_name, records[0]["options"], engines, records)
        sites[game_name] = write_site(tmp_path / game_name, data).parent
    return sites


@pytest.mark.slow
def test_the_five_games_sites_look_designed_and_say_no_python(page, tmp_path):
    """The index, cross table, engine page and a game page of each game: screenshots, no
    Python value, and the cross table's cells coloured by the row engine's result."""
    for game_name, site in five_game_sites(tmp_path).items():
        for name in ("index.html", "crosstable.html", "engines.html", "games/0.html"):
            page.goto((site / name).as_uri() + ("?game=0" if name.startswith("games/") else ""))  # game 0's viewer
            assert python_values(page) == [], (game_name, name)
            shot(page, tmp_path, f"{game_name}-{name.replace('/', '-').removesuffix('.html')}")
        page.goto((site / "crosstable.html").as_uri())
        for row in page.locator("#cross tbody tr").all():
            for cell in row.locator("td").all()[1:]:
                text, cls = cell.text_content(), cell.get_attribute("class") or ""
                if text == "—":
                    assert cls == "self"
                elif text:
                    points, games = (float(v) for v in text.split("/"))
                    half = games / 2
                    assert cls == ("win" if points > half else "draw" if points == half else "loss"), text
    assert not page.errors


def standings_site(tmp_path: Path) -> Path:
    """Twelve engines, so that ten sorts after nine: a number sorted as text would not."""
    names = [f"e{k}" for k in range(12)]
    records = []
    for k in range(60):
        a, b = names[k % 12], names[(k * 5 + 1) % 12]
        if a != b:
            records.append(random_record("hex", {"size": 3}, k, [a, b]).replace(id=len(records)))
    return write_site(tmp_path / "site", SiteData("t", "hex", records[0]["options"], names, records)).parent


@pytest.mark.slow
def test_clicking_a_header_sorts_its_table_numbers_as_numbers(page, tmp_path):
    site = standings_site(tmp_path)
    page.goto((site / "index.html").as_uri())
    headers = page.locator("#standings thead th").all_text_contents()
    games = headers.index("games")
    header = page.locator("#standings thead th").nth(games)
    assert header.get_attribute("aria-sort") == "none"
    header.locator("button").click()
    shown = [int(v) for v in column(page, "standings", games)]
    assert shown == sorted(shown) and header.get_attribute("aria-sort") == "ascending"
    header.locator("button").click()
    assert [int(v) for v in column(page, "standings", games)] == sorted(shown, reverse=True)
    assert header.get_attribute("aria-sort") == "descending"
    # By the keyboard: the header's button takes the focus, Enter sorts by rank again.
    rank = page.locator("#standings thead th").nth(headers.index("rank"))
    rank.locator("button").focus()
    page.keyboard.press("Enter")
    ranks = column(page, "standings", headers.index("rank"))
    assert [int(v) for v in ranks] == list(range(1, 13))  # 10, 11, 12 after 9: numbers, not text
    assert rank.get_attribute("aria-sort") == "ascending" and header.get_attribute("aria-sort") == "none"
    page.locator("#standings thead th").nth(headers.index("engine")).locator("button").click()
    assert column(page, "standings", headers.index("engine")) == sorted(f"e{k}" for k in range(12))
    # The games list sorts every game, not only the page shown.
    page.goto((site / "games.html").as_uri())
    plies = page.locator("#games thead th").nth(5).locator("button")
    plies.click()
    plies.click()  # descending: the longest game of all first
    assert int(column(page, "games", 5)[0]) == max(game_lengths(site))
    page.locator("#games thead th").first.locator("button").click()
    ids = [int(v) for v in column(page, "games", 0)]
    assert ids == sorted(ids) and ids[0] == 0
    assert not page.errors


def game_lengths(site: Path) -> list[int]:
    """Every game's plies, from the games list's index."""
    text = (site / "data" / "games-index.js").read_text()
    index = json.loads(text[text.index("=") + 1 :].strip().rstrip(";"))
    return [g[5] for g in index["games"]]


@pytest.mark.slow
def test_dark_mode_and_the_palette_the_plots_share(browser, tmp_path):
    site = standings_site(tmp_path)
    styles = "() => { const s = getComputedStyle(document.body); return [s.backgroundColor, s.color]; }"
    looks = {}
    for scheme in ("light", "dark"):
        context = browser.new_context(viewport={"width": 1280, "height": 900}, color_scheme=scheme)
        pg = context.new_page()
        pg.goto((site / "crosstable.html").as_uri())
        looks[scheme] = pg.evaluate(styles)
        win = pg.evaluate("() => getComputedStyle(document.documentElement).getPropertyValue('--win').trim()")
        assert win == (palette.DARK if scheme == "dark" else palette.LIGHT)["win"]
        shot(pg, tmp_path, f"crosstable-{scheme}")
        pg.goto((site / "index.html").as_uri())
        shot(pg, tmp_path, f"plots-{scheme}")
        colours = palette.DARK if scheme == "dark" else palette.LIGHT
        for plot in ("elo", "ratings", "scores"):  # each plot drawn in the page's scheme
            pg.goto((site / "plots" / f"{plot}.svg").as_uri())
            drawn = pg.evaluate(PLOT_COLOURS)
            assert drawn == [_rgb(colours["surface"]), _rgb(colours["text"])], (plot, scheme)
        context.close()
    assert looks["light"] != looks["dark"]
    assert looks["dark"][0] == _rgb(palette.DARK["bg"]) and looks["light"][0] == _rgb(palette.LIGHT["bg"])
    # The plots draw with the same colours: the engines' lines, the Elo points, the score
    # matrix from the loss colour to the win colour.
    ratings = (site / "plots" / "ratings.svg").read_text()
    assert all(colour in ratings for colour in palette.SERIES[:3])
    assert palette.LIGHT["accent"] in (site / "plots" / "elo.svg").read_text()
    assert plots.score_colour(0.0) == palette.LIGHT["loss"] and plots.score_colour(1.0) == palette.LIGHT["win"]
    assert plots.score_colour(0.5) == palette.LIGHT["draw"]
    assert plots.score_colour(0.25) not in (palette.LIGHT["loss"], palette.LIGHT["draw"])
    scores = (site / "plots" / "scores.svg").read_text()
    assert palette.LIGHT["loss"] in scores and palette.LIGHT["win"] in scores  # the colour bar's ends
    sprt = plots.sprt_plot([0.1, 0.5, 1.2], -2.94, 2.94)
    assert palette.LIGHT["win"] in sprt and palette.LIGHT["loss"] in sprt


# A plot's background and its labels' colour, as the browser draws them.
PLOT_COLOURS = """() => [getComputedStyle(document.querySelector("svg > rect")).fill,
  getComputedStyle(Array.from(document.querySelectorAll("text")).pop()).fill]"""


@pytest.mark.slow
def test_the_engines_page_says_so_when_no_game_was_forfeited(page, tmp_path):
    site = standings_site(tmp_path)  # random games, each ended by the rules
    page.goto((site / "engines.html").as_uri())
    assert page.locator("#faults").count() == 0
    assert page.text_content("#no-faults").startswith("No faults: every game ended by the rules")
    assert not page.errors


def _rgb(hex_colour: str) -> str:
    r, g, b = (int(hex_colour[k : k + 2], 16) for k in (1, 3, 5))
    return f"rgb({r}, {g}, {b})"


# -- the settings page and the tallies, computed without a browser ---------------------


def test_the_settings_page_shows_the_file_in_its_own_order_as_text():
    from arena.results.site.pages import settings_page

    settings = {
        "workers": 2,
        "name": "t",
        "engines": [
            {
                "time_control": None,
                "name": "a",
                "command": ["{python}", "-m", "my engine", 5, "it's"],
                "options": [["depth", 3], ["book", True]],
                "env": {},
                "sandbox": {"memory_mb": 512, "x": None},
            },
            {"name": "b", "command": ["./b"], "protocol": "gtp", "cwd": None, "options": []},
            "not an engine",
        ],
        "paths": "relative",
        "zzz": 1.0,
        "rounds": 2,
        "game": "hex",
        "options": {"size": 9, "swap": True, "odd": None},
        "time_control": {"movetime_ms": 500.0, "inc": 2.5},
        "candidates": [],
        "seed": 0,
        "tiebreaks": ["wins", "buchholz"],
        "flag": False,
        "nothing": None,
        "hooks": {"command": ["run it", "now"], "when": {"at": 1.0, "not": None, "ok": False, "command": ["p q"]}},
        "command": ["go", "a b"],  # a key's lines are its own: a command anywhere reads as typed
        "extra": [{"k": True, "n": None}, 3.0, [1, 2], ["a", 1, 2]],
        "pairs": [("p", 1.5), ["q", ["x", "y z"]]],
    }
    page = settings_page(settings)
    assert page.rows == [
        ("name", ["t"]),
        ("game", ["hex"]),
        ("options", ["size = 9", "swap = yes"]),
        ("rounds", ["2"]),
        ("seed", ["0"]),
        ("workers", ["2"]),
        ("time_control", ["movetime_ms = 500", "inc = 2.5"]),
        ("zzz", ["1"]),
        ("tiebreaks", ["wins, buchholz"]),
        ("flag", ["no"]),
        ("hooks", ["command = 'run it' now", "when = at = 1, ok = no, command = 'p q'"]),
        ("command", ["go 'a b'"]),
        ("extra", ["k = yes, 3, 1, 2, a, 1, 2"]),
        ("pairs", ["p = 1.5", "q = x, y z"]),
    ]
    assert page.engine_headers == ["name", "command", "protocol", "options", "sandbox"]
    assert page.engine_rows == [
        [["a"], ["{python} -m 'my engine' 5 'it'\"'\"'s'"], [], ["depth = 3", "book = yes"], ["memory_mb = 512"]],
        [["b"], ["./b"], ["gtp"], [], []],
    ]
    bare = settings_page({"name": "t", "engines": None, "seed": 7})
    assert bare == type(page)([("name", ["t"]), ("seed", ["7"])], [], [])


def test_a_setting_reads_as_text_a_person_would_write():
    from arena.results.site.pages import command_text, setting_lines, setting_text

    assert [setting_text("k", v) for v in (True, False, 10.0, 2.5, 0, "x y", None)] == [
        "yes",
        "no",
        "10",
        "2.5",
        "0",
        "x y",
        "None",
    ]
    assert setting_text("command", ["a b", "{python}", 1]) == "'a b' {python} 1"
    assert setting_text("args", ["a b", "{python}", 1]) == "a b, {python}, 1"  # a list, not a command
    assert setting_text("k", {"a": 1, "b": None, "c": [True, 2.0]}) == "a = 1, c = yes, 2"
    assert command_text(["{python}", "{python} x", "", "a;b"]) == "{python} '{python} x' '' 'a;b'"
    assert [setting_lines("k", v) for v in (None, [], {}, 0, False, "")] == [[], [], [], ["0"], ["no"], [""]]
    assert setting_lines("k", [("a", 1), ("b", 2)]) == ["a = 1", "b = 2"]
    assert setting_lines("k", [["a", 1], [2, 2]]) == ["a, 1, 2, 2"]  # not all pairs: a list
    assert setting_lines("k", [["a", 1], ["b"]]) == ["a, 1, b"]
    assert setting_lines("k", ["ab", "cd"]) == ["ab, cd"]  # strings of two are not pairs
    assert setting_lines("command", ["x y", "z"]) == ["'x y' z"]
    assert setting_lines("env", [["command", ["x y", "z"]]]) == ["command = 'x y' z"]
    assert setting_lines("k", {"a": None, "b": 0}) == ["b = 0"]


def test_the_standings_tally_rates_the_games_in_id_order_however_they_come():
    from arena.record import GameRecord
    from arena.results.ratings import StandingsTally
    from arena.results.site.pages import standings_tally

    def game(k: int, places: list[int]) -> GameRecord:
        return GameRecord(game="hex", moves=[], players=["a", "b"], places=places, termination="normal", id=k)

    records = [game(0, [0, 1]), game(1, [0, 0]), game(2, [1, 0]), game(3, [0, 1]), game(4, [0, 0])]

    def in_order(can_draw: bool) -> StandingsTally:
        tally = StandingsTally(["a", "b"], 2, can_draw=can_draw, history=True)
        for r in records:
            tally.add(r)
        return tally

    def shown(tally: StandingsTally) -> tuple[object, ...]:
        return [vars(s) for s in tally.standings()], tally.history, tally.last_id, tally.count

    for can_draw in (False, True):
        tally = standings_tally(["a", "b"], records[::-1], 2, can_draw)
        assert shown(tally) == shown(in_order(can_draw)) and tally.last_id == 4
        assert shown(tally) != shown(in_order(not can_draw))
        assert [n for n, _, _ in tally.history["a"]] == [1, 2, 3, 4, 5]


def hex_won_by(game_id: int, round_: int, players: list[str], winner: int, seed: int) -> object:
    """A 3x3 Hex game of random moves won by seat ``winner``, as the runner stores it."""
    return random_game_record(game_id, players, 3, seed, winner=winner, round_=round_, stored_seed=seed)


def knockout_folder(tmp_path: Path, games: int | None = None) -> Path:
    """A results folder of a knockout of a, b and c (a has a bye), the better seed winning
    every game; only its first ``games`` games when given. No engine runs."""
    from arena.results.events import plan_event, settings_event
    from arena.results.store import GameStore
    from arena.tournament.config import load_tournament
    from arena.tournament.settings import tournament_settings

    engines = "".join(engine_toml(n, "{python}", "-m", "engines.random_engine") for n in "abc")
    tmp_path.mkdir(parents=True, exist_ok=True)
    path = write_tournament(tmp_path, engines, name="ko", options="size = 3", extra='format = "knockout"')
    settings = tournament_settings(load_tournament(path))
    event = settings_event(settings, 2)
    assert event is not None
    stored: dict[int, object] = {}
    while len(stored) < (games if games is not None else 99):
        new = [s for s in plan_event(event, stored).slots if s.index not in stored]
        if not new:
            break
        for s in new:
            stored[s.index] = hex_won_by(s.index, s.round, list(s.seats), s.seats.index(min(s.seats)), s.seed)
    out = tmp_path / "out"
    with GameStore(out) as store:
        store.open(settings)
        for k in sorted(stored)[:games]:
            store.add(stored[k])
    return out


def test_a_folder_loads_as_the_sites_data_with_its_summary_now_or_later(tmp_path):
    from arena.results.export import summarize_folder
    from arena.results.site import load_folder

    out = knockout_folder(tmp_path)
    (out / "results.json").write_text(json.dumps({"not_recorded": ["game 9: disk full", 3, "game 11: gone"]}))
    data = load_folder(out)
    expected = summarize_folder(out)
    assert (data.title, data.game, data.options, data.engines) == (
        "arena · ko",
        "hex",
        {"size": 3, "swap": True},
        ["a", "b", "c"],
    )
    assert data.settings is not None and data.settings["format"] == "knockout" and data.summarize is None
    assert data.summary is not None and data.records == data.summary.records == expected.records
    assert [r.id for r in data.records] == [0, 1, 2, 3]
    assert data.summary.not_recorded == ["game 9: disk full", "game 11: gone"]
    assert data.summary.elo.as_dict() == expected.elo.as_dict() and data.summary.tournament == "ko"
    assert data.summary.event is not None and data.summary.event.winner == "a"
    # --elo-prior 0: maximum likelihood, as arena results --elo-prior 0
    assert load_folder(out, elo_prior=0).summary.elo.as_dict() == summarize_folder(out, 0).elo.as_dict()
    assert load_folder(out, elo_prior=0).summary.elo.as_dict() != expected.elo.as_dict()
    later = load_folder(out, later=True)
    assert later.summary is None and later.summarize is not None and later.records == data.records
    assert later.engines == ["a", "b", "c"] and later.title == "arena · ko"  # the file's, before the summary
    later.summarize(later)
    assert later.summary is not None and later.summary.elo.as_dict() == expected.elo.as_dict()
    assert later.summary.not_recorded == data.summary.not_recorded and later.engines == ["a", "b", "c"]
    later_ml = load_folder(out, elo_prior=0, later=True)
    assert later_ml.summarize is not None
    later_ml.summarize(later_ml)
    assert later_ml.summary.elo.as_dict() == summarize_folder(out, 0).elo.as_dict()


def test_a_folder_the_site_cannot_be_made_from_is_one_error(tmp_path):
    from arena.results.export import read_for_summary
    from arena.results.site import SiteError, load_folder
    from arena.results.store import StorageError

    for folder in (tmp_path / "none", tmp_path):
        with pytest.raises(StorageError) as plain:
            read_for_summary(folder)
        with pytest.raises(SiteError) as refused:
            load_folder(folder)
        assert str(refused.value) == str(plain.value) and str(folder) in str(refused.value)


def test_the_last_runs_games_not_recorded_come_from_its_results_json(tmp_path):
    from arena.results.site import last_run_not_recorded

    path = tmp_path / "results.json"
    assert last_run_not_recorded(path) == []  # none written
    for text in ("{", "[1, 2]", '{"not_recorded": "game 1"}', '{"other": []}', "\xff"):
        path.write_text(text, encoding="latin-1")
        assert last_run_not_recorded(path) == [], text
    path.write_text('{"not_recorded": ["game 1: x", null, 2, "game 2: y", ["z"]]}')
    assert last_run_not_recorded(path) == ["game 1: x", "game 2: y"]
    path.write_text('{"not_recorded": ["ü"]}', encoding="utf-8")
    assert last_run_not_recorded(path) == ["ü"]
    with ascii_locale():  # UTF-8 whatever the locale
        assert last_run_not_recorded(path) == ["ü"]


def test_an_events_view_on_the_index_page_is_the_terminals_table_and_bracket(tmp_path):
    from arena.results.site import _event_view, load_folder

    data = load_folder(knockout_folder(tmp_path))
    assert data.summary is not None and data.summary.event is not None
    view = _event_view(data.summary.event)
    assert view == {
        "title": "Knockout standings",
        "headers": ["rank", "engine", "score", "reached"],
        "rows": [[1, "a", 2.0, "winner"], [2, "b", 2.0, "final"], [3, "c", 0.0, "semi-final"]],
        "bracket": [
            "semi-final: a (bye)",
            "semi-final: b 2-0 c, b through on games",
            "final: a 2-0 b, a through on games",
            "winner: a",
        ],
        "stopped": "",
    }
    index = write_site(tmp_path / "site", data).read_text(encoding="utf-8")
    assert "<h2>Knockout standings</h2>" in index
    assert '<ol id="bracket"><li>semi-final: a (bye)</li><li>semi-final: b 2-0 c, b through on games</li>' in index
    part = load_folder(knockout_folder(tmp_path / "part", games=1))
    assert part.summary is not None and part.summary.event is not None
    assert _event_view(part.summary.event) == {
        "title": "Knockout standings (so far)",
        "headers": ["rank", "engine", "score", "reached"],
        "rows": [[1, "a", 0.0, "playing"], [2, "b", 1.0, "playing"], [3, "c", 0.0, "playing"]],
        "bracket": ["semi-final: a (bye)", "semi-final: b to play c"],
        "stopped": "",
    }
    swiss = EventSummary("swiss", (), [], finished=True, stopped="the event ended after round 1: no pairing")
    assert _event_view(swiss) == {
        "title": "Swiss standings",
        "headers": ["rank", "engine", "score", "byes"],
        "rows": [],
        "bracket": [],
        "stopped": "the event ended after round 1: no pairing",
    }


def test_a_board_of_points_has_a_street_between_each_two_neighbours_once():
    from arena.results.site.boards import WIDTH, board_geometry

    game = make_game("posies", {})
    geometry = board_geometry(game)
    board = game.picture().board
    cells = geometry["cells"]
    pairs = [(a, b) for a in board for b in board.neighbours[a] if a < b]
    assert len(cells) == 51 and len(pairs) == 128
    assert geometry["streets"] == [[cells[a]["x"], cells[a]["y"], cells[b]["x"], cells[b]["y"]] for a, b in pairs]
    assert geometry["streets"][:2] == [[103.28, 54.0, 137.92, 54.0], [103.28, 54.0, 120.6, 84.0]]
    assert all(abs(math.dist(s[:2], s[2:]) - WIDTH) < 0.02 for s in geometry["streets"])  # neighbours only
    assert board_geometry(make_game("hex", {"size": 3}))["streets"] == []  # a board of cells has none


def test_a_folder_whose_summary_cannot_be_made_is_one_error_now_or_later(tmp_path):
    import sqlite3
    from contextlib import closing

    from arena.results.site import SiteError, load_folder

    out = knockout_folder(tmp_path)
    with closing(sqlite3.connect(out / "arena.db")) as db, db:
        db.execute("INSERT OR REPLACE INTO meta VALUES ('dropped', '{not json')")
    damaged = (
        f"{(out / 'arena.db').resolve()}: its stored 'dropped' is damaged; start a new folder with --out, "
        "or remove the folder to play the tournament again"
    )
    with pytest.raises(SiteError) as now:
        load_folder(out)
    assert str(now.value) == damaged
    later = load_folder(out, later=True)  # the games are read; the summary fails when made
    assert later.summarize is not None and len(later.records) == 4
    with pytest.raises(SiteError) as made:
        later.summarize(later)
    assert str(made.value) == damaged


def test_a_folder_without_stored_settings_loads_with_the_engines_its_games_name(tmp_path):
    """A folder an older arena wrote keeps no settings: the site is named after the folder
    and its engines are those of the games, known once the summary is made."""
    import sqlite3
    from contextlib import closing

    from helpers import random_game_record

    from arena.results.site import load_folder
    from arena.results.store import GameStore

    out = tmp_path / "old"
    with GameStore(out) as store:
        store.open({"name": "t"})
        store.add_many([random_game_record(k, ["x", "y"] if k % 2 else ["y", "x"], seed=k) for k in range(4)])
    with closing(sqlite3.connect(out / "arena.db")) as db, db:
        db.execute("DELETE FROM meta WHERE key = 'settings'")
    later = load_folder(out, later=True)
    assert (later.title, later.settings, later.engines, len(later.records)) == ("arena · old", None, [], 4)
    assert later.summarize is not None
    later.summarize(later)
    assert later.summary is not None and sorted(later.engines) == ["x", "y"]
    assert later.engines == later.summary.order


def test_a_games_options_read_as_key_equals_value_and_none_when_it_has_none():
    from arena.results.site.pages import options_text

    assert options_text({"size": 5, "swap": True, "komi": 0.5}) == "size=5, swap=true, komi=0.5"
    assert options_text({"swap": False}) == "swap=false"
    assert options_text({}) == "none"


def test_a_cross_table_cell_is_a_win_a_draw_or_a_loss_by_half_the_points():
    from arena.results.site.pages import outcome_class

    assert [outcome_class(p, g) for p, g in ((2, 3), (1, 1), (3.5, 4))] == ["win", "win", "win"]
    assert [outcome_class(p, g) for p, g in ((1, 2), (1.5, 3), (2, 4))] == ["draw", "draw", "draw"]
    assert [outcome_class(p, g) for p, g in ((1, 3), (0.5, 2), (0, 1))] == ["loss", "loss", "loss"]


def test_the_summary_tables_show_each_pairs_score_its_colour_and_percentage_and_blanks_where_none_met():
    """alpha and beta split two games, gamma beat beta, alpha never met gamma."""
    from arena.results.export import standings_table
    from arena.results.ratings import HEAD_TO_HEAD_NOTE, head_to_head_rows
    from arena.results.site.pages import summary_tables

    records = [
        hex_won_by(0, 0, ["alpha", "beta"], 0, 1),
        hex_won_by(1, 0, ["beta", "alpha"], 0, 2),
        hex_won_by(2, 1, ["beta", "gamma"], 1, 3),
    ]
    s = summarize(records, ["alpha", "beta", "gamma"], tournament="t", game="hex", options={"size": 3}, players=2)
    tables = summary_tables(s)
    assert sorted(tables.order) == ["alpha", "beta", "gamma"] and tables.order == s.order
    assert (tables.players, tables.history, tables.pair_note) == (2, s.history, HEAD_TO_HEAD_NOTE)
    assert (tables.headers, tables.rows) == standings_table(s)
    assert (tables.pair_headers, tables.pair_rows) == head_to_head_rows(s.pairs, tables.order)
    assert len(tables.pair_rows) == 2
    met = {
        ("alpha", "beta"): ("1/2", "draw", 50.0),
        ("beta", "alpha"): ("1/2", "draw", 50.0),
        ("beta", "gamma"): ("0/1", "loss", 0.0),
        ("gamma", "beta"): ("1/1", "win", 100.0),
    }

    def cell(a: str, b: str) -> tuple[str, str]:
        return ("—", "self") if a == b else met[a, b][:2] if (a, b) in met else ("", "")

    assert tables.cross == [(a, [cell(a, b) for b in tables.order]) for a in tables.order]
    assert tables.matrix == [[met[a, b][2] if (a, b) in met else None for b in tables.order] for a in tables.order]


def test_the_engines_table_has_a_score_column_per_seat_named_by_the_game_and_none_without_engines():
    from arena.results.site.pages import StatsTable, stats_table
    from arena.results.stats import engine_stats

    common = ["engine", "games", "wins", "losses", "draws", "score %"]
    timing = ["swapped", "was swapped", "mean plies", "moves timed", "mean ms/move", "max ms/move"]
    assert stats_table("hex", {}) == StatsTable(
        [*common, *timing, "mean depth", "nodes/s"], [], ["engine", "won by an opponent's forfeit"], []
    )
    records = [hex_won_by(0, 0, ["alpha", "beta"], 0, 1), hex_won_by(1, 0, ["beta", "alpha"], 1, 2)]
    table = stats_table("hex", engine_stats(records, ["alpha", "beta"]))
    assert table.headers == [*common, "score % as red", "score % as blue", *timing, "mean depth", "nodes/s"]
    assert [row[:8] for row in table.rows] == [
        ["alpha", 2, 2, 0, 0, 100.0, 100.0, 100.0],
        ["beta", 2, 0, 2, 0, 0.0, 0.0, 0.0],
    ]


def test_a_listed_games_row_says_its_result_termination_plies_and_reason():
    from arena.record import GameRecord
    from arena.results.site.pages import ListedGame, listed_game

    won = GameRecord(
        game="hex",
        moves=["a1", "b2", "c3"],
        players=["ann", "bob"],
        places=[1, 0],
        winner=1,
        termination="timeout",
        reason="no move in time",
        id=7,
        round=3,
    )
    assert listed_game(won) == ListedGame(7, 3, ["ann", "bob"], "bob wins", "timeout", 3, "no move in time")
    drawn = GameRecord(game="hex", moves=[], players=["ann", "bob"], places=[0, 0], termination="normal", id=8)
    assert listed_game(drawn) == ListedGame(8, None, ["ann", "bob"], "draw", "normal", 0, "")
    shared = GameRecord(
        game="hex", moves=["a1"], players=["ann", "bob", "cy"], places=[0, 0, 2], termination="normal", id=9
    )
    assert listed_game(shared).result == "places 1 1 3"


def test_the_rating_table_shows_each_elo_and_interval_to_a_tenth_the_score_and_los_in_percent_and_plots_the_bounded():
    """Two rated engines 100 Elo apart whose difference has a standard deviation of 100
    (variance 5000 each, no covariance): the LOS of the better is Phi(1) = 84.13 %, of
    the worse 15.87 %. A bootstrap left bee's low end unbounded, and cat met nobody."""
    import numpy as np

    from arena.results.elo import Covariance, EloFit, EloRating
    from arena.results.site.pages import EloTable, elo_table

    ratings = [
        EloRating("ace", 123.456, 60.04, 186.87, 38.0, games=3, points=2.0, results=3),
        EloRating("bee", 23.456, None, 88.88, None, games=3, points=1.0, results=3),
        EloRating("cat", None, None, None, None, games=0, points=0.0, results=0, bound="unconnected"),
    ]
    covariance = Covariance(["ace", "bee"], np.array([[5000.0, 0.0], [0.0, 5000.0]]))
    method = "bootstrap over games, 200 samples, seed 3"
    fit = EloFit(ratings, "mean of rated engines = 0", 0.9, method, covariance, prior=0)
    assert elo_table(fit, dropped=["cat"]) == EloTable(
        ["engine", "Elo", "90% low", "90% high", "games", "score %", "note"],
        [
            ["ace", 123.5, 60.0, 186.9, 3, 66.7, ""],
            ["bee", 23.5, "", 88.9, 3, 33.3, ""],
            ["cat (dropped)", "", "", "", 0, "", "no results linking it to the others"],
        ],
        [("ace", 123.456, 60.04, 186.87)],
        "mean of rated engines = 0",
        "Bradley-Terry maximum likelihood",
        method,
        ["LOS % (row over column)", "ace", "bee", "cat"],
        [["ace", "", 84.1, ""], ["bee", 15.9, "", ""], ["cat", "", "", ""]],
    )


def engines_stats(*rows: EngineStats) -> dict[str, EngineStats]:
    """Per-engine statistics keyed by engine, in the order given."""
    return {row.engine: row for row in rows}


def test_the_engines_table_shows_means_to_a_tenth_nodes_per_second_whole_and_blanks_where_nothing_was_counted():
    """ace: 2 of 3 points, 100 plies over 3 games, 1234 ms over 3 timed moves (the longest
    700), depth 25 over 3 moves, 12345 nodes in 700 ms; bee: 1 of 3 points, 90 plies, no
    move timed nor reported; cat: no game at all."""
    from arena.results.site.pages import stats_table

    ace = EngineStats(
        "ace",
        games=3,
        wins=2,
        losses=1,
        points=2.0,
        results=3,
        plies=100,
        moves_timed=3,
        time_ms=1234,
        max_move_ms=700,
        depth_sum=25,
        depth_moves=3,
        nodes=12345,
        nodes_ms=700,
    )
    bee = EngineStats("bee", games=3, wins=1, losses=2, points=1.0, results=3, plies=90)
    table = stats_table("hex", engines_stats(ace, bee, EngineStats("cat")))
    assert table.rows == [
        ["ace", 3, 2, 1, 0, 66.7, 0, 0, 33.3, 3, 411.3, 700, 8.3, 17636.0],
        ["bee", 3, 1, 2, 0, 33.3, 0, 0, 30.0, 0, "", "", "", ""],
        ["cat", 0, 0, 0, 0, "", 0, 0, "", 0, "", "", "", ""],
    ]
    assert (table.fault_headers, table.fault_rows) == (["engine", "won by an opponent's forfeit"], [])


def test_the_faults_table_counts_each_engines_forfeits_by_termination_in_the_records_order_and_its_wins_by_forfeit():
    from arena.results.site.pages import stats_table

    ace = EngineStats("ace", terminations={"crash": 1, "timeout": 2})
    bee = EngineStats("bee", opponent_forfeits=2)
    cat = EngineStats("cat", terminations={"crash": 1}, opponent_forfeits=1)
    table = stats_table("hex", engines_stats(ace, bee, cat))
    assert table.fault_headers == ["engine", "timeout", "crash", "won by an opponent's forfeit"]
    assert table.fault_rows == [["ace", 2, 1, 0], ["bee", 0, 0, 2], ["cat", 0, 1, 1]]


def test_the_faults_table_has_rows_as_soon_as_one_forfeit_or_one_win_by_forfeit_is_in_the_table():
    """The engine that forfeited, or the one that won by it, may be the only one in the table."""
    from arena.results.site.pages import stats_table

    forfeited = stats_table("hex", engines_stats(EngineStats("ace", terminations={"illegal": 1}), EngineStats("bee")))
    assert forfeited.fault_headers == ["engine", "illegal", "won by an opponent's forfeit"]
    assert forfeited.fault_rows == [["ace", 1, 0], ["bee", 0, 0]]
    won = stats_table("hex", engines_stats(EngineStats("ace"), EngineStats("bee", opponent_forfeits=1)))
    assert (won.fault_headers, won.fault_rows) == (["engine", "won by an opponent's forfeit"], [["ace", 0], ["bee", 1]])


def test_the_rating_tables_figures_are_rounded_to_a_tenth_and_an_end_that_rounds_to_zero_shows_0_0():
    import numpy as np

    from arena.results.elo import Covariance, EloFit, EloRating
    from arena.results.site.pages import elo_table

    ratings = [
        EloRating("a", 12.34, -0.04, 24.71, 6.3, 4, 3.0, 4),
        EloRating("b", -12.34, -24.71, 0.04, 6.3, 4, 1.0, 4),
    ]
    covariance = Covariance(["a", "b"], np.array([[40.0, -40.0], [-40.0, 40.0]]))
    table = elo_table(EloFit(ratings, "mean of rated engines = 0", 0.95, "given", covariance))
    assert [[str(v) for v in row] for row in table.rows] == [  # as the page prints them
        ["a", "12.3", "0.0", "24.7", "4", "75.0", ""],
        ["b", "-12.3", "-24.7", "0.0", "4", "25.0", ""],
    ]


def test_a_page_prints_none_as_nothing_and_true_and_false_as_yes_and_no():
    from arena.results.site import template_environment

    template = template_environment().from_string("[{{ a }}|{{ b }}|{{ c }}|{{ d }}|{{ e }}]")
    assert template.render(a=None, b=True, c=False, d=0, e="x") == "[|yes|no|0|x]"


def test_the_stylesheet_asset_starts_with_the_palettes_variables_and_the_scripts_are_their_files():
    from arena.results.site import ASSETS, HERE, asset_text

    static = HERE / "static"
    css = (static / "site.css").read_text(encoding="utf-8")
    assert asset_text("site.css") == palette.css_variables() + "\n" + css
    for name in ASSETS:
        if name != "site.css":
            assert asset_text(name) == (static / name).read_text(encoding="utf-8")


def _hex_records(ids: range) -> list:
    from arena.record import GameRecord

    return [
        GameRecord(game="hex", moves=[], players=["a", "b"], places=[0, 1], termination="normal", id=k) for k in ids
    ]


def test_the_games_that_arrive_at_the_end_of_the_records_taken_are_found_without_reading_the_others():
    """Records that only grew at their end: the new ones are those after the last taken, found by
    reading only the record where the last taken stood and the ones after it."""
    from arena.results.site import _Arrivals

    read: set[int] = set()

    class Watched(list):  # a list that notes in ``read`` which of its records were read
        def __getitem__(self, k):
            read.update(range(len(self))[k] if isinstance(k, slice) else [k])
            return super().__getitem__(k)

        def __iter__(self):
            read.update(range(len(self)))
            return super().__iter__()

    records = _hex_records(range(1, 6))
    arrivals = _Arrivals()
    fresh, again = arrivals.new(records[:3])
    assert (fresh, again) == (records[:3], False)
    arrivals.take(records[:3], fresh)
    grown = Watched(records)
    fresh, again = arrivals.new(grown)
    assert (list(fresh), again) == (records[3:], False)
    assert read == {2, 3, 4}


def test_records_read_again_are_new_by_their_ids_and_other_records_are_all_new_again():
    """The same games as new objects (a folder read again) plus more: the new ones are those of
    ids not taken.  Records without those taken are all returned, to count again; after them,
    games that come at their end are new as before."""
    from arena.results.site import _Arrivals

    arrivals = _Arrivals()
    first = _hex_records(range(1, 4))
    arrivals.take(first, arrivals.new(first)[0])
    reread = _hex_records(range(1, 6))
    fresh, again = arrivals.new(reread)
    assert ([r.id for r in fresh], again) == ([4, 5], False)
    arrivals.take(reread, fresh)

    other = _hex_records(range(10, 12))
    fresh, again = arrivals.new(other)
    assert (fresh, again) == (other, True)
    arrivals.take(other, fresh)
    more = [*other, *_hex_records(range(12, 13))]
    fresh, again = arrivals.new(more)
    assert ([r.id for r in fresh], again) == ([12], False)


def test_the_templates_drop_the_lines_of_their_tags_and_refuse_an_undefined_name(tmp_path, monkeypatch):
    """A block tag's line leaves nothing on the page (not its indent, not its newline), and a
    name the template was not given is an error, not empty text."""
    import jinja2

    from arena.results.site import template_environment

    monkeypatch.setenv("XDG_CACHE_HOME", str(tmp_path))
    env = template_environment()
    listed = env.from_string("<ul>\n  {% for x in xs %}\n  <li>{{ x }}</li>\n  {% endfor %}\n</ul>\n")
    assert listed.render(xs=[1, 2]) == "<ul>\n  <li>1</li>\n  <li>2</li>\n</ul>"
    with pytest.raises(jinja2.UndefinedError):
        env.from_string("<p>{{ missing }}</p>").render()


def test_without_xdg_cache_home_the_compiled_templates_go_to_the_homes_cache_folder(tmp_path, monkeypatch):
    from arena.results.site import template_environment

    monkeypatch.delenv("XDG_CACHE_HOME", raising=False)
    monkeypatch.setenv("HOME", str(tmp_path))
    template_environment().get_template("macros.html")
    assert [p.name for p in tmp_path.iterdir()] == [".cache"]
    kept = list((tmp_path / ".cache" / "arena" / "templates").iterdir())
    assert [p.suffix for p in kept] == [".cache"]
