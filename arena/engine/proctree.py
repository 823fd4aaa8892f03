"""Keeping an engine's processes on a leash (Linux).

Three layers, because each one alone can be escaped:

* the engine runs in its own process group (``start_new_session``), and
  killing the group kills every child that stayed in it;
* every process gets environment tags that its descendants inherit: one
  unique per engine start (:data:`ENGINE_TAG`) and one per tournament run
  (:data:`RUN_TAG`), so a child that called ``setsid`` or was double-forked
  away is still found by :func:`kill_tagged`, even after it was re-parented to
  init, and a run can sweep up after an earlier run that was killed with -9;
* the engine gets ``PR_SET_PDEATHSIG = SIGKILL``, so it dies with the
  arena process that started it even when that process is killed with -9 and
  cleans up nothing.

Engines also get ``oom_score_adj = 1000``: when memory runs out, the kernel
kills an engine (its descendants inherit the score) rather than arena.

A fourth layer closes the gap the first two leave: a worker is a *child
subreaper* (``PR_SET_CHILD_SUBREAPER``), so a descendant of an engine whose
parent dies is re-parented to the worker rather than to init, even after it
left the process group and dropped the environment tag; the worker kills such
adopted processes (:func:`kill_adopted`) whenever it stops an engine.

What still escapes (documented in docs/reliability.md): where subreapers do not
exist, a descendant that replaces its environment with ``execve`` and also
leaves the process group; a process running as another user.
"""

from __future__ import annotations

import ctypes
import ctypes.util
import logging
import math
import os
import resource
import signal
import threading
import time
import uuid
from collections.abc import Callable, Collection, Sequence

log = logging.getLogger("arena.engine")

ENGINE_TAG = "ARENA_ENGINE_ID"
RUN_TAG = "ARENA_RUN_ID"
PR_SET_PDEATHSIG = 1
PR_SET_CHILD_SUBREAPER = 36
_SWEEP_ROUNDS = 10

_libc: ctypes.CDLL | None
try:
    _libc = ctypes.CDLL(ctypes.util.find_library("c") or None, use_errno=True)
except OSError:  # no libc: the other layers still apply
    _libc = None
_prctl: Callable[..., int] | None = getattr(_libc, "prctl", None)  # Linux only
_sched_getcpu: Callable[[], int] | None = getattr(_libc, "sched_getcpu", None)


def usable_cpus() -> list[int]:
    """The CPUs this process may run on (its affinity mask where the system has one)."""
    try:
        return sorted(os.sched_getaffinity(0))
    except (AttributeError, OSError):
        return list(range(os.cpu_count() or 1))


def can_pin() -> bool:
    """Whether processes can be pinned to CPUs here (``affinity = true``)."""
    return hasattr(os, "sched_setaffinity")


def new_tag() -> str:
    return uuid.uuid4().hex


def tagged_environment(engine_tag: str, run_tag: str | None = None) -> dict[str, str]:
    """This process's environment plus the tags an engine (and its children) will carry."""
    env = dict(os.environ)
    env[ENGINE_TAG] = engine_tag
    if run_tag:
        env[RUN_TAG] = run_tag
    return env


def set_parent_death_signal(sig: int) -> bool:
    """Ask the kernel to send ``sig`` to this process when its parent thread exits."""
    if _prctl is None:
        return False
    return _prctl(PR_SET_PDEATHSIG, int(sig), 0, 0, 0) == 0


_subreaper = False  # this process adopts its orphaned descendants (become_subreaper)


def become_subreaper() -> bool:
    """Make this process the one its orphaned descendants are re-parented to (Linux 3.4+),
    so an engine's grandchild that left the process group and dropped the environment
    tag is still ours to find (:func:`kill_adopted`)."""
    global _subreaper
    if _prctl is not None and _prctl(PR_SET_CHILD_SUBREAPER, 1, 0, 0, 0) == 0:
        _subreaper = True
    return _subreaper


def _process_entries() -> list[str]:
    """The /proc entries of every process (their pids as text); empty without /proc."""
    try:
        return [entry for entry in os.listdir("/proc") if entry.isdigit()]
    except OSError:
        return []


def children(parent: int) -> list[int]:
    """Processes (zombies included) whose parent is ``parent``."""
    return [
        int(entry)
        for entry in _process_entries()
        if (stat := _stat_fields(entry)) is not None and int(stat[1]) == parent
    ]


def kill_adopted(keep: set[int], quiet: bool = False) -> int:
    """In a subreaper: SIGKILL and reap every child of this process except ``keep`` (the
    engines it started itself), i.e. the descendants of engines that it adopted.  A
    no-op elsewhere, where this process's other children are not ours to kill.
    ``quiet``: log nothing (in a signal handler, the interrupted code may hold a lock of
    the logging machinery)."""
    if not _subreaper:
        return 0
    killed = 0
    for _ in range(_SWEEP_ROUNDS):
        strays = set(children(os.getpid())) - keep
        if not strays:
            break
        for pid in strays:
            try:
                os.kill(pid, signal.SIGKILL)
            except ProcessLookupError:
                continue
            killed += 1
        for pid in strays:
            _reap(pid)
    if killed and not quiet:
        log.warning("killed %d process(es) that an engine left behind outside its process group", killed)
    return killed


