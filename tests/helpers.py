"""Shared by the end-to-end tests: running the real CLI and writing tournament files."""

from __future__ import annotations

import json
import locale
import os
import re
import select
import signal
import sqlite3
import subprocess
import sys
import tempfile
import threading
from collections.abc import Iterator, Mapping
from contextlib import closing, contextmanager
from pathlib import Path
from typing import Any

from arena.rules import GAMES_VARIABLE

# Debian's Chromium, driven headless by Playwright (never a downloaded browser) as the site benchmark starts it
from arena_bench.site import CHROMIUM as CHROMIUM
from arena_bench.site import CHROMIUM_FLAGS as CHROMIUM_FLAGS

ROOT = Path(__file__).resolve().parent.parent
ZOO = str(ROOT / "tests" / "engines" / "zoo_engine.py")
# A terminal wide enough for every column of a run's closing tables (arena/results/fit.py)
WIDE = {**os.environ, "COLUMNS": "1000"}


def artifacts(tmp_path: Path) -> Path:
    """Where screenshots go: $ARENA_ARTIFACTS when set (CI keeps them), else the test's folder."""
    folder = Path(os.environ.get("ARENA_ARTIFACTS") or tmp_path / "artifacts")
    folder.mkdir(parents=True, exist_ok=True)
    return folder


def arena_cmd(*args: object) -> list[str]:
    """The argument list that runs the arena CLI with this interpreter."""
    return [sys.executable, "-m", "arena", *map(str, args)]


def run_arena(
    *args: object, input: str | None = None, cwd: Path = ROOT, env: dict | None = None, timeout: float = 300
) -> subprocess.CompletedProcess:
    """Run the CLI as a real process (workers, logging and exit codes included), forked from a
    Python that has its libraries and arena's modules loaded (tests/warm_python.py). A command
    given ``ARENA_GAMES`` (read as arena loads), or run while another runs (from another
    thread), is started as a process of its own."""
    env_in = os.environ if env is None else env
    if GAMES_VARIABLE in env_in or not _warm_lock.acquire(blocking=False):
        return subprocess.run(
            arena_cmd(*args),
            capture_output=True,
            text=True,
            input=input,
            cwd=cwd,
            env=env,
            timeout=timeout,
        )
    try:
        return _run_warm([str(arg) for arg in args], input, cwd, env_in, timeout)
    finally:
        _warm_lock.release()


_warm_lock = threading.Lock()
_warm: list[subprocess.Popen] = []  # the warm Python, once started


def _warm_python() -> subprocess.Popen:
    """The warm Python of this process, started if it is not running."""
    if not _warm or _warm[0].poll() is not None:
        _warm[:] = [
            subprocess.Popen(
                [sys.executable, str(ROOT / "tests" / "warm_python.py")],
                stdin=subprocess.PIPE,
                stdout=subprocess.PIPE,
                cwd=ROOT,
                env={k: v for k, v in os.environ.items() if k != GAMES_VARIABLE},  # read as arena loads
                bufsize=0,  # a line read is all that is read: select sees the next
            )
        ]
    return _warm[0]


def _run_warm(args: list[str], input: str | None, cwd: Path, env: Mapping[str, str], timeout: float):
    warm = _warm_python()
    assert warm.stdin is not None and warm.stdout is not None
    encoding = locale.getpreferredencoding(False)  # what subprocess's text mode decodes with
    with tempfile.TemporaryDirectory() as folder:
        streams = {name: Path(folder) / name for name in ("stdin", "stdout", "stderr")}
        for name, text in zip(streams, (input or "", "", "")):
            streams[name].write_text(text, encoding=encoding)
        request = {"args": args, "cwd": str(cwd), "env": dict(env), **{k: str(v) for k, v in streams.items()}}
        pid = None
        try:
            warm.stdin.write(json.dumps(request).encode() + b"\n")
            pid = int(warm.stdout.readline())
            ready, _, _ = select.select([warm.stdout], [], [], timeout)
            if not ready:
                os.kill(pid, signal.SIGKILL)
            code = int(warm.stdout.readline())
        except BaseException:  # the test's own timeout, say: the warm Python is left mid-answer
            if pid is not None:
                os.kill(pid, signal.SIGKILL)
            warm.kill()
            warm.wait()
            raise
        out, err = (_as_text_mode_reads(streams[name].read_bytes(), encoding) for name in ("stdout", "stderr"))
    command = arena_cmd(*args)
    if not ready:
        raise subprocess.TimeoutExpired(command, timeout, out, err)
    return subprocess.CompletedProcess(command, code, out, err)


