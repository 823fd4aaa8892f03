"""The transport's three parts, each on its own: the engine's process (a real child), its
pipes (real pipes, no process) and its stderr tail.  The transport over a real engine is
played in test_engine_process.py, test_faults.py and test_reliability.py."""

import os
import signal
import sys
import threading
import time

import pytest

from arena.engine.child import ChildProcess
from arena.engine.pipes import LinePipes, PipeEnded
from arena.engine.player import EngineFault, EngineSpec
from arena.engine.sandbox import confine
from arena.engine.stderrtail import STDERR_KEEP, StderrTail
from arena.engine.waiting import Waiting
from arena.record import Termination
from protocol import codec


def python(code: str) -> EngineSpec:
    return EngineSpec("child", (sys.executable, "-c", code))


# -- the process --------------------------------------------------------------------


@pytest.fixture
def launch():
    """Start a Python child running ``code``; killed and its pipes closed after the test."""
    started = []

    def start(code: str) -> ChildProcess:
        child = ChildProcess(python(code))
        child.launch()
        started.append((child, child.pipes()))
        return child

    yield start
    for child, pipes in started:
        child.kill()
        for stream in pipes:
            stream.close()


def test_a_child_says_how_it_ended(launch):
    child = launch("import sys; sys.exit(3)")
    assert child.wait_exit(10) and not child.alive
    assert child.exit_status(0) == "exit code 3"
    child.kill()
    assert child.proc is None and child.exit_fd is None


def test_a_running_child_has_no_exit_status_and_a_kill_reaps_it(launch):
    child = launch("import time; time.sleep(60)")
    assert all(not os.get_blocking(stream.fileno()) for stream in child.pipes())
    assert child.alive and child.exit_status(0) is None and not child.wait_exit(0.01)
    proc = child.proc
    assert proc is not None
    child.kill()
    assert not child.alive and child.proc is None and proc.returncode == -signal.SIGKILL


def test_kill_unwaited_kills_without_reaping(launch):
    child = launch("import time; time.sleep(60)")
    child.kill_unwaited()
    assert child.proc is not None  # not reaped: the worker's process exits right after
    assert child.wait_exit(10) and child.exit_status(0) == "killed by signal SIGKILL"


def test_a_missing_program_is_a_crash_naming_it():
    with pytest.raises(EngineFault) as fault:
        ChildProcess(EngineSpec("gone", ("/no/such/engine",))).launch()
    assert fault.value.code == Termination.CRASH
    assert fault.value.reason == "cannot start '/no/such/engine': No such file or directory"


def test_the_command_line_is_the_specs_command():
    start = confine(EngineSpec("e", ("prog", "--level", "3")), {}, "tag")
    assert start.argv == ["prog", "--level", "3"] and not start.sandboxed


# -- the pipes ----------------------------------------------------------------------


class Wire:
    """LinePipes over three real pipes: ``engine_out`` and ``engine_err`` are the engine's
    ends of its stdout and stderr, ``engine_in`` the end it reads its input from."""

    def __init__(self) -> None:
        self.engine_in, stdin_w = os.pipe()
        stdout_r, self.engine_out = os.pipe()
        stderr_r, self.engine_err = os.pipe()
        for fd in (stdin_w, stdout_r, stderr_r):
            os.set_blocking(fd, False)
        self.stderr: list[bytes] = []
        self.closed: set[int] = set()  # the engine's ends closed (never twice: the number may be reused)
        streams = [
            os.fdopen(fd, mode, buffering=0) for fd, mode in ((stdin_w, "wb"), (stdout_r, "rb"), (stderr_r, "rb"))
        ]
        self.pipes = LinePipes(*streams, None, Waiting(), self.stderr.append)

    def close(self) -> None:
        self.pipes.close()
        for fd in {self.engine_in, self.engine_out, self.engine_err} - self.closed:
            try:
                os.close(fd)
            except OSError:
                pass
        self.closed |= {self.engine_in, self.engine_out, self.engine_err}


@pytest.fixture
def wire():
    w = Wire()
    yield w
    w.close()


def test_lines_come_whole_however_the_bytes_are_cut(wire):
    os.write(wire.engine_out, b"move a")
    assert not wire.pipes.poll_lines()
    os.write(wire.engine_out, b"1\r\ninfo x\nrest")
    assert wire.pipes.poll_lines()
    soon = time.monotonic() + 5
    assert wire.pipes.read_line(soon, Termination.TIMEOUT, "no move") == b"move a1\r"  # the \r is the transport's
    assert wire.pipes.read_line(soon, Termination.TIMEOUT, "no move") == b"info x"
    assert not wire.pipes.has_line()


