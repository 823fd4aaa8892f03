"""``arena serve`` and ``arena run --serve``: a real server over a real run's folder, watched
in Chromium; the token, the loopback host and the same-origin rule; the workers' live files."""

from __future__ import annotations

import asyncio
import concurrent.futures
import json
import os
import re
import shutil
import statistics
import subprocess
import sys
import threading
import time
import urllib.error
import urllib.request
from collections.abc import Callable
from pathlib import Path

import pytest
from click.testing import CliRunner
from helpers import ROOT, arena_cmd, artifacts, run_arena, write_tournament

from arena.cli import main
from arena.engine.player import EngineSpec, Reply
from arena.match import TimeControl
from arena.record import GameRecord
from arena.results.site import boards
from arena.rules import State, make_game
from arena.serve.beside import ServeBeside
from arena.serve.feed import LiveFeed
from arena.tournament import livegames
from arena.tournament.cluster import ClusterSpec
from arena.tournament.config import load_tournament
from arena.tournament.livegames import (
    FileSink,
    LiveChannel,
    LiveReader,
    LiveRelay,
    LiveWriter,
    WatchMark,
    read_live_games,
    touch_watching,
)
from arena.tournament.runner import run_tournament
from arena.tournament.schedule import ScheduledGame
from arena.tournament.worker import Worker, WorkerConfig, WorkerError
from protocol import codec

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


def watched_tournament(tmp_path: Path, delay: float) -> Path:
    """A 7x7 run of two engines that think ``delay`` seconds a move, two games at once."""
    return write_tournament(
        tmp_path,
        watched_engines(delay),
        name="watched",
        options="size = 7",
        rounds=2,
        workers=2,
        time_control="base_ms = 60000",
    )


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


def shown(live: Path, count: int = 1) -> dict[int, tuple[float, Path]]:
    """The game files of ``live`` once ``count`` are there: a game's first lines go out from
    the held lines' thread, once it has lasted FLUSH_S."""
    deadline = time.monotonic() + 5
    while len(found := read_live_games(live)) < count and time.monotonic() < deadline:
        time.sleep(0.01)
    return found


def test_a_worker_writes_its_game_only_while_someone_watches(tmp_path):
    live = tmp_path / "live"
    live.mkdir()
    mark = WatchMark(live)
    writer = LiveWriter(FileSink(live / "7.jsonl"), mark, 7, 3, ["a", "b"])
    state = make_game("hex", {"size": 5}).initial_state(1)
    writer.begin(state, 1, 0)
    state.play("c3")
    writer.moved(state, 0, Reply("c3", 0.25, None, "depth 1 <b>x</b>\x1b[2J\x00"), [900, 1000])
    assert read_live_games(live) == {}  # nobody watches: no file, nothing leaves the worker
    touch_watching(live)
    mark.due = 0.0  # the mark is looked at again at once (a worker looks every CHECK_S)
    state.play("b2")
    writer.moved(state, 1, Reply("b2", 0.5, None, None), [900, 500])
    [(mtime, path)] = shown(live).values()
    reader = LiveReader(path)
    deadline = time.monotonic() + 5  # the held lines' thread makes the file, then flushes its lines
    while not reader.update():  # the viewer came mid-game: every move so far is written at once
        assert time.monotonic() < deadline, "the watched game's lines never came"
        time.sleep(0.01)
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


def test_quick_games_held_lines_go_out_from_one_thread_and_an_ended_game_writes_nothing_more(tmp_path):
    live = tmp_path / "live"
    touch_watching(live)
    games = []
    for game_id in (1, 2, 3):  # each game's head and moves (within FLUSH_S of its start) are held
        writer = LiveWriter(FileSink(live / f"{game_id}.jsonl"), WatchMark(live), game_id, 1, ["a", "b"])
        state = make_game("hex", {"size": 5}).initial_state(1)
        writer.begin(state, 1, 0)
        for move in ("c3", "b2"):
            state.play(move)
            writer.moved(state, len(state.moves) % 2, Reply(move, 0.001, None, None), [900, 900])
        games.append(writer)
    games[2].end()  # over before its held lines went out: it never has a file
    shown(live, 2)
    readers = [LiveReader(live / f"{game_id}.jsonl") for game_id in (1, 2, 3)]
    deadline = time.monotonic() + 5
    while sum(len(reader.moves) for reader in readers[:2]) < 4 and time.monotonic() < deadline:
        for reader in readers[:2]:
            reader.update()
        time.sleep(0.01)
    assert [[m["move"] for m in reader.moves] for reader in readers[:2]] == [["c3", "b2"], ["c3", "b2"]]
    assert [t.name for t in threading.enumerate()].count("arena-live-lines") == 1  # one thread, not one a game
    time.sleep(2 * livegames.FLUSH_S)
    assert sorted(path.name for path in live.glob("*.jsonl")) == ["1.jsonl", "2.jsonl"]
    for writer in games[:2]:
        writer.end()


class CountingSink(FileSink):
    """A game's file that counts what the writer asked of it."""

    def __init__(self, path: Path) -> None:
        super().__init__(path)
        self.writes: list[str] = []
        self.closes = 0

    def write(self, text: str) -> None:
        self.writes.append(text)
        super().write(text)

    def close(self) -> None:
        self.closes += 1
        super().close()


