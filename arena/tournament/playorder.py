"""Which queued task an idle worker plays next, and which engines it keeps, when a worker keeps only a few.

A worker that keeps at most ``room`` resources (a game's engines and ``idle_engines`` more)
restarts an engine each time its next game needs one it quit.  Handed games in schedule order, a
worker in a round-robin of dozens of engines restarts nearly both engines of every game; so the
pool plans:

- :func:`plan_order` orders a stretch of the queue for *one* worker holding ``room`` engines:
  it plays every queued game of the engines it holds, then starts the engine that completes
  the most queued games with the ones it keeps, quitting the one with the fewest games left
  (ties: the engine with the fewest games left starts first, so engines are finished one after
  another and the rest of the field stays whole).  In a 32-engine round-robin with room for 6
  this starts about 113 engines where at least 103 are needed (each start brings at most 5 new
  partners), against 496 tables.
- :class:`Walks` hands that order out to the workers: two workers walk it from its two ends
  towards each other (more workers: the order is cut into stretches, each walked from both
  ends), so each plays a run of the plan as planned, and they meet once, wherever their speeds
  make them meet.  A worker keeps, beside its game's engines, those whose next game along its
  walk comes soonest (what it evicts is the pool's choice, Belady's rule on the plan), applied a
  game ahead: what the walk's next game would quit is not kept now, so the worker quits it
  while this game plays rather than while the next one waits for its room.

The tasks of one table (its seat orders, its rounds) are kept together in queue order, so
only which worker plays a game, and when, changes: never the game.
"""

from __future__ import annotations

import math
from collections.abc import Callable, Collection, Hashable, Sequence
from dataclasses import dataclass
from typing import Generic, TypeVar

Task = TypeVar("Task")
Table = frozenset[Hashable]


def plan_order(uses: Sequence[Collection[Hashable]], room: int) -> list[int]:
    """The positions of ``uses`` (what each queued task needs running) in the order one
    worker holding at most ``room`` resources plays them with few starts (the module's docstring)."""
    plan = _Planner(uses, room)
    while plan.remaining:
        plan.play_what_is_held()
        if plan.remaining:
            plan.load_next()
    return plan.order


class _Planner:
    """One worker's imagined run over a stretch of the queue: what it holds, what is left."""

    def __init__(self, uses: Sequence[Collection[Hashable]], room: int) -> None:
        self.room = room
        self.tasks: dict[Table, list[int]] = {}  # each table's tasks, in queue order
        self.rank: dict[Hashable, int] = {}  # resources in the order the queue first names them
        for position, used in enumerate(uses):
            self.tasks.setdefault(frozenset(used), []).append(position)
            for resource in used:
                self.rank.setdefault(resource, len(self.rank))
        self.remaining = set(self.tasks)
        self.left: dict[Hashable, set[Table]] = {resource: set() for resource in self.rank}  # tables not yet played
        for table in self.tasks:
            for resource in table:
                self.left[resource].add(table)
        self.held: list[Hashable] = []
        self.order: list[int] = []

    def play_what_is_held(self) -> None:
        held = set(self.held)
        ready = {table for resource in self.held for table in self.left[resource] if table <= held}
        for table in sorted(ready, key=lambda t: self.tasks[t][0]):
            self.order.extend(self.tasks[table])
            self.remaining.discard(table)
            for resource in table:
                self.left[resource].discard(table)

    def load_next(self) -> None:
        """Start the resource that completes the most tables with those kept (evicting the
        held one with the fewest tables left); where none completes one, start the first
        remaining table's whole set."""
        best: tuple[tuple[int, int, int], Hashable, Hashable | None] | None = None
        completing = self._completing()
        for new in sorted(completing, key=self.rank.__getitem__):
            for out in self.held if len(self.held) >= self.room else [None]:
                gain = sum(1 for table in completing[new] if out not in table)
                key = (-gain, len(self.left[new]), -1 if out is None else len(self.left[out]))
                if gain and (best is None or key < best[0]):
                    best = key, new, out
        if best is None:
            self._load_table(min(self.remaining, key=lambda t: self.tasks[t][0]))
            return
        _, new, out = best
        if out is not None:
            self.held.remove(out)
        self.held.append(new)

    def _completing(self) -> dict[Hashable, set[Table]]:
        """Each resource not held that would complete remaining tables with the held ones: those tables."""
        held = set(self.held)
        completing: dict[Hashable, set[Table]] = {}
        for resource in self.held:
            for table in self.left[resource]:
                missing = [r for r in table if r not in held]
                if len(missing) == 1:
                    completing.setdefault(missing[0], set()).add(table)
        return completing

    def _load_table(self, table: Table) -> None:
        new = sorted((r for r in table if r not in self.held), key=self.rank.__getitem__)
        spare = sorted((r for r in self.held if r not in table), key=lambda r: len(self.left[r]))
        while len(self.held) + len(new) > self.room and spare:
            self.held.remove(spare.pop(0))
        self.held.extend(new)


