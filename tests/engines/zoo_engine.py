"""The fault zoo: a Hex engine (swap off) that misbehaves in one chosen way.

    zoo_engine.py FAULT[+FAULT...] [N]

It plays the first free cell until its N-th ``go`` (default 1) and then shows
FAULT (see misbehave() and main()).  Start-up faults ignore N; several faults
joined by '+' combine (e.g. ``fork+slow``).  It uses the
standard library only, so it starts in a few milliseconds.  Every process it
creates writes its pid to $ZOO_PIDS (if set), so tests can check that all of
them are gone afterwards.  A slow engine (``slow``) waits $ZOO_SLOW_S before each move
until the file $ZOO_FAST_AFTER names exists.
"""

import os
import signal
import sys
import time

FAULTS = (sys.argv[1] if len(sys.argv) > 1 else "good").split("+")
FAULT = FAULTS[0]
AT = int(sys.argv[2]) if len(sys.argv) > 2 else 1
LETTERS = "abcdefghijklmnopqrstuvwxyz"
# Faults that send the move on a line padded with trailing blanks (still a valid line)
# to this many bytes: protocol/codec.py's MAX_LINE, and one byte more.
PADDED = {"line_exact": 64 * 1024, "line_over": 64 * 1024 + 1}
# Faults that send the move with a character str.split() takes for a blank: only the ASCII
# space is one, so the move is not the cell ('{}' is the first free cell).
BLANK_MOVES = {
    "vt_move": "{}\x0b",
    "ff_move": "\x0c{}",
    "nbsp_move": "{}\u00a0",
    "ls_move": "{}\u2028",
    "fs_move": "{}\x1c",
    "us_move": "{}\x1f",
    "nel_move": "{}\x85",
    "tab_move": "{}\t",
}


def note_pid() -> None:
    if os.environ.get("ZOO_PIDS"):
        with open(os.environ["ZOO_PIDS"], "a") as f:
            f.write(f"{os.getpid()}\n")


def out(text: str) -> None:
    sys.stdout.write(text + "\n")
    sys.stdout.flush()


def slow_now() -> bool:
    """Whether a slow engine still takes its time: until the file $ZOO_FAST_AFTER names exists
    (a test makes it once what needed games in play has happened: the rest play at once)."""
    fast_after = os.environ.get("ZOO_FAST_AFTER")
    return not (fast_after and os.path.exists(fast_after))


def sleep_forever() -> None:
    while True:
        time.sleep(60)


def spawn(detach: bool = False, hold_output: bool = True) -> None:
    """Fork a child that outlives us; ``detach`` leaves the process group (setsid)."""
    noted, told = os.pipe()  # the child is noted before the game goes on: a test counts it
    if os.fork() == 0:
        os.close(noted)
        if detach:
            os.setsid()
        if not hold_output:
            os.close(1)
        note_pid()
        signal.signal(signal.SIGTERM, signal.SIG_IGN)
        os.write(told, b".")
        os.close(told)
        sleep_forever()
    os.close(told)
    os.read(noted, 1)
    os.close(noted)


def escape() -> None:
    """Double-fork a grandchild that calls setsid and execs a sleeper with a clean
    environment: neither the process group nor the environment tag finds it; only
    arena's child subreaper (it becomes the grandchild's parent) can."""
    if os.fork() == 0:
        os.setsid()
        if os.fork() == 0:
            note_pid()
            null = os.open(os.devnull, os.O_RDWR)
            for fd in (0, 1, 2):
                os.dup2(null, fd)
            os.execve(sys.executable, [sys.executable, "-c", "import time; time.sleep(600)"], {})
        os._exit(0)


def first_free(size: int, moves: list[str]) -> str:
    taken = set(moves)
    for row in range(1, size + 1):
        for col in LETTERS[:size]:
            if f"{col}{row}" not in taken:
                return f"{col}{row}"
    return "a1"