def watched_game(tmp_path: Path) -> tuple[Path, CountingSink, LiveWriter, State]:
    """Game 1 of Hex 5x5 begun, someone watching: its live folder, sink, writer and state."""
    live = tmp_path / "live"
    touch_watching(live)
    sink = CountingSink(live / "1.jsonl")
    writer = LiveWriter(sink, WatchMark(live), 1, 1, ["a", "b"])
    state = make_game("hex", {"size": 5}).initial_state(1)
    writer.begin(state, 1, 0)
    return live, sink, writer, state


def quick_move(writer: LiveWriter, state: State, move: str) -> None:
    state.play(move)
    writer.moved(state, len(state.moves) % 2, Reply(move, 0.001, None, None), [900, 900])


def test_a_game_over_before_it_lasted_flush_s_never_makes_a_file(tmp_path):
    live, sink, writer, state = watched_game(tmp_path)
    for move in ("c3", "b2", "a1"):  # an instant engine's game: over within milliseconds
        quick_move(writer, state, move)
    writer.end()
    time.sleep(3 * livegames.FLUSH_S)  # the held lines' thread has come to it, and found it over
    assert sink.writes == [] and sink.file is None and not (live / "1.jsonl").exists()


def test_a_move_that_comes_flush_s_after_the_last_lines_writes_them_out_itself(tmp_path):
    """The cheap path: the worker sends the waiting lines with the move, no thread woken."""
    live, sink, writer, state = watched_game(tmp_path)
    quick_move(writer, state, "c3")
    assert sink.writes == []  # within FLUSH_S of the start: held
    writer.flushed -= livegames.FLUSH_S  # as if the game had lasted FLUSH_S
    quick_move(writer, state, "b2")
    assert len(sink.writes) == 2 and '"id":1' in sink.writes[0]  # the head, then both moves, at once
    assert sink.writes[1].count("\n") == 2 and '"move":"b2"' in sink.writes[1]
    writer.end()
    assert not (live / "1.jsonl").exists()


def test_a_workers_game_that_lasts_is_shown_whole_and_its_file_goes_when_it_ends(tmp_path):
    """Through the real path: a worker playing two engine processes, someone watching."""
    live = tmp_path / "live"
    touch_watching(live)
    engines = {name: EngineSpec(name, (sys.executable, WATCHED, "0.03")) for name in "ab"}
    config = WorkerConfig("w", "hex", {"size": 5}, engines, TimeControl(base_ms=60000), live_dir=str(live))
    worker = Worker(config)
    sinks: list[CountingSink] = []

    def sink(game_id: int) -> CountingSink:
        sinks.append(CountingSink(live / f"{game_id}.jsonl"))
        return sinks[-1]

    assert worker.live is not None
    worker.live = LiveChannel(worker.live.watched, sink)
    try:
        record = worker.play(ScheduledGame(4, 0, ("a", "b"), seed=3))
    finally:
        worker.shutdown()
    assert not isinstance(record, WorkerError) and len(record["moves"]) >= 9  # 0.03 s a move: it lasted
    [shown_game] = sinks
    lines = [json.loads(line) for line in "".join(shown_game.writes).splitlines()]
    assert lines[0]["id"] == 4 and lines[0]["players"] == ["a", "b"]
    moves = [line["move"] for line in lines[1:]]
    # Every move from the first on, those made before the game was shown too; the last ones
    # held when it ended go with its file (the game is in the standings by then).
    assert moves == record["moves"][: len(moves)] and len(moves) >= len(record["moves"]) // 2
    assert shown_game.closes == 1 and read_live_games(live) == {}


class BrokenSink:
    """A sink whose flush fails as no file does (a bug's exception, not an OSError)."""

    def write(self, text: str) -> None:
        pass

    def flush(self) -> None:
        raise RuntimeError("broken")

    def close(self) -> None:
        pass


def test_a_writer_that_fails_in_the_held_lines_thread_leaves_it_to_the_other_games(tmp_path, caplog):
    live = tmp_path / "live"
    touch_watching(live)
    broken = LiveWriter(BrokenSink(), lambda: True, 1, 1, ["a", "b"])
    broken.flushed = time.monotonic()  # its lines are held, and go out from the thread
    broken.moves.append(("c3", 0, 1, None, None, 1, 1.0))
    broken._show()
    time.sleep(3 * livegames.FLUSH_S)  # the thread has met the failure
    writer = LiveWriter(FileSink(live / "2.jsonl"), lambda: True, 2, 1, ["a", "b"])
    state = make_game("hex", {"size": 5}).initial_state(1)
    writer.begin(state, 1, 0)
    state.play("c3")
    writer.moved(state, 0, Reply("c3", 0.001, None, None), [900, 900])
    shown(live)
    reader = LiveReader(live / "2.jsonl")
    deadline = time.monotonic() + 5
    while not reader.moves and time.monotonic() < deadline:
        reader.update()
        time.sleep(0.01)
    assert [m["move"] for m in reader.moves] == ["c3"]
    writer.end()
    time.sleep(3 * livegames.TICK_S)  # looks enough to have tried the broken one again
    assert broken.broken and [r.message for r in caplog.records].count("cannot show game 1 live") == 1
    broken.end()