def _as_text_mode_reads(data: bytes, encoding: str) -> str:
    """Output as subprocess's text mode gives it: decoded, with universal newlines."""
    return data.decode(encoding).replace("\r\n", "\n").replace("\r", "\n")


def refusal(*args: object, in_process: bool) -> tuple[int, str]:
    """A refused command's exit code and stderr: from click's runner in this process (a refusal made
    while the file or the command line is read is the same there), or from a real process."""
    if not in_process:
        proc = run_arena(*args)
        return proc.returncode, proc.stderr
    from click.testing import CliRunner

    from arena.cli import main

    result = CliRunner().invoke(main, [str(arg) for arg in args])
    return result.exit_code, result.stderr


def run_arena_in_order(*args: object, timeout: float = 300) -> subprocess.CompletedProcess:
    """Run the CLI with stderr into stdout: the order in which things were said."""
    return subprocess.run(
        arena_cmd(*args), stdout=subprocess.PIPE, stderr=subprocess.STDOUT, text=True, cwd=ROOT, timeout=timeout
    )


@contextmanager
def ctrl_c_before_games_jsonl(monkeypatch: Any) -> Iterator[None]:
    """Ctrl-C where the store appends a game's line to games.jsonl, after its commit: its
    ``open(..., "a")`` raises KeyboardInterrupt (every other open is the real one)."""
    import arena.results.store as store_module

    def interrupted_append(path: Any, mode: str = "r", *args: Any, **kwargs: Any) -> Any:
        if mode == "a":
            raise KeyboardInterrupt
        return open(path, mode, *args, **kwargs)

    with monkeypatch.context() as patch:
        patch.setattr(store_module, "open", interrupted_append, raising=False)
        yield


def engine_toml(name: str, *command: str, extra: str = "") -> str:
    """One [[engines]] block; ``{python}`` in a command is arena's interpreter."""
    quoted = ", ".join(f'"{part}"' for part in command)
    return f'[[engines]]\nname = "{name}"\ncommand = [{quoted}]\n{extra}\n'


def write_tournament(
    tmp_path: Path,
    engines: str,
    *,
    name: str = "t",
    game: str = "hex",
    options: str = "size = 5",
    rounds: int = 1,
    seed: int = 0,
    workers: int = 2,
    time_control: str = "movetime_ms = 2000",
    extra: str = "",
) -> Path:
    """A tournament file in ``tmp_path`` from TOML pieces; returns its path."""
    path = tmp_path / "t.toml"
    path.write_text(
        f'name = "{name}"\ngame = "{game}"\nrounds = {rounds}\nseed = {seed}\n'
        f"workers = {workers}\n{extra}\n[options]\n{options}\n"
        f"[time_control]\n{time_control}\n{engines}"
    )
    return path


def strict_json(text: str, where: object = "") -> object:
    """``json.loads`` that refuses NaN, Infinity and -Infinity, which Python's json reads by
    default but which are not JSON (RFC 8259)."""

    def refuse(constant: str) -> object:
        raise AssertionError(f"{where}: {constant} is not JSON")

    return json.loads(text, parse_constant=refuse)


GAME_DATA = re.compile(r'<script id="game-data" type="application/json">(.*?)</script>', re.S)
SCRIPT_DATA = re.compile(r"^window\.[A-Z_]+ = (.*);\n\Z", re.S)


def json_in_folder(folder: Path) -> list[tuple[str, str]]:
    """(where, JSON text) of every JSON document a results folder holds: *.json files, each
    line of *.jsonl, arena.db's JSON meta values and records, and the report site's data
    (``window.X = {...};`` scripts and each game page's embedded data)."""
    found: list[tuple[str, str]] = []
    for path in sorted(folder.rglob("*")):
        where = str(path.relative_to(folder))
        if path.suffix == ".json":
            found.append((where, path.read_text(encoding="utf-8")))
        elif path.suffix == ".jsonl":
            found += [(f"{where}:{n}", line) for n, line in enumerate(path.read_text().splitlines(), 1)]
        elif path.suffix == ".js" and (match := SCRIPT_DATA.match(path.read_text(encoding="utf-8"))):
            found.append((where, match.group(1)))
        elif path.suffix == ".html" and (match := GAME_DATA.search(path.read_text(encoding="utf-8"))):
            found.append((where, match.group(1)))  # |tojson: JSON as it is
    with closing(sqlite3.connect(f"file:{folder / 'arena.db'}?mode=ro", uri=True)) as db:
        meta = db.execute("SELECT key, value FROM meta").fetchall()
        found += [(f"arena.db meta {key}", value) for key, value in meta if value[:1] in "{["]
        found += [(f"arena.db players {i}", value) for i, value in db.execute("SELECT id, players FROM games")]
        found += [(f"arena.db record {i}", value) for i, value in db.execute("SELECT id, record FROM games")]
    return found


