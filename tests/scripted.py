"""An engine in memory for conversation tests: a Transport that plays a script.

Like python-chess's MockTransport: the test lists each line the conversation must send,
with the lines the engine answers to it; a line sent out of turn fails the test at once,
so a script pins the exact text on the wire.  No process, no pipes, no waiting: where the
script gives no answer, the deadline is taken to have passed at once (the read raises the
fault the conversation asked for), and ``EOF`` ends the engine's output.
"""

from __future__ import annotations

from collections import deque
from collections.abc import Iterable

from arena.engine.pipes import Reason
from arena.engine.player import EngineFault
from arena.engine.transport import Trace
from arena.engine.waiting import Waiting
from arena.record import Termination

EOF = "<end of output>"  # an answer line: the engine closes its output here


class ScriptedTransport:
    def __init__(self, *exchanges: tuple[str, Iterable[str]], unsolicited: Iterable[str] = ()) -> None:
        self.script = deque((sent, list(answer)) for sent, answer in exchanges)
        self.sent: list[str] = []  # every line the conversation wrote, in order
        self.pending = deque(unsolicited)  # engine lines not read yet
        self.trace: Trace | None = None
        self.launched = self.killed = self.ended = False
        self.cpu_budgets = 0  # renew_cpu_budget calls (one per game)
        self.waiting = Waiting()  # no process, nothing to wait for: the plain strategy, which does nothing

    def expect(self, sent: str, *answer: str) -> None:
        """One more exchange at the end of the script."""
        self.script.append((sent, list(answer)))

    @property
    def alive(self) -> bool:
        return self.launched and not self.killed and not self.ended

    def launch(self) -> None:
        self.launched = True

    def send(self, text: str, deadline: float) -> None:
        for line in text.split("\n"):
            self.sent.append(line)
            assert self.script, f"sent {line!r} after the end of the script"
            expected, answer = self.script.popleft()
            assert line == expected, f"sent {line!r}, the script expected {expected!r}"
            self.pending.extend(answer)

    def read_line(self, deadline: float, code: Termination, reason: Reason) -> str:
        if not self.pending:
            raise EngineFault(code, reason if isinstance(reason, str) else reason())
        line = self.pending.popleft()
        if line == EOF:
            self.ended = True
            self.pending.appendleft(EOF)
            raise EngineFault(Termination.CRASH, "engine closed its output")
        return line

    def poll_lines(self) -> bool:
        return self.has_line()

    def has_line(self) -> bool:
        return bool(self.pending) and self.pending[0] != EOF

    def renew_cpu_budget(self) -> None:
        self.cpu_budgets += 1

    def check_cpu_budget(self) -> None:
        pass

    def close(self, goodbye: str) -> None:
        if self.alive:
            self.sent.append(goodbye)
        self.kill()

    def kill(self) -> None:
        self.killed = True

    def done(self) -> bool:
        """Whether every scripted exchange took place."""
        return not self.script