def test_a_move_line_written_by_hand_is_the_json_of_the_move():
    for move in [
        ("a1", 0, 12, [1000, -5], 'depth 3 "x" <b>\x00 é \u2028\n', None, 1796326054.8657112),
        ("swap", 1, 0, None, None, 1, 1.5),
    ]:
        token, seat, ms, clocks, said, to_move, at = move
        line = livegames._line(move)
        expected = {
            "move": token,
            "seat": seat,
            "ms": ms,
            "clocks": None if clocks is None else [max(c, 0) for c in clocks],
            "said": None if said is None else codec.sanitize(said, livegames.SAID_KEEP),
            "to_move": to_move,
            "at": at,
        }
        assert line == json.dumps(expected, separators=(",", ":")) + "\n"  # the very text json writes


class LiveGameWriter:
    """A game in progress as a worker writes it (its LiveWriter), moved by the test."""

    def __init__(self, live: Path, game_id: int, moves: list[str]) -> None:
        live.mkdir(parents=True, exist_ok=True)
        touch_watching(live)
        self.mark = WatchMark(live)
        self.writer = LiveWriter(FileSink(live / f"{game_id}.jsonl"), self.mark, game_id, 1, ["a", "b"])
        self.state = make_game("hex", {"size": 5}).initial_state(1)
        self.writer.begin(self.state, 1, 0)
        for move in moves:
            self.play(move)

    def play(self, move: str) -> None:
        seat = self.state.current_player()
        self.state.play(move)
        said = f"depth {len(self.state.moves)} <b>{move}</b>"
        self.mark.due = 0.0  # the mark looked at again (the server renews it while a page is open)
        self.writer.moved(self.state, seat, Reply(move, 0.1, None, said), [900, 800])
        self.writer._flush()  # at once, not within FLUSH_S


def sse(text: str) -> tuple[str, str, dict]:
    """An event's id, kind and value."""
    fields = dict(line.split(": ", 1) for line in text.strip().splitlines())
    return fields.get("id", ""), fields["event"], json.loads(fields["data"])


def test_the_feed_sends_a_game_whole_once_then_its_new_moves_and_a_reconnection_what_it_missed(tmp_path):
    async def watch() -> None:
        game = LiveGameWriter(tmp_path / "live", 5, ["c3", "b2"])
        feed = LiveFeed(tmp_path)
        page = feed.stream()

        held: dict[object, list[str]] = {}  # each stream's events read but not yet looked at

        async def next_event(stream=page) -> tuple[str, str, dict]:
            """The stream's next event (a look's events come as one piece)."""
            events = held.setdefault(stream, [])
            if not events:
                events += (await asyncio.wait_for(anext(stream), 10)).strip().split("\n\n")
            return sse(events.pop(0))

        assert (await next_event())[1:] == ("games", {"ids": []})  # a page that comes: what is on
        ident, kind, whole = await next_event()
        assert kind == "game" and whole["id"] == 5 and whole["moves"] == ["c3", "b2"] and whole["to_move"] == 0
        assert whole["said"] == ["depth 1 <b>c3</b>", "depth 2 <b>b2</b>"] and "deal" not in whole
        game.play("a1")
        _, kind, news = await next_event()
        # Only the new move travels, with its frame, time, the clocks and the info lines.
        assert kind == "moves" and news["from"] == 2 and news["moves"] == ["a1"] and news["times"] == [100]
        assert len(news["frames"]) == 1 and news["clocks"] == [900, 800] and news["said"][0] == "depth 3 <b>a1</b>"
        # The frames pieced together are the referee's replay of the whole game.
        record = GameRecord(
            game="hex", options={"size": 5}, seed=1, deal=0, players=["a", "b"], moves=["c3", "b2", "a1"]
        )
        replayed = boards.replay(record).frames
        assert [*whole["frames"], *news["frames"]][:-1] == replayed[:-1]
        assert boards.last_frame(news["frames"][-1], {"marks": {}, "reveal": ""}) == replayed[-1]
        # A page that reconnects is sent what it missed since its last event...
        again = feed.stream(ident)
        assert (await next_event(again))[1:] == ("moves", news)
        # ...a page from another server (or a gap the feed no longer holds) everything afresh.
        fresh = feed.stream("0badf00d.1")
        assert (await next_event(fresh))[1] == "games"
        _, kind, whole = await next_event(fresh)
        assert kind == "game" and whole["moves"] == ["c3", "b2", "a1"] and whole["times"] == [100, 100, 100]
        game.writer.end()
        assert (await next_event())[1:] == ("over", {"id": 5})
        for stream in (page, again, fresh):
            await stream.aclose()

    # In a thread of its own: the browser tests' Playwright keeps an event loop in this one.
    with concurrent.futures.ThreadPoolExecutor(1) as thread:
        thread.submit(asyncio.run, watch()).result(timeout=60)


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


def answered(url: str, timeout: float = 60) -> tuple[int, str, dict[str, str]]:
    """``get(url)`` once the server process answers (it takes the socket as it starts)."""
    deadline = time.monotonic() + timeout
    while True:
        try:
            return get(url)
        except OSError:
            if time.monotonic() > deadline:
                raise
            time.sleep(0.05)


