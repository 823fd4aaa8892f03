"""An untrusted engine's sandbox: bubblewrap (``bwrap``) namespaces and cgroup limits.

An engine entry's ``sandbox = true`` runs its command inside ``bwrap`` with every namespace
of its own (no network, its own PIDs, its own user), a file system that holds only the
system's programs and libraries, what its command needs (arena's interpreter for
``{python}``), its own folder read-only, and a private scratch folder and /tmp; the results
folder, the other engines' folders and programs and the home folder are masked even where
they lie inside what it may read.  Its memory and its processes are held by cgroups (the
kernel counts every process of the engine together, and says which limit stopped it); a
file past the scratch size ends it with SIGXFSZ.  docs/sandbox.md says what it protects
against and what it does not.

:func:`bwrap_argv` is the pure part (a command, its folder, its environment and limits in;
the bwrap command line out); :func:`confine` is the one call the transport makes to start
an engine, sandboxed or not; :func:`sandbox_problem` is the probe that refuses a run whose
sandbox cannot be made, before its first game.
"""

from __future__ import annotations

import functools
import os
import resource
import shutil
import signal
import subprocess
import sys
import time
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass, replace
from pathlib import Path

from ..record import Termination
from . import proctree
from .player import EngineFault, EngineSpec, Sandbox

DEFAULT_MEMORY_MB = 1024  # when the entry gives no memory_mb
ENGINE_WAIT_S = 2.0  # how long a launch waits for bwrap to start the engine itself
SCRATCH = "/scratch"  # the engine's writable folder inside the sandbox, and its HOME
INSTALL_HINT = "install bubblewrap (Debian/Ubuntu: apt-get install bubblewrap; Fedora: dnf install bubblewrap)"
# What the system's programs need from /etc; the rest of it (keys, the host's accounts'
# secrets, its network set-up) stays out.
ETC_KEPT = (
    "ld.so.cache",
    "ld.so.conf",
    "ld.so.conf.d",
    "alternatives",
    "localtime",
    "nsswitch.conf",
    "passwd",
    "group",
)
SYSTEM_DIRS = ("/usr", "/bin", "/sbin", "/lib", "/lib32", "/lib64", "/libx32")
PASSED_ENV = ("PATH", "LANG")  # what an engine needs to run, beside the variables listed for it
CGROUP_ROOT = "/sys/fs/cgroup"


def interpreter_paths() -> list[str]:
    """What arena's own interpreter needs to run an engine (``{python}``): its prefixes,
    its libraries, and the protocol SDK bundled engines import with the rules it uses
    (arena's own packages, wherever an editable install left them)."""
    arena_package = Path(__file__).resolve().parents[1]
    paths = [sys.prefix, sys.base_prefix, sys.exec_prefix, os.path.dirname(os.path.realpath(sys.executable))]
    # sys.path's libraries, not its first entry (the folder arena was started from)
    paths += [p for p in sys.path if os.path.isdir(p) and any(_inside(os.path.abspath(p), q) for q in paths)]
    paths += [str(arena_package), str(arena_package.parent / "protocol")]
    return list(dict.fromkeys(os.path.abspath(p) for p in paths))


def own_paths(spec: EngineSpec) -> list[str]:
    """The paths an engine's command names (its program, its script) and its folder: what
    it may read, and what the other engines may not."""
    paths = [os.path.abspath(spec.cwd)] if spec.cwd else []
    for word in spec.command:
        if os.path.isabs(word) and os.path.exists(word):
            paths.append(word)
        elif spec.cwd and not word.startswith("-") and os.path.exists(os.path.join(spec.cwd, word)):
            paths.append(os.path.abspath(os.path.join(spec.cwd, word)))
    return list(dict.fromkeys(paths))


def with_others_hidden(specs: Sequence[EngineSpec]) -> list[EngineSpec]:
    """Each sandboxed engine of a tournament with the other engines' folders and programs
    hidden from it, except those it shares (two engines in one folder, one interpreter)."""
    owned = [own_paths(spec) for spec in specs]
    result = []
    for k, spec in enumerate(specs):
        if spec.sandbox is None:
            result.append(spec)
            continue
        others = {p for j, paths in enumerate(owned) if j != k for p in paths}
        hidden = [p for p in sorted(others) if not any(_inside(mine, p) for mine in owned[k])]
        result.append(replace(spec, sandbox=spec.sandbox.hiding(hidden)))
    return result


def with_results_hidden(specs: Sequence[EngineSpec], folder: str | Path) -> list[EngineSpec]:
    """The sandboxed engines with a results folder hidden too."""
    path = os.path.abspath(folder)
    return [replace(s, sandbox=s.sandbox.hiding([path])) if s.sandbox is not None else s for s in specs]


