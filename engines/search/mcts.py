"""Monte Carlo tree search (UCT, optionally with RAVE) over a :class:`Domain`.

The search sees a game only through its domain: the moves at a position, how to
play one, whose turn it is and a rollout to the end.  :class:`RulesDomain` is the
rules' own ``State`` API (``legal_moves``, ``play``, ``playout``), which serves most
games as it is; a game whose turns are too large to list (Groups) gives the search
a domain of smaller steps instead.

Each node keeps its moves and per-move statistics in parallel lists, so expanding
a node is one ``moves()`` call and one shuffle (with the search's seeded rng, which
also breaks ties: the same seed gives the same tree).  Rewards are per seat in
[0, 1] (see :func:`rank_rewards`), so two- and three-player games share the code:
each seat maximises its own reward (max^n).

RAVE (all moves as first, Gelly & Silver 2007) shares a rollout's moves among the
siblings that could have played them first; it suits placement games where a
move is a cell (Hex, HexGo) and is off elsewhere.
"""

from __future__ import annotations

import math
import time
from collections.abc import Callable, Sequence
from random import Random
from typing import Any, Protocol

# RAVE's weight is sqrt(K / (3n + K)): equal to the node's own mean at about n = K / 3 visits.
RAVE_EQUIVALENCE = 600
EXPLORATION = 0.7  # UCB1 constant for rewards in [0, 1] without RAVE
RAVE_EXPLORATION = 0.2  # RAVE's estimates already spread the visits
ROLLOUT_PLIES = 10_000


def rank_rewards(scores: Sequence[float]) -> list[float]:
    """Per seat, the share of the other seats it beat (a tie counts half): 1 / 0 / 0.5
    in two-player games, and the game's points only through their order."""
    others = len(scores) - 1
    return [(sum(1.0 for t in scores if s > t) + 0.5 * (sum(1 for t in scores if t == s) - 1)) / others for s in scores]


class Domain(Protocol):
    """How the search sees a game.  ``Position`` is whatever the domain plays on."""

    players: int
    rave: bool

    def root(self, state: Any, rng: Random) -> Any: ...
    def moves(self, position: Any) -> list[str]: ...
    def play(self, position: Any, move: str) -> None: ...
    def to_move(self, position: Any) -> int: ...
    def clone(self, position: Any) -> Any: ...
    def rollout(self, position: Any, rng: Random) -> tuple[list[float], list[Played]]:
        """Play to the end; the rewards per seat and, for RAVE, who played what."""
        ...

    def final(self, position: Any, root: Node, rng: Random) -> str:
        """The move to send, from the searched tree at ``position``."""
        ...


Played = tuple[int, str]  # (seat, move): a rollout's moves, for RAVE


class RulesDomain:
    """The rules' ``State`` as it is: a move is a protocol token.  With RAVE the game
    must alternate seats move by move (Hex, HexGo), which is how the rollout's moves
    are credited."""

    def __init__(self, players: int, rave: bool = False) -> None:
        self.players = players
        self.rave = rave

    def root(self, state: Any, rng: Random) -> Any:
        return state

    def moves(self, position: Any) -> list[str]:
        return [] if position.is_terminal() else position.legal_moves()

    def play(self, position: Any, move: str) -> None:
        position.play(move)

    def to_move(self, position: Any) -> int:
        seat: int = position.current_player()
        return seat

    def clone(self, position: Any) -> Any:
        return position.clone()

    def rollout(self, position: Any, rng: Random) -> tuple[list[float], list[Played]]:
        start, seat = len(position.moves), position.current_player()
        if position.playout(rng, ROLLOUT_PLIES):
            rewards = self.rewards(position, rng)
        else:
            rewards = [0.5] * self.players  # not over after the cap: call it even
        if not self.rave:
            return rewards, []
        players = self.players
        return rewards, [((seat + k) % players, move) for k, move in enumerate(position.moves[start:])]

    def rewards(self, position: Any, rng: Random) -> list[float]:
        """Per seat, the reward of a finished game."""
        return rank_rewards(position.scores())

    def final(self, position: Any, root: Node, rng: Random) -> str:
        return root.moves[root.best_move()]