@pytest.mark.slow
@pytest.mark.timeout(120)  # a server process started twice, on a shared machine
def test_the_server_beside_a_run_answers_from_a_process_of_its_own_that_stops_and_dies_with_the_run(
    played_folder, tmp_path
):
    told: list[str] = []
    beside = ServeBeside(played_folder, told.append, host="0.0.0.0")
    threads = threading.active_count()
    beside.on_start(0, [], None)
    assert beside.process is not None and threading.active_count() == threads  # no thread of the run answers
    server = beside.process.pid
    try:
        token = re.search(r"\?token=(\S+)", told[0]).group(1)  # type: ignore[union-attr]
        port = re.search(r":(\d+)/", told[0]).group(1)  # type: ignore[union-attr]
        base = f"http://127.0.0.1:{port}/"
        assert answered(base + "0/index.html")[0] == 403  # beyond loopback, the token is asked as by arena serve
        status, body, _ = get(base + f"0/index.html?token={token}")
        assert status == 200 and "Standings" in body
        assert token not in Path(f"/proc/{server}/cmdline").read_text()  # no other user can read it there
    finally:
        beside.on_stop()
    assert beside.process is None and beside.cpu_s > 0  # stopped and reaped, its CPU counted apart
    assert not Path(f"/proc/{server}").exists()
    with pytest.raises(OSError):
        get(base + "0/index.html")
    # A run killed outright takes its server with it.
    script = tmp_path / "killed_run.py"
    script.write_text(
        "import os, signal, sys\nfrom pathlib import Path\nfrom arena.serve.beside import ServeBeside\n"
        "beside = ServeBeside(Path(sys.argv[1]), print)\nbeside.on_start(0, [], None)\n"
        "print(beside.process.pid, flush=True)\nos.kill(os.getpid(), signal.SIGKILL)\n"
    )
    run = subprocess.run([sys.executable, str(script), str(played_folder)], capture_output=True, text=True, cwd=ROOT)
    link, pid = run.stdout.split()[-2:]
    deadline = time.monotonic() + 30
    while Path(f"/proc/{pid}").exists() and "zombie" not in Path(f"/proc/{pid}/status").read_text():
        assert time.monotonic() < deadline, f"the server {pid} outlived its run"
        time.sleep(0.05)


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
def test_a_running_tournament_is_watched_move_by_move_in_two_tabs(pages, tmp_path, monkeypatch):
    path = watched_tournament(tmp_path, 0.25)
    out = tmp_path / "out"
    fast = tmp_path / "fast"  # the engines take their time until the pages were checked, then play at once
    monkeypatch.setenv("WATCHED_FAST_AFTER", str(fast))
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
            # A move the run makes reaches both open pages within a second, at the median of
            # three moves in two tabs, each counted from when the test read it in the game's file
            # (a game on 7x7 lasts several seconds at these engines' pace: it is still on when
            # the checks end). One late move on a loaded machine (two test workers, Chromium,
            # two servers) may take longer than a second; none may take five.
            delays: list[float] = []
            for _ in range(3):
                reader = LiveReader(out / "live" / f"{game}.jsonl")
                reader.update()
                read_at = time.monotonic()
                assert reader.head is not None
                moves = [*reader.head["opening"], *(m["move"] for m in reader.moves)]
                played = len(moves)
                for tab in pages:
                    # Looked for every 50 ms: Playwright's default looks on animation frames, which
                    # headless Chromium may hold back for a second on a page where nothing moves.
                    tab.wait_for_function(
                        f"document.querySelectorAll(\"section[data-game='{game}'] .moves tbody tr\").length >= {played}",
                        timeout=5000,
                        polling=50,
                    )
                    delays.append(time.monotonic() - read_at)
                    row = tab.locator(f"section[data-game='{game}'] .moves tbody tr").nth(played - 1)
                    assert row.locator("td").nth(2).text_content(timeout=1000) == moves[played - 1]
            assert statistics.median(delays) < 1.0, delays
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
            # Every check of the pages was made with the run going on (its own server with it):
            # the games left play at full speed.
            fast.touch()
        finally:
            stop(watcher)
        assert run.wait(timeout=120) == 0
    finally:
        if run.poll() is None:
            stop(run)
    assert not list((out / "live").glob("*.jsonl"))  # the run leaves no game in progress behind


def cell_state(tab, game_id: int, cell: int) -> str | None:
    return tab.locator(f"section[data-game='{game_id}'] [data-index='{cell}']").get_attribute("data-state")


@pytest.mark.slow
@pytest.mark.timeout(180)
def test_a_move_reaches_an_open_page_as_news_and_a_page_that_comes_mid_game_sees_it_whole(
    pages, played_folder, tmp_path
):
    out = shutil.copytree(played_folder, tmp_path / "done")  # its live games are this test's own
    game = LiveGameWriter(out / "live", 99, ["c3", "b2"])
    proc, link = start("serve", out)
    first, later = pages
    first.goto(link)
    first.wait_for_function("document.querySelectorAll(\"section[data-game='99'] .moves tbody tr\").length === 2")
    first.locator("section[data-game='99'] [data-cell]").first.wait_for()
    first.evaluate("document.querySelector(\"section[data-game='99'] .moves tbody tr\").dataset.kept = 'yes'")
    a1 = make_game("hex", {"size": 5}).picture().board.names.index("a1")
    assert cell_state(first, 99, a1) == ""
    game.play("a1")
    first.wait_for_function("document.querySelectorAll(\"section[data-game='99'] .moves tbody tr\").length === 3")
    # The move came as news and was added: the rows already shown stayed (the game was not
    # drawn again), the board shows it, and the mover's info line is its latest, as text.
    assert first.evaluate("window.arenaLive.received.moves") >= 1
    assert first.evaluate("window.arenaLive.received.game") == 1
    assert first.locator("section[data-game='99'] .moves tbody tr").first.get_attribute("data-kept") == "yes"
    rows = first.locator("section[data-game='99'] .moves tbody tr")
    assert [rows.nth(k).locator("td").nth(2).text_content() for k in range(3)] == ["c3", "b2", "a1"]
    first.wait_for_function(f"document.querySelector(\"section[data-game='99'] [data-index='{a1}']\").dataset.state")
    assert first.locator("section[data-game='99'] tr[data-seat='0'] td.said").text_content() == "depth 3 <b>a1</b>"
    assert first.locator("section[data-game='99'] tr.to-move").get_attribute("data-seat") == "1"
    assert first.locator("section[data-game='99'] tr[data-seat='1'] td.seat").text_content() == "1 (blue)"
    game.play("e5")
    first.wait_for_function("document.querySelectorAll(\"section[data-game='99'] .moves tbody tr\").length === 4")
    # A page that comes mid-game (after the feed read e5) is sent the game whole: every move
    # so far, the same board, and no news.
    later.goto(link)
    later.wait_for_function("document.querySelectorAll(\"section[data-game='99'] .moves tbody tr\").length === 4")
    later.locator("section[data-game='99'] [data-cell]").first.wait_for()
    assert (
        later.evaluate("window.arenaLive.received.game") == 1 and later.evaluate("window.arenaLive.received.moves") == 0
    )
    cells = make_game("hex", {"size": 5}).picture().board.names
    board = [cell_state(tab, 99, k) for tab in (first, later) for k in range(len(cells))]
    assert board[: len(cells)] == board[len(cells) :] and board.count("") == 2 * (len(cells) - 4)
    game.writer.end()
    for tab in pages:
        tab.wait_for_function("window.arenaLive.games().length === 0")
        assert not tab.errors
    stop(proc)