def test_a_read_ends_at_its_deadline_with_the_callers_code_and_reason(wire):
    said = []
    with pytest.raises(EngineFault) as fault:
        wire.pipes.read_line(time.monotonic() + 0.05, Termination.TIMEOUT, lambda: said.append(1) or "no move in 50 ms")
    assert (fault.value.code, fault.value.reason, said) == (Termination.TIMEOUT, "no move in 50 ms", [1])


def test_a_line_over_the_bound_is_a_protocol_fault(wire):
    def flood() -> None:
        try:
            os.write(wire.engine_out, b"x" * (codec.MAX_LINE + 2))  # a blocking write: all of it, in turns
        except OSError:
            pass  # the reader gave up first and closed its end

    writer = threading.Thread(target=flood, daemon=True)
    writer.start()
    with pytest.raises(EngineFault) as fault:
        wire.pipes.read_line(time.monotonic() + 10, Termination.TIMEOUT, "no move")
    assert (fault.value.code, fault.value.reason) == (Termination.PROTOCOL, f"line longer than {codec.MAX_LINE} bytes")
    wire.close()
    writer.join(10)


def test_the_end_of_output_is_reported_with_the_partial_line(wire):
    os.write(wire.engine_out, b"done\nmove b")
    os.close(wire.engine_out)
    wire.closed.add(wire.engine_out)
    assert wire.pipes.read_line(time.monotonic() + 5, Termination.TIMEOUT, "no move") == b"done"
    with pytest.raises(PipeEnded) as end:
        wire.pipes.read_line(time.monotonic() + 5, Termination.TIMEOUT, "no move")
    assert end.value.what == "closed its output after a partial line 'move b'" and wire.pipes.ended


def test_writing_to_an_engine_that_closed_its_input_is_the_end_of_the_pipe(wire):
    wire.pipes.write(b"go\n", time.monotonic() + 5)
    assert os.read(wire.engine_in, 10) == b"go\n"
    os.close(wire.engine_in)
    wire.closed.add(wire.engine_in)
    with pytest.raises(PipeEnded) as end:
        wire.pipes.write(b"go\n", time.monotonic() + 5)
    assert end.value.what == "closed its input"


def test_a_write_the_engine_does_not_read_ends_at_its_deadline(wire):
    with pytest.raises(EngineFault) as fault:
        for _ in range(1000):  # a pipe holds 64 KiB
            wire.pipes.write(b"x" * 4096, time.monotonic() + 0.05)
    assert (fault.value.code, fault.value.reason) == (Termination.TIMEOUT, "engine stopped reading its input")


def test_stderr_is_handed_on_while_reading_and_when_closed(wire):
    os.write(wire.engine_err, b"warming up\n")
    os.write(wire.engine_out, b"readyok\n")
    deadline = time.monotonic() + 5
    while not wire.pipes.has_line() or not wire.stderr:
        wire.pipes.poll_lines()
        assert time.monotonic() < deadline
    os.write(wire.engine_err, b"bye\n")
    wire.pipes.close()  # its last words are taken before the pipes close
    assert b"".join(wire.stderr) == b"warming up\nbye\n"


# -- the stderr tail ----------------------------------------------------------------


def test_the_tail_keeps_the_last_bytes():
    tail = StderrTail()
    tail.keep(b"a" * STDERR_KEEP)
    tail.keep(b"the end")
    assert len(tail.data) == STDERR_KEEP and tail.data.endswith(b"the end")


def test_last_words_skip_stack_frames_and_name_where_the_rest_is():
    tail = StderrTail(home="arena.log")
    tail.keep(b"starting\nTypeError: x is undefined\n    at f (engine.js:3:9)\n    at main (engine.js:9:1)\n\n")
    assert tail.last_words() == "; last stderr lines: 'starting' | 'TypeError: x is undefined' (all of it: arena.log)"
    assert StderrTail().last_words() == ""


def test_the_tail_as_text_is_sanitized():
    tail = StderrTail()
    tail.keep(b"\x1b[31mred\x1b[0m\n\nplain\n")
    assert tail.text() == "red\nplain"  # the escape sequences are gone, and the empty line
