"""The bundled search engine for every game: levels, clock handling, game parts.

``python -m engines.search`` plays any of arena's games with one Monte Carlo tree
search (``mcts.py``); :data:`PARTS` gives each game its budgets and the domain the
search sees (the rules' own ``State`` for most, turns split into stones for Groups,
the swap policy for Hex, guessed hidden posies for Posies).  Options (``setoption``):

- ``level``: ``easy``, ``medium`` or ``hard`` search a fixed number of iterations
  from the referee's per-game seed, so a game replays move for move; ``time``
  searches as long as the clock allows.
- ``safety_ms``: what every mode keeps in hand below the time the clock allows.
  A fixed level also stops early rather than overrun the clock, and only then
  stops being reproducible (see engines/README.md for how rarely).
- ``iterations``: a fixed level's count replaced (0, the default: the level's own),
  for quick ladders and experiments.
- ``swap_policy`` (Hex): ``edge`` swaps exactly when Red's first stone is off the
  edges, ``search`` lets the search judge, ``never`` never swaps.
- ``rollout`` (Hex): ``bridges`` (rollouts answer intrusions into bridges) or
  ``uniform`` (the rules' uniform random playout).
"""

from __future__ import annotations

import time
from collections.abc import Callable
from dataclasses import dataclass
from random import Random
from typing import Any

from arena.rules import State
from arena.rules.hex import HexState
from protocol.sdk import Clock, Engine

from . import mcts
from .groups import GroupsDomain
from .hex import ROLLOUTS, HexDomain, edge_swap
from .posies import PosiesDomain

LEVELS = ("easy", "medium", "hard", "time")
SWAP_POLICIES = ("edge", "search", "never")
UNLIMITED = 10**9
FIXED_LEVEL_SHARE = 0.75  # of the allotted time, where a fixed level's safety net stops it


@dataclass(frozen=True)
class Part:
    """One game's search: the budget per level and how to search with it."""

    budgets: dict[str, int]  # level -> iterations
    make_domain: Callable[[SearchEngine], Any]  # how the search sees the game


PARTS: dict[str, Part] = {
    "hex": Part(
        {"easy": 30, "medium": 300, "hard": 3000},
        lambda e: HexDomain(e.option_values["swap_policy"], e.option_values["rollout"]),
    ),
    "hexgo": Part({"easy": 10, "medium": 80, "hard": 1000}, lambda e: mcts.RulesDomain(2, rave=True)),
    "groups": Part({"easy": 30, "medium": 200, "hard": 1500}, lambda e: GroupsDomain()),
    "posies": Part({"easy": 15, "medium": 80, "hard": 300}, lambda e: PosiesDomain(e.players)),
    "bases": Part({"easy": 25, "medium": 120, "hard": 600}, lambda e: mcts.RulesDomain(2)),
}


class SearchEngine(Engine):
    name = "search"
    author = "arena"
    options = {
        "level": ("string", "medium"),
        "safety_ms": ("int", 30),
        "swap_policy": ("string", "edge"),
        "iterations": ("int", 0),
        "rollout": ("string", "bridges"),
    }
    go_keys = ("movestogo", "nodes")  # a node budget is a count of simulations

    def __init__(self) -> None:
        super().__init__()
        # The last search's result (iterations, seconds), for tests and bench.
        self.last: mcts.SearchResult | None = None

    def on_option(self, name: str, value: str) -> None:
        allowed = {"level": LEVELS, "swap_policy": SWAP_POLICIES, "rollout": ROLLOUTS}.get(name)
        if allowed is not None and value not in allowed:
            # A misspelt level must not quietly play another strength: stop, saying why.
            raise SystemExit(f"search engine: option {name} is {value!r}; use one of {', '.join(allowed)}")
        if name == "iterations" and not (value.isascii() and value.isdigit()):
            raise SystemExit(f"search engine: option iterations is {value!r}; use a whole number (0: the level's)")
        super().on_option(name, value)

    def choose_move(self, state: State, clock: Clock) -> str | None:
        game = state.game.name
        if isinstance(state, HexState) and self.option_values["swap_policy"] == "edge" and state.swap_allowed():
            swap = edge_swap(state)
            if swap:
                self.info("depth 0 nodes 0")  # the policy's move, no search
                return swap
        part = PARTS[game]
        level = self.option_values["level"]
        budget = UNLIMITED if level == "time" else int(self.option_values["iterations"]) or part.budgets[level]
        if clock.nodes:  # the referee's node budget takes the level's place; the clock still stops it
            budget = clock.nodes
        out_of_time = self._deadline(clock, level == "time")
        self.last = found = mcts.search(part.make_domain(self), state, self.rng, budget, out_of_time)
        self.info(found.info())
        return found.move

    def _deadline(self, clock: Clock, required: bool) -> Callable[[], bool]:
        """A test that says when to stop: before the allotted time minus the safety
        margin, allowing for the longest iteration seen so far."""
        safety = int(self.option_values["safety_ms"])
        allotted = clock.budget_ms(safety_ms=safety)
        if allotted is None:
            if required:
                allotted = 1000 - safety  # level 'time' without a clock: a second a move
            else:
                return lambda: False
        if not required:
            # A fixed level's count fits well inside the clock; this net only catches a machine
            # so busy that the process is not even scheduled, where the last quarter of the
            # allotted time is what answering takes.
            allotted = int(allotted * FIXED_LEVEL_SHARE)
        start = time.perf_counter()
        deadline = start + allotted / 1000
        last = [start, 0.0]  # time of the previous check, longest step seen

        def out_of_time() -> bool:
            now = time.perf_counter()
            step = now - last[0]
            if step > last[1]:
                last[1] = step
            last[0] = now
            return now + last[1] >= deadline

        return out_of_time


def judge(state: State, seed: int, level: str = "medium") -> float | None:
    """The search's judgement of ``state`` for the seat to move, as its ``info score`` says
    it: the mean reward of the move it would play (1: a sure win, 0.5: even), searched at
    ``level``'s count from ``seed``, so the same position and seed give the same figure;
    None where there was nothing to search (a single legal move).  ``arena openings
    generate`` keeps the openings it judges near even."""
    engine = SearchEngine()
    engine.players = state.game.players
    part = PARTS[state.game.name]
    return mcts.search(part.make_domain(engine), state.clone(), Random(seed), part.budgets[level]).score