# -- watching a run on a Dask cluster ---------------------------------------------


class FeedReader(threading.Thread):
    """A page's EventSource, as an HTTP client: every event of a feed, kept in order."""

    def __init__(self, url: str) -> None:
        super().__init__(daemon=True)
        self.url = url
        self.events: list[tuple[str, dict]] = []

    def run(self) -> None:
        try:
            with urllib.request.urlopen(self.url, timeout=60) as feed:
                kind = ""
                for raw in feed:
                    line = raw.decode()
                    if line.startswith("event: "):
                        kind = line[7:].strip()
                    elif line.startswith("data: "):
                        self.events.append((kind, json.loads(line[6:])))
        except OSError:
            return  # the server stopped

    def shown(self) -> dict[int, list[str]]:
        """Each game the page was sent, and its moves as the page holds them."""
        return {value["id"]: self.moves_of(value["id"]) for kind, value in list(self.events) if kind == "game"}

    def moves_of(self, game_id: int) -> list[str]:
        """The game's moves as a page holds them: the whole game, then each news in order."""
        moves: list[str] = []
        for kind, value in list(self.events):
            if kind == "game" and value["id"] == game_id:
                moves = list(value["moves"])
            elif kind == "moves" and value["id"] == game_id:
                assert value["from"] == len(moves)  # news follows what the page holds
                moves += value["moves"]
        return moves


@pytest.mark.slow
@pytest.mark.timeout(300)  # a Dask cluster, a run and a server: processes on a shared machine
def test_a_cluster_run_is_watched_with_its_moves_sent_over_dask(tmp_path, monkeypatch):
    relayed: list[dict] = []
    take = LiveRelay.take
    monkeypatch.setattr(LiveRelay, "take", lambda self, message: (relayed.append(message), take(self, message)))
    path = watched_tournament(tmp_path, 0.2)
    out = tmp_path / "out"
    fast = tmp_path / "fast"  # the engines take their time until a game's moves reached the page, then play at once
    monkeypatch.setenv("WATCHED_FAST_AFTER", str(fast))
    told: list[str] = []
    seen: dict[str, object] = {}

    def watch() -> None:
        """A page on the run's server (arena run --cluster local:2 --serve), as the run goes."""
        deadline = time.monotonic() + 120
        while not told and time.monotonic() < deadline:
            time.sleep(0.05)
        time.sleep(2)  # games are on, nobody watches: nothing is sent over Dask
        seen["before"] = list(relayed)
        page = FeedReader(URL.search(told[0]).group(0) + "0/feed")  # type: ignore[union-attr]
        page.start()

        def followed() -> list[int]:
            """The games the page has five moves of, some of them sent as news (a ``moves`` event)."""
            news = {value["id"] for kind, value in list(page.events) if kind == "moves"}
            return [game for game, moves in page.shown().items() if len(moves) >= 5 and game in news]

        while time.monotonic() < deadline and not followed():
            time.sleep(0.2)
        # The game checked below: one the page was sent five moves of and news of, at the engines'
        # pace (once the file below is made, a game may end before its next moves are sent).
        seen["game"] = next(iter(followed()), None)
        seen["page"] = page
        fast.touch()

    watcher = threading.Thread(target=watch, daemon=True)
    watcher.start()
    summary = run_tournament(
        load_tournament(path), out, observers=[ServeBeside(out, told.append)], cluster=ClusterSpec.parse("local:2")
    )
    watcher.join(timeout=60)
    assert summary.played == 4
    assert seen["before"] == []
    page = seen["page"]
    assert isinstance(page, FeedReader)
    game_id = seen["game"]
    moves = page.moves_of(game_id) if game_id is not None else []
    assert len(moves) >= 5, page.events
    assert any(kind == "moves" and value["id"] == game_id for kind, value in page.events)  # as they are played
    # They came over Dask: the coordinator wrote what the workers sent on the run's topic.
    sent = "".join(m.get("lines", "") for m in relayed if m["id"] == game_id).splitlines()
    assert json.loads(sent[0])["id"] == game_id
    assert [json.loads(line)["move"] for line in sent[1:]][: len(moves)] == moves
    assert any(m.get("end") for m in relayed if m["id"] == game_id)  # its end too: its file went
    assert not list((out / "live").glob("*.jsonl"))