def _reap(pid: int, timeout: float = 0.5) -> None:
    """Collect a killed child's exit status (never waitpid(-1): that would steal the
    status of an engine subprocess.Popen is waiting for)."""
    deadline = time.monotonic() + timeout
    while True:
        try:
            done, _ = os.waitpid(pid, os.WNOHANG)
        except ChildProcessError:
            return
        if done or time.monotonic() >= deadline:
            return
        time.sleep(0.001)


def kill_tree(root: int) -> int:
    """SIGKILL ``root`` and all its descendants, found by their parent links (frozen with
    SIGSTOP first, so none forks while the tree is walked).  For a worker that hangs: a
    subreaper's tree holds every process its engines started, wherever they went."""
    doomed: list[int] = []
    frontier = [root]
    while frontier:
        pid = frontier.pop()
        try:
            os.kill(pid, signal.SIGSTOP)
        except ProcessLookupError:
            continue
        doomed.append(pid)
        frontier += [child for child in children(pid) if child not in doomed]
    for pid in doomed:
        try:
            os.kill(pid, signal.SIGKILL)
        except ProcessLookupError:
            pass
    return len(doomed)


def child_setup(
    memory_mb: int | None,
    cpu_seconds: int | None,
    cpus: Sequence[int] = (),
    enter: Callable[[], None] | None = None,
) -> Callable[[], None] | None:
    """The function run in the engine between fork and exec: resource limits, first in
    line for the OOM killer (an engine eating all memory dies, not arena), death with
    its parent, ``cpus`` (when given) as its CPUs rather than its parent's, and ``enter``
    (a sandbox's cgroups and file-size limit) before anything else.  Parent
    death is only tied to the main thread, since the kernel fires it when the *thread*
    that forked exits.

    None when none of that needs the child itself (no limit, CPUs or sandbox, and a thread
    other than the main one): the engine then starts with no Python code run between fork
    and exec, where it can wait forever on a lock another thread held at the fork (the
    subprocess documentation's warning, seen with a Dask worker's threads), and the
    starter puts it first for the OOM killer (:func:`oom_first`)."""
    parent = os.getpid()
    tie_to_parent = threading.current_thread() is threading.main_thread()
    if not (memory_mb or cpu_seconds or cpus or enter or tie_to_parent):
        return None

    def setup() -> None:
        if enter is not None:
            enter()
        if cpus:
            try:
                os.sched_setaffinity(0, cpus)
            except OSError:  # the machine took them away meanwhile: keep the worker's
                pass
        oom_first("self")
        if memory_mb:
            resource.setrlimit(resource.RLIMIT_AS, (memory_mb << 20, memory_mb << 20))
        if cpu_seconds:
            # The soft limit (SIGXCPU) is raised game by game (extend_cpu_limit), which an
            # unprivileged process may do only up to the hard limit: keep the inherited one.
            _, hard = resource.getrlimit(resource.RLIMIT_CPU)
            resource.setrlimit(resource.RLIMIT_CPU, (_within(hard, cpu_seconds), hard))
        if tie_to_parent and set_parent_death_signal(signal.SIGKILL) and os.getppid() != parent:
            os.kill(os.getpid(), signal.SIGKILL)  # the parent died before the signal was armed

    return setup


def oom_first(pid: int | str) -> None:
    """Make process ``pid`` ("self": the caller) the OOM killer's first choice, if it still
    runs.  os calls only: io's objects and codec lookup would be more Python code between
    fork and exec."""
    try:
        fd = os.open(f"/proc/{pid}/oom_score_adj", os.O_WRONLY)
        try:
            os.write(fd, b"1000")
        finally:
            os.close(fd)
    except OSError:
        pass


def current_cpu() -> int | None:
    """The CPU this thread runs on now (None where the system does not say)."""
    cpu = _sched_getcpu() if _sched_getcpu is not None else -1
    return cpu if cpu >= 0 else None


def set_thread_cpus(tid: int, cpus: Collection[int]) -> bool:
    """Move one thread (a process's main thread: its pid; 0: the calling thread) to
    ``cpus``; False if it is gone or not ours."""
    try:
        os.sched_setaffinity(tid, cpus)
    except OSError:
        return False
    return True


def set_tree_cpus(pid: int, cpus: Collection[int]) -> None:
    """Move every thread of a process and of its descendants to ``cpus`` (what they start
    later inherits it).  Descendants are found through each thread's ``children`` list in
    /proc, not by a scan of every process: a child that was re-parented is not found."""
    frontier, seen = [pid], set()
    while frontier:
        process = frontier.pop()
        if process in seen:
            continue
        seen.add(process)
        try:
            threads = os.listdir(f"/proc/{process}/task")
        except OSError:
            continue  # gone
        for tid in threads:
            set_thread_cpus(int(tid), cpus)
            try:
                with open(f"/proc/{process}/task/{tid}/children") as f:
                    frontier += map(int, f.read().split())
            except (OSError, ValueError):
                pass


