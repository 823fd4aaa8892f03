"""The live site's refresh: only new games are counted and written, the summary equals a
site written from scratch, and no plotting library is imported."""

from __future__ import annotations

import functools
import json
import re
import subprocess
import sys
from pathlib import Path

import pytest
from helpers import game_data, random_record

import arena.results.site as site_module
from arena.results.export import summarize
from arena.results.site import SiteData, SiteWriter, plots, write_site
from arena.results.site.pages import move_data
from arena.rules import make_game

ROOT = Path(__file__).resolve().parent.parent
ENGINES = ["alpha", "beta", "gamma"]
PAIRS = [["alpha", "beta"], ["beta", "gamma"], ["gamma", "alpha"], ["beta", "alpha"]]
SUMMARY = ("index.html", "crosstable.html", "engines.html", "games.html", "data/games-index.js")
STAMP = re.compile(r" · written [^<]*")  # the header's time of writing


def records(ids: list[int]):
    return [random_record("hex", {"size": 4}, k, PAIRS[k % len(PAIRS)]).replace(id=k, round=k) for k in ids]


def summary(folder: Path) -> dict[str, str]:
    return {name: STAMP.sub("", (folder / name).read_text()) for name in SUMMARY}


def test_a_refresh_counts_and_writes_only_the_new_games_and_equals_a_fresh_site(tmp_path, monkeypatch):
    monkeypatch.setattr(site_module, "LIST_SIZE", 4)  # 500 a page in a site; 4 here: two full pages, then more
    first = records(list(range(8)))
    data = SiteData("t", "hex", first[0]["options"], ENGINES, list(first))
    writer = SiteWriter(tmp_path / "live", parallel=False)
    writer.write(data)
    pages = {p.name: p.stat().st_mtime_ns for p in (tmp_path / "live" / "games").iterdir()}
    plot = (tmp_path / "live" / "plots" / "scores.svg").stat().st_mtime_ns
    # More games, some of them finished by another worker before games already counted.
    later = records([12, 9, 8, 10, 11])
    data.records += later
    writer.write(data)
    after = {p.name: p.stat().st_mtime_ns for p in (tmp_path / "live" / "games").iterdir()}
    assert all(after[name] == stamp for name, stamp in pages.items())  # full pages are written once
    assert set(after) - set(pages) == {f"{r.id // 4}.html" for r in later} == {"2.html", "3.html"}
    assert (tmp_path / "live" / "plots" / "scores.svg").stat().st_mtime_ns != plot  # the scores changed
    fresh = write_site(tmp_path / "fresh", SiteData("t", "hex", first[0]["options"], ENGINES, first + later)).parent
    assert summary(tmp_path / "live") == summary(fresh)
    assert "13 games" in (tmp_path / "live" / "index.html").read_text()
    # Nothing new: the plots and the games index are left as they are.
    unchanged = {n: (tmp_path / "live" / n).stat().st_mtime_ns for n in ("plots/scores.svg", "data/games-index.js")}
    writer.write(data)
    assert {n: (tmp_path / "live" / n).stat().st_mtime_ns for n in unchanged} == unchanged


def test_a_refresh_of_other_games_starts_its_tallies_again(tmp_path):
    writer = SiteWriter(tmp_path / "site", parallel=False)
    writer.write(SiteData("t", "hex", records([0])[0]["options"], ENGINES, records(list(range(6)))))
    fewer = records([0, 1])  # a folder rewritten with other games: nothing of the old tallies stays
    writer.write(SiteData("t", "hex", fewer[0]["options"], ENGINES, fewer))
    fresh = write_site(tmp_path / "fresh", SiteData("t", "hex", fewer[0]["options"], ENGINES, fewer)).parent
    assert summary(tmp_path / "site") == summary(fresh)


def test_a_change_of_the_rules_rewrites_the_boards_and_game_pages(tmp_path, monkeypatch):
    """A board's file holds its game's marks and a game page the replay: both come from the
    rules, so a site written before the rules changed is redrawn, not kept."""
    rules = tmp_path / "rules"
    rules.mkdir()
    (rules / "hex.py").write_text("# the rules as they were\n")
    monkeypatch.setattr(site_module, "RULES", rules)
    version = functools.cache(site_module._code_version.__wrapped__)  # once per process: this test's own
    monkeypatch.setattr(site_module, "_code_version", version)
    data = SiteData("t", "hex", records([0])[0]["options"], ENGINES, records([0, 1]))
    write_site(tmp_path / "site", data)
    files = [p for folder in ("boards", "games") for p in (tmp_path / "site" / folder).iterdir()]
    for path in files:  # marked, to tell a file kept from one written again
        path.write_text("stale")
    write_site(tmp_path / "site", data)
    assert all(path.read_text() == "stale" for path in files)  # the same rules: kept
    (rules / "hex.py").write_text("# the rules now\n")
    version.cache_clear()  # a new arena version: a new process
    (tmp_path / "site" / "games" / "57.html").write_text("a game's page of an older site")
    write_site(tmp_path / "site", data)
    assert not any(path.read_text() == "stale" for path in files)
    # The pages an older site wrote in games/ and this one does not are gone.
    assert sorted(p.name for p in (tmp_path / "site" / "games").iterdir()) == ["0.html"]


def test_writing_a_site_imports_no_plotting_library(tmp_path):
    script = (
        "import sys\n"
        "sys.path.insert(0, 'tests')\n"
        "from helpers import random_record\n"
        "from arena.results.site import SiteData, write_site\n"
        "rs = [random_record('hex', {'size': 4}, k, ['a', 'b'] if k % 2 else ['b', 'a']).replace(id=k) for k in range(6)]\n"
        f"write_site(__import__('pathlib').Path({str(tmp_path / 's')!r}), SiteData('t', 'hex', rs[0]['options'], ['a', 'b'], rs))\n"
        "print(sorted(m for m in sys.modules if m.split('.')[0] == 'matplotlib'))\n"
    )
    done = subprocess.run([sys.executable, "-c", script], capture_output=True, text=True, cwd=ROOT, timeout=60)
    assert done.returncode == 0, done.stderr
    assert done.stdout.strip() == "[]"
    assert (tmp_path / "s" / "plots" / "ratings.svg").read_text().startswith("<svg")


def test_plots_escape_engine_text_and_are_well_formed_xml():
    from xml.etree import ElementTree

    name = "<script>alert(1)</script> & \x1b[31m"
    drawn = [
        plots.ratings_plot({name: [(1, 25.0, 8.0), (2, 27.0, 7.0)], "b": [(1, 25.0, 8.0)]}),
        plots.elo_plot([(name, 10.0, -20.0, 40.0), ("b", -10.0, -40.0, 20.0)]),
        plots.score_matrix_plot([name, "b"], [[None, 75.0], [25.0, None]]),
        plots.sprt_plot([0.1, -0.3, 1.5], -2.94, 2.94, f"{name} vs b"),
    ]
    for svg in drawn:
        root = ElementTree.fromstring(svg)  # raises on malformed XML
        texts = [t.text or "" for t in root.iter("{http://www.w3.org/2000/svg}text")]
        assert any("<script>alert(1)</script> & ?[31m" in t for t in texts)
        assert "<script" not in svg


def test_ticks_are_round_and_cover_the_range():
    assert plots.ticks(0, 100) == [0, 20, 40, 60, 80, 100]
    assert [round(v, 9) for v in plots.ticks(-0.3, 0.7)] == [-0.2, 0.0, 0.2, 0.4, 0.6]
    assert plots.ticks(5, 5) == [5]


def test_a_refresh_never_holds_up_the_games_stored_meanwhile(tmp_path):
    """The live site writes in a thread of its own: while a refresh is being written, the
    run goes on handing it games (stored already), and the next refresh shows them."""
    import threading

    from arena.results.site.live import LiveSite

    games = records(list(range(5)))
    live = LiveSite(tmp_path / "report", SiteData("t", "hex", games[0]["options"], ENGINES, []), interval=0)
    release, seen = threading.Event(), []
    real_write = live.writer.write

    def slow_write(data):
        seen.append(len(data.records))
        assert release.wait(10)
        return real_write(data)

    live.writer.write = slow_write
    live.on_start(5, [], None)
    live.add(games[0], 1, 5)  # due at once: the refresh starts and waits for the release
    for k, record in enumerate(games[1:4], 2):
        live.add(record, k, 5)  # taken at once, while the refresh is still being written
    assert live.refreshing() and seen == [1] and len(live.data.records) == 4
    release.set()
    live.wait()
    assert "1 of 5 games finished" in (tmp_path / "report" / "index.html").read_text()
    live._due = 0  # past the throttle (four times the last refresh, which waited here)
    live.add(games[4], 5, 5)
    live.wait()
    assert seen == [1, 5] and "5 of 5 games finished" in (tmp_path / "report" / "index.html").read_text()
    live.finish(summarize(games, ENGINES, tournament="t", game="hex", options=games[0]["options"], players=2))
    assert [game_data(tmp_path / "report", r.id)["id"] for r in games] == [r.id for r in games]


