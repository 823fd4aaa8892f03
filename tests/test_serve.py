"""``arena serve`` and ``arena run --serve``: a real server over a real run's folder, watched
in Chromium; the token, the loopback host and the same-origin rule; the workers' live files."""

from __future__ import annotations

import re
import subprocess
import sys
import time
import urllib.error
import urllib.request
from pathlib import Path

import pytest
from click.testing import CliRunner
from helpers import ROOT, arena_cmd, artifacts, run_arena, write_tournament

from arena.cli import main
from arena.engine.player import Reply
from arena.rules import make_game
from arena.tournament.livegames import LiveReader, LiveWriter, WatchMark, read_live_games, touch_watching

WATCHED = str(ROOT / "tests" / "engines" / "watched_engine.py")
URL = re.compile(r"http://\S+")


def watched_engines(delay: float) -> str:
    return "".join(
        f'[[engines]]\nname = "{name}"\ncommand = ["{sys.executable}", "{WATCHED}", "{delay}"]\n\n' for name in "ab"
    )


STARTED: list[subprocess.Popen] = []  # every process a test started, stopped after it whatever happened


@pytest.fixture(autouse=True)
def stop_what_was_started():
    yield
    while STARTED:
        proc = STARTED.pop()
        if proc.poll() is None:
            stop(proc)


def start(*args: object, cwd: Path = ROOT) -> tuple[subprocess.Popen, str]:
    """The CLI started as a process, and the link it printed."""
    proc = subprocess.Popen(arena_cmd(*args), stdout=subprocess.PIPE, stderr=subprocess.STDOUT, text=True, cwd=cwd)
    STARTED.append(proc)
    assert proc.stdout is not None
    seen = []
    deadline = time.monotonic() + 60
    while time.monotonic() < deadline:
        line = proc.stdout.readline()
        seen.append(line)
        if found := URL.search(line):
            return proc, found.group(0)
        if not line and proc.poll() is not None:
            break
    proc.kill()
    raise AssertionError(f"no link printed: {''.join(seen)}")


def stop(proc: subprocess.Popen) -> None:
    proc.terminate()
    try:
        proc.wait(timeout=20)
    except subprocess.TimeoutExpired:
        proc.kill()
        proc.wait()


def get(url: str, headers: dict[str, str] | None = None, method: str = "GET") -> tuple[int, str, dict[str, str]]:
    request = urllib.request.Request(url, headers=headers or {}, method=method)
    try:
        with urllib.request.urlopen(request, timeout=10) as answer:
            return answer.status, answer.read().decode(), dict(answer.headers)
    except urllib.error.HTTPError as exc:
        return exc.code, exc.read().decode(), dict(exc.headers)


@pytest.fixture(scope="module")
def played_folder(tmp_path_factory) -> Path:
    """A finished run's folder, played once for the module: the servers only read it (the
    report it serves is the one the run wrote)."""
    tmp_path = tmp_path_factory.mktemp("served")
    path = write_tournament(tmp_path, watched_engines(0.0), rounds=1, workers=1)
    out = tmp_path / "done"
    run = run_arena("run", path, "--out", out)
    assert run.returncode == 0, run.stdout + run.stderr
    return out


# -- the live files a worker writes -----------------------------------------------


