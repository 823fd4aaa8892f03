"""What `arena serve`'s live feed costs per move with pages open (docs/performance.md, docs/serve.md).

    python benchmarks/live_feed.py [--pages 20] [--rate 2000] [--seconds 10] [--pairs 3] [--before SRC]

The section `arena bench -s watching` measures the whole manager, whose CPU per move swings
by tens of percent on a shared machine; this measures the server alone.  A thread of this
process plays random Hex 11x11 games as a worker would while someone watches: arena's own
writer (livegames.py) keeps each game's live file, ``--rate`` moves a second (an instant
engine's pace; a game is shown once it has lasted 0.05 s, so at 2000 moves a second the
short ones never are).  ``arena serve`` runs over the folder as a process of its own,
``--pages`` threads read its feed as a browser's EventSource does, and the server process's CPU time
(user and system, from /proc) over ``--seconds`` is divided by the moves written meanwhile.
With ``--before SRC`` (another checkout's source tree) the server is run from there and from
this tree alternated, ``--pairs`` times each, and the median of the pairs' ratios is printed
too; the files are the same text in both.  Prints one JSON line.
"""

from __future__ import annotations

import argparse
import json
import os
import random
import re
import statistics
import subprocess
import sys
import tempfile
import threading
import time
import urllib.request
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))

from arena.engine.player import Reply  # noqa: E402
from arena.rules import make_game  # noqa: E402
from arena.tournament.livegames import folder_channel, live_folder  # noqa: E402

WARM_UP_S = 2.0


class Games(threading.Thread):
    """Random Hex games, a move every 1/rate s, written as a watched worker writes them."""

    def __init__(self, live: Path, rate: float) -> None:
        super().__init__(daemon=True)
        self.channel = folder_channel(live)
        self.rate = rate
        self.moves = 0
        self.stopping = threading.Event()

    def run(self) -> None:
        rng = random.Random(1)
        game_id, due = 0, time.monotonic()
        while not self.stopping.is_set():
            game_id += 1
            writer = self.channel.writer(game_id, 1, ["a", "b"])
            state = make_game("hex", {"size": 11}).initial_state(1)
            writer.begin(state, 1, 0)
            while not state.is_terminal() and not self.stopping.is_set():
                seat = state.current_player()
                move = state.random_move(rng)
                state.play(move)
                writer.moved(state, seat, Reply(move, 0.0001, None, f"depth {len(state.moves)}"), [60000, 60000])
                self.moves += 1
                due += 1 / self.rate
                time.sleep(max(0.0, due - time.monotonic()))
            writer.end()


def read_feed(url: str, stopping: threading.Event) -> None:
    """One page: the feed read until the server stops."""
    try:
        with urllib.request.urlopen(url, timeout=30) as feed:
            for _ in feed:
                if stopping.is_set():
                    return
    except OSError:
        return


def server_cpu_s(pid: int) -> float:
    fields = Path(f"/proc/{pid}/stat").read_text().rsplit(")", 1)[1].split()
    return (int(fields[11]) + int(fields[12])) / os.sysconf("SC_CLK_TCK")


def results_folder(tmp: Path) -> Path:
    """A small finished run: `arena serve` serves results folders."""
    engine = [sys.executable, "-m", "engines.random_engine"]
    engines = "".join(f'[[engines]]\nname = "{n}"\ncommand = {json.dumps(engine)}\n' for n in "ab")
    (tmp / "t.toml").write_text(f'name = "t"\ngame = "hex"\nrounds = 1\n[options]\nsize = 5\n{engines}')
    out = tmp / "out"
    command = [sys.executable, "-m", "arena", "run", str(tmp / "t.toml"), "--out", str(out), "-q"]
    subprocess.run(command, cwd=ROOT, check=True, capture_output=True)
    return out


def measure(source: Path, out: Path, pages: int, rate: float, seconds: float) -> float:
    """The server's CPU per move (us), run from ``source``'s tree."""
    env = {**os.environ, "PYTHONPATH": str(source)}
    server = subprocess.Popen(
        [sys.executable, "-m", "arena", "serve", str(out)],
        cwd=source,
        env=env,
        stdout=subprocess.PIPE,
        stderr=subprocess.DEVNULL,  # its pages still open when it is stopped: uvicorn says so at length
        text=True,
    )
    stopping = threading.Event()
    games = Games(live_folder(out), rate)
    try:
        assert server.stdout is not None
        link = re.search(r"http://\S+", server.stdout.readline())
        assert link is not None, "arena serve printed no link"
        readers = [
            threading.Thread(target=read_feed, args=(link.group(0) + "0/feed", stopping), daemon=True)
            for _ in range(pages)
        ]
        for reader in readers:
            reader.start()
        games.start()
        time.sleep(WARM_UP_S)
        cpu, moves = server_cpu_s(server.pid), games.moves
        time.sleep(seconds)
        cpu, moves = server_cpu_s(server.pid) - cpu, games.moves - moves
        return cpu / max(moves, 1) * 1e6
    finally:
        stopping.set()
        games.stopping.set()
        games.join(timeout=10)
        server.terminate()
        server.wait(timeout=20)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--pages", type=int, default=20)
    parser.add_argument("--rate", type=float, default=2000.0)
    parser.add_argument("--seconds", type=float, default=10.0)
    parser.add_argument("--pairs", type=int, default=3)
    parser.add_argument("--before", type=Path, help="another source tree whose server is measured alternated")
    args = parser.parse_args()
    with tempfile.TemporaryDirectory(prefix="arena-live-feed-") as tmp:
        out = results_folder(Path(tmp))
        now: list[float] = []
        before: list[float] = []
        for _ in range(args.pairs):
            if args.before is not None:
                before.append(measure(args.before, out, args.pages, args.rate, args.seconds))
            now.append(measure(ROOT, out, args.pages, args.rate, args.seconds))
    figures: dict[str, object] = {
        "pages": args.pages,
        "moves_per_s": args.rate,
        "load": os.getloadavg(),
        "server_cpu_us_per_move": statistics.median(now),
        "runs": now,
    }
    if before:
        figures |= {
            "before_server_cpu_us_per_move": statistics.median(before),
            "before_runs": before,
            "ratio_median_of_pairs": statistics.median(n / b for n, b in zip(now, before)),
        }
    print(json.dumps(figures))


if __name__ == "__main__":
    main()
