"""Plays random legal moves while it tries one thing an untrusted engine must not do
(docs/sandbox.md): ``intruder_engine.py ATTACK[:ARGUMENT]`` (one word: a path it names is not
one its sandbox lets it read for being in its command).  It tries at its first move of each game and
says what happened on stderr as ``intruder ATTACK: ...`` (the tests read it in the game
transcripts); the tests check the effect from outside too.

Attacks: read FILE; write FILE (a new file); append FILE (bytes at the end of it); connect
PORT (127.0.0.1); kill (SIGKILL its parent and every pid it can see); ptrace WORD (attach to
each process whose command line holds WORD); fork N; memory MB (allocated and touched);
scratch MB (one file in $HOME); env (prints its environment).
"""

import ctypes
import os
import signal
import socket
import sys
import time

from protocol.sdk import Engine, run


def attack(what: str, argument: str) -> str:
    if what == "read":
        with open(argument, "rb") as f:
            return f"read {f.read(200)!r}"
    if what == "write":
        with open(argument, "x") as f:
            f.write("written by an engine\n")
        return f"wrote {argument}"
    if what == "append":
        with open(argument, "ab") as f:
            f.write(b"garbage from an engine" * 100)
        return f"appended to {argument}"
    if what == "connect":
        with socket.create_connection(("127.0.0.1", int(argument)), timeout=2) as s:
            s.sendall(b"hello from an engine\n")
        return "connected"
    if what == "kill":
        killed = []
        for pid in [os.getppid()] + [int(p) for p in os.listdir("/proc") if p.isdigit()]:
            if pid != os.getpid():
                try:
                    os.kill(pid, signal.SIGKILL)
                    killed.append(pid)
                except OSError:
                    pass
        return f"sent SIGKILL to {killed}"
    if what == "ptrace":
        libc = ctypes.CDLL(None, use_errno=True)
        attached = []
        for entry in [p for p in os.listdir("/proc") if p.isdigit() and int(p) not in ancestors()]:
            try:
                with open(f"/proc/{entry}/cmdline", "rb") as f:
                    if argument.encode() not in f.read():
                        continue
            except OSError:
                continue
            if libc.ptrace(16, int(entry), None, None) == 0:  # PTRACE_ATTACH
                attached.append(int(entry))
                libc.ptrace(17, int(entry), None, None)  # PTRACE_DETACH
        return f"attached to {attached}"
    if what == "fork":
        forked = 0
        for _ in range(int(argument)):
            if os.fork() == 0:
                time.sleep(30)
                os._exit(0)
            forked += 1
        return f"forked {forked}"
    if what == "memory":
        hog = bytearray(int(argument) << 20)
        for i in range(0, len(hog), 4096):
            hog[i] = 1
        return f"allocated {len(hog) >> 20} MB"
    if what == "scratch":
        with open(os.path.join(os.environ.get("HOME", "/tmp"), "filler"), "wb") as f:
            for _ in range(int(argument)):
                f.write(b"\0" * (1 << 20))
        return f"wrote {argument} MB into {os.environ.get('HOME')}"
    if what == "env":
        return "environment " + " ".join(f"{k}={v}" for k, v in sorted(os.environ.items()))
    raise SystemExit(f"unknown attack {what!r}")


def ancestors() -> set[int]:
    """Its own pid and its ancestors' (whose command lines may name the opponent too)."""
    found, pid = set(), os.getpid()
    while pid > 0 and pid not in found:
        found.add(pid)
        try:
            with open(f"/proc/{pid}/stat") as f:
                pid = int(f.read().rsplit(")", 1)[1].split()[1])
        except OSError:
            break
    return found


class Intruder(Engine):
    name = "intruder"
    author = "arena tests"

    def __init__(self, what: str, argument: str) -> None:
        super().__init__()
        self.what, self.argument, self.tried = what, argument, False

    def on_new_game(self) -> None:
        self.tried = False  # once a game: an engine process may play several

    def choose_move(self, state, clock) -> str:
        if not self.tried:
            self.tried = True
            try:
                outcome = attack(self.what, self.argument)
            except OSError as exc:
                if self.what in ("fork", "scratch"):
                    raise  # held by a limit: it ends here, its game lost
                outcome = f"failed: {exc}"
            print(f"intruder {self.what}: {outcome}", file=sys.stderr, flush=True)
        return state.random_move(self.rng)


if __name__ == "__main__":
    what, _, argument = sys.argv[1].partition(":")
    run(Intruder(what, argument))