class Node:
    """A position in the tree: its moves and, per move, visits and reward totals."""

    __slots__ = (
        "player",
        "moves",
        "visits",
        "totals",
        "rave_visits",
        "rave_totals",
        "children",
        "index",
        "total_visits",
    )

    def __init__(self, player: int, moves: list[str], rave: bool) -> None:
        self.player = player  # seat to move here
        self.moves = moves
        k = len(moves)
        self.visits = [0] * k
        self.totals = [0.0] * k  # rewards of self.player after each move
        self.children: list[Node | None] = [None] * k
        self.total_visits = 0
        if rave:
            self.rave_visits = [0] * k
            self.rave_totals = [0.0] * k
            self.index = {m: i for i, m in enumerate(moves)}

    def select(self, rave: bool) -> int:
        """The move index with the best UCB (with RAVE: blended with its AMAF mean)."""
        visits, totals = self.visits, self.totals
        log_n = math.log(self.total_visits + 1)
        best, best_value = 0, -1.0
        if not rave:
            for i, n in enumerate(visits):
                if n == 0:
                    return i  # every move once first, in shuffled order
                value = totals[i] / n + EXPLORATION * math.sqrt(log_n / n)
                if value > best_value:
                    best, best_value = i, value
            return best
        rn_list, rt_list = self.rave_visits, self.rave_totals
        for i, n in enumerate(visits):
            rn = rn_list[i]
            if n:
                mean = totals[i] / n
                if rn:
                    beta = math.sqrt(RAVE_EQUIVALENCE / (3 * n + RAVE_EQUIVALENCE))
                    mean = (1 - beta) * mean + beta * rt_list[i] / rn
                value = mean + RAVE_EXPLORATION * math.sqrt(log_n / n)
            else:
                value = (rt_list[i] / rn if rn else 0.5) + RAVE_EXPLORATION * math.sqrt(log_n)
            if value > best_value:
                best, best_value = i, value
        return best

    def index_of(self, move: str) -> int | None:
        try:
            return self.moves.index(move)
        except ValueError:
            return None  # a move the domain built past the root (a Groups turn of several stones)

    def best_move(self) -> int:
        """The most visited move (ties: the better mean, then the first)."""
        return max(
            range(len(self.moves)),
            key=lambda i: (self.visits[i], self.totals[i] / self.visits[i] if self.visits[i] else 0),
        )


class SearchResult:
    """The move and what the search did for it: simulations run, the deepest tree path
    (plies from the root), the chosen move's mean reward for the mover (where a move is a
    turn of several steps, its first step's), time taken and
    whether the clock stopped it before its budget (``clock_stopped``)."""

    def __init__(
        self,
        move: str,
        iterations: int,
        seconds: float,
        depth: int = 0,
        score: float | None = None,
        clock_stopped: bool = False,
    ) -> None:
        self.move, self.iterations, self.seconds = move, iterations, seconds
        self.depth, self.score, self.clock_stopped = depth, score, clock_stopped

    def info(self) -> str:
        """The search keys of an ``info`` line (PROTOCOL.md section 4)."""
        text = f"depth {self.depth} nodes {self.iterations}"
        if self.score is not None:
            text += f" score {self.score:.3f}"
        return text + (" string stopped by the clock" if self.clock_stopped else "")


def search(
    domain: Domain, state: Any, rng: Random, iterations: int, out_of_time: Callable[[], bool] = lambda: False
) -> SearchResult:
    """Run up to ``iterations`` simulations from ``state`` (stopping early when
    ``out_of_time()`` says so) and return the most visited root move."""
    start = time.perf_counter()
    root_position = domain.root(state, rng)
    rave = domain.rave
    root = _expand(domain, root_position, rng)
    done = depth = 0
    stopped = False
    if len(root.moves) > 1:
        while done < iterations:
            if done and out_of_time():
                stopped = True
                break
            depth = max(depth, _simulate(domain, root, root_position, rng, rave))
            done += 1
    move = domain.final(root_position, root, rng)
    i = root.index_of(move)
    if i is None and root.total_visits:  # a turn of several steps (Groups): its most visited first step
        i = root.best_move()
    score = root.totals[i] / root.visits[i] if i is not None and root.visits[i] else None
    return SearchResult(move, done, time.perf_counter() - start, depth, score, stopped)


def _expand(domain: Domain, position: Any, rng: Random) -> Node:
    moves = domain.moves(position)
    rng.shuffle(moves)
    return Node(domain.to_move(position), moves, domain.rave)


def _simulate(domain: Domain, root: Node, root_position: Any, rng: Random, rave: bool) -> int:
    """One simulation: down the tree, a rollout, the rewards back up; the plies in the tree."""
    position = domain.clone(root_position)
    path: list[tuple[Node, int]] = []
    node: Node | None = root
    while node is not None and node.moves:
        i = node.select(rave)
        path.append((node, i))
        domain.play(position, node.moves[i])
        child = node.children[i]
        if child is None:
            if node.visits[i]:  # expand on the second visit: leaves stay cheap
                child = node.children[i] = _expand(domain, position, rng)
                if child.moves:
                    j = child.select(rave)
                    path.append((child, j))
                    domain.play(position, child.moves[j])
            break
        node = child
    rewards, played = domain.rollout(position, rng)
    _backup(path, rewards, played if rave else None)
    return len(path)


def _backup(path: list[tuple[Node, int]], rewards: list[float], played: list[Played] | None) -> None:
    for node, i in path:
        node.total_visits += 1
        node.visits[i] += 1
        node.totals[i] += rewards[node.player]
    if played is None:
        return
    # RAVE: a node's move counts as played if its seat played it at or after the node,
    # in the tree or in the rollout, before anyone else played it.
    sequence = [(node.player, node.moves[i]) for node, i in path] + played
    first: dict[str, tuple[int, int]] = {}  # move -> (step, seat) of its first play
    for step, (seat, move) in enumerate(sequence):
        first.setdefault(move, (step, seat))
    for depth, (node, _) in enumerate(path):
        reward, player = rewards[node.player], node.player
        index, rn, rt = node.index, node.rave_visits, node.rave_totals
        for move, (step, seat) in first.items():
            if seat == player and step >= depth:
                slot = index.get(move)
                if slot is not None:
                    rn[slot] += 1
                    rt[slot] += reward
