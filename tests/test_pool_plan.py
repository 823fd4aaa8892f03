"""The plan of who plays which queued game when a worker keeps only a few engines (playorder.py),
on a model of the workers (starts counted exactly) and through the real worker pool."""

from __future__ import annotations

import heapq
import itertools
import os
import random
import signal
import time
from collections.abc import Callable, Hashable, Sequence
from pathlib import Path

import pytest

from arena.tournament import pool as pool_module
from arena.tournament.playorder import Walks, plan_order
from arena.tournament.pool import WorkerPool, planned_keep


def _round_robin(engines: int, rounds: int = 1, players: int = 2) -> list[tuple[int, ...]]:
    """Every table in every seat order, round by round, as the schedule numbers them."""
    tables = list(itertools.combinations(range(engines), players))
    return [seats for _ in range(rounds) for table in tables for seats in itertools.permutations(table)]


def _model_starts(games: Sequence[tuple[int, ...]], workers: int, spare: int, seed: int = 1) -> int:
    """Engine starts of ``workers`` modelled workers handed ``games`` by Walks: a game takes one
    unit and a start six more (so the workers drift apart as real ones do); each worker runs
    exactly its game's engines and those it was told to keep, and the bound is checked."""
    rng = random.Random(seed)
    players = max(len(game) for game in games)
    walks = Walks(list(games), lambda game: game, spare + players, workers)
    held: dict[int, list[Hashable]] = {w: [] for w in range(workers)}
    clock = [(0.0, w) for w in range(workers)]
    starts = 0
    while len(walks):
        now, w = heapq.heappop(clock)
        game, keep = walks.take(w, held[w])
        assert len(keep) <= spare and set(keep) <= set(held[w]) and not set(keep) & set(game)
        new = [engine for engine in game if engine not in held[w]]
        starts += len(new)
        held[w] = [*keep, *game]
        heapq.heappush(clock, (now + 1 + 0.3 * rng.random() + 6 * len(new), w))
    return starts


def test_the_plan_is_every_game_once_each_table_together_in_schedule_order():
    games = _round_robin(9, rounds=2)
    order = plan_order(games, room=4)
    assert sorted(order) == list(range(len(games)))
    by_table: dict[frozenset[int], list[int]] = {}
    for position in order:
        by_table.setdefault(frozenset(games[position]), []).append(position)
    for positions in by_table.values():
        assert positions == sorted(positions)  # a pair's two seat orders (and its rounds) in schedule order
        first = order.index(positions[0])
        assert order[first : first + len(positions)] == positions  # and one after another


def test_one_worker_with_no_spare_engine_plays_the_games_of_what_it_holds_first():
    """spare = 0 (room 2): after a and b, their other games, then the game of a with e (a is kept, b goes)."""
    games = [("a", "b"), ("c", "d"), ("e", "a"), ("a", "b"), ("b", "a")]
    assert plan_order(games, room=2) == [0, 3, 4, 2, 1]