def _inside(path: str, folder: str) -> bool:
    """Whether ``path`` is ``folder`` or lies inside it."""
    return path == folder or path.startswith(folder.rstrip("/") + "/")


def _shown_by(path: str, binds: Sequence[str], home: str) -> bool:
    """Whether another of ``binds`` already shows ``path`` (with no masked home between)."""
    return any(
        other != path and _inside(path, other) and not (home and _inside(home, other) and _inside(path, home))
        for other in binds
    )


def bwrap_argv(
    command: Sequence[str],
    cwd: str,
    env: Mapping[str, str],
    sandbox: Sandbox,
    readable: Sequence[str] = (),
    home: str = "",
) -> list[str]:
    """The bwrap command line that runs ``command`` in ``cwd`` with exactly ``env``: the
    system read-only, ``readable`` (the command's own files, its interpreter's) and ``cwd``
    read-only, ``home`` and ``sandbox.hidden`` masked, a private /tmp and scratch folder of
    ``sandbox.scratch_mb`` each, every namespace unshared."""
    argv = ["bwrap", "--unshare-all", "--die-with-parent", "--new-session", "--clearenv"]
    for name, value in env.items():
        argv += ["--setenv", name, value]
    for directory in SYSTEM_DIRS:
        if os.path.islink(directory):
            argv += ["--symlink", os.readlink(directory), directory]
    # Mounts land on what is mounted before them: parents first, so a folder inside a masked
    # home (an interpreter under ~/.pyenv, an engine under ~/bots) shows through the mask.
    mounts = [(d, "--ro-bind") for d in SYSTEM_DIRS if os.path.isdir(d) and not os.path.islink(d)]
    mounts += [(f"/etc/{name}", "--ro-bind") for name in ETC_KEPT if os.path.exists(f"/etc/{name}")]
    binds = [p for p in dict.fromkeys([*readable, cwd]) if os.path.exists(p)]
    home = home if home and os.path.isdir(home) else ""
    mounts += [(p, "--ro-bind") for p in binds if not _shown_by(p, binds, home)]
    if home:
        mounts.append((home, "--tmpfs"))
    mounts.append(("/tmp", "--tmpfs"))  # private; an engine folder under the host's /tmp shows through
    size = str((sandbox.scratch_mb + 1) << 20)  # one more MB: a file at the limit gets SIGXFSZ first
    for path, how in sorted(mounts, key=lambda m: m[0].rstrip("/").count("/")):
        if path == "/tmp" and how == "--tmpfs":
            argv += ["--size", size]
        argv += [how, path] if how == "--tmpfs" else [how, path, path]
    argv += ["--proc", "/proc", "--dev", "/dev", "--size", size, "--tmpfs", SCRATCH]
    shown = [p for p, how in mounts if how == "--ro-bind"]  # a private tmpfs shows nothing of the host's
    for path in sandbox.hidden:  # last: over whatever showed them
        if any(_inside(path, folder) for folder in shown):
            argv += ["--tmpfs", path, "--remount-ro", path] if os.path.isdir(path) else ["--ro-bind", "/dev/null", path]
    return [*argv, "--chdir", cwd, "--", *command]


def sandbox_environment(listed: Mapping[str, str], tags: Mapping[str, str]) -> dict[str, str]:
    """The engine's whole environment: PATH and LANG (arena's), HOME at its scratch folder,
    the process tags arena finds its processes by, and the variables listed for it."""
    env = {name: os.environ[name] for name in PASSED_ENV if name in os.environ}
    env.setdefault("PATH", "/usr/local/bin:/usr/bin:/bin")
    return {**env, "HOME": SCRATCH, "TMPDIR": "/tmp", **tags, **listed}


# -- limits ---------------------------------------------------------------------------


def _own_cgroup(controller: str) -> str | None:
    """This process's cgroup folder for a cgroup v1 ``controller`` (memory, pids), if that
    hierarchy is mounted and this process may make cgroups in it; else None."""
    try:
        with open("/proc/self/cgroup") as f:
            lines = f.read().splitlines()
    except OSError:
        return None
    for line in lines:
        _, controllers, path = line.split(":", 2)
        if controller in controllers.split(","):
            folder = os.path.join(CGROUP_ROOT, controller, path.lstrip("/"))
            return folder if os.access(folder, os.W_OK) else None
    return None