def test_a_worker_writes_its_game_only_while_someone_watches(tmp_path):
    live = tmp_path / "live"
    live.mkdir()
    mark = WatchMark(live)
    writer = LiveWriter(live, mark, 7, 3, ["a", "b"])
    state = make_game("hex", {"size": 5}).initial_state(1)
    writer.begin(state, 1, 0)
    state.play("c3")
    writer.moved(state, 0, Reply("c3", 0.25, None, "depth 1 <b>x</b>\x1b[2J\x00"), [900, 1000])
    assert read_live_games(live) == {}  # nobody watches: no file, nothing leaves the worker
    touch_watching(live)
    mark.due = 0.0  # the mark is looked at again at once (a worker looks every CHECK_S)
    state.play("b2")
    writer.moved(state, 1, Reply("b2", 0.5, None, None), [900, 500])
    [(mtime, path)] = read_live_games(live).values()
    reader = LiveReader(path)
    assert reader.update()  # the viewer came mid-game: every move so far is written at once
    assert reader.head is not None and reader.head["id"] == 7 and reader.head["round"] == 3
    assert [m["move"] for m in reader.moves] == ["c3", "b2"] and [m["ms"] for m in reader.moves] == [250, 500]
    assert reader.moves[-1]["clocks"] == [900, 500] and reader.moves[-1]["to_move"] == 0
    assert reader.moves[0]["said"] == "depth 1 <b>x</b>\\x00"  # a terminal escape gone, a control shown as text
    state.play("a1")
    writer.moved(state, 0, Reply("a1", 0.125, None, "depth 2"), [800, 500])
    deadline = time.monotonic() + 5
    while len(reader.moves) < 3 and time.monotonic() < deadline:  # held back at most FLUSH_S, then appended
        reader.update()
        time.sleep(0.01)
    assert [m["move"] for m in reader.moves] == ["c3", "b2", "a1"] and reader.moves[-1]["said"] == "depth 2"
    assert not reader.update()
    writer.end()
    assert read_live_games(live) == {}


# -- who may talk to the server ---------------------------------------------------


@pytest.mark.slow
@pytest.mark.timeout(120)  # a run, then a server: processes on a shared machine
def test_a_bind_beyond_loopback_needs_the_token_and_changes_need_the_same_origin(played_folder):
    out = played_folder
    proc, link = start("serve", out, "--host", "0.0.0.0")
    try:
        token = re.search(r"\?token=(\S+)", link)
        assert token, link  # the link carries it
        port = re.search(r":(\d+)/", link).group(1)  # type: ignore[union-attr]
        base = f"http://127.0.0.1:{port}/"
        status, body, _ = get(base + "0/index.html")
        assert status == 403 and "token" in body  # refused: one line saying what to do
        assert get(base + "0/feed")[0] == 403
        status, body, headers = get(base + f"0/index.html?token={token.group(1)}")
        assert status == 200 and "Standings" in body
        cookie = headers["set-cookie"].split(";")[0]
        assert get(base + "0/live", {"Cookie": cookie})[0] == 200  # the cookie carries it after the first visit
        assert get(base + "0/live", {"Cookie": "arena_token=guess"})[0] == 403
        status, body, _ = get(base + "0/live", {"Cookie": cookie, "Origin": "http://evil.example"}, method="POST")
        assert status == 403 and "this server's own pages" in body
        same = get(base + "0/live", {"Cookie": cookie, "Origin": base.rstrip("/")}, method="POST")[0]
        assert same == 405  # through the guard; no page takes a POST there
    finally:
        stop(proc)


@pytest.mark.slow
@pytest.mark.timeout(120)  # a run, then a server: processes on a shared machine
def test_on_loopback_only_a_loopback_name_is_answered_and_a_finished_folder_is_served(played_folder):
    out = played_folder
    proc, link = start("serve", out)
    try:
        assert link.startswith("http://127.0.0.1:") and "token" not in link
        status, body, _ = get(link + "0/index.html")
        assert status == 200 and "Standings" in body  # the report site, as 'arena report' writes it
        assert get(link + "0/index.html", {"Host": "evil.example"})[0] == 403  # a rebound name: refused
        assert get(link + "0/assets/board.js")[0] == 200
        assert get(link + "0/assets/../arena.db")[0] == 404
        # arena serve offers the play page too, and the live page links it.
        live = get(link + "0/live")
        assert live[0] == 200 and 'href="/play"' in live[1]
        assert get(link + "play")[0] == 200
    finally:
        stop(proc)