# -- a cluster's games: each worker's lines as messages, written into the folder by the coordinator


def test_a_cluster_workers_game_goes_as_messages_one_a_flush_and_its_end_once_it_sent_lines():
    sent: list[livegames.LiveMessage] = []
    sink = livegames.MessageSink(sent.append, 7)
    sink.flush()  # nothing held: nothing sent
    sink.write('{"id":7}\n')
    sink.write('{"move":"a1"}\n')
    assert sent == []  # held until the flush
    sink.flush()
    sink.write('{"move":"b2"}\n')
    sink.close()
    assert sent == [
        {"id": 7, "lines": '{"id":7}\n{"move":"a1"}\n'},
        {"id": 7, "lines": '{"move":"b2"}\n'},
        {"id": 7, "end": True},
    ]
    quiet: list[livegames.LiveMessage] = []
    livegames.MessageSink(quiet.append, 8).close()  # a game over before it sent a line: no end to tell
    assert quiet == []


def test_a_message_that_cannot_be_sent_costs_the_viewers_the_game_never_the_game(caplog):
    def gone(message: livegames.LiveMessage) -> None:
        raise RuntimeError("the worker left its cluster")

    sink = livegames.MessageSink(gone, 7)
    sink.write('{"id":7}\n')
    sink.close()
    assert [(r.levelname, r.getMessage()) for r in caplog.records] == [
        ("WARNING", "cannot show game 7 live (the worker left its cluster)")
    ] * 2  # the lines and the end


def test_the_relay_writes_each_games_messages_into_its_file_and_removes_it_at_its_end(tmp_path):
    live = tmp_path / "out" / "live"  # made with its parents at the first message
    relay = LiveRelay(live)
    relay.take({"id": 7, "lines": '{"id":7}\n'})
    assert (live / "7.jsonl").read_text() == '{"id":7}\n'  # out at once: a server reads it now
    relay.take({"id": 8, "lines": '{"id":8}\n'})
    relay.take({"id": 7, "lines": '{"move":"a1"}\n{"move":"b2"}\n'})
    assert (live / "7.jsonl").read_text() == '{"id":7}\n{"move":"a1"}\n{"move":"b2"}\n'
    relay.take({"id": 7, "end": True})
    assert sorted(read_live_games(live)) == [8]
    relay.take({"id": 7, "end": True})  # told twice (or of a game never shown): nothing to do
    relay.close()
    assert read_live_games(live) == {} and relay.games == {}


def test_a_relayed_game_whose_file_cannot_be_made_is_said_and_not_shown(tmp_path, caplog):
    live = tmp_path / "live"
    live.write_text("not a folder")
    relay = LiveRelay(live)
    relay.take({"id": 9, "lines": '{"id":9}\n'})
    assert [(r.levelname, r.getMessage()) for r in caplog.records] == [
        ("WARNING", f"cannot show game 9 live ([Errno 17] File exists: '{live}')")
    ]
    assert relay.games == {}


# -- the live files: the watching mark, a writer's due lines, the held lines' thread, the reader


def test_a_server_marks_watching_in_a_results_folder_not_made_yet(tmp_path):
    live = tmp_path / "out" / "live"  # the run has not made its folder yet
    touch_watching(live)
    assert (live / "watching").is_file()


class FakeTimes:
    """The livegames module's clocks, set by the test: its monotonic and Unix time."""

    def __init__(self) -> None:
        self.mono, self.unix = 100.0, 1_000_000.0

    def monotonic(self) -> float:
        return self.mono

    def time(self) -> float:
        return self.unix


def test_the_watching_mark_is_fresh_under_three_seconds_and_looked_at_every_half_second(tmp_path, monkeypatch):
    times = FakeTimes()
    monkeypatch.setattr(livegames, "time", times)
    live = tmp_path / "live"
    live.mkdir()
    mark = WatchMark(live)
    assert mark() is False  # no mark: nobody watches
    touch_watching(live)
    os.utime(live / "watching", (times.unix - 1, times.unix - 1))
    assert mark() is False  # looked at less than CHECK_S ago: not again yet
    times.mono += livegames.CHECK_S  # exactly CHECK_S later: looked at again
    assert mark() is True
    os.utime(live / "watching", (times.unix - 3, times.unix - 3))  # exactly FRESH_S old: the viewers left
    times.mono += livegames.CHECK_S
    assert mark() is False


def test_a_local_runs_channel_writes_each_game_into_its_own_file_headed_by_its_round(tmp_path):
    live = tmp_path / "live"
    live.mkdir()
    writer = livegames.folder_channel(live).writer(7, 3, ["a", "b"])
    writer._flush()  # its lines out now
    assert json.loads((live / "7.jsonl").read_text()) == {"id": 7, "round": 3, "players": ["a", "b"]}
    writer.end()
    assert read_live_games(live) == {}