def tagged_pids(tag: str, key: str = ENGINE_TAG) -> list[int]:
    """Live processes (zombies excluded) whose environment carries ``key=tag``."""
    needle = f"\0{key}={tag}\0".encode()
    found = []
    for entry in _process_entries():
        try:
            with open(f"/proc/{entry}/environ", "rb") as f:
                environ = b"\0" + f.read() + b"\0"
        except OSError:  # gone, or not ours to read
            continue
        if needle in environ and not _is_zombie(entry):
            found.append(int(entry))
    return found


def _is_zombie(pid: str) -> bool:
    stat = _stat_fields(pid)
    return stat is None or stat[0] in (b"Z", b"X")


def _stat_fields(pid: int | str) -> list[bytes] | None:
    """/proc/PID/stat after the command name (field 3, the state, first); None if gone."""
    try:
        with open(f"/proc/{pid}/stat", "rb") as f:
            stat = f.read()
    except OSError:
        return None
    return _after_command(stat)


def _after_command(stat: bytes) -> list[bytes]:
    """A /proc stat line's fields after the command name (which may hold spaces and parentheses)."""
    return stat[stat.rfind(b")") + 2 :].split()


def _cpu_seconds(fields: list[bytes]) -> float:
    """utime + stime of :func:`_after_command`'s fields, in seconds."""
    return (int(fields[11]) + int(fields[12])) / _CLOCK_TICKS


_CLOCK_TICKS = os.sysconf("SC_CLK_TCK") if hasattr(os, "sysconf") else 100


def cpu_time_used(pid: int) -> float | None:
    """CPU seconds (user + system, all threads) a process has used; None if it is gone."""
    stat = _stat_fields(pid)
    return None if stat is None else _cpu_seconds(stat)


class CpuClock:
    """The CPU seconds one process has used, read as often as each move: its /proc stat file
    is kept open and read again from its start (one pread), not opened, read and closed each
    time, which cost the worker about three times the CPU.  The open file stays the
    process's: once it is gone, a new process given its pid is never read instead."""

    def __init__(self, pid: int) -> None:
        try:
            self._fd: int | None = os.open(f"/proc/{pid}/stat", os.O_RDONLY | os.O_CLOEXEC)
        except OSError:
            self._fd = None  # gone already

    def seconds(self) -> float | None:
        """What it has used (user + system, all threads); None once it is gone."""
        if self._fd is None:
            return None
        try:
            stat = os.pread(self._fd, 4096, 0)
        except OSError:  # ESRCH: it exited and was reaped
            return None
        return _cpu_seconds(_after_command(stat)) if stat else None

    def close(self) -> None:
        if self._fd is not None:
            os.close(self._fd)
            self._fd = None


def extend_cpu_limit(pid: int, seconds: int) -> float | None:
    """Let a running process use ``seconds`` more CPU from now before SIGXCPU (its
    RLIMIT_CPU soft limit; the kernel counts whole seconds, so up to one more).  A
    finite hard limit inherited from arena's own environment (``ulimit -t``) caps it.
    Returns the end of the budget, in CPU seconds since the process started, or None
    if the process is gone or its limit cannot be changed."""
    used = cpu_time_used(pid)
    if used is None:
        return None
    end = used + seconds
    try:
        _, hard = resource.prlimit(pid, resource.RLIMIT_CPU)
        if hard != resource.RLIM_INFINITY and hard < end:
            _warn_once(
                f"the CPU-time hard limit arena inherited ({hard} s, ulimit -t) caps cpu_seconds: "
                "engines die at it, counted over their whole life"
            )
            end = float(hard)
        resource.prlimit(pid, resource.RLIMIT_CPU, (_within(hard, math.ceil(end)), hard))
    except (OSError, ValueError) as exc:  # gone, not ours, or no prlimit here
        log.debug("cannot extend the CPU limit of %d: %s", pid, exc)
        return None
    return end


def _within(hard: int, value: int) -> int:
    """``value``, or the hard limit where that is finite and lower."""
    return value if hard == resource.RLIM_INFINITY else min(value, hard)


_warned: set[str] = set()


def _warn_once(message: str) -> None:
    if message not in _warned:
        _warned.add(message)
        log.warning("%s", message)


def kill_tagged(tag: str, key: str = ENGINE_TAG, quiet: bool = False) -> int:
    """SIGKILL every process carrying ``tag``, repeating while new ones appear (a
    child may fork between the scan and the kill).  Returns how many were killed.
    ``quiet`` as for :func:`kill_adopted`."""
    killed: set[int] = set()
    for _ in range(_SWEEP_ROUNDS):
        pids = set(tagged_pids(tag, key)) - {os.getpid()}
        if not pids:
            break
        for pid in pids - killed:
            try:
                os.kill(pid, signal.SIGKILL)
            except (ProcessLookupError, PermissionError):
                pass
            killed.add(pid)
        if pids <= killed:
            time.sleep(0.005)  # killed, not yet dead: give the kernel a moment
    if killed and not quiet:
        log.warning("killed %d stray engine process(es) that had left the process group", len(killed))
    return len(killed)