def random_game_record(
    game_id: int,
    players: list[str],
    size: int = 3,
    seed: int = 0,
    *,
    winner: int | None = None,
    round_: int | None = None,
    stored_seed: int | None = None,
) -> Any:
    """A finished Hex game of random moves as arena stores it (every stored key), for tests
    that need a results folder or a summary without running engines: the first game ``seed``
    draws, or the first one seat ``winner`` wins; ``stored_seed`` is the record's game seed."""
    import random

    from arena.record import GameRecord
    from arena.rules import make_game

    game = make_game("hex", {"size": size})
    rng = random.Random(seed)
    while True:
        state = game.initial_state()
        while not state.is_terminal():
            state.play(state.random_move(rng))
        if winner is None or state.winner() == winner:
            break
    won = state.winner()
    record = {
        "id": game_id,
        "round": game_id // 2 if round_ is None else round_,
        "game": "hex",
        "options": game.options.model_dump(),
        "players": players,
        "moves": list(state.moves),
        "times_ms": [1] * len(state.moves),
        "termination": "normal",
        "reason": state.end_reason(),
        "forfeit_seat": None,
        "winner": won,
        "scores": [1.0, 0.0] if won == 0 else [0.0, 1.0],
        "places": [0, 1] if won == 0 else [1, 0],
        "engine_seeds": [1, 2],
    }
    if stored_seed is not None:
        record["seed"] = stored_seed
    return GameRecord.model_validate(record)


def random_record(game_name: str, options: dict, seed: int, players: list[str], first: tuple[str, ...] = ()) -> Any:
    """A finished game of random moves, recorded as arena's runner records it."""
    import random

    from arena.record import GameRecord
    from arena.rules import make_game

    game = make_game(game_name, options)
    state = game.initial_state(seed)
    deal = 987_654_321_000 + seed  # long enough not to appear in a page by chance
    state.deal(deal)
    for move in first:
        state.play(move)
    rng = random.Random(seed)
    while not state.is_terminal():
        state.play(state.random_move(rng))
    return GameRecord.model_validate(
        {
            "id": seed,
            "round": 0,
            "game": game_name,
            "options": game.options.model_dump(),
            "seed": seed,
            "deal": deal,
            "setup": state.setup_token(),
            "engine_seeds": [1, 2],
            "players": players,
            "moves": list(state.moves),
            "times_ms": [3 + k % 5 for k in range(len(state.moves))],
            "termination": "normal",
            "reason": state.end_reason(),
            "forfeit_seat": None,
            "winner": state.winner(),
            "scores": state.scores(),
            "places": state.places(),
            "details": state.details(),
        }
    )


def game_address(site: Path, game_id: int) -> str:
    """The address of a game's viewer in a report site: its list's viewer page, asked for it."""
    from arena.results.site import LIST_SIZE

    return (site / "games" / f"{game_id // LIST_SIZE}.html").as_uri() + f"?game={game_id}"


def game_data(site: Path, game_id: int) -> Any:
    """A game's data as its viewer page holds it (what the page shows of the record, and the frames)."""
    from arena.results.site import LIST_SIZE

    source = (site / "games" / f"{game_id // LIST_SIZE}.html").read_text(encoding="utf-8")
    match = GAME_DATA.search(source)
    assert match, "a viewer page holds its games' data"
    return json.loads(match.group(1))["games"][str(game_id)]


def site_of(tmp_path: Path, records: list[Any], engines: list[str]) -> Path:
    """The report site of ``records`` (one game, 60 s + 0.1 s a move), written under ``tmp_path``."""
    from arena.results.site import SiteData, write_site

    first = records[0]
    data = SiteData(
        "arena · viewer",
        first["game"],
        first["options"],
        engines,
        records,
        {"time_control": {"base_ms": 60000, "inc_ms": 100}},
    )
    return write_site(tmp_path / "site", data).parent


@contextmanager
def ascii_locale() -> Iterator[None]:
    """This process's text encoding made ASCII (LC_CTYPE ``C``) for the block: a file opened
    without its encoding then fails on any other character, so a test can check that what
    arena writes and reads is UTF-8 whatever the user's locale."""
    import locale

    before = locale.setlocale(locale.LC_CTYPE)
    locale.setlocale(locale.LC_CTYPE, "C")
    try:
        yield
    finally:
        locale.setlocale(locale.LC_CTYPE, before)