@dataclass
class Cgroups:
    """One engine's memory and pids cgroups (v1): made at its start, read when it ends,
    removed once it is gone."""

    memory: str
    pids: str
    memory_mb: int
    processes: int

    @classmethod
    def make(cls, tag: str, memory_mb: int, processes: int) -> Cgroups:
        memory_root, pids_root = _own_cgroup("memory"), _own_cgroup("pids")
        if memory_root is None or pids_root is None:
            raise EngineFault(Termination.CRASH, f"cannot start the sandbox: {_NO_CGROUPS}")
        for root in (memory_root, pids_root):
            _sweep(root)
        name = f"arena-{tag}"
        groups = cls(os.path.join(memory_root, name), os.path.join(pids_root, name), memory_mb, processes)
        try:
            os.makedirs(groups.memory, exist_ok=True)
            os.makedirs(groups.pids, exist_ok=True)
            _write(os.path.join(groups.memory, "memory.limit_in_bytes"), str(memory_mb << 20))
            try:  # where swap is counted, swap too (else the engine would swap past the limit)
                _write(os.path.join(groups.memory, "memory.memsw.limit_in_bytes"), str(memory_mb << 20))
            except OSError:
                pass
            _write(os.path.join(groups.pids, "pids.max"), str(processes))
        except OSError as exc:
            groups.remove()
            raise EngineFault(Termination.CRASH, f"cannot start the sandbox: cannot set its cgroups ({exc})") from None
        return groups

    def enter(self) -> None:
        """Move the calling process (the engine, between fork and exec) into both."""
        pid = str(os.getpid())
        _write(os.path.join(self.memory, "cgroup.procs"), pid)
        _write(os.path.join(self.pids, "cgroup.procs"), pid)

    def stopped_by(self) -> str:
        """Which limit stopped the engine, as a clause for its termination reason ('' if none)."""
        if _counter(os.path.join(self.memory, "memory.oom_control"), "oom_kill") > 0:
            return f"stopped by its sandbox's memory limit ({self.memory_mb} MB)"
        if _counter(os.path.join(self.pids, "pids.events"), "max") > 0:
            return f"it reached its sandbox's process limit ({self.processes} processes and threads)"
        return ""

    def remove(self) -> None:
        """Remove both once their processes are gone (the kernel ends a PID namespace's
        processes when its first one dies; it may take a moment)."""
        for folder in (self.memory, self.pids):
            for _ in range(50):
                try:
                    os.rmdir(folder)
                    break
                except FileNotFoundError:
                    break
                except OSError:
                    time.sleep(0.002)


_NO_CGROUPS = (
    "no writable memory and pids cgroups to hold its memory and processes (cgroup v1 hierarchies "
    f"{CGROUP_ROOT}/memory and {CGROUP_ROOT}/pids, writable by the user running arena)"
)


STALE_S = 60.0  # a sandbox's cgroup this old and empty was left by an arena that was killed


def _sweep(root: str) -> None:
    """Remove the empty cgroups that an arena killed with -9 left (a cgroup that still
    holds processes cannot be removed, so a running engine's is never touched)."""
    try:
        entries = [entry for entry in os.scandir(root) if entry.name.startswith("arena-")]
    except OSError:
        return
    for entry in entries:
        try:
            if time.time() - entry.stat().st_mtime > STALE_S:
                os.rmdir(entry.path)
        except OSError:
            pass


def _children(pid: int) -> list[int]:
    """A process's children, from its main thread's list (empty if it is gone)."""
    try:
        with open(f"/proc/{pid}/task/{pid}/children") as f:
            return [int(word) for word in f.read().split()]
    except (OSError, ValueError):
        return []


def _write(path: str, text: str) -> None:
    """os calls only, as ``open`` does it: this also runs between fork and exec (Cgroups.enter),
    where io's objects and codec lookup are Python code better not run."""
    fd = os.open(path, os.O_WRONLY | os.O_CREAT | os.O_TRUNC, 0o666)
    try:
        os.write(fd, text.encode())
    finally:
        os.close(fd)


def _counter(path: str, name: str) -> int:
    """A counter of a cgroup's 'name value' lines (0 if absent)."""
    try:
        with open(path) as f:
            for line in f:
                key, _, value = line.partition(" ")
                if key == name:
                    return int(value)
    except (OSError, ValueError):
        pass
    return 0


# -- the one call of the transport ------------------------------------------------------------


