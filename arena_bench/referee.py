"""Section 1: how fast each referee is, on one core, without any process around it.

*Random playouts*: from each game's start, ``state.playout(rng)``: a random legal
move (``state.random_move(rng)``, ``rng.choice(state.legal_moves())`` unless the
game has a faster sampler) until the game ends; Hex fuses that loop.  *Moves
validated*: replay the recorded games through ``play()``, the referee's work for
every move an engine sends.  Where OpenSpiel is installed, its Hex is driven from
Python on the same seeds the way OpenSpiel's own Python rollouts do it
(``rng.choice(state.legal_actions())``, as ``RandomRolloutEvaluator`` in
``open_spiel/python/algorithms/mcts.py``) and, for reference, with the driver
keeping the list of empty cells itself; with the swap rule off both libraries list
legal moves in the same order, so the playouts are the very same games (checked
and printed).

*Batched playouts*: arena's numpy path (``arena.rules.hexfill``) draws a batch of
random cell orders with numpy and plays them all at once; OpenSpiel is given the
very same orders (drawn the same way, the draw timed for both), one
``apply_action`` and one ``is_terminal`` a move, which no Python driver of it can
undercut, and the games are checked to be the same (every move and the winner).
"""

from __future__ import annotations

import random
import time
from collections.abc import Callable, Iterator
from dataclasses import dataclass, field, fields
from functools import partial
from typing import Any, cast

from arena.rules import GAMES, Game, make_game
from arena.rules.base import State
from arena.rules.hex import HexGame

from .common import med

PLY_CAP = 100_000  # a game that does not end by then is reported, not waited for


@dataclass
class RefereeFigures:
    game: str
    options: str
    playouts: int  # playouts per repeat
    plies: int  # total plies of those playouts
    playouts_per_s: list[float] = field(default_factory=list)
    moves_validated_per_s: list[float] = field(default_factory=list)

    @property
    def us_per_validated_move(self) -> float:
        return 1e6 / med(self.moves_validated_per_s)

    def as_dict(self) -> dict[str, Any]:
        return {
            "game": self.game,
            "options": self.options,
            "playouts": self.playouts,
            "plies_per_game": self.plies / self.playouts,
            "playouts_per_s": med(self.playouts_per_s),
            "moves_validated_per_s": med(self.moves_validated_per_s),
            "us_per_validated_move": self.us_per_validated_move,
        }


def random_playout(game: Game, seed: int, stepwise: bool = False) -> list[str]:
    """One random game from ``seed``'s setup, with ``random.Random(seed)`` choosing moves;
    ``stepwise``: through the base class's plain loop even where a game fuses it."""
    state = game.initial_state(seed)
    playout = partial(State.playout, state) if stepwise else state.playout
    if not playout(random.Random(seed), PLY_CAP):
        raise RuntimeError(f"{game.name}: a random game did not end within {PLY_CAP} plies")
    return state.moves


def _timed_playouts(game: Game, seeds: range, stepwise: bool = False) -> tuple[float, list[list[str]]]:
    start = time.thread_time()
    games = [random_playout(game, seed, stepwise) for seed in seeds]
    return time.thread_time() - start, games


def _timed_replays(game: Game, seeds: range, games: list[list[str]]) -> float:
    """CPU seconds to validate every move of ``games`` through ``play()``."""
    states = [game.initial_state(seed) for seed in seeds]
    start = time.thread_time()
    for state, moves in zip(states, games):
        play = state.play
        for move in moves:
            play(move)
    return time.thread_time() - start


def calibrate(run: Callable[[int], float], budget_s: float, cap: int = 100_000) -> int:
    """How many items (playouts) fill about ``budget_s``, doubling from one."""
    count = 1
    while count < cap:
        if run(count) >= budget_s / 2:
            break
        count *= 2
    return count


@dataclass
class _Subject:
    game: Game
    seeds: range
    games: list[list[str]]
    figures: RefereeFigures

    def measure(self) -> None:
        elapsed, _ = _timed_playouts(self.game, self.seeds)
        self.figures.playouts_per_s.append(len(self.seeds) / elapsed)
        self.figures.moves_validated_per_s.append(
            self.figures.plies / _timed_replays(self.game, self.seeds, self.games)
        )


def _subject(name: str, budget_s: float) -> _Subject:
    game = make_game(name, {})
    seeds = range(calibrate(lambda n: _timed_playouts(game, range(n))[0], budget_s))
    _, games = _timed_playouts(game, seeds)
    shown = " ".join(f"{k}={v}" for k, v in game.options.model_dump().items())
    return _Subject(game, seeds, games, RefereeFigures(name, shown, len(seeds), sum(map(len, games))))