@pytest.mark.parametrize(
    ("engines", "workers", "most"),
    [
        (6, 2, 12),  # a field that fits in a worker: each engine starts once a worker
        (16, 2, 38),  # 48 with every engine kept (the model counts no start-up check); 46 handed by affinity alone
        (32, 2, 120),  # 157 handed by affinity alone; at least 106: a start brings at most 5 new partners
        (32, 1, 114),
        (32, 4, 142),
    ],
)
def test_a_round_robin_restarts_few_engines_under_the_bound(engines, workers, most):
    starts = _model_starts(_round_robin(engines), workers, spare=4)
    least = -(-(len(_round_robin(engines)) // 2 + 15 * workers) // 5)  # 5 partners a start, 0+1+2+3+4 at first
    assert max(least, engines) <= starts <= most


def test_three_player_tables_and_several_rounds_are_planned_too():
    """(Handed out by affinity alone, the same models start 43 and 43.)"""
    assert _model_starts(_round_robin(10, players=3), workers=2, spare=2) <= 38
    assert _model_starts(_round_robin(16, rounds=3), workers=2, spare=4) <= 38


def test_what_the_next_game_quits_is_let_go_a_game_early():
    """A worker is told to keep nothing its walk's next game would quit (Belady's rule applied a
    game ahead), so it quits that engine while the game before plays, not while the next waits
    to start one; no engine let go early would have been kept a game later, and the starts are
    the plan's as before (the model's 113)."""
    walks = Walks(_round_robin(32), lambda game: game, room=6, walkers=1)
    held: list[Hashable] = []
    early: set[Hashable] = set()
    starts = lets_go = 0
    while len(walks):
        game, keep = walks.take("w", held)
        assert not early & {*keep, *game}, "let go a game early, then kept or played"
        walk = walks.walks["w"]
        belady = walks._soonest(held, game, walk.at, walk.step)  # what this game alone would keep
        assert set(keep) <= set(belady)
        early = set(belady) - set(keep)
        lets_go += len(early)
        starts += sum(1 for engine in game if engine not in held)
        held = [*keep, *game]
    assert lets_go >= 50 and starts <= 114


def test_a_dead_workers_game_is_the_next_one_of_whoever_carries_on_its_walk():
    walks = Walks(_round_robin(8), lambda game: game, room=6, walkers=2)
    first, _ = walks.take("w1", [])
    second, _ = walks.take("w1", first)
    left = len(walks)
    walks.put_back("w1", second)
    assert len(walks) == left + 1 and not walks.walking("w1")
    assert walks.take("w2", [])[0] == second  # w2 is new: it takes the free walk, the dead one's
    assert walks.take("w3", [])[0] != second


def _played_with_keep(task: tuple[str, ...]) -> tuple[tuple[str, ...], tuple[Hashable, ...] | None, int]:
    marker = Path(os.environ["POOL_PLAN_DIE_ONCE"])
    if task == ("c", "d") and not marker.exists():
        marker.touch()
        os._exit(9)  # dies in the middle of this task, once
    return task, planned_keep(), os.getpid()


@pytest.mark.timeout(60)
def test_the_pool_hands_out_every_task_once_tells_what_to_keep_and_replays_a_dead_workers(tmp_path, monkeypatch):
    """The real pool, 2 worker processes, spare = 1: every task comes back once (the one whose
    worker died, played again), and each worker is told to keep at most one engine beside its
    task's, one it ran for its previous task."""
    monkeypatch.setenv("POOL_PLAN_DIE_ONCE", str(tmp_path / "died"))
    games = [tuple(g) for g in itertools.permutations("abcdef", 2)]
    pool = WorkerPool(2, _played_with_keep, lambda: None, uses=lambda game: game, spare=1)
    try:
        results = list(pool.imap_unordered(games))
    finally:
        pool.close()
    assert (tmp_path / "died").exists()
    assert sorted(task for task, _, _ in results) == sorted(games)
    runs: dict[int, list[tuple[tuple[str, ...], tuple[Hashable, ...] | None]]] = {}
    for task, keep, pid in results:
        runs.setdefault(pid, []).append((task, keep))
    for played in runs.values():
        held: set[Hashable] = set()
        for task, keep in played:
            assert keep is not None and len(keep) <= 1 and set(keep) <= held - set(task)
            held = {*keep, *task}


def test_outside_a_pool_nothing_is_planned():
    assert pool_module.planned_keep() is None


def test_a_worker_serves_its_tasks_in_order_with_what_to_keep_and_may_ask_until_told_to_stop(monkeypatch):
    """_serve as a worker process runs it, here in this process over a real pipe: Ctrl-C is
    ignored and the initializer runs before the signals blocked at the fork are let through;
    each task's result goes back in turn, an assigned task's keep is planned_keep() while it
    plays, a question mid-task waits for the coordinator's answer; None ends it."""
    import multiprocessing
    import signal

    monkeypatch.setattr(pool_module, "_coordinator", None)
    monkeypatch.setattr(pool_module, "_keep", None)
    ours, theirs = multiprocessing.Pipe()
    startup = {signal.SIGINT, signal.SIGTERM}
    sigint = signal.getsignal(signal.SIGINT)
    blocked = signal.pthread_sigmask(signal.SIG_BLOCK, startup)  # as _spawn starts a worker
    seen: dict[str, object] = {}

    def initializer(*args: object) -> None:
        seen["initargs"] = args
        seen["sigint"] = signal.getsignal(signal.SIGINT)
        seen["blocked"] = startup <= signal.pthread_sigmask(signal.SIG_BLOCK, [])

    def play(task: str) -> tuple[str, tuple[Hashable, ...] | None, object]:
        answer = pool_module.ask_coordinator(f"may {task} start?", default="not asked") if task == "ab" else None
        return task, planned_keep(), answer

    for message in (pool_module._Assigned("ab", ("c",)), "yes", pool_module._Assigned("cd", ()), "ef", None, "never"):
        ours.send(message)
    try:
        pool_module._serve(theirs, initializer, (1, "two"), play)
        unblocked = not startup & signal.pthread_sigmask(signal.SIG_BLOCK, [])
    finally:
        signal.pthread_sigmask(signal.SIG_SETMASK, blocked)
        signal.signal(signal.SIGINT, sigint)
    assert seen == {"initargs": (1, "two"), "sigint": signal.SIG_IGN, "blocked": True}
    assert unblocked
    replies = []
    while ours.poll():
        replies.append(ours.recv())
    assert replies == [
        pool_module._Question("may ab start?"),
        ("ab", ("c",), "yes"),
        ("cd", (), None),
        ("ef", (), None),  # a plain task keeps the last plan
    ]
    theirs.send("after the stop")  # the pipe is still open: _serve left at None, not at a closed pipe
    assert ours.recv() == "after the stop"


def test_a_worker_gone_between_tasks_leaves_its_walk_to_the_next_new_worker():
    walks = Walks(_round_robin(4), lambda game: game, room=6, walkers=2)
    plan = list(walks.plan)  # walked from the front by one worker, from the back by the other
    assert walks.take("w1", [])[0] == plan[0]
    walks.leave("w1")
    walks.leave("never came")  # walks nothing: nothing to free
    assert not walks.walking("w1") and len(walks) == len(plan) - 1
    assert walks.take("w2", [])[0] == plan[1]  # w2 carries on w1's walk, before the walk no one took yet
    assert walks.take("w3", [])[0] == plan[-1]
    assert walks.take("w4", [])[0] == plan[2]  # no walk left free: a new worker walks from the front


def test_a_new_worker_whose_stretch_was_played_turns_and_takes_the_game_just_past_its_end():
    """Three workers on a plan of two games (a run's last stretch): two stretches of one game,
    each walked from both ends.  The second worker walks the first stretch from its far end,
    starting just past it; that stretch played, it turns, and the game where it started is
    the one left, not an empty plan."""
    walks = Walks([("a", "b"), ("b", "a")], lambda game: game, room=2, walkers=3)
    assert walks.take("w1", [])[0] == ("a", "b")
    assert walks.take("w2", [])[0] == ("b", "a")
    assert len(walks) == 0


def test_on_a_tie_the_engine_the_queue_names_first_starts_whatever_the_names():
    """After z and j, starting v (for its game with j) or a (with z) completes one game each,
    and each quits an engine with one game left: v, named first, starts; the names' order is
    not the queue's."""
    assert plan_order([("z", "j"), ("v", "j"), ("z", "a")], room=2) == [0, 1, 2]
    assert plan_order([("a", "j"), ("v", "j"), ("a", "z")], room=2) == [0, 1, 2]


def test_of_two_starts_completing_as_many_games_the_one_quitting_the_engine_with_fewer_games_left_goes_first():
    """Holding l, a and q (room 3): starting p for a-p-q quits l, which has two games left;
    starting n for l-q-n quits a, which has one: n starts, and a-p-q is played last."""
    games = [("l", "a", "q"), ("a", "p", "q"), ("l", "q", "n"), ("l", "p", "n")]
    assert plan_order(games, room=3) == [0, 2, 3, 1]


def test_of_two_engines_to_quit_with_as_many_games_left_the_one_the_queue_named_first_goes():
    """Holding n and m, z completes n-z quitting m or m-z quitting n, each with one game
    left: n, named first, goes, so m-z is played before n-z; the names' order is not the queue's."""
    assert plan_order([("n", "m"), ("n", "z"), ("m", "z")], room=2) == [0, 2, 1]
    assert plan_order([("a", "m"), ("a", "z"), ("m", "z")], room=2) == [0, 2, 1]


def test_a_worker_starting_a_whole_game_quits_the_engines_it_holds_beyond_its_room():
    """Room 2: e-r, then z (for z-r, quitting e); r and z have no game left, so o-s starts
    whole and both go; then e (for s-e, quitting o, named first of the two with one game left),
    and o again for o-e, in both its seat orders."""
    games = [("e", "r"), ("o", "s"), ("o", "e"), ("e", "o"), ("z", "r"), ("s", "e")]
    assert plan_order(games, room=2) == [0, 4, 1, 5, 2, 3]


def test_three_workers_walk_two_stretches_from_both_ends_and_a_fourth_the_last_end():
    walks = Walks(_round_robin(4), lambda game: game, room=6, walkers=3)
    plan = list(walks.plan)
    # the first stretch from its front and back, the second from its front, then its back
    assert [walks.take(w, [])[0] for w in ("w1", "w2", "w3", "w4")] == [plan[0], plan[5], plan[6], plan[11]]


def test_a_worker_with_no_walk_left_free_walks_from_the_front():
    walks = Walks(_round_robin(4), lambda game: game, room=6, walkers=1)
    plan = list(walks.plan)
    assert [walks.take(w, [])[0] for w in ("w1", "w2", "w3")] == [plan[0], plan[-1], plan[1]]


def test_with_no_room_beside_its_games_engines_a_worker_is_told_to_keep_none():
    walks = Walks([("k", "g"), ("i", "g")], lambda game: game, room=2, walkers=1)
    assert walks.take("w", []) == (("k", "g"), [])
    assert walks.take("w", ["k", "g"]) == (("i", "g"), [])


def test_a_worker_keeps_an_engine_needed_at_the_plans_far_end_rather_than_one_never_needed():
    """Room 3 for games of two: one engine kept beside a game's.  Of x (needed by the last
    game) and y (by none), x is kept, however far its game."""
    games = [("a", "b"), ("a", "c"), ("a", "x")]
    walks = Walks(games, lambda game: game, room=3, walkers=1)
    assert walks.plan == games
    assert walks.take("w", ["x", "y"]) == (("a", "b"), ["x"])


def test_a_worker_walking_back_keeps_the_engine_of_the_game_put_back_at_the_plans_front():
    """w1 takes the first game and dies; its game is put back at the plan's front, where w2,
    walking back from the end, comes next: of b (needed there) and y (by no game), b is kept."""
    games = [("a", "b"), ("a", "c"), ("a", "x")]
    walks = Walks(games, lambda game: game, room=3, walkers=1)
    assert walks.take("w1", [])[0] == ("a", "b")
    assert walks.take("w2", [])[0] == ("a", "x")
    walks.put_back("w1", ("a", "b"))
    assert walks.take("w2", ["b", "y"]) == (("a", "c"), ["b"])


def test_a_worker_starting_a_whole_game_quits_first_the_engines_it_holds_with_fewest_games_left():
    """Room 4, after h-b-k: no game lacks only one engine, so m-y-g starts whole and two of
    h, b and k go: k (no game left) first, then h (one left, as b, but held before it); b
    stays, so m-b-g is played next, and h-m-y last."""
    games = [("h", "b", "k"), ("m", "y", "g"), ("m", "b", "g"), ("h", "m", "y")]
    assert plan_order(games, room=4) == [0, 1, 2, 3]


def test_a_worker_starting_a_whole_game_keeps_what_it_holds_while_it_has_room():
    """Room 5: after r-s-v, s-j-t starts whole beside r, s and v (five in all, exactly the
    room): r stays, so r-j-d is played with the next start (d) before s-d-t."""
    assert plan_order([("r", "s", "v"), ("s", "j", "t"), ("r", "j", "d"), ("s", "d", "t")], room=5) == [0, 1, 2, 3]
    # and after j-g-n, x-s-j starts beside g and n: both stay, and x-s-g comes before x-s-n
    assert plan_order([("j", "g", "n"), ("x", "s", "j"), ("x", "s", "g"), ("x", "s", "n")], room=5) == [0, 1, 2, 3]


def _played_dying_once_after_cancel(task: tuple[str, ...]) -> tuple[str, ...]:
    folder = Path(os.environ["POOL_PLAN_CANCEL"])
    if task == ("c", "d") and not (folder / "died").exists():
        deadline = time.monotonic() + 10
        while not (folder / "cancelled").exists() and time.monotonic() < deadline:
            time.sleep(0.002)
        (folder / "died").touch()
        os._exit(9)  # dies once, after the queue was cancelled
    return task


@pytest.mark.timeout(60)
def test_a_task_whose_worker_dies_after_the_queue_was_cancelled_is_played_again(tmp_path, monkeypatch):
    """An SPRT decided (cancel_queued): the tasks already handed out still finish, one whose
    worker died among them, replayed by another although nothing more is planned."""
    monkeypatch.setenv("POOL_PLAN_CANCEL", str(tmp_path))
    pool = WorkerPool(2, _played_dying_once_after_cancel, lambda: None, uses=lambda game: game, spare=1)
    results = []
    try:
        for result in pool.imap_unordered([("a", "b"), ("c", "d")]):
            results.append(result)
            pool.cancel_queued()
            (tmp_path / "cancelled").touch()
    finally:
        pool.close()
    assert (tmp_path / "died").exists() and sorted(results) == [("a", "b"), ("c", "d")]


def _picks(pool: WorkerPool, games: list[tuple[str, ...]], workers: Sequence[int]) -> list[tuple[int, object, object]]:
    """The pool's _pick for each worker named in turn (objects standing for their pipes):
    which worker, its game, what it is told to keep."""
    conns = {number: object() for number in set(workers)}
    pool.queue.extend((game, 0) for game in games)
    picked = []
    for number in workers:
        entry, message = pool._pick(conns[number])
        picked.append((number, entry[0], message.keep))
    return picked


def test_one_worker_with_one_spare_keeps_the_engine_its_next_games_need_beside_its_game():
    """a-b, then a-c keeping b (b-c needs it), then b-c keeping a: it has room for one
    engine beside the two it plays with, and holds a."""
    pool = WorkerPool(1, abs, lambda: None, uses=lambda game: game, spare=1)
    assert _picks(pool, [("a", "b"), ("a", "c"), ("b", "c")], [0, 0, 0]) == [
        (0, ("a", "b"), ()),
        (0, ("a", "c"), ("b",)),
        (0, ("b", "c"), ("a",)),
    ]


def test_two_workers_take_the_plan_from_its_two_ends():
    pool = WorkerPool(2, abs, lambda: None, uses=lambda game: game, spare=1)
    games = [("a", "b"), ("c", "d"), ("e", "f"), ("g", "h")]
    picked = _picks(pool, games, [0, 1, 0, 1])
    assert [(worker, game) for worker, game, _ in picked] == [
        (0, ("a", "b")),
        (1, ("g", "h")),
        (0, ("c", "d")),
        (1, ("e", "f")),
    ]


def _game_played(game: tuple[str, ...]) -> tuple[str, ...]:
    return game


@pytest.mark.timeout(60)
def test_tasks_beyond_the_first_planned_stretch_are_all_handed_out(monkeypatch):
    """Planned two at a time: three games on two workers, the third planned after the first
    stretch is taken, every one played."""
    monkeypatch.setattr(pool_module, "LOOKAHEAD", 2)
    pool = WorkerPool(2, _game_played, lambda: None, uses=lambda game: game, spare=1)
    games = [("a", "b"), ("c", "d"), ("e", "f")]
    try:
        assert sorted(pool.imap_unordered(games)) == games
    finally:
        pool.close()


def _answers_two_then_dies(task: int) -> int:
    """Task 2 reports a step, sends its answer and dies at once (killed just after
    answering): the coordinator finds the report, the answer and the death together."""
    if task == 2:
        pool_module.report_progress(1.0)
        assert pool_module._coordinator is not None
        pool_module._coordinator.send(task)
        os._exit(9)
    return task


def _played_with_a_slow_caller(work: Callable[[int], int]) -> list[object]:
    """Tasks 1 and 2 on one worker, with no retry, the caller taking 0.2 s to store the first
    result (while the worker goes on)."""
    pool = WorkerPool(1, work, lambda: None, retries=0)
    results: list[object] = []
    try:
        for result in pool.imap_unordered([1, 2]):
            results.append(result)
            if len(results) == 1:
                time.sleep(0.2)  # the caller storing a result
    finally:
        pool.close()
    return results


@pytest.mark.timeout(60)
def test_an_answer_sent_just_before_its_worker_died_is_taken_and_not_played_again(caplog):
    """While the caller stores task 1's result, the worker plays task 2, reports, answers and
    dies; its answer is yielded, not lost nor played again."""
    assert _played_with_a_slow_caller(_answers_two_then_dies) == [1, 2]


def _always_dies(task: int) -> int:
    os._exit(9)


@pytest.mark.timeout(60)
def test_by_default_a_task_is_given_up_when_its_worker_dies_a_second_time():
    pool = WorkerPool(1, _always_dies, lambda: None)
    try:
        results = list(pool.imap_unordered([7]))
    finally:
        pool.close()
    assert results == [pool_module.Lost(7, "its worker process died 2 times (last exit code 9)")]


def test_workers_are_daemons_so_they_do_not_outlive_the_coordinator():
    pool = WorkerPool(1, abs, lambda: None)
    conn = pool._spawn()
    try:
        assert pool.workers[conn].daemon is True
    finally:
        pool.close()


def test_a_pool_cancelled_before_it_ran_anything_has_nothing_to_hand_out():
    pool = WorkerPool(1, abs, lambda: None)
    pool.cancel_queued()
    assert pool._pending() == 0


def test_closing_lets_every_worker_quit_of_itself():
    pool = WorkerPool(2, abs, lambda: None)
    pool._spawn(), pool._spawn()
    procs = list(pool.workers.values())
    pool.close()
    assert [proc.exitcode for proc in procs] == [0, 0]


def _ignore_sigterm() -> None:
    signal.signal(signal.SIGTERM, signal.SIG_IGN)


@pytest.mark.timeout(60)
def test_workers_that_ignore_sigterm_are_killed_after_one_grace_for_all(monkeypatch):
    monkeypatch.setattr(pool_module, "TERMINATE_GRACE", 0.1)
    pool = WorkerPool(2, abs, _ignore_sigterm)
    pool._spawn(), pool._spawn()
    procs = list(pool.workers.values())
    start = time.monotonic()
    pool.terminate()
    # One grace of 0.1 s for both, then SIGKILL: well under the 2 s of a second each.
    assert time.monotonic() - start < 1.5
    assert [proc.exitcode for proc in procs] == [-signal.SIGKILL, -signal.SIGKILL]


def _reports_twice_answers_two_then_dies(task: int) -> int:
    """Task 2 reports a long step and then a short one, sends its answer and dies at once."""
    if task == 2:
        pool_module.report_progress(10.0)
        pool_module.report_progress(0.1)  # covered too loosely by the first: sent too
        assert pool_module._coordinator is not None
        pool_module._coordinator.send(task)
        os._exit(9)
    return task


@pytest.mark.timeout(60)
def test_a_dead_workers_reports_left_unread_are_not_taken_for_its_answer():
    """The coordinator reads one message of the worker before it sees it dead: the second
    report is still in the pipe before the answer, and is passed over, not yielded."""
    assert _played_with_a_slow_caller(_reports_twice_answers_two_then_dies) == [1, 2]
