"""What checking a results folder's games costs on resume (docs/reliability.md).

    python benchmarks/resume_check.py [--games 10000] [--size 9] [--repeats 3]

A resume counts only the games the schedule holds, with the result their moves give
(arena/results/admit.py): each stored game is matched with its slot of the schedule, and a
record without its checked mark is replayed as ``arena verify`` does.  The script stores
``--games`` real Hex games (played by arena's referee with in-memory random players, two
engines, so the ids are one schedule's) into a real SQLite folder through GameStore.add,
then times, median of ``--repeats`` runs, on one core:

1. reading the records, which a resume did before it checked them;
2. reading and checking with the marks the referee's records are stored with (every
   resume, and ``arena results``);
3. reading and checking with no marks, every record replayed (the first resume of a folder
   an older arena made, or ``arena results`` on it before that resume).
"""

from __future__ import annotations

import argparse
import os
import random
import statistics
import sys
import tempfile
import time
from collections.abc import Callable, Sequence
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))

from arena.engine.player import Reply, TimeLimit  # noqa: E402
from arena.match import TimeControl, play_game  # noqa: E402
from arena.results.admit import Played, admit, read_counted  # noqa: E402
from arena.results.slots import Slot, round_tables, slots  # noqa: E402
from arena.results.store import GameStore  # noqa: E402
from arena.rules import Game, State, make_game  # noqa: E402

ENGINES = ("red", "blue")


class RandomPlayer:
    """A player in memory: a random legal move at once (the referee checks each)."""

    def __init__(self, name: str) -> None:
        self.name, self.alive, self.rng = name, True, random.Random(0)

    def start(self) -> None: ...

    def new_game(self, game: Game, seat: int, seed: int, private: Sequence[str]) -> None:
        self.rng.seed(seed)

    def choose_move(self, state: State, limit: TimeLimit) -> Reply:
        return Reply(state.random_move(self.rng), 0.0)

    def longest_s(self, limit: TimeLimit | None) -> float:
        return 0.0  # answers at once, in this process

    def verify_result(self, state: State) -> None: ...

    def game_over(self, scores: Sequence[float], reason: str) -> None: ...

    def quit(self) -> None: ...

    def kill(self) -> None: ...


def fill(folder: Path, game: Game, schedule: list[Slot]) -> dict[str, object]:
    """Store one played game per slot, as the runner does; the settings the store keeps."""
    settings: dict[str, object] = {
        "game": game.name,
        "options": game.options.model_dump(mode="json"),
        "engines": [{"name": name} for name in ENGINES],
        "format": "round-robin",
        "rounds": len(schedule) // 2,
        "seed": 1,
    }
    players = {name: RandomPlayer(name) for name in ENGINES}
    with GameStore(folder) as store:
        store.open(settings)
        for slot in schedule:
            seated = [players[name] for name in slot.seats]
            record = play_game(game, seated, seed=slot.seed, time_control=TimeControl(movetime_ms=1000)).record
            store.add(record.model_copy(update={"id": slot.index, "round": slot.round, "tournament": "bench"}))
    return settings


def median_time(repeats: int, work: Callable[[], object]) -> float:
    times = []
    for _ in range(repeats):
        start = time.process_time()
        work()
        times.append(time.process_time() - start)
    return statistics.median(times)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--games", type=int, default=10_000)
    parser.add_argument("--size", type=int, default=9)
    parser.add_argument("--repeats", type=int, default=3)
    args = parser.parse_args()
    os.sched_setaffinity(0, sorted(os.sched_getaffinity(0))[-1:])  # one core, as a resume has
    game = make_game("hex", {"size": args.size, "swap": True})
    schedule = list(slots(round_tables(ENGINES, 2, "round-robin"), (args.games + 1) // 2, 1))[: args.games]
    played = Played(game.name, game.options.model_dump(mode="json"), False)  # no opening book
    with tempfile.TemporaryDirectory(prefix="arena-bench-resume-") as tmp:
        folder = Path(tmp)
        start = time.monotonic()
        settings = fill(folder, game, schedule)
        made_s = time.monotonic() - start
        with GameStore(folder) as store:
            store.open(settings)
            plies = sum(len(r.moves) for r in store.records()) / args.games
            read_s = median_time(args.repeats, lambda: list(store.records()))
            marked = median_time(args.repeats, lambda: admit(store.stored(), schedule, played))
            results_s = median_time(args.repeats, lambda: read_counted(folder))
            assert store.db is not None
            store.db.execute("DELETE FROM checked")
            unmarked = median_time(args.repeats, lambda: admit(store.stored(), schedule, played))
            assert not admit(store.stored(), schedule, played).refused
    print(f"hex {args.size}x{args.size}, {args.games} games ({plies:.1f} plies a game, made in {made_s:.1f} s)")
    print(f"CPU seconds on one core, median of {args.repeats} runs; load average {os.getloadavg()[0]:.2f}")
    rows = [
        ("read the records (a resume before it checked them)", read_s),
        ("read and check, with the marks (every resume)", marked),
        ("arena results' read of the folder, with the marks", results_s),
        ("read and check, no marks: every record replayed", unmarked),
    ]
    for what, seconds in rows:
        print(f"  {what:<55} {seconds:7.2f} s  {seconds / args.games * 1e6:8.0f} us/game")


if __name__ == "__main__":
    main()