def test_the_live_sites_timing_snapshots_and_last_writes(tmp_path, monkeypatch, caplog):
    """On a clock the test moves: no refresh before ``interval``; a refresh is a daemon thread
    named arena-site that writes a copy of the games known then; the next is due after the
    interval or four times the last write, whichever is longer; the end writes the summary
    with forked writers; a stop rewrites the pages only if it had written them; a write that
    fails is logged, never raised."""
    import threading

    from arena.results.site import live as live_module

    now = [100.0]
    monkeypatch.setattr(live_module.time, "monotonic", lambda: now[0])
    writes: list[tuple[int, object, object, bool, str, bool]] = []
    copies: list[bool] = []  # whether a write had a list of its own, not the one the run appends to

    def write(self, data):
        thread = threading.current_thread()
        writes.append((len(data.records), data.progress, data.summary, self.parallel, thread.name, thread.daemon))
        copies.append(data.records is not live.data.records)
        now[0] += 3.0  # the write takes three seconds of the clock

    monkeypatch.setattr(SiteWriter, "write", write)
    games = records(list(range(4)))
    live = live_module.LiveSite(tmp_path / "report", SiteData("t", "hex", games[0]["options"], ENGINES, []), 10)
    assert live.writer.parallel is False and live.interval == 10
    live.stopped()  # nothing written yet: nothing to rewrite
    assert writes == []
    live.on_start(4, games[:1], None)
    now[0] = 109.9
    live.add(games[1], 2, 4)
    assert writes == [] and live.data.progress == (2, 4)  # not yet due
    now[0] = 110.0
    live.add(games[2], 3, 4)  # due: written in its thread, of the three games known
    live.wait()
    assert writes == [(3, (3, 4), None, False, "arena-site", True)]
    assert live.data.records == games[:3] and live.refresh_cpu_s >= 0
    now[0] = 124.9  # the write took 3 s, so the next is due 12 s after it ended (113 + 12)
    live.add(games[3], 4, 4)
    assert len(writes) == 1
    now[0] = 125.0
    live.add(games[3], 4, 4)
    live.wait()
    assert writes[-1][:2] == (5, (4, 4)) and copies == [True, True]  # the game handed twice is kept twice
    live.stopped()  # a stop after pages were written: rewritten without the reload
    assert writes[-1] == (5, None, None, False, "MainThread", False)
    done = summarize(games, ENGINES, tournament="t", game="hex", options=games[0]["options"], players=2)
    live.finish(done)
    assert writes[-1] == (4, None, done, True, "MainThread", False) and live.data.records is done.records

    def broken(self, data):
        raise OSError("disk full")

    monkeypatch.setattr(SiteWriter, "write", broken)
    live.finish(done)  # logged, not raised
    assert [r.getMessage() for r in caplog.records if r.name == "arena.site"] == [
        f"could not write the report site in {tmp_path / 'report'}; 'arena report' rewrites it"
    ]


def links(page: Path) -> list[Path]:
    """The pages ``page`` links to (its ``<a href>``s that are files of the site)."""
    from html.parser import HTMLParser

    found: list[str] = []

    class Links(HTMLParser):
        def handle_starttag(self, tag, attrs):
            if tag == "a" and (href := dict(attrs).get("href")):
                found.append(href)

    Links().feed(page.with_name(page.name.partition("?")[0]).read_text())
    return [(page.parent / href).resolve() for href in found if "://" not in href]


def reachable(site: Path) -> set[Path]:
    """Every page a reader reaches by following links from the games page (with what a link
    asks of it, ``?game=ID``, as the page's name ends: a viewer page shows the game it names)."""
    seen, todo = set(), [(site / "games.html").resolve()]
    while todo:
        page = todo.pop()
        if page in seen or page.parent.name not in ("games", "lists", site.name):
            continue
        seen.add(page)
        todo += [p for p in links(page) if p.suffix == ".html" or ".html?" in p.name]
    return seen


def viewers(site: Path, ids: range) -> set[Path]:
    """The addresses of these games' viewers (each, its list's viewer page asked for it)."""
    return {(site / "games" / f"{k // site_module.LIST_SIZE}.html?game={k}").resolve() for k in ids}


def shown(address: Path) -> bool:
    """Whether a viewer's address leads to its game: the page is there and holds the game's data."""
    page, _, game = address.name.partition("?game=")
    return not game or game_data(address.parent.parent, int(game))["id"] == int(game)


def files(site: Path) -> dict[str, tuple[int, int]]:
    """Each file of the site, as (inode, modification time): a file rewritten gets new ones."""
    return {str(p.relative_to(site)): (p.stat().st_ino, p.stat().st_mtime_ns) for p in site.rglob("*") if p.is_file()}


def test_the_paged_lists_reach_every_game_and_a_refresh_rewrites_only_what_changed(tmp_path, monkeypatch):
    monkeypatch.setattr(site_module, "LIST_SIZE", 4)  # 500 a page in a site; 4 here, for pages of a few games
    first = records(list(range(10)))  # pages 0, 1 and 2 (games 8 and 9)
    data = SiteData("t", "hex", first[0]["options"], ENGINES, list(first), progress=(10, 14))
    site = tmp_path / "live"
    writer = SiteWriter(site, parallel=False)
    writer.write(data)
    assert sorted(p.name for p in (site / "lists").iterdir()) == ["0.html", "1.html", "2.html"]
    reached = reachable(site)
    assert viewers(site, range(10)) <= reached
    assert all(page.with_name(page.name.partition("?")[0]).exists() and shown(page) for page in reached)  # no dead link
    before = files(site)
    data.records += records([10, 11, 12])  # two more on page 2, one on a new page 3
    data.progress = (13, 14)
    writer.write(data)
    after = files(site)
    rewritten = {name for name in before if after[name] != before[name]}
    new = set(after) - set(before)
    assert new == {"games/3.html", "lists/3.html"}
    # The pages of the games that came, and the summary pages; nothing of the games before.
    assert {"lists/2.html", "games/2.html"} <= rewritten and not {"lists/0.html", "lists/1.html"} & rewritten
    assert not {"games/0.html", "games/1.html"} & rewritten
    assert not {name for name in rewritten if name.startswith(("boards/", "assets/"))}
    assert {"games.html", "index.html", "data/games-index.js"} <= rewritten
    assert viewers(site, range(13)) <= reachable(site)
    assert all(shown(page) for page in viewers(site, range(13)))
    # A fresh site of the same games has the same lists.
    fresh = write_site(tmp_path / "fresh", SiteData("t", "hex", first[0]["options"], ENGINES, list(data.records)))
    for k in range(4):
        assert (fresh.parent / "lists" / f"{k}.html").read_text() == (site / "lists" / f"{k}.html").read_text()


def test_a_refresh_replays_only_the_new_games_of_a_page_still_filling(tmp_path, monkeypatch):
    """The viewer page of a run's last list is rewritten at each refresh with every game on it,
    but the games already on it are not replayed again: a refresh costs the new games."""
    replayed: list[int] = []
    real = site_module.boards.replay

    def counted(record):
        replayed.append(record.id)
        return real(record)

    monkeypatch.setattr(site_module.boards, "replay", counted)
    monkeypatch.setattr(site_module, "LIST_SIZE", 4)
    data = SiteData("t", "hex", records([0])[0]["options"], ENGINES, records([0, 1, 2, 3, 4]), progress=(5, 9))
    site = tmp_path / "live"
    writer = SiteWriter(site, parallel=False)
    writer.write(data)
    assert sorted(replayed) == [0, 1, 2, 3, 4]
    for ids in ([5], [7, 6]):
        replayed.clear()
        data.records += records(ids)
        writer.write(data)
        assert sorted(replayed) == sorted(ids)  # not 4 and 5 again
    assert [game_data(site, k)["id"] for k in range(8)] == list(range(8))
    # Another writer taking the site over (a resumed run) reuses the full pages, and makes the
    # data of the one still filling once.
    replayed.clear()
    data.records += records([8])
    SiteWriter(site, parallel=False).write(data)
    assert sorted(replayed) == [8]  # page 1 (4-7) is full and written: kept; page 2 is new


