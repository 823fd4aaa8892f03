"""A results folder of many real Hex games, and what a long test costs on it (docs/performance.md).

    python benchmarks/big_folder.py [--games 100000] [--small 10000] [--size 7] [--seed 1]

The folder is what a fishtest-style SPRT of instant engines leaves: two engines, a
round-robin of ``--games`` games, each a random playout through arena's referee
(``play_game`` with in-memory random players, as benchmarks/resume_check.py plays them),
stored through the store's own writer (``GameStore.add_many``, a thousand games a
transaction), so ``arena verify games.jsonl`` accepts every record.  A folder is made once
per (games, size, seed) and kept under the temporary folder (``$TMPDIR/arena-big-folder``);
the same seed makes the same games.

For the small folder and the large one it prints, each in a process of its own (wall
seconds, the CPU seconds it used and its peak resident memory, from ``wait4``; ``--only resume``,
``--only results`` and ``--only report`` measure those steps alone, the first three below):

1. the resume check: the store opened as a run opens it (games.jsonl rewritten) and every
   stored game admitted as the runner admits it;
2. ``arena results FOLDER``;
3. ``arena report FOLDER`` into a new folder, and the size of the site it writes;
4. the live site's refresh: that site taken over by a live site (every game counted once, as
   a resumed run's first refresh), then one more game, and that refresh timed;
5. the coordinator's CPU per game: ``--feed`` more games stored and handed to the live site
   and the progress line as the runner does (``GameStore.add_many``, then the observers),
   at ``--rate`` games a second, the process's CPU (the live site's refresh thread, every
   5 s, included) per game, and the refreshes' share of it;

and each figure's growth from the small folder to the large one.
"""

from __future__ import annotations

import argparse
import json
import os
import resource
import shutil
import sqlite3
import subprocess
import sys
import tempfile
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))
sys.path.insert(0, str(ROOT / "benchmarks"))

from resume_check import ENGINES, RandomPlayer  # noqa: E402

from arena.match import TimeControl, play_game  # noqa: E402
from arena.record import GameRecord  # noqa: E402
from arena.results.admit import Played, admit  # noqa: E402
from arena.results.slots import Slot, round_tables, slots  # noqa: E402
from arena.results.store import GameStore  # noqa: E402
from arena.rules import Game, make_game  # noqa: E402

BATCH = 1000  # games a transaction while the folder is made
CACHE = Path(tempfile.gettempdir()) / "arena-big-folder"


def settings_of(game: Game, games: int, seed: int) -> dict[str, object]:
    """The tournament the folder holds, as the store keeps its settings."""
    return {
        "name": "big",
        "game": game.name,
        "options": game.options.model_dump(mode="json"),
        "engines": [{"name": name} for name in ENGINES],
        "format": "round-robin",
        "rounds": (games + 1) // 2,
        "seed": seed,
    }