def test_a_writers_lines_are_due_once_waiting_flush_s_and_never_after_its_game_ended(tmp_path):
    sink = CountingSink(tmp_path / "1.jsonl")
    writer = LiveWriter(sink, lambda: False, 1, 1, ["a", "b"])  # nobody watches: the test sends its lines
    state = make_game("hex", {"size": 5}).initial_state(1)
    writer.begin(state, 1, 0)
    writer.flushed = 0.0  # as if it began at 0
    flush_s = livegames.FLUSH_S
    assert [writer.due(flush_s / 2), writer.due(flush_s)] == [False, True]  # its head, once it lasted FLUSH_S
    writer._flush()
    writer.flushed = 0.0
    assert writer.due(10.0) is False  # all sent: nothing waits
    state.play("c3")
    writer.moved(state, 0, Reply("c3", 0.001, None, None), [900, 900])
    writer.flushed = 1000.0  # the lines last went out at 1000 s
    assert [writer.due(1000 + flush_s / 2), writer.due(1000 + 2 * flush_s)] == [False, True]  # a move waits
    writer.end()
    assert writer.due(10.0) is False  # over: its lines go nowhere


class Holding:
    """The held lines' thread, as a list of the writers it looks at."""

    def __init__(self) -> None:
        self.held: list[LiveWriter] = []

    def hold(self, writer: LiveWriter) -> None:
        self.held.append(writer)

    def release(self, writer: LiveWriter) -> None:
        self.held.remove(writer)


def test_a_watched_game_goes_out_once_it_lasted_flush_s_exactly_its_head_saying_who_moves_since_when(
    tmp_path, monkeypatch
):
    clock = {"monotonic": 0.0}
    monkeypatch.setattr(
        livegames, "time", type("Clock", (), {"monotonic": lambda: clock["monotonic"], "time": lambda: 1234.5})
    )
    holding = Holding()
    monkeypatch.setattr(livegames, "held_lines", lambda: holding)
    sink = CountingSink(tmp_path / "1.jsonl")
    writer = LiveWriter(sink, lambda: True, 1, 1, ["a", "b"])
    state = make_game("hex", {"size": 5}).initial_state(1)
    writer.begin(state, 1, 0)
    assert holding.held == [writer] and sink.writes == []  # the thread looks at it; nothing lasted yet
    clock["monotonic"] = livegames.FLUSH_S
    state.play("c3")
    writer.moved(state, 0, Reply("c3", 0.001, None, None), [900, 900])
    head, moves = sink.writes
    assert {key: json.loads(head)[key] for key in ("id", "players", "opening", "to_move", "at")} == {
        "id": 1,
        "players": ["a", "b"],
        "opening": [],
        "to_move": 0,
        "at": 1234.5,
    }
    assert moves == '{"move":"c3","seat":0,"ms":1,"clocks":[900,900],"said":null,"to_move":1,"at":1234.5}\n'
    writer.end()
    assert holding.held == [] and not (tmp_path / "1.jsonl").exists()


def test_lines_a_thread_found_due_are_not_written_once_their_game_ended(tmp_path):
    sink = CountingSink(tmp_path / "1.jsonl")
    writer = LiveWriter(sink, lambda: False, 1, 1, ["a", "b"])
    writer.begin(make_game("hex", {"size": 5}).initial_state(1), 1, 0)
    writer.end()  # the game ended between the thread's look and its flush
    writer._flush()
    assert sink.writes == [] and not (tmp_path / "1.jsonl").exists()


class FullDisk(FileSink):
    def write(self, text: str) -> None:
        raise OSError(28, "No space left on device")


def test_a_game_whose_file_cannot_be_written_is_said_once_and_its_lines_are_no_longer_due(tmp_path, caplog):
    writer = LiveWriter(FullDisk(tmp_path / "9.jsonl"), lambda: False, 9, 1, ["a", "b"])
    writer.begin(make_game("hex", {"size": 5}).initial_state(1), 1, 0)
    writer._flush()
    writer._flush()
    assert [r.getMessage() for r in caplog.records] == ["cannot show game 9 live ([Errno 28] No space left on device)"]
    assert writer.due(writer.flushed + 10) is False


def test_the_held_lines_thread_sleeps_until_a_game_then_lingers_before_sleeping_again(tmp_path, monkeypatch):
    monkeypatch.setattr(livegames, "TICK_S", 0.002)
    monkeypatch.setattr(livegames, "LINGER_S", 0.05)
    thread = livegames.HeldLines()
    assert (thread.name, thread.daemon, thread.asleep) == ("arena-live-lines", True, True)
    thread.start()

    def wait_for(done: Callable[[], bool]) -> float:
        start = time.monotonic()
        while not done() and time.monotonic() < start + 5:
            time.sleep(0.001)
        return time.monotonic() - start

    for game_id in (1, 2):  # and a game after the pause wakes it again
        sink = CountingSink(tmp_path / f"{game_id}.jsonl")
        writer = LiveWriter(sink, lambda: True, game_id, 1, ["a", "b"])
        writer.flushed = 0.0  # its head is due
        thread.hold(writer)
        wait_for(lambda sink=sink: len(sink.writes) == 2)  # the head, then its moves (none)
        assert sink.writes == [f'{{"id":{game_id},"round":1,"players":["a","b"]}}\n', ""]
        thread.release(writer)
        lingered = wait_for(lambda: thread.asleep)
        assert thread.asleep and thread.is_alive() and lingered >= livegames.LINGER_S
    thread.name = "arena-live-lines (a test's, asleep)"  # not counted as this process's thread by other tests