def test_a_viewer_page_holds_engine_text_as_data_only(tmp_path):
    """An engine's name, reason, moves and infos go into a viewer page as JSON that no text can
    close (``<``, ``>``, ``&`` and ``'`` escaped), and the page shows them as text (viewer.js:
    textContent; tests/test_site.py::test_hex_viewer_steps_every_ply_and_lights_the_winning_chain
    shows them in a browser)."""
    hostile = "</script><script>alert('x')</script><b>&amp;</b>"
    record = records([0])[0].replace(
        players=[hostile, "beta"], reason=hostile, move_info=[{"depth": 1, "score": hostile}]
    )
    site = write_site(tmp_path / "site", SiteData("t", "hex", record["options"], [hostile, "beta"], [record])).parent
    source = (site / "games" / "0.html").read_text(encoding="utf-8")
    assert hostile not in source and "alert(" in source
    assert source.count("</script>") == 4  # the data's, board.js's, viewer.js's and tables.js's
    shown = game_data(site, 0)
    assert shown["players"][0] == shown["reason"] == hostile and hostile in shown["infos"][0]


def test_a_run_that_stops_rewrites_its_pages_without_the_reload_only_if_it_wrote_them(tmp_path):
    from arena.results.site.live import LiveSite

    games = records([0, 1])
    live = LiveSite(tmp_path / "report", SiteData("t", "hex", games[0]["options"], ENGINES, []), interval=0)
    live.stopped()  # nothing written yet: nothing to take back
    assert not (tmp_path / "report").exists()
    live.on_start(2, [], None)
    live.add(games[0], 1, 2)
    live.wait()
    index = tmp_path / "report" / "index.html"
    assert "running: 1 of 2 games finished" in index.read_text() and 'http-equiv="refresh"' in index.read_text()
    live.stopped()
    assert live.data.progress is None
    assert "running:" not in index.read_text() and 'http-equiv="refresh"' not in index.read_text()


def test_a_forked_writer_writes_the_viewer_pages_it_is_given(tmp_path, monkeypatch):
    """What each forked worker runs (site._write_viewers_in_child, with the SIGTERM and
    SIGINT handlers _plain_signals gives it), run here in this process."""
    import signal

    games = records([0, 1, 2])
    data = SiteData("t", "hex", games[0]["options"], ENGINES, list(games))
    writer = SiteWriter(tmp_path / "site", parallel=False)
    writer.write(data)
    page = tmp_path / "site" / "games" / "0.html"
    written = page.read_text(encoding="utf-8")
    page.unlink()
    monkeypatch.setattr(site_module, "_JOB", (writer, data, {r.id: r for r in games}))
    site_module._write_viewers_in_child([])
    assert not page.exists()
    writer._entries.clear()  # as a full page's: its games' data is made from the records given
    site_module._write_viewers_in_child([0])
    assert page.read_text(encoding="utf-8") == written
    assert [game_data(tmp_path / "site", r.id)["id"] for r in games] == [0, 1, 2]
    monkeypatch.setattr(site_module, "_JOB", None)
    with pytest.raises(AssertionError):
        site_module._write_viewers_in_child([0])
    handlers = signal.getsignal(signal.SIGTERM), signal.getsignal(signal.SIGINT)
    try:
        signal.signal(signal.SIGTERM, lambda *_: None)
        site_module._plain_signals()
        assert signal.getsignal(signal.SIGTERM) == signal.SIG_DFL and signal.getsignal(signal.SIGINT) == signal.SIG_IGN
    finally:
        signal.signal(signal.SIGTERM, handlers[0])
        signal.signal(signal.SIGINT, handlers[1])


def test_a_viewer_page_shows_each_moves_depth_score_and_nodes_as_given_and_no_infos_as_none():
    """Each move's info is its depth, score and nodes, in that order, those the engine gave;
    anything else (another key, a value of None, a move without info) shows nothing, and a game
    whose infos all show nothing has none."""
    record = records([0])[0]
    plies = len(record["moves"])
    assert plies >= 5
    given = [
        {"nodes": 40960, "score": -35, "depth": 12, "pv": "a1 b2"},
        None,  # no info for this move
        {"score": 7},
        {"depth": 3, "nodes": None, "seldepth": 5},
        {"nodes": 8},
    ] + [None] * (plies - 5)
    assert move_data(record.replace(move_info=given), None)["infos"] == [
        "depth 12, score -35, nodes 40960",
        "",
        "score 7",
        "depth 3",
        "nodes 8",
    ] + [""] * (plies - 5)
    nothing = record.replace(move_info=[None, {"pv": "a1"}, {"depth": None}] + [None] * (plies - 3))
    assert move_data(nothing, None)["infos"] == []


def test_the_rating_tables_rows_say_why_each_unbounded_engine_has_no_elo_and_mark_the_dropped():
    from arena.results.elo import fit_elo
    from arena.results.site.pages import elo_table
    from arena_bench.known_elo import game

    # A chain without upsets (top beat mid and low, mid beat low) and an engine that played nobody.
    records = [game(0, "top", "mid", 1), game(1, "mid", "low", 1), game(2, "top", "low", 1)]
    table = elo_table(fit_elo(records, ["low", "mid", "top", "idle"], prior=0), dropped=["low"])
    assert table.headers == ["engine", "Elo", "95% low", "95% high", "games", "score %", "note"]
    assert table.rows == [
        ["top", "", "", "", 2, 100.0, "unbounded above (lost no point to the rated engines)"],
        ["mid", "", "", "", 2, 50.0, "unbounded: it never lost to the ones below nor scored against the ones above"],
        ["low (dropped)", "", "", "", 2, 0.0, "unbounded below (took no point from the rated engines)"],
        ["idle", "", "", "", 0, "", "no results linking it to the others"],
    ]
    assert table.plotted == [] and table.los_headers == ["LOS % (row over column)", "top", "mid", "low", "idle"]
    rated = elo_table(fit_elo(records))  # with the prior's virtual draws every engine is rated: no note
    assert [row[6] for row in rated.rows] == ["", "", ""] and [p[0] for p in rated.plotted] == ["top", "mid", "low"]


def test_a_compiled_template_is_kept_in_the_cache_folder_and_read_back(tmp_path, monkeypatch):
    """The templates' bytecode goes to $XDG_CACHE_HOME/arena/templates, one file a template, and
    a later environment (a later run) finds it there instead of compiling again."""
    monkeypatch.setenv("XDG_CACHE_HOME", str(tmp_path))
    folder = tmp_path / "arena" / "templates"
    site_module.template_environment().get_template("macros.html")
    kept = list(folder.iterdir())
    assert [p.suffix for p in kept] == [".cache"] and kept[0].stat().st_size > 0
    later = site_module.template_environment()
    assert later.loader is not None and later.bytecode_cache is not None
    source, filename, _ = later.loader.get_source(later, "macros.html")
    assert later.bytecode_cache.get_bucket(later, "macros.html", filename, source).code is not None


# -- the live site's tallies: the summary export.summarize makes, counted a refresh at a time --


def not_played(game_id: int, players: list[str], seat: int, termination: str):
    """A Hex game the engine in ``seat`` lost before its first move (it could not start,
    or it was dropped): no engine seeds, no moves."""
    from arena.record import GameRecord

    return GameRecord.model_validate(
        {
            "id": game_id,
            "round": game_id,
            "game": "hex",
            "options": records([0])[0]["options"],
            "players": players,
            "moves": [],
            "times_ms": [],
            "termination": termination,
            "reason": f"seat {seat} did not play",
            "forfeit_seat": seat,
            "winner": 1 - seat,
            "scores": [0.0, 1.0] if seat == 0 else [1.0, 0.0],
            "places": [1, 0] if seat == 0 else [0, 1],
            "engine_seeds": [],
        }
    )


def shown_summary(s) -> dict[str, object]:
    """A summary's every field, its Elo fit as the exports show it and its games by id
    (summarize orders them; the live site's come in the order the run finished them)."""
    return {**vars(s), "elo": s.elo.as_dict(), "records": sorted(r.id for r in s.records)}


def summarized(data: SiteData, players: int, prior: float):
    return summarize(
        data.records,
        data.engines,
        tournament=data.title,
        game=data.game,
        options=data.options,
        players=players,
        settings=data.settings,
        elo_prior=prior,
    )