def misbehave(fault: str, moves: list[str], movetime_ms: int) -> None:
    """Act out ``fault`` in reply to a go; return only if a move should follow."""
    if fault == "crash":
        sys.stderr.write("zoo: giving up\n")
        sys.exit(3)
    elif fault == "hang":
        sleep_forever()
    elif fault == "late":
        time.sleep(movetime_ms / 1000 + 0.4)
        return
    elif fault == "just_late":  # 5 ms past movetime + the tests' 100 ms margin
        time.sleep(movetime_ms / 1000 + 0.105)
        return
    elif fault == "nul_move":
        out(f"move {first_free(SIZE, moves)}\0")
    elif fault in BLANK_MOVES:
        out("move " + BLANK_MOVES[fault].format(first_free(SIZE, moves)))
    elif fault == "foreign_score":  # numbers float() reads but the protocol does not: ignored
        out("info depth 2 score \u0661\u0662")
        out("info nodes 1_000 score 1_000")
        return
    elif fault == "stop_worker":  # freezes the arena process that started it (once, with $ZOO_ONCE)
        once = os.environ.get("ZOO_ONCE")
        if once and os.path.exists(once):
            return
        if once:
            with open(once, "w") as f:
                f.write(f"{time.time():.6f}\n")  # when, precisely (a file's mtime is a coarse clock's)
        os.kill(os.getppid(), signal.SIGSTOP)

    elif fault == "garbage":
        sys.stdout.buffer.write(b"\xff\xfe\x00garbage\n")
        sys.stdout.flush()
    elif fault == "wrong_command":
        out("bestmove e5")
    elif fault == "escapes":
        out("\x1b]0;pwned\x07\x1b[2Jhello \x9b31m")
    elif fault == "illegal":
        out(f"move {moves[0] if moves else 'zz99'}")
    elif fault == "shout":  # the right cell in capitals, which is not its token
        out(f"move {first_free(SIZE, moves).upper()}")
    elif fault == "other_game":
        out("move e1-e4")
    elif fault == "double_move":  # one write: both lines are there before the next go
        out(f"move {first_free(SIZE, moves)}\nmove {first_free(SIZE, moves)}")
    elif fault == "flood_forever":
        while True:
            out("info flooding " + "x" * 100)
    elif fault == "signal":
        os.kill(os.getpid(), signal.SIGSEGV)
    elif fault == "memory":
        hog = []
        while True:
            hog.append(bytearray(16 << 20))
    elif fault == "cpu":
        while True:
            pass
    elif fault == "close_stdout":
        os.close(1)
        sleep_forever()
    elif fault == "partial":
        sys.stdout.write("move a")
        sys.stdout.flush()
        sleep_forever()
    elif fault == "partial_exit":
        sys.stdout.write("move a")
        sys.stdout.flush()
        os._exit(0)
    elif fault == "long_line":
        sys.stdout.write("info " + "y" * 100_000)
        sys.stdout.flush()
        sleep_forever()
    elif fault == "child_holds_output":
        spawn()
        os._exit(4)
    elif fault == "resign":
        out("resign")
    else:
        return
    sleep_forever()


def main() -> None:
    global SIZE
    note_pid()
    if "crash_start" in FAULTS:
        sys.stderr.write("zoo: cannot load my weights\n")
        sys.exit(2)
    if "fork" in FAULTS:
        spawn()
    if "fork_setsid" in FAULTS:
        spawn(detach=True, hold_output=False)
    if "escape_tree" in FAULTS:
        escape()
    if "ignore_signals" in FAULTS:
        signal.signal(signal.SIGTERM, signal.SIG_IGN)
    SIZE, moves, gos = 5, [], 0
    for line in sys.stdin:
        words = line.split()
        if not words:
            continue
        if words[0] == "arena":
            if FAULT == "silent_start":
                sleep_forever()
            out(f"id name zoo-{FAULT}")
            if FAULT == "unicode_version":  # isdigit() says yes, int() says no
                out("arenaok \u00b9")
                sleep_forever()
            if FAULT == "escape_name":
                out("id name \x1b[2J\x1b]0;owned\x07evil\x9b1m")
            if FAULT == "close_stdin":  # closed before arenaok: the referee's next write fails
                os.close(0)
                out("arenaok 1")
                sleep_forever()
            out("arenaok 1")
        elif words[0] == "newgame":
            if os.environ.get("ZOO_NEWGAMES"):  # when each game began, for timing tests
                with open(os.environ["ZOO_NEWGAMES"], "a") as f:
                    f.write(f"{time.time():.6f} {os.getpid()} {os.getppid()}\n")
            for option in words[4:]:
                key, _, value = option.partition("=")
                if key == "size":
                    SIZE = int(value)
        elif words[0] == "isready":
            out("readyok")
        elif words[0] == "position":
            moves = words[3:]
        elif words[0] == "go":
            gos += 1
            movetime = int(words[words.index("movetime") + 1]) if "movetime" in words else 1000
            if "flood_info" in FAULTS:
                sys.stdout.write("info depth 1 nodes 42 pv a1 b2 c3\n" * 20_000)
            if "flood_stderr" in FAULTS:
                sys.stderr.write(("e" * 1023 + "\n") * 2048)  # 2 MiB
                sys.stderr.flush()
            if "slow" in FAULTS and slow_now():  # well-behaved, but games take a while (for kill tests)
                time.sleep(float(os.environ.get("ZOO_SLOW_S", "0.03")))  # 12 games: several seconds
            if gos == AT:
                for fault in FAULTS:
                    misbehave(fault, moves, movetime)
            move = f"move {first_free(SIZE, moves)}"
            out(move.ljust(PADDED[FAULT]) if gos == AT and FAULT in PADDED else move)
        elif words[0] == "quit":
            if "ignore_signals" in FAULTS:
                sleep_forever()
            break


if __name__ == "__main__":
    main()
