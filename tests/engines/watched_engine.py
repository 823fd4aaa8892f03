"""A random mover that takes its time and talks: the engine the live pages are watched with.

    watched_engine.py [SECONDS] [NAME]

Before each move it waits SECONDS (default 0.2), so a game lasts long enough to be watched,
and sends an ``info`` line holding markup (``<script>``, ``<img onerror>``) that a page must
show as text.  NAME (default "watched") is its ``id name``.  Once the file $WATCHED_FAST_AFTER
names exists (a test makes it when what needed games in play has been seen), it moves at once:
the rest of the run plays at full speed.
"""

import os
import sys
import time

from arena.rules import State
from protocol.sdk import Clock, Engine, run

DELAY_S = float(sys.argv[1]) if len(sys.argv) > 1 else 0.2


class WatchedEngine(Engine):
    name = sys.argv[2] if len(sys.argv) > 2 else "watched"
    author = "arena tests"

    def choose_move(self, state: State, clock: Clock) -> str:
        fast_after = os.environ.get("WATCHED_FAST_AFTER")
        if not (fast_after and os.path.exists(fast_after)):
            time.sleep(DELAY_S)
        self.info(
            f"depth {len(state.moves)} score 0.5 <script>window.owned=1</script><img src=x onerror=window.owned=2>"
        )
        return state.random_move(self.rng)


if __name__ == "__main__":
    run(WatchedEngine())