def all_games(
    repeats: int, budget_s: float, note: Callable[[str], None], between: Callable[[], None] = lambda: None
) -> list[RefereeFigures]:
    """Every registered ruleset at its default options, a game that fails skipped with a
    note; ``between`` runs before each round over the games (to interleave a baseline)."""
    subjects = []
    for name in GAMES:
        try:
            subjects.append(_subject(name, budget_s))
        except Exception as exc:  # a ruleset still being written must not sink the bench
            note(f"{name}: skipped ({type(exc).__name__}: {exc})")
    for _ in range(repeats):
        between()
        for subject in subjects:
            subject.measure()
    return [subject.figures for subject in subjects]


# -- OpenSpiel ------------------------------------------------------------------


@dataclass
class OpenSpielFigures:
    version: str
    playouts: int
    identical: bool
    # per run, per second of thread CPU
    arena_playouts_per_s: list[float] = field(default_factory=list)
    arena_stepwise_playouts_per_s: list[float] = field(default_factory=list)
    openspiel_playouts_per_s: list[float] = field(default_factory=list)
    openspiel_own_list_playouts_per_s: list[float] = field(default_factory=list)
    arena_moves_validated_per_s: list[float] = field(default_factory=list)
    openspiel_moves_validated_per_s: list[float] = field(default_factory=list)
    arena_batched_playouts_per_s: list[float] = field(default_factory=list)
    openspiel_ordered_playouts_per_s: list[float] = field(default_factory=list)
    batched_identical: bool = False

    @property
    def strongest_openspiel(self) -> str:
        """The faster of the two drivers that spare OpenSpiel the legal-action list."""
        own, ordered = "openspiel_own_list_playouts_per_s", "openspiel_ordered_playouts_per_s"
        return own if med(getattr(self, own)) >= med(getattr(self, ordered)) else ordered

    @property
    def batched_ratio(self) -> float:
        """Batched playouts against the strongest Python driver of OpenSpiel."""
        return self.ratio("arena_batched_playouts_per_s", self.strongest_openspiel)

    def ratio(self, arena: str, openspiel: str) -> float:
        return med(getattr(self, arena)) / med(getattr(self, openspiel))

    @property
    def playout_ratio(self) -> float:
        return self.ratio("arena_playouts_per_s", "openspiel_playouts_per_s")

    @property
    def stepwise_playout_ratio(self) -> float:
        return self.ratio("arena_stepwise_playouts_per_s", "openspiel_playouts_per_s")

    @property
    def own_list_playout_ratio(self) -> float:
        return self.ratio("arena_playouts_per_s", "openspiel_own_list_playouts_per_s")

    @property
    def validation_ratio(self) -> float:
        return self.ratio("arena_moves_validated_per_s", "openspiel_moves_validated_per_s")

    def as_dict(self) -> dict[str, Any]:
        rates = {f.name: med(getattr(self, f.name)) for f in fields(self) if f.name.endswith("_per_s")}
        ratios = {
            name: getattr(self, name)
            for name in (
                "playout_ratio",
                "stepwise_playout_ratio",
                "own_list_playout_ratio",
                "validation_ratio",
                "batched_ratio",
            )
        }
        return {
            "openspiel_version": self.version,
            "playouts": self.playouts,
            "identical_games": self.identical,
            "batched_identical_games": self.batched_identical,
            "strongest_openspiel_driver": self.strongest_openspiel,
            **rates,
            **ratios,
        }


def openspiel_hex(size: int, repeats: int, budget_s: float) -> OpenSpielFigures | None:
    """arena's Hex against OpenSpiel's on the same seeds, alternating run by run; None
    when OpenSpiel is not installed (``pip install -e '.[bench]'``)."""
    try:
        import pyspiel
    except ImportError:
        return None
    from importlib.metadata import version

    game = cast(HexGame, make_game("hex", {"size": size, "swap": False}))
    spiel = pyspiel.load_game("hex", {"board_size": size})
    count = calibrate(lambda n: _timed_playouts(game, range(n))[0], budget_s)
    seeds = range(count)
    _, games = _timed_playouts(game, seeds)
    index = game.board.index
    actions = [[index(m) for m in moves] for moves in games]  # row-major, as OpenSpiel numbers cells
    identical = (
        actions
        == [_spiel_playout(spiel, seed) for seed in seeds]
        == [_spiel_own_list_playout(spiel, seed) for seed in seeds]
        and games == _timed_playouts(game, seeds, stepwise=True)[1]
    )
    figures = OpenSpielFigures(version("open-spiel"), count, identical)
    figures.batched_identical = _batched_identical(game, spiel, count)
    plies = sum(len(g) for g in games)
    for run in range(repeats):
        figures.arena_batched_playouts_per_s.append(count / _timed_batch(game, count, run, None))
        figures.openspiel_ordered_playouts_per_s.append(count / _timed_batch(game, count, run, spiel))
        figures.arena_playouts_per_s.append(count / _timed_playouts(game, seeds)[0])
        figures.openspiel_playouts_per_s.append(count / _timed(_spiel_playout, spiel, seeds))
        figures.arena_stepwise_playouts_per_s.append(count / _timed_playouts(game, seeds, stepwise=True)[0])
        figures.openspiel_own_list_playouts_per_s.append(count / _timed(_spiel_own_list_playout, spiel, seeds))
        figures.arena_moves_validated_per_s.append(plies / _timed_replays(game, seeds, games))
        states = [spiel.new_initial_state() for _ in actions]
        start = time.thread_time()
        for state, moves in zip(states, actions):
            apply = state.apply_action
            for action in moves:
                apply(action)
        figures.openspiel_moves_validated_per_s.append(plies / (time.thread_time() - start))
    return figures