@dataclass
class Confinement:
    """How to start one engine: its command line and environment, the address-space limit
    set before exec, what else runs before exec, and what its limits say when it ends."""

    argv: list[str]
    env: dict[str, str]
    memory_mb: int | None
    enter: Callable[[], None] | None = None
    cgroups: Cgroups | None = None
    scratch_mb: int = 0

    @property
    def sandboxed(self) -> bool:
        return self.cgroups is not None

    def engine_pid(self, pid: int) -> int:
        """The engine's own process, given the one started (``pid``): itself, or in a
        sandbox the grandchild bwrap starts under its own init (waited for a moment: the
        CPU budget and the worker's core are the engine's, not bwrap's)."""
        if not self.sandboxed:
            return pid
        deadline = time.monotonic() + ENGINE_WAIT_S
        while time.monotonic() < deadline:
            for child in _children(pid):
                if grandchildren := _children(child):
                    return grandchildren[0]
            time.sleep(0.001)
        return pid  # not there yet (a machine this loaded): bwrap's, which it ends with

    def ending(self, returncode: int, stderr: bytes) -> tuple[int, str]:
        """How the engine ended, given its process's exit status and its last words: the
        status as Popen gives it (-N: killed by signal N; a sandbox reports its engine's
        death by signal N as the exit code 128 + N) and the limit that stopped it, as
        '; ...' for its termination reason ('' if none).  A full scratch folder is seen by
        SIGXFSZ or, where the engine ignores that signal (Python does) or filled it with
        many files, by the error its last words name."""
        if not self.sandboxed:
            return returncode, ""
        if returncode > 128:
            returncode = 128 - returncode
        why = self.cgroups.stopped_by() if self.cgroups is not None else ""
        full = returncode == -signal.SIGXFSZ or any(error in stderr for error in _FULL_ERRORS)
        if not why and returncode != 0 and full:
            why = f"its scratch folder or /tmp is full (the sandbox's limit, {self.scratch_mb} MB each)"
        return returncode, f"; {why}" if why else ""

    def release(self) -> None:
        """The engine is gone: remove what was made for it."""
        if self.cgroups is not None:
            self.cgroups.remove()


_FULL_ERRORS = (b"File too large", b"No space left on device", b"EFBIG", b"ENOSPC")  # strerror and errno names


def confine(spec: EngineSpec, env: Mapping[str, str], tag: str) -> Confinement:
    """How to start ``spec``'s engine, given arena's environment with proctree's process
    tags (``tag``: this start's): as it is, or in its sandbox.  Raises EngineFault when the
    sandbox cannot be made here (a cluster worker without bubblewrap cannot play the engine)."""
    if spec.sandbox is None:
        return Confinement(list(spec.command), {**env, **dict(spec.env)}, spec.memory_mb)
    problem = sandbox_problem()
    if problem is not None:
        raise EngineFault(Termination.CRASH, f"cannot start the sandbox: {problem}")
    sandbox = spec.sandbox
    readable = own_paths(spec)
    if spec.command and os.path.realpath(spec.command[0]) == os.path.realpath(sys.executable):
        readable += interpreter_paths()
    tags = {key: env[key] for key in (proctree.ENGINE_TAG, proctree.RUN_TAG) if key in env}
    inside = sandbox_environment(dict(spec.env), tags)
    cwd = os.path.abspath(spec.cwd or os.getcwd())
    argv = bwrap_argv(spec.command, cwd, inside, sandbox, readable, str(Path.home()))
    argv[0] = shutil.which("bwrap") or "bwrap"
    groups = Cgroups.make(tag, spec.memory_mb or DEFAULT_MEMORY_MB, sandbox.processes)
    scratch = sandbox.scratch_mb

    def enter() -> None:  # between fork and exec: no import there (the import machinery has locks)
        groups.enter()
        resource.setrlimit(resource.RLIMIT_FSIZE, (scratch << 20, scratch << 20))

    return Confinement(argv, dict(env), None, enter, groups, scratch)


# -- the probe ------------------------------------------------------------------------------


@functools.cache
def sandbox_problem() -> str | None:
    """Why no sandbox can be made here (one clause naming what is missing and how to get it),
    or None.  Asked once per process: bubblewrap is started once to try its namespaces."""
    if not sys.platform.startswith("linux"):
        return f"the sandbox needs Linux (bubblewrap and user namespaces); this is {sys.platform}"
    bwrap = shutil.which("bwrap")
    if bwrap is None:
        return f"bubblewrap (bwrap) is not installed or not on PATH; {INSTALL_HINT}"
    try:
        tried = subprocess.run(
            [bwrap, "--unshare-all", "--die-with-parent", "--ro-bind", "/", "/", "true"],
            capture_output=True,
            timeout=10,
        )
    except (OSError, subprocess.TimeoutExpired) as exc:
        return f"bubblewrap cannot be run ({exc})"
    if tried.returncode != 0:
        said = tried.stderr.decode(errors="replace").strip().splitlines()
        return (
            f"bubblewrap cannot make its namespaces here ({said[-1] if said else f'exit code {tried.returncode}'}); "
            "allow unprivileged user namespaces (sysctl kernel.unprivileged_userns_clone=1, "
            "user.max_user_namespaces > 0) or run it where they are allowed"
        )
    if _own_cgroup("memory") is None or _own_cgroup("pids") is None:
        return _NO_CGROUPS
    return None