def test_the_live_tallies_give_the_summary_summarize_gives_however_the_games_come():
    """Games come out of id order within a refresh, after the ones counted, and before them
    (rated again); one is lost before its start, one drops an engine. Each refresh's summary
    is summarize's, with the settings' prior, then with the one the site is given."""
    from arena.record import lost_before_start
    from arena.results.site import _Tallies

    games = {r.id: r for r in records(list(range(12)))}
    games[12] = not_played(12, ["gamma", "alpha"], 0, "crash")
    games[13] = not_played(13, ["alpha", "beta"], 0, "dropped")
    settings = {"name": "t", "elo_prior": 0.5, "tiebreaks": ["wins", "buchholz"]}
    data = SiteData("t", "hex", games[0]["options"], ENGINES, [], settings)
    tallies = _Tallies()
    assert (tallies.played(), tallies.terminations()) == (0, {})  # nothing counted yet
    for batch in ([1, 0, 2], [5, 3, 4], [8], [7, 6, 13, 9], [12, 11, 10]):
        data.records += [games[k] for k in batch]
        got, want = tallies.summary(data), summarized(data, 2, 0.5)
        assert got.records is data.records and shown_summary(got) == shown_summary(want), batch
        assert tallies.played() == sum(not lost_before_start(r) for r in data.records)
        assert tallies.terminations() == want.terminations
    assert tallies.played() == 12 and tallies.terminations() == {"normal": 12, "dropped": 1, "crash": 1}
    assert want.event is not None and want.dropped == {"alpha": "dropped (max_failures); first forfeit in game 13"}
    data.elo_prior = 0.0  # arena report --elo-prior 0: maximum likelihood, whatever the settings say
    assert shown_summary(tallies.summary(data)) == shown_summary(summarized(data, 2, 0.0))


def test_the_live_tallies_count_again_for_other_engines_or_another_folders_games_of_the_same_ids():
    from arena.results.site import _Tallies

    tallies = _Tallies()
    games = records([0, 1, 2, 3])
    tallies.summary(SiteData("t", "hex", games[0]["options"], ENGINES, games))
    more = SiteData("t", "hex", games[0]["options"], [*ENGINES, "delta"], games)
    assert shown_summary(tallies.summary(more)) == shown_summary(summarized(more, 2, 2.0))
    other = [random_record("hex", {"size": 3}, k, PAIRS[k % len(PAIRS)]).replace(id=k, round=k) for k in range(4)]
    smaller = SiteData("t", "hex", other[0]["options"], more.engines, other)
    assert shown_summary(tallies.summary(smaller)) == shown_summary(summarized(smaller, 2, 2.0))


def test_a_live_tallies_refresh_counts_only_the_new_games_and_rates_all_again_only_when_one_comes_early(
    monkeypatch,
):
    from arena.results import stats
    from arena.results.site import _Tallies

    counted: list[int] = []
    rated_again: list[int] = []
    add, again = stats.StatsTally.add, site_module.pages.standings_tally

    def counting(self, record):
        counted.append(record.id)
        add(self, record)

    def rating_again(engines, records, players, can_draw):
        rated_again.append(len(records))
        return again(engines, records, players, can_draw)

    monkeypatch.setattr(stats.StatsTally, "add", counting)
    monkeypatch.setattr(site_module.pages, "standings_tally", rating_again)
    games = records(list(range(6)))
    data = SiteData("t", "hex", games[0]["options"], ENGINES, [games[0], games[1], games[3]])
    tallies = _Tallies()
    tallies.summary(data)
    data.records += [games[5], games[4]]  # after the ones counted
    tallies.summary(data)
    tallies.summary(data)  # nothing new
    assert counted == [0, 1, 3, 5, 4] and rated_again == []
    data.records.append(games[2])  # before the last one rated: the ratings are made again
    tallies.summary(data)
    assert counted == [0, 1, 3, 5, 4, 2] and rated_again == [6]


def test_the_live_tallies_of_a_three_seat_game_that_can_draw_rate_as_summarize_does():
    from arena.results.site import _Tallies

    seats = [["alpha", "beta", "gamma"], ["gamma", "alpha", "beta"], ["beta", "gamma", "alpha"]]
    games = [random_record("posies", {"players": 3}, k, seats[k % 3]).replace(id=k, round=k) for k in range(5)]
    data = SiteData("t", "posies", games[0]["options"], ENGINES, [])
    tallies = _Tallies()
    for batch in ([0, 2], [4, 1, 3]):
        data.records += [games[k] for k in batch]
        assert shown_summary(tallies.summary(data)) == shown_summary(summarized(data, 3, 2.0)), batch


def test_the_live_tallies_of_a_swiss_event_before_its_first_game_show_the_first_rounds_bye():
    """Five engines: the Swiss pairing of two-seat tables gives one of them a bye at once."""
    from arena.results.site import _Tallies

    names = ["alpha", "beta", "gamma", "delta", "epsilon"]
    settings = {"name": "t", "format": "swiss", "engines": [{"name": n} for n in names], "rounds": 2, "seed": 3}
    data = SiteData("t", "hex", records([0])[0]["options"], names, [], settings)
    got = _Tallies().summary(data)
    assert shown_summary(got) == shown_summary(summarized(data, 2, 2.0))
    assert got.event is not None and (got.event.format, got.event.finished) == ("swiss", False)
    assert sorted((s.score, s.byes) for s in got.event.standings) == [(0.0, 0)] * 4 + [(1.0, 1)]


def test_a_writer_lets_go_of_a_viewer_pages_game_data_once_the_page_is_full(tmp_path, monkeypatch):
    """The data of a page still filling is kept for its next write; a full page is written
    for good, so its games' data is not kept (a long run would hold every game's)."""
    monkeypatch.setattr(site_module, "LIST_SIZE", 4)
    games = records(list(range(6)))
    data = SiteData("t", "hex", games[0]["options"], ENGINES, games[:3])
    writer = SiteWriter(tmp_path / "site", parallel=False)
    writer.write(data)
    assert sorted(writer._entries) == [0, 1, 2]
    data.records += games[3:]
    writer.write(data)
    assert sorted(writer._entries) == [4, 5]
    assert [game_data(tmp_path / "site", k)["id"] for k in range(6)] == list(range(6))


def test_the_live_site_adds_up_the_cpu_each_refresh_thread_spent(tmp_path, monkeypatch):
    from arena.results.site import live as live_module

    cpu = [7.0]  # the refresh thread's CPU clock, moved by each write
    monkeypatch.setattr(live_module.time, "thread_time", lambda: cpu[0])

    def write(self, data):
        cpu[0] += 0.25

    monkeypatch.setattr(SiteWriter, "write", write)
    games = records([0, 1])
    live = live_module.LiveSite(tmp_path / "report", SiteData("t", "hex", games[0]["options"], ENGINES, []), 0)
    assert live.refresh_cpu_s == 0.0
    for k, record in enumerate(games, 1):
        live._due = 0  # due at once
        live.add(record, k, 2)
        live.wait()
    assert live.refresh_cpu_s == 0.5
    live.finish(summarize(games, ENGINES, tournament="t", game="hex", options=games[0]["options"], players=2))
    assert live.refresh_cpu_s == 0.5  # the last write is the run's, not a refresh's


def two_cores_forking_from_two_full_pages(monkeypatch):
    """Pages of four games, workers forked from two full pages on, and two cores to fork on."""
    monkeypatch.setattr(site_module, "LIST_SIZE", 4)
    monkeypatch.setattr(site_module, "PARALLEL_FROM", 2)
    monkeypatch.setattr(site_module.os, "cpu_count", lambda: 2)


def test_forked_workers_write_the_full_viewer_pages_and_the_site_equals_one_written_in_process(tmp_path, monkeypatch):
    """With PARALLEL_FROM full pages and more than one core, forked workers write the full
    pages' viewers (each once) while this process writes the page still filling, the lists
    and the summary; a writer told not to fork writes everything itself.  Both sites are the same."""
    import os

    two_cores_forking_from_two_full_pages(monkeypatch)
    log = tmp_path / "writes.log"
    real = site_module._write

    def logged(path, text):
        with log.open("a") as out:
            out.write(
                f"{os.getpid()} {path.relative_to(path.parents[1] if path.parent.name in ('games', 'lists') else path.parent)}\n"
            )
        real(path, text)

    monkeypatch.setattr(site_module, "_write", logged)
    games = records(list(range(10)))  # pages 0 and 1 full, page 2 filling
    sites = {}
    for parallel in (True, False):
        log.write_text("")
        writer = SiteWriter(tmp_path / str(parallel), parallel=parallel)
        writer.write(SiteData("t", "hex", games[0]["options"], ENGINES, list(games)))
        writes = [line.split() for line in log.read_text().splitlines()]
        by = {name: sorted(int(pid) != os.getpid() for pid, n in writes if n == name) for _, name in writes}
        if parallel:
            assert by["games/0.html"] == by["games/1.html"] == [True]
        else:
            assert by["games/0.html"] == by["games/1.html"] == [False]
        assert by["games/2.html"] == by["lists/0.html"] == by["index.html"] == [False]
        assert sorted(writer._entries) == [8, 9]  # the full pages' data is let go
        manifest = json.loads((tmp_path / str(parallel) / ".manifest.json").read_text())
        assert set(manifest) == {"version", "games", "boards"} and manifest["games"] == [[0, 9]]
        folder = tmp_path / str(parallel)
        sites[parallel] = {
            str(p.relative_to(folder)): STAMP.sub("", p.read_text())
            for p in sorted(folder.rglob("*.*"))
            if p.suffix in (".html", ".js")
        }
    assert sites[True] == sites[False]
    assert {"games/0.html", "games/1.html", "games/2.html", "lists/2.html"} <= set(sites[True])