def schedule_of(games: int, seed: int) -> list[Slot]:
    return list(slots(round_tables(ENGINES, 2, "round-robin"), (games + 1) // 2, seed))[:games]


def played(game: Game, slot: Slot, players: dict[str, RandomPlayer]) -> GameRecord:
    """The slot's game, a random playout through the referee."""
    seated = [players[name] for name in slot.seats]
    record = play_game(game, seated, seed=slot.seed, time_control=TimeControl(movetime_ms=1000)).record
    return record.model_copy(update={"id": slot.index, "round": slot.round, "tournament": "big"})


def made(games: int, size: int, seed: int) -> Path:
    """The folder of ``games`` games, made unless it is cached."""
    folder = CACHE / f"{games}-hex{size}-seed{seed}"
    if (folder / "done").exists():
        return folder / "out"
    shutil.rmtree(folder, ignore_errors=True)
    game = make_game("hex", {"size": size, "swap": True})
    players = {name: RandomPlayer(name) for name in ENGINES}
    started = time.monotonic()
    with GameStore(folder / "out") as store:
        store.open(settings_of(game, games, seed))
        batch: list[GameRecord] = []
        for slot in schedule_of(games, seed):
            batch.append(played(game, slot, players))
            if len(batch) == BATCH:
                store.add_many(batch)
                batch = []
        store.add_many(batch)
    (folder / "done").write_text(f"made in {time.monotonic() - started:.1f} s\n")
    return folder / "out"


# -- what is measured, each in a process of its own ------------------------------------


def resume_check(folder: Path) -> None:
    """What a resume does with the stored games before it plays: open, rewrite games.jsonl, admit."""
    settings = json.loads(stored_meta(folder)["settings"])
    game = make_game(settings["game"], settings["options"])
    schedule = schedule_of(int(settings["rounds"]) * 2, int(settings["seed"]))
    with GameStore(folder) as store:
        store.open(settings)
        admitted = admit(store.stored(), schedule, Played(game.name, game.options.model_dump(mode="json"), False))
        assert not admitted.refused and store.done_ids()


def stored_meta(folder: Path) -> dict[str, str]:
    db = sqlite3.connect(folder / "arena.db")
    try:
        return dict(db.execute("SELECT key, value FROM meta").fetchall())
    finally:
        db.close()


def live_refresh(folder: Path, site: Path) -> None:
    """A live site written for the folder's games, then refreshed with one more: the refresh's wall time."""
    from arena.results.site import SiteWriter, load_folder

    data = load_folder(folder)
    data.summary = None  # a running site: its summary from the tallies it keeps
    data.progress = (len(data.records), len(data.records) + 1)
    writer = SiteWriter(site, parallel=False)
    writer.write(data)
    extra = next_game(folder, len(data.records))
    data.records.append(extra)
    data.progress = (len(data.records), len(data.records))
    started = time.perf_counter()
    writer.write(data)
    print(json.dumps({"refresh_s": time.perf_counter() - started}))


def next_game(folder: Path, index: int) -> GameRecord:
    settings = json.loads(stored_meta(folder)["settings"])
    game = make_game(settings["game"], settings["options"])
    slot = schedule_of(index + 2, int(settings["seed"]))[index]
    return played(game, slot, {name: RandomPlayer(name) for name in ENGINES})


def coordinator(folder: Path, site: Path, feed: int, rate: float) -> None:
    """``feed`` new games stored and told to the live site and the progress line, as the
    runner's coordinator does, at ``rate`` games a second; prints CPU microseconds a game."""
    from arena.results.site import load_folder
    from arena.results.site.live import LiveSite
    from arena.tournament.progress import Progress

    data = load_folder(folder)
    data.summary = None  # a running site: its summary from the tallies it keeps, as a run's
    have = len(data.records)
    settings = json.loads(stored_meta(folder)["settings"])
    settings["rounds"] = (have + feed + 1) // 2  # only raising the rounds extends a folder
    game = make_game(settings["game"], settings["options"])
    schedule = schedule_of(have + feed, int(settings["seed"]))
    players = {name: RandomPlayer(name) for name in ENGINES}
    new = [played(game, slot, players) for slot in schedule[have:]]  # played before the clock starts
    live = LiveSite(site, data)  # refreshed every 5 s at most, as a run's
    progress = Progress(list(ENGINES), 2, "lines", echo=lambda text: None)
    with GameStore(folder) as store:
        store.open(settings)
        live.on_start(have + feed, data.records, None)
        progress.begin(have + feed, data.records, None)
        live.writer.write(data)  # the site as a resumed run finds it (its game pages there)
        cpu, started = time.process_time(), time.monotonic()
        for k, record in enumerate(new):
            store.add_many([record])
            live.on_game(record, have + k + 1, have + feed)
            progress(record, have + k + 1, have + feed)
            time.sleep(max(0.0, started + (k + 1) / rate - time.monotonic()))
        live.wait()
        used = time.process_time() - cpu
    print(json.dumps({"cpu_us": used / feed * 1e6, "refresh_cpu_s": live.refresh_cpu_s}))


def measured(argv: list[str]) -> dict[str, float]:
    """A measurement in a new process: its wall time, peak memory and what it printed."""
    started = time.monotonic()
    child = subprocess.Popen(argv, stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True, cwd=ROOT)
    _, status, usage = os.wait4(child.pid, 0)
    wall = time.monotonic() - started
    out, err = child.stdout.read() if child.stdout else "", child.stderr.read() if child.stderr else ""
    if os.waitstatus_to_exitcode(status) != 0:
        raise SystemExit(f"{' '.join(argv)} failed:\n{err[-2000:]}")
    found = {"wall_s": wall, "rss_mb": usage.ru_maxrss / 1024, "cpu_s": usage.ru_utime + usage.ru_stime}
    lines = [line for line in out.splitlines() if line.startswith("{")]
    if lines:
        found.update(json.loads(lines[-1]))
    return found


def site_size(site: Path) -> tuple[int, float]:
    files = [p for p in site.rglob("*") if p.is_file()]
    return len(files), sum(p.stat().st_size for p in files) / 2**20


# The live refresh and the coordinator start from the report's site: measured only with it.
STEPS = ("resume", "results", "report", "live")


def figures(folder: Path, feed: int, rate: float, steps: tuple[str, ...] = STEPS) -> dict[str, float]:
    me = [sys.executable, __file__]
    arena = [sys.executable, "-m", "arena"]
    out: dict[str, float] = {}
    with tempfile.TemporaryDirectory(prefix="arena-big-") as tmp:
        if "resume" in steps:
            resumed = measured([*me, "--measure", "resume", str(folder)])
            out["resume check s"], out["resume check MB"] = resumed["wall_s"], resumed["rss_mb"]
            out["resume check CPU s"] = resumed["cpu_s"]
        if "results" in steps:
            results = measured([*arena, "results", str(folder)])
            out["arena results s"], out["arena results MB"] = results["wall_s"], results["rss_mb"]
            out["arena results CPU s"] = results["cpu_s"]
        if "report" not in steps:
            return out
        report = measured([*arena, "report", str(folder), "-o", f"{tmp}/report"])
        out["arena report s"], out["arena report MB"] = report["wall_s"], report["rss_mb"]
        out["arena report CPU s"] = report["cpu_s"]
        out["site files"], out["site MB"] = site_size(Path(tmp) / "report")
        if "live" not in steps:
            return out
        # The live site's measures start from that site: its game pages are written already.
        live = measured([*me, "--measure", "refresh", str(folder), f"{tmp}/report"])
        out["live refresh s"] = live["refresh_s"]
        copy = Path(tmp) / "copy"
        shutil.copytree(folder, copy)  # the coordinator adds games: to a copy
        fed = measured([*me, "--measure", "coordinator", str(copy), f"{tmp}/report", str(feed), str(rate)])
        out["coordinator CPU us/game"] = fed["cpu_us"]
        out["of which refreshes, us"] = fed["refresh_cpu_s"] / feed * 1e6
    return out


def main() -> None:
    if len(sys.argv) > 2 and sys.argv[1] == "--measure":
        what, *rest = sys.argv[2:]
        if what == "resume":
            resume_check(Path(rest[0]))
        elif what == "refresh":
            live_refresh(Path(rest[0]), Path(rest[1]))
        else:
            coordinator(Path(rest[0]), Path(rest[1]), int(rest[2]), float(rest[3]))
        return
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--games", type=int, default=100_000)
    parser.add_argument("--small", type=int, default=10_000, help="the folder the growth is measured from")
    parser.add_argument("--size", type=int, default=7)
    parser.add_argument("--seed", type=int, default=1)
    parser.add_argument("--feed", type=int, default=2000, help="games the coordinator takes in")
    parser.add_argument("--rate", type=float, default=200.0, help="games a second the coordinator takes in")
    parser.add_argument(
        "--only",
        choices=["resume", "results", "report"],
        action="append",
        help="measure only this step (again for another); the live refresh and coordinator need all",
    )
    args = parser.parse_args()
    sizes = [args.small, args.games] if args.small < args.games else [args.games]
    rows = {}
    for games in sizes:
        started = time.monotonic()
        folder = made(games, args.size, args.seed)
        took = time.monotonic() - started
        print(f"{games} games of hex {args.size}x{args.size}: {folder} ({took:.1f} s)", flush=True)
        rows[games] = figures(folder, args.feed, args.rate, tuple(args.only or STEPS))
    print(f"load average {os.getloadavg()[0]:.2f} on {os.cpu_count()} cores; peak memory MB from wait4")
    header = "".join(f"{n:>14,}" for n in sizes) + ("        growth" if len(sizes) > 1 else "")
    print(f"{'':<26}{header}")
    for key in rows[sizes[0]]:
        values = [rows[n][key] for n in sizes]
        growth = f"{values[-1] / values[0]:13.2f}x" if len(sizes) > 1 and values[0] else ""
        print(f"{key:<26}" + "".join(f"{v:14.2f}" for v in values) + growth)
    print(f"own peak memory {resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024:.0f} MB")


if __name__ == "__main__":
    main()