@dataclass
class _Walk:
    at: int  # the plan's position it last took (or starts from)
    step: int  # +1 or -1


class Walks(Generic[Task]):
    """A planned stretch of the queue and the workers walking it (the module's docstring).
    ``walker`` is any hashable naming a worker; a worker new to the plan takes a walk no one
    walks, so one that replaces a dead worker carries on its walk (its game first)."""

    def __init__(
        self, tasks: Sequence[Task], uses: Callable[[Task], Collection[Hashable]], room: int, walkers: int
    ) -> None:
        self.uses = uses
        self.room = room
        order = plan_order([uses(task) for task in tasks], room)
        self.plan: list[Task | None] = [tasks[i] for i in order]
        self.left = len(self.plan)
        self.walks: dict[Hashable, _Walk] = {}
        stretches = max(1, math.ceil(walkers / 2))
        bounds = [len(self.plan) * k // stretches for k in range(stretches + 1)]
        self.free = [
            walk
            for start, end in zip(bounds, bounds[1:])
            for walk in (_Walk(start - 1, 1), _Walk(end, -1))  # each just outside its end, facing in
        ]

    def __len__(self) -> int:
        return self.left

    def take(self, walker: Hashable, held: Collection[Hashable]) -> tuple[Task, list[Hashable]]:
        """The next task of ``walker``'s walk, and which of ``held`` it keeps beside the
        task's own (the room left, those needed soonest along its walk), less those the walk's
        next task would quit: told now, the worker quits them while this task plays."""
        walk = self.walks.get(walker) or self._join(walker)
        at = self._next(walk.at, walk.step)
        if at is None:  # its way is played: it turns (and may jump a stretch others play)
            walk.step = -walk.step
            # from where it stands: a walk that took nothing yet stands just past its stretch, on a task
            at = self._next(walk.at - walk.step, walk.step)
        assert at is not None, "take() from an empty plan"
        task = self.plan[at]
        assert task is not None  # _next finds only tasks not taken
        self.plan[at] = None
        self.left -= 1
        walk.at = at
        used = self.uses(task)
        keep = self._soonest(held, used, at, walk.step)
        ahead = self._next(at, walk.step)
        if ahead is not None:
            following = self.plan[ahead]
            assert following is not None  # _next finds only tasks not taken
            after = self.uses(following)
            kept_after = self._soonest([*keep, *used], after, ahead, walk.step)
            keep = [r for r in keep if r in kept_after or r in after]
        return task, keep

    def _soonest(self, held: Collection[Hashable], used: Collection[Hashable], at: int, step: int) -> list[Hashable]:
        """Which of ``held`` a worker keeps beside ``used`` at ``at``: the room left, those
        needed soonest along its walk."""
        others = [r for r in reversed(list(held)) if r not in used]  # the most recently used first: kept on a tie
        soon = sorted(others, key=lambda r: self._distance(r, at, step))
        return soon[: max(0, self.room - len(used))]

    def walking(self, walker: Hashable) -> bool:
        return walker in self.walks

    def put_back(self, walker: Hashable, task: Task) -> None:
        """A dead worker's task: back where its walk is, which the next new worker carries on."""
        walk = self.walks.pop(walker)
        self.plan[walk.at] = task
        self.left += 1
        walk.at -= walk.step  # so that the walk's next task is this one
        self.free.insert(0, walk)

    def leave(self, walker: Hashable) -> None:
        """A worker gone without a task: its walk is free for the next."""
        if walker in self.walks:
            self.free.insert(0, self.walks.pop(walker))

    def _join(self, walker: Hashable) -> _Walk:
        walk = self.free.pop(0) if self.free else _Walk(-1, 1)
        self.walks[walker] = walk
        return walk

    def _next(self, at: int, step: int) -> int | None:
        at += step
        while 0 <= at < len(self.plan):
            if self.plan[at] is not None:
                return at
            at += step
        return None

    def _distance(self, resource: Hashable, at: int, step: int) -> int:
        """How far along a walk the next task using ``resource`` is (past the end: never)."""
        ahead = at + step
        while 0 <= ahead < len(self.plan):
            task = self.plan[ahead]
            if task is not None and resource in self.uses(task):
                return abs(ahead - at)
            ahead += step
        return len(self.plan) + 1