def test_a_folder_that_is_not_a_results_folder_is_one_line(tmp_path):
    """Refused before a server starts, so in process (the tests above start real servers)."""
    served = CliRunner().invoke(main, ["serve", str(tmp_path)])
    assert served.exit_code == 2
    assert "not a results folder" in served.stderr and "Traceback" not in served.stderr


# -- watching a run in the browser ------------------------------------------------


@pytest.fixture
def pages(browser):
    context = browser.new_context(viewport={"width": 1280, "height": 900})
    tabs = [context.new_page(), context.new_page()]
    for tab in tabs:
        tab.errors = []
        tab.on("pageerror", lambda exc, tab=tab: tab.errors.append(str(exc)))
    yield tabs
    context.close()


def shown_moves(tab, game_id: int) -> int:
    return tab.locator(f"section[data-game='{game_id}'] .moves tbody tr").count()


@pytest.mark.slow
@pytest.mark.timeout(240)
def test_a_running_tournament_is_watched_move_by_move_in_two_tabs(pages, tmp_path):
    path = write_tournament(
        tmp_path,
        watched_engines(0.25),
        name="watched",
        options="size = 7",
        rounds=2,
        workers=2,
        time_control="base_ms = 60000",
    )
    out = tmp_path / "out"
    run, beside = start("run", path, "--out", out, "--serve")
    try:
        watcher, link = start("serve", out)  # another process, over the same running folder
        try:
            first, second = pages
            first.goto(beside)  # the run's own server
            second.goto(link)
            for tab in pages:
                tab.evaluate("window.stayed = true")  # gone if the page reloads
                tab.locator("section.live-game [data-cell]").first.wait_for(timeout=15000)
            game = int(first.locator("section.live-game").first.get_attribute("data-game"))
            # A move the run makes reaches both open pages within a second (a game on 7x7 lasts
            # several seconds at these engines' pace: it is still on when the checks end).
            for _ in range(3):
                reader = LiveReader(out / "live" / f"{game}.jsonl")
                reader.update()
                assert reader.head is not None
                moves = [*reader.head["opening"], *(m["move"] for m in reader.moves)]
                played = len(moves)
                for tab in pages:
                    tab.wait_for_function(
                        f"document.querySelectorAll(\"section[data-game='{game}'] .moves tbody tr\").length >= {played}",
                        timeout=1000,
                    )
                    row = tab.locator(f"section[data-game='{game}'] .moves tbody tr").nth(played - 1)
                    assert row.locator("td").nth(2).text_content(timeout=1000) == moves[played - 1]
            said = first.locator(f"section[data-game='{game}'] .seats td.said").first.text_content(timeout=1000)
            assert "<script>window.owned=1</script>" in (said or "")  # shown as text, never run
            clock = first.locator(f"section[data-game='{game}'] .seats td.clock").first.text_content(timeout=1000)
            assert re.fullmatch(r"\d+:\d\d\.\d", clock or ""), clock
            first.set_viewport_size({"width": 1280, "height": 900})
            first.screenshot(path=str(artifacts(tmp_path) / "live-1280x900.png"), full_page=True)
            first.set_viewport_size({"width": 390, "height": 844})
            first.screenshot(path=str(artifacts(tmp_path) / "live-390x844.png"), full_page=True)
            # The games finish into the standings without a reload.
            for tab in pages:
                tab.wait_for_function(
                    "Array.from(document.querySelectorAll('#standings tbody tr td:nth-child(3)'))"
                    ".some(td => Number(td.textContent) > 0)",
                    timeout=60000,
                )
                assert tab.evaluate("window.stayed") is True
                assert tab.evaluate("window.owned") is None
                assert not tab.errors
        finally:
            stop(watcher)
        assert run.wait(timeout=120) == 0
    finally:
        if run.poll() is None:
            stop(run)
    assert not list((out / "live").glob("*.jsonl"))  # the run leaves no game in progress behind