def test_this_process_has_one_held_lines_thread(monkeypatch):
    monkeypatch.setattr(livegames, "_held_lines", None)  # as in a new worker process
    first = livegames.held_lines()
    assert livegames.held_lines() is first and first.is_alive()
    first.name = "arena-live-lines (a test's, asleep)"  # not counted as this process's thread by other tests


def test_a_move_line_shows_a_clock_of_one_millisecond_and_none_below_zero():
    line = json.loads(livegames._line(("a1", 0, 5, [1, 0, -3], None, 1, 1.5)))
    assert line["clocks"] == [1, 0, 0]


def test_a_reader_keeps_a_line_being_written_until_it_is_whole_and_reads_a_replaced_file_whole(tmp_path):
    path = tmp_path / "4.jsonl"
    head = '{"id":4,"round":1}\n'
    move = livegames._line(("c3", 0, 5, None, None, 1, 1.5))
    path.write_text(head + move[:10])
    reader = LiveReader(path)
    assert reader.update() and reader.head == {"id": 4, "round": 1} and reader.moves == []
    with open(path, "a") as file:
        file.write(move[10:])
    assert reader.update() and [m["move"] for m in reader.moves] == ["c3"]
    assert not reader.update()  # nothing new
    other = tmp_path / "other.jsonl"  # another game's file put in its place, longer than this one
    other.write_text('{"id":4,"round":2}\n' + move + livegames._line(("b2", 1, 5, None, None, 0, 2.5)))
    os.replace(other, path)
    assert reader.update() and reader.head == {"id": 4, "round": 2}
    assert [m["move"] for m in reader.moves] == ["c3", "b2"]


def test_the_held_lines_thread_woken_by_a_game_over_before_its_first_look_lingers_then_sleeps(tmp_path, monkeypatch):
    monkeypatch.setattr(livegames, "TICK_S", 0.002)
    monkeypatch.setattr(livegames, "LINGER_S", 0.02)
    thread = livegames.HeldLines()
    thread.start()
    writer = LiveWriter(CountingSink(tmp_path / "1.jsonl"), lambda: True, 1, 1, ["a", "b"])
    thread.hold(writer)  # wakes it
    thread.release(writer)  # the game ended before the thread's first look
    deadline = time.monotonic() + 5
    while not thread.asleep and time.monotonic() < deadline:
        time.sleep(0.001)
    assert thread.asleep and thread.is_alive()
    thread.name = "arena-live-lines (a test's, asleep)"  # not counted as this process's thread by other tests


def test_a_move_is_kept_with_its_time_in_whole_milliseconds_while_nobody_watches(tmp_path):
    writer = LiveWriter(FileSink(tmp_path / "1.jsonl"), WatchMark(tmp_path), 1, 1, ["a", "b"])
    state = make_game("hex", {"size": 5}).initial_state(1)
    writer.begin(state, 1, 0)
    state.play("c3")
    writer.moved(state, 0, Reply("c3", 2.0, None, None), None)  # 2 s: 2000 ms, not 2002 by a rounding slip
    assert [(move, seat, ms, clocks) for move, seat, ms, clocks, *_ in writer.moves] == [("c3", 0, 2000, None)]


def test_the_live_games_are_the_files_named_by_a_game_id_and_a_file_gone_before_its_look_is_skipped(
    tmp_path, monkeypatch
):
    """Only ``<id>.jsonl`` is a game's file (not a file being written beside it, the watch
    mark, nor another name), and a game's file that ended between the listing and the look
    costs only itself: the games after it in the listing are still found."""
    live = tmp_path / "live"
    live.mkdir()
    for name in ("1.jsonl", "2.jsonl", "12.jsonl", "x.jsonl", "3.jsonl.tmp", "watching", "a.b.jsonl", "7", "4.txt"):
        (live / name).write_text("{}\n")
    os.utime(live / "2.jsonl", (100.0, 100.0))
    os.utime(live / "12.jsonl", (200.0, 200.0))
    listed = os.scandir

    def listing_then_game_1_ends(path):
        entries = sorted(listed(path), key=lambda entry: entry.name)  # 1.jsonl first
        (live / "1.jsonl").unlink()
        return iter(entries)

    monkeypatch.setattr(livegames.os, "scandir", listing_then_game_1_ends)
    assert read_live_games(live) == {2: (100.0, live / "2.jsonl"), 12: (200.0, live / "12.jsonl")}


def test_a_file_named_by_a_digit_int_cannot_read_is_not_a_game_and_clearing_the_folder_leaves_it(tmp_path):
    """``"²".isdigit()`` is true but ``int("²")`` fails: such a stray name is no game's, and
    clearing the folder at a run's start removes the games' files and leaves it."""
    live = tmp_path / "live"
    live.mkdir()
    for name in ("².jsonl", "5.jsonl"):
        (live / name).write_text("{}\n")
    assert sorted(read_live_games(live)) == [5]
    livegames.clear_live(live)
    assert sorted(p.name for p in live.iterdir()) == ["².jsonl"]


def test_a_reconnection_whose_last_id_is_no_event_of_this_feed_is_sent_everything(tmp_path):
    """The browser sends back what it was given, but the header is anyone's to write: a number
    with a digit int() refuses ("²") is no event of this feed, like another server's."""
    feed = LiveFeed(tmp_path)
    assert [feed.missed(f"{feed.epoch}.{n}") for n in ("²", "", "x", "1")] == [None, None, None, None]
    assert feed.missed(f"{feed.epoch}.0") == []