def test_a_new_writer_reuses_the_game_pages_unless_the_time_control_changed(tmp_path):
    """A writer taking a site over keeps the viewer pages written for the same game, options
    and time control (the same settings in another key order too); another time control
    (the pages show the clocks) has every page written again."""
    games = records([0, 1, 2])
    site = tmp_path / "site"

    def write(time_control):
        data = SiteData("t", "hex", games[0]["options"], ENGINES, list(games), {"time_control": time_control})
        SiteWriter(site, parallel=False).write(data)
        return (site / "games" / "0.html").stat().st_mtime_ns

    first = write({"base_ms": 60000, "inc_ms": 1000})
    assert write({"inc_ms": 1000, "base_ms": 60000}) == first
    assert write({"base_ms": 30000, "inc_ms": 1000}) != first


def test_a_refresh_leaves_files_added_to_the_games_folder_after_the_first_write(tmp_path):
    """Only a site written anew clears games/ of what an older site left there."""
    games = records([0, 1, 2])
    site = tmp_path / "site"
    (site / "games").mkdir(parents=True)
    (site / "games" / "17.html").write_text("an older arena's page")
    data = SiteData("t", "hex", games[0]["options"], ENGINES, games[:2])
    writer = SiteWriter(site, parallel=False)
    writer.write(data)
    assert not (site / "games" / "17.html").exists()
    (site / "games" / "notes.txt").write_text("mine")
    data.records.append(games[2])
    writer.write(data)
    assert (site / "games" / "notes.txt").read_text() == "mine"


@pytest.mark.parametrize("parallel", [False, True])
def test_a_refresh_of_other_games_lists_and_counts_only_them_forked_or_not(tmp_path, monkeypatch, parallel):
    """A folder rewritten with other games (here the same games under other ids, so the table
    and its engines' order stay): the refreshed site, its paged lists and viewer pages too,
    equals a site written from scratch of those games."""
    two_cores_forking_from_two_full_pages(monkeypatch)
    before = records(list(range(10)))
    writer = SiteWriter(tmp_path / "site", parallel=parallel)
    writer.write(SiteData("t", "hex", before[0]["options"], ENGINES, before))
    other = [r.replace(id=r.id + 20, round=r.id + 20) for r in before]  # the same games: the same table
    writer.write(SiteData("t", "hex", other[0]["options"], ENGINES, other))
    fresh = write_site(tmp_path / "fresh", SiteData("t", "hex", other[0]["options"], ENGINES, other)).parent
    assert summary(tmp_path / "site") == summary(fresh)
    for name in ("lists/5.html", "lists/7.html", "games/5.html", "games/7.html"):
        assert STAMP.sub("", (tmp_path / "site" / name).read_text()) == STAMP.sub("", (fresh / name).read_text())


def test_a_forked_refresh_counts_the_new_games_as_a_fresh_site_does(tmp_path, monkeypatch):
    two_cores_forking_from_two_full_pages(monkeypatch)
    # All draws: the engines' order (by name) and the games index's columns stay as games
    # come, so the refresh adds the new games' rows to the index rather than making it anew.
    games = [r.replace(places=[0, 0], winner=None) for r in records(list(range(10)))]
    data = SiteData("t", "hex", games[0]["options"], ENGINES, games[:2])
    writer = SiteWriter(tmp_path / "site", parallel=True)
    writer.write(data)
    data.records += games[2:]  # pages 0 and 1 now full: written by forked workers
    writer.write(data)
    fresh = write_site(tmp_path / "fresh", SiteData("t", "hex", games[0]["options"], ENGINES, games)).parent
    assert summary(tmp_path / "site") == summary(fresh)


def hex_of_two(game_id: int, moves: list[str], **more) -> object:
    """A game of Hex on the 2x2 board without the swap (cells a1 b1 a2 b2; Red joins rows 1
    and 2, Blue columns a and b), as arena records it but for the keys ``more`` adds."""
    from arena.record import GameRecord

    return GameRecord.model_validate(
        {
            "id": game_id,
            "round": 2,
            "game": "hex",
            "options": {"size": 2, "swap": False},
            "players": ["alpha", "beta"],
            "moves": moves,
            "times_ms": [10 * (k + 1) for k in range(len(moves))],
            "termination": "normal",
            **more,
        }
    )


def test_a_viewer_pages_game_data_is_the_records_text_its_replay_and_its_moves_under_the_clock(tmp_path):
    """Red's a1 and a2 join its two rows: seat 0 (alpha) wins on the third ply.  The page's data
    is what the header shows (result, termination, an empty reason for a record without one,
    when it started and how long it took), the referee's replay (the board's key, its 4 cells,
    the frames, each seat's colour) and the move list's rows under the settings' clock."""
    from arena.results.site import boards

    record = hex_of_two(5, ["a1", "b1", "a2"], winner=0, places=[0, 1], started="2026-01-02T03:04:05Z", duration_s=1.5)
    clock = {"base_ms": 60000, "inc_ms": 100}
    data = SiteData("t", "hex", record["options"], ["alpha", "beta"], [record], {"time_control": clock})
    SiteWriter(tmp_path / "site", parallel=False).write(data)
    replayed = boards.replay(record)
    assert game_data(tmp_path / "site", 5) == {
        "id": 5,
        "round": 2,
        "players": ["alpha", "beta"],
        "result": "alpha wins",
        "termination": "normal",
        "reason": "",
        "started": "2026-01-02T03:04:05Z",
        "duration_s": 1.5,
        "colours": ["red", "blue"],
        "board": boards.board_key(make_game("hex", {"size": 2, "swap": False})),
        "frames": json.loads(json.dumps(replayed.frames)),
        "cells": 4,
        "game": "hex",
        "error": "",
        "moves": ["a1", "b1", "a2"],
        "times": [10, 20, 30],
        "opening": 0,
        "clock": [60000, 100],
        "infos": [],
    }
    assert len(replayed.frames) == 4  # the start and each of the three plies


def test_a_record_the_rules_cannot_replay_has_its_text_moves_and_the_rules_refusal_as_its_data(tmp_path, caplog):
    """A stone on a1 twice: the page's data says why the rules refuse it (no board, no frames,
    no colour for either seat, the moves as recorded), the header's text is as any game's, and
    the refusal is logged once, naming the game; the other game on the page is replayed (and
    has no clock: the settings give no time control)."""
    bad = hex_of_two(1, ["a1", "a1"], winner=1, places=[1, 0], reason="edited by hand", started=None)
    good = hex_of_two(0, ["a1", "b1", "a2"], winner=0, places=[0, 1])
    data = SiteData("t", "hex", good["options"], ["alpha", "beta"], [good, bad])
    with caplog.at_level("WARNING", logger="arena.site"):
        SiteWriter(tmp_path / "site", parallel=False).write(data)
    refusal = "illegal move 'a1': a1 is already occupied"
    assert game_data(tmp_path / "site", 1) == {
        "id": 1,
        "round": 2,
        "players": ["alpha", "beta"],
        "result": "beta wins",
        "termination": "normal",
        "reason": "edited by hand",
        "started": None,
        "duration_s": None,
        "colours": ["", ""],
        "moves": ["a1", "a1"],
        "error": refusal,
    }
    assert [r.getMessage() for r in caplog.records if r.name == "arena.site"] == [
        f"game 1: cannot replay its record ({refusal}); its page shows no board"
    ]
    assert game_data(tmp_path / "site", 0)["error"] == "" and game_data(tmp_path / "site", 0)["clock"] is None


def test_each_board_the_games_are_played_on_has_one_geometry_file_named_as_their_data_names_it(tmp_path):
    """A site's games on two boards (Hex 3x3 and 4x4), after a game whose options no rules
    accept: each board the viewer draws has its file, ``boards/<key>.js``, which sets
    ``window.ARENA_BOARD`` to the board's geometry as compact JSON; the game that cannot be
    replayed has none, and the others still have theirs."""
    from arena.results.site import boards
    from arena.rules import make_game

    small = [random_record("hex", {"size": 3}, k, PAIRS[k % len(PAIRS)]).replace(id=k, round=k) for k in (1, 2, 4)]
    large = records([3])
    bad = records([0])[0].replace(options={"size": 4, "swap": True, "colour": "green"})  # no such option
    games = [bad, small[0], small[1], large[0], small[2]]
    site = write_site(tmp_path / "site", SiteData("t", "hex", large[0]["options"], ENGINES, games)).parent
    expected = {}
    for options in ({"size": 3}, {"size": 4}):
        game = make_game("hex", options)
        geometry = json.dumps(boards.board_geometry(game), separators=(",", ":"))
        expected[f"{boards.board_key(game)}.js"] = f"window.ARENA_BOARD = {geometry};\n"
    assert {p.name: p.read_text(encoding="utf-8") for p in (site / "boards").iterdir()} == expected
    assert game_data(site, 0)["error"] and "board" not in game_data(site, 0)
    assert {k: f"{game_data(site, k)['board']}.js" in expected for k in range(1, 5)} == dict.fromkeys(range(1, 5), True)
    assert game_data(site, 1)["board"] == game_data(site, 4)["board"] != game_data(site, 3)["board"]