BATCH = 1024  # playouts per numpy batch: large enough that numpy's per-call cost fades


def _batch_orders(game: HexGame, count: int, seed: int) -> Iterator[Any]:
    """The orders of ``count`` random games from the start, in batches of BATCH."""
    import numpy as np

    from arena.rules.hexfill import random_orders

    rng, start = np.random.default_rng(seed), game.initial_state()
    for first in range(0, count, BATCH):
        yield random_orders(start, rng, min(BATCH, count - first))


def _timed_batch(game: HexGame, count: int, seed: int, spiel: Any) -> float:
    """CPU seconds for ``count`` random games drawn in numpy batches, played by arena's
    batched path (``spiel`` None) or by OpenSpiel move by move along the same orders."""
    from arena.rules.hexfill import fill

    start_state = game.initial_state()
    start = time.thread_time()
    for orders in _batch_orders(game, count, seed):
        if spiel is None:
            fill(start_state, orders)
        else:
            for order in orders.tolist():
                _spiel_ordered_playout(spiel, order)
    return time.thread_time() - start


def _batched_identical(game: HexGame, spiel: Any, count: int) -> bool:
    """arena's batched games are OpenSpiel's games along the same orders: every move, the winner."""
    from arena.rules.hexfill import fill

    start_state = game.initial_state()
    for orders in _batch_orders(game, count, 0):
        filled = fill(start_state, orders)
        for order, plies, winner in zip(orders.tolist(), filled.plies.tolist(), filled.winners.tolist()):
            state = _spiel_ordered_playout(spiel, order)
            if state.history() != order[:plies] or state.returns()[winner] != 1.0:
                return False
    return True


def _spiel_ordered_playout(spiel: Any, order: list[int]) -> Any:
    """OpenSpiel along a given order of cells until the game ends."""
    state = spiel.new_initial_state()
    apply, is_terminal = state.apply_action, state.is_terminal
    for action in order:
        apply(action)
        if is_terminal():
            return state
    raise RuntimeError("an OpenSpiel Hex game did not end on a full board")


def _timed(playout: Callable[[Any, int], list[int]], spiel: Any, seeds: range) -> float:
    start = time.thread_time()
    for seed in seeds:
        playout(spiel, seed)
    return time.thread_time() - start


def _spiel_playout(spiel: Any, seed: int) -> list[int]:
    """The same random game driven as OpenSpiel's own Python rollouts are."""
    state = spiel.new_initial_state()
    rng = random.Random(seed)
    choice = rng.choice
    apply, legal, is_terminal = state.apply_action, state.legal_actions, state.is_terminal
    for _ in range(PLY_CAP):
        if is_terminal():
            return state.history()
        apply(choice(legal()))
    raise RuntimeError("an OpenSpiel Hex game did not end")


def _spiel_own_list_playout(spiel: Any, seed: int) -> list[int]:
    """The same random game with the driver keeping the empty cells itself, so that
    OpenSpiel never builds a list of legal actions: the least Python can ask of it (and
    a driver that knows Hex's rules, which is the referee's job)."""
    state = spiel.new_initial_state()
    getrandbits = random.Random(seed).getrandbits
    empty = list(range(spiel.num_distinct_actions()))
    apply, is_terminal = state.apply_action, state.is_terminal
    while not is_terminal():
        n = len(empty)  # draw_below(getrandbits, n), inlined as in HexState.playout
        k = n.bit_length()
        r = getrandbits(k)
        while r >= n:
            r = getrandbits(k)
        apply(empty.pop(r))
    return state.history()