def local_files_missing(page: Path) -> list[str]:
    """The addresses in ``page`` (every ``href`` and ``src``) of files of the site that are not there."""
    from html.parser import HTMLParser

    found: list[str] = []

    class Addresses(HTMLParser):
        def handle_starttag(self, tag, attrs):
            found.extend(value for name, value in attrs if name in ("href", "src") and value)

    Addresses().feed(page.read_text(encoding="utf-8"))
    local = [a for a in found if "://" not in a]
    return [a for a in local if not (page.parent / a.partition("?")[0]).exists()]


def list_nav(previous: int | None, following: int | None, size: int) -> str:
    """A paged list's navigation line: its neighbours' links (the lists before and after it)."""

    def games(k: int) -> str:
        return f"games {k * size}–{k * size + size - 1}"

    back = "" if previous is None else f'<a rel="prev" href="{previous}.html">&larr; {games(previous)}</a> · '
    on = "" if following is None else f' · <a rel="next" href="{following}.html">{games(following)} &rarr;</a>'
    return f'<p id="list-nav">{back}<a href="../games.html">all games</a>{on}</p>'


def test_a_new_paged_list_between_others_links_both_and_a_refresh_rewrites_only_it_and_them(tmp_path, monkeypatch):
    """Lists 0, 3 and 4 (four games a list), then games on list 1, then on list 2: after each
    write every list is titled with its games' numbers, links the lists just before and after
    it (none before the first, none after the last) and the site's pages, and a refresh
    rewrites the new list and its two neighbours, no other list."""
    monkeypatch.setattr(site_module, "LIST_SIZE", 4)
    data = SiteData("t", "hex", records([0])[0]["options"], ENGINES, records([0, 1, 12, 16]), progress=(4, 20))
    site = tmp_path / "site"
    writer = SiteWriter(site, parallel=False)
    writer.write(data)
    for new, untouched in (([4], {"lists/4.html"}), ([8], {"lists/0.html", "lists/4.html"})):
        before = files(site)
        data.records += records(new)
        writer.write(data)
        after = files(site)
        assert {name: after[name] for name in untouched} == {name: before[name] for name in untouched}
        order = sorted(int(p.stem) for p in (site / "lists").iterdir())
        assert order == sorted({r.id // 4 for r in data.records})
        for at, k in enumerate(order):
            page = site / "lists" / f"{k}.html"
            lines = page.read_text(encoding="utf-8").splitlines()
            assert f"<title>Games {4 * k}–{4 * k + 3} · t</title>" in lines
            assert f"<h2>Games {4 * k}–{4 * k + 3}</h2>" in lines
            neighbours = order[at - 1] if at else None, order[at + 1] if at + 1 < len(order) else None
            assert list_nav(*neighbours, 4) in lines, (k, neighbours)
            assert local_files_missing(page) == []
    assert order == [0, 1, 2, 3, 4]


def test_a_viewer_pages_header_says_which_games_it_holds_and_nothing_that_changes_as_games_come(tmp_path, monkeypatch):
    """A viewer page (``games/1.html``: games 4 to 7 here) is titled with its games' numbers,
    sends a reader who asked for no game to its list, and its header shows the game and
    options only: not the games counted, the run's progress or when it was written (the page
    is written once), and it does not reload itself while the run goes on."""
    monkeypatch.setattr(site_module, "LIST_SIZE", 4)
    data = SiteData("t", "hex", records([0])[0]["options"], ENGINES, records([0, 1, 4, 5, 8]), progress=(5, 12))
    site = write_site(tmp_path / "site", data).parent
    page = site / "games" / "1.html"
    text = page.read_text(encoding="utf-8")
    lines = text.splitlines()
    assert "<title>Games 4–7 · t</title>" in lines
    assert (
        '<p id="no-game" hidden>This page shows one of <a href="../lists/1.html">games 4–7</a>'
        " at a time: pick one there.</p>"
    ) in lines
    assert '<p class="meta">hex · options size=4, swap=true\n</p>' in text
    assert 'http-equiv="refresh"' not in text and "running:" in (site / "index.html").read_text(encoding="utf-8")
    assert local_files_missing(page) == []
    assert [game_data(site, k)["id"] for k in (4, 5)] == [4, 5]


def test_a_writer_taking_a_site_over_adds_games_to_its_pages_written_before_from_all_the_records(tmp_path, monkeypatch):
    """Writer A leaves lists 0 (games 0, 2) and 1 (5, 6) still filling; writer B (a resumed run)
    takes the site over, first with games 0 and 2 (their pages kept), then games 5, 6 and 3 come
    (list 1 is kept, list 0 gains game 3), then game 7 (list 1 gains it).  B's viewer pages hold
    every game, the ones A replayed too (found among all the records), as a site written at once does."""
    monkeypatch.setattr(site_module, "LIST_SIZE", 4)
    games = {r.id: r for r in records([0, 2, 5, 6, 3, 7])}
    options = games[0]["options"]
    site = tmp_path / "site"
    SiteWriter(site, parallel=False).write(SiteData("t", "hex", options, ENGINES, [games[k] for k in (0, 2, 5, 6)]))
    data = SiteData("t", "hex", options, ENGINES, [games[0], games[2]])
    taker = SiteWriter(site, parallel=False)
    for new in ([], [5, 6, 3], [7]):
        data.records += [games[k] for k in new]
        taker.write(data)
        shown = {k: game_data(site, k)["id"] for k in (r.id for r in data.records)}
        assert shown == {r.id: r.id for r in data.records}
    fresh = write_site(tmp_path / "fresh", SiteData("t", "hex", options, ENGINES, list(data.records))).parent
    for name in ("games/0.html", "games/1.html"):
        assert (site / name).read_text(encoding="utf-8") == (fresh / name).read_text(encoding="utf-8")


def test_a_summary_page_says_when_it_was_written_in_utc_whatever_the_local_time_zone(tmp_path):
    """The header's ``written`` is the time of writing in UTC, as ``YYYY-MM-DD HH:MM:SS UTC``,
    here with the process's local time zone five hours behind UTC."""
    import os
    import time
    from datetime import UTC, datetime, timedelta

    games = records([0, 1])
    zone = os.environ.get("TZ")
    os.environ["TZ"] = "EST+05"  # POSIX: five hours behind UTC, no zone files needed
    time.tzset()
    try:
        start = datetime.now(UTC).replace(microsecond=0)
        site = write_site(tmp_path / "site", SiteData("t", "hex", games[0]["options"], ENGINES, games)).parent
        end = datetime.now(UTC)
    finally:
        if zone is None:
            del os.environ["TZ"]
        else:
            os.environ["TZ"] = zone
        time.tzset()
    lines = (site / "index.html").read_text(encoding="utf-8").splitlines()
    stamps = [line.removeprefix(" · written ") for line in lines if line.startswith(" · written ")]
    assert len(stamps) == 1
    written = datetime.strptime(stamps[0], "%Y-%m-%d %H:%M:%S UTC").replace(tzinfo=UTC)
    assert start <= written <= end and end - start < timedelta(minutes=1)


def table_lines(page: Path, table: str) -> list[str]:
    """The lines of the table ``id=table`` of a written page, from its tag to its end."""
    found = re.search(rf'<table id="{table}".*?</table>', page.read_text(encoding="utf-8"), re.DOTALL)
    assert found is not None, f"{page.name}: no table {table}"
    return found.group().splitlines()


def figure_line(src: str, alt: str, caption: str) -> str:
    return f'<figure><img src="{src}" alt="{alt}"><figcaption>{caption}</figcaption></figure>'


def figures(page: Path) -> list[str]:
    """The figures (the plots) a written page shows, in order."""
    return re.findall(r"<figure>.*?</figure>", page.read_text(encoding="utf-8"))


ELO_FIGURE = figure_line("plots/elo.svg", "Elo with intervals", "Elo of each engine with its interval")
RATINGS_FIGURE = figure_line(
    "plots/ratings.svg", "ratings over the games", "TrueSkill rating over the games played, with mu ± 2 sigma"
)
SCORES_FIGURE = figure_line(
    "plots/scores.svg", "score matrix", "Score matrix: score % of the row engine against the column engine"
)


def test_a_live_site_of_two_engines_writes_and_links_each_plot_and_its_header_counts_every_game(tmp_path):
    """Six games of alpha against beta and one beta lost before its first move: the header
    counts all seven, the Elo the six played; the Elo, ratings and score plots are written,
    each under its own name, and the pages show each one."""
    games = [r for r in records(list(range(12))) if set(r.players) == {"alpha", "beta"}]
    games.append(not_played(12, ["alpha", "beta"], 1, "crash"))
    assert len(games) == 7
    site = tmp_path / "site"
    SiteWriter(site, parallel=False).write(SiteData("t", "hex", games[0]["options"], ["alpha", "beta"], games))
    assert sorted(p.name for p in (site / "plots").iterdir()) == ["elo.svg", "ratings.svg", "scores.svg"]
    index = (site / "index.html").read_text(encoding="utf-8").splitlines()
    for line in (
        "<title>t</title>",
        '<h1><a href="index.html">t</a></h1>',
        '<p class="meta">hex · options size=4, swap=true',
        " · 7 games",
    ):
        assert line in index
    assert figures(site / "index.html") == [ELO_FIGURE, RATINGS_FIGURE]
    assert figures(site / "crosstable.html") == [SCORES_FIGURE]
    caption = table_lines(site / "index.html", "elo")[1]
    assert caption.startswith("<caption>Bradley-Terry Elo (field, 6 games); anchor: "), caption


def test_a_live_site_of_engines_that_have_played_no_game_writes_no_plot_and_shows_none(tmp_path):
    site = tmp_path / "site"
    options = records([0])[0]["options"]
    SiteWriter(site, parallel=False).write(SiteData("t", "hex", options, ["alpha", "beta", "gamma"], []))
    assert list((site / "plots").iterdir()) == []
    assert figures(site / "index.html") == figures(site / "crosstable.html") == []
    assert " · 0 games" in (site / "index.html").read_text(encoding="utf-8").splitlines()
    caption = table_lines(site / "index.html", "elo")[1]
    assert caption.startswith("<caption>Bradley-Terry Elo (field, 0 games); anchor: "), caption


def test_a_finished_sites_summary_made_later_shows_its_sprt_plot_dropped_engine_and_games_not_recorded(tmp_path):
    """A folder's summary made when the summary pages need it (load_folder's ``later``), of
    an SPRT that alpha passes on its third pair (it wins all six games), beta then dropped
    and one game not recorded: the index opens with the test's lines and its LLR plot,
    labelled with the engines and the outcome; the Elo table and the not-recorded table say
    what happened; the engines page names Hex's seats."""
    from helpers import random_game_record

    from arena.results.site import pages
    from arena.results.sprt import SprtSettings, SprtTest, sprt_lines

    games = []
    for k in range(6):
        seats = ["alpha", "beta"] if k % 2 == 0 else ["beta", "alpha"]
        games.append(random_game_record(k, seats, 4, k, winner=seats.index("alpha"), round_=k // 2, stored_seed=k))
    games.append(not_played(6, ["alpha", "beta"], 1, "dropped"))
    test = SprtTest(SprtSettings(elo0=0, elo1=200, model="logistic", alpha=0.3, beta=0.3), "alpha", "beta", 10)
    for record in games:
        test.add(record)
    options = games[-1]["options"]
    summary = summarize(
        games,
        ["alpha", "beta"],
        tournament="t",
        game="hex",
        options=options,
        players=2,
        not_recorded=["game 7: disk full"],
        sprt=test.summary(),
    )
    assert summary.sprt is not None and (summary.sprt.decision, summary.sprt.pairs) == ("H1", 3)
    assert summary.dropped == {"beta": "dropped (max_failures); first forfeit in game 6"}
    given = []

    def later(data: SiteData) -> None:
        given.append(data)
        data.summary = summary

    data = SiteData("t", "hex", options, ["alpha", "beta"], games, summarize=later)
    site = write_site(tmp_path / "site", data).parent
    assert len(given) == 1 and given[0] is data and data.summarize is None and data.summary is summary

    assert sorted(p.name for p in (site / "plots").iterdir()) == ["elo.svg", "ratings.svg", "scores.svg", "sprt.svg"]
    sprt_figure = figure_line(
        "plots/sprt.svg",
        "SPRT log-likelihood ratio",
        "Log-likelihood ratio over the pairs of games, between the test's bounds",
    )
    assert figures(site / "index.html") == [sprt_figure, ELO_FIGURE, RATINGS_FIGURE]
    index = (site / "index.html").read_text(encoding="utf-8")
    assert '<div id="sprt">' + "".join(f"<p>{line}</p>" for line in sprt_lines(summary.sprt)) + "</div>" in index
    s = summary.sprt
    label = "alpha vs beta: alpha passes"
    assert (site / "plots" / "sprt.svg").read_text(encoding="utf-8") == plots.sprt_plot(
        list(s.llr_history), s.lower_bound, s.upper_bound, label
    )
    tables = pages.summary_tables(summary)
    assert (site / "plots" / "scores.svg").read_text(encoding="utf-8") == plots.score_matrix_plot(
        tables.order, tables.matrix
    )

    elo_rows = [line for line in table_lines(site / "index.html", "elo") if line.startswith("<tr>")]
    assert [re.match(r'<tr><td class="name">([^<]*)</td>', row).group(1) for row in elo_rows] == [
        "alpha",
        "beta (dropped)",
    ]
    rows = [line for line in table_lines(site / "index.html", "not-recorded") if line.startswith("<tr>")]
    assert rows == ['<tr><td class="name">game 7: disk full</td></tr>']
    head = table_lines(site / "engines.html", "engine-stats")[2]
    assert head == (
        '<thead><tr><th class="name">engine</th><th>games</th><th>wins</th><th>losses</th><th>draws</th>'
        "<th>score %</th><th>score % as red</th><th>score % as blue</th><th>swapped</th><th>was swapped</th>"
        "<th>mean plies</th><th>moves timed</th><th>mean ms/move</th><th>max ms/move</th><th>mean depth</th>"
        "<th>nodes/s</th></tr></thead>"
    )


def shown_games_list(site: Path) -> list[list[object]]:
    """The games list's rows as its page shows them (assets/games.js reading data/games-index.js):
    the game's link, round, players, result, termination, plies and reason."""
    from helpers import SCRIPT_DATA, strict_json

    match = SCRIPT_DATA.match((site / "data" / "games-index.js").read_text(encoding="utf-8"))
    assert match, "the games index is one window.ARENA_INDEX script"
    index = strict_json(match.group(1), "games-index.js")
    assert isinstance(index, dict)
    shown = []
    for g in index["games"]:
        players = [index["engines"][p] for p in g[2]]
        result = f"{players[g[4]]} wins" if g[4] >= 0 else "no single winner"
        link = f"games/{g[0] // index['list_size']}.html?game={g[0]}"
        shown.append([link, g[1], " vs ".join(players), result, index["terminations"][g[3]], g[5], g[6]])
    return shown


def listed(game) -> list[object]:
    """What the games list shows of ``game`` (a site's first viewer pages hold 500 games each)."""
    result = "no single winner" if game.winner is None else f"{game.players[game.winner]} wins"
    reason = game.reason if "reason" in game else ""
    link = f"games/{game.id // 500}.html?game={game.id}"
    return [link, game.round, " vs ".join(game.players), result, str(game.termination), len(game.moves), reason]


def drawn(game):
    """``game`` cut after three plies and adjudicated a draw: no winner."""
    moves = game.moves[:3]
    return game.replace(
        moves=moves,
        times_ms=game.times_ms[:3],
        termination="adjudicated-draw",
        reason="the scores stayed near even",
        winner=None,
        scores=[0.5, 0.5],
        places=[0, 0],
    )


def without_reason(game):
    """``game`` as a record that does not say why it ended (no ``reason`` key at all)."""
    from arena.record import GameRecord

    return GameRecord.model_validate({k: v for k, v in game.to_json().items() if k != "reason"})


def test_the_games_list_shows_each_games_link_round_players_result_termination_plies_and_reason(tmp_path):
    """One row a game, in the records' order: the link to its viewer page (game 57 on the first,
    which holds 500 games), its round, its players by name, who won (or no single winner), how
    it ended, its plies and the reason it ended for (blank when its record gives none)."""
    won, by_two, second, far = records([0, 1, 2, 57])
    games = [won, drawn(by_two), without_reason(second), far]
    assert [g.winner for g in games[:3]] == [0, None, 0] and "reason" not in games[2]
    site = tmp_path / "site"
    SiteWriter(site, parallel=False).write(SiteData("t", "hex", won["options"], ENGINES, games))
    assert shown_games_list(site) == [
        ["games/0.html?game=0", 0, "alpha vs beta", "alpha wins", "normal", len(won.moves), won.reason],
        ["games/0.html?game=1", 1, "beta vs gamma", "no single winner", "adjudicated-draw", 3, games[1].reason],
        ["games/0.html?game=2", 2, "gamma vs alpha", "gamma wins", "normal", len(second.moves), ""],
        listed(far),
    ]
    assert far.round == 57 and listed(far)[:3] == ["games/0.html?game=57", 57, "beta vs gamma"]


def test_a_refresh_that_reorders_the_engines_and_adds_a_termination_lists_every_game_as_it_is(tmp_path):
    """A running site lists its games right after each refresh, also when the new games change
    the engines' order and bring a termination sorted before the ones listed so far (the
    rows written before are made again); a writer given another folder's games (not the
    ones before plus new ones) lists those games only."""
    first, beaten, even = records([0, 2, 1])
    data = SiteData("t", "hex", first["options"], ENGINES, [first])
    writer = SiteWriter(tmp_path / "site", parallel=False)
    writer.write(data)
    assert shown_games_list(tmp_path / "site") == [listed(first)]
    data.records += [beaten, drawn(even)]
    writer.write(data)
    assert shown_games_list(tmp_path / "site") == [listed(g) for g in data.records]
    other = records([4])  # alpha against beta again, alone
    writer.write(SiteData("t", "hex", first["options"], ENGINES, other))
    assert shown_games_list(tmp_path / "site") == [listed(other[0])]


def test_the_engines_page_lists_every_engines_statistics_once_in_the_standings_order(tmp_path):
    """The per-engine statistics table has a row for each engine, ordered as the standings
    (gamma 1.5 of 2, beta 1.5 of 3, alpha 1 of 3), with its games, wins, losses and draws."""
    won, by_two, second, beaten = records([0, 1, 2, 3])
    games = [won, drawn(by_two), second, beaten]
    assert [(g.players, g.winner) for g in games] == [
        (["alpha", "beta"], 0),
        (["beta", "gamma"], None),
        (["gamma", "alpha"], 0),
        (["beta", "alpha"], 0),
    ]
    site = write_site(tmp_path / "site", SiteData("t", "hex", won["options"], ENGINES, games)).parent
    text = (site / "engines.html").read_text(encoding="utf-8")
    rows = re.findall(
        r'<tr><td class="name">([^<]*)</td><td>(\d+)</td><td>(\d+)</td><td>(\d+)</td><td>(\d+)</td>', text
    )
    assert rows == [("gamma", "2", "1", "0", "1"), ("beta", "3", "1", "1", "1"), ("alpha", "3", "1", "2", "0")]
    standings = re.findall(r'<tr><td>\d+</td><td class="name">([^<]*)</td>', (site / "index.html").read_text("utf-8"))
    assert standings == [row[0] for row in rows]


def test_a_site_naming_engines_in_other_scripts_is_written_in_utf8_under_any_locale(tmp_path):
    """With the process's text encoding ASCII, the engines' names (``Jürgen``, ``棋``) are written
    as UTF-8: the games list and the standings show them as they are."""
    from helpers import ascii_locale

    names = ["Jürgen", "棋"]
    games = [g.replace(players=names if g.id % 2 else names[::-1]) for g in records([0, 1])]
    with ascii_locale():
        site = write_site(tmp_path / "site", SiteData("t", "hex", games[0]["options"], names, games)).parent
    assert [row[2] for row in shown_games_list(site)] == ["棋 vs Jürgen", "Jürgen vs 棋"]
    standings = re.findall(r'<tr><td>\d+</td><td class="name">([^<]*)</td>', (site / "index.html").read_text("utf-8"))
    assert sorted(standings) == sorted(names)


def test_a_refresh_whose_new_games_come_before_the_last_one_taken_counts_each_once_and_rewrites_only_their_list(
    tmp_path, monkeypatch
):
    """Games stored out of order (another worker's, finished earlier) come before the last game
    written: each is counted and listed once, as a site written from scratch does (the games
    index in the order they came: the browser sorts it), and a list page none of them is on is
    left as it was."""
    import os

    def shown(folder: Path) -> tuple[dict[str, str], list[list[object]]]:
        pages = summary(folder)
        index = json.loads(pages.pop("data/games-index.js").removeprefix("window.ARENA_INDEX = ").rstrip(";\n"))
        return pages, sorted(index.pop("games")) + [index]

    monkeypatch.setattr(site_module, "LIST_SIZE", 4)
    late, early, earlier = records([8, 5, 4])  # on list pages 2, 1 and 1
    site = tmp_path / "live"
    data = SiteData("t", "hex", late["options"], ENGINES, [late])
    writer = SiteWriter(site, parallel=False)
    writer.write(data)
    for taken in ([early, late], [early, earlier, late]):
        os.utime(site / "lists" / "2.html", ns=(0, 0))
        data.records = list(taken)  # the game written last stays, the same record, at the end
        writer.write(data)
        fresh = write_site(tmp_path / str(len(taken)), SiteData("t", "hex", late["options"], ENGINES, taken)).parent
        assert shown(site) == shown(fresh)
    assert (site / "lists" / "2.html").stat().st_mtime_ns == 0  # the second refresh added to page 1 only


def test_a_writer_taking_over_a_site_of_this_version_leaves_the_files_added_to_its_games_folder(tmp_path):
    """Only a site written anew clears games/; a new writer of the same site does not."""
    games = records([0, 1])
    site = tmp_path / "site"
    data = SiteData("t", "hex", games[0]["options"], ENGINES, games)
    SiteWriter(site, parallel=False).write(data)
    (site / "games" / "notes.txt").write_text("mine")
    SiteWriter(site, parallel=False).write(data)
    assert (site / "games" / "notes.txt").read_text() == "mine"
    assert sorted(p.name for p in (site / "games").iterdir()) == ["0.html", "notes.txt"]


def test_a_site_written_at_once_has_its_full_viewer_pages_written_by_forked_workers(tmp_path, monkeypatch):
    """write_site's writer forks (SiteWriter's default): with PARALLEL_FROM full pages and two
    cores, the full pages' viewers are written by other processes, the page still filling here."""
    import os

    two_cores_forking_from_two_full_pages(monkeypatch)
    log = tmp_path / "writes.log"
    real = site_module._write

    def logged(path, text):
        if path.parent.name == "games":
            with log.open("a") as out:
                out.write(f"{path.name} {os.getpid() == here}\n")
        real(path, text)

    here = os.getpid()
    monkeypatch.setattr(site_module, "_write", logged)
    games = records(list(range(10)))  # pages 0 and 1 full, page 2 filling
    write_site(tmp_path / "site", SiteData("t", "hex", games[0]["options"], ENGINES, games))
    assert sorted(log.read_text().splitlines()) == ["0.html False", "1.html False", "2.html True"]


def test_a_site_written_anew_clears_a_page_named_by_a_non_ascii_digit_from_games(tmp_path):
    """ "²".isdigit() is true but int() refuses it: such a page is another's, and goes."""
    site = tmp_path / "site"
    (site / "games").mkdir(parents=True)
    (site / "games" / "².html").write_text("not this site's")
    games = records([0, 1])
    SiteWriter(site, parallel=False).write(SiteData("t", "hex", games[0]["options"], ENGINES, games))
    clean = tmp_path / "clean"
    SiteWriter(clean, parallel=False).write(SiteData("t", "hex", games[0]["options"], ENGINES, games))
    assert sorted(p.name for p in (site / "games").iterdir()) == sorted(p.name for p in (clean / "games").iterdir())


def test_a_leftover_page_another_writer_removes_while_this_one_sweeps_is_no_error(tmp_path, monkeypatch):
    """Two reports written anew into one folder at once both sweep games/: a page the other
    removed between this writer's listing of the folder and its own removal is simply gone."""
    games = records([0, 1])
    site = tmp_path / "site"
    (site / "games").mkdir(parents=True)
    (site / "games" / "17.html").write_text("an older arena's page")
    listed = Path.iterdir

    def list_then_other_writer_sweeps(path):
        found = list(listed(path))
        if path == site / "games":
            (site / "games" / "17.html").unlink(missing_ok=True)  # the other writer's sweep
        return iter(found)

    monkeypatch.setattr(Path, "iterdir", list_then_other_writer_sweeps)
    SiteWriter(site, parallel=False).write(SiteData("t", "hex", games[0]["options"], ENGINES, games))
    assert sorted(p.name for p in listed(site / "games")) == ["0.html"]
