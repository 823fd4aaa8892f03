"""Transcripts of what engines and the referee said to each other, one file per game.

Like cutechess-cli's ``-debug``: every line in both directions and every stderr line,
each with a monotonic timestamp (seconds since the transcript began), the seat and the
engine's name::

       0.000412 0 alice > newgame hex 0 2 size=5 swap=true
       0.003120 0 alice < readyok
       1.204007 1 bob   ! Traceback (most recent call last):

``>`` goes to the engine, ``<`` comes from it, ``!`` is its stderr.  Engine text is
written as received, except that control characters are shown as escapes (a transcript
is read in a terminal).  A transcript belongs to one game; the engines of the game
each get a :class:`SeatTrace` for it and drop it when the game ends.

Hidden information (Posies' ``private`` lines) is held back while the game runs: the
file is on disk, where an engine could read it, so in its place the line says it is held
back, and the held lines follow at the end of the transcript, with their times, once
the game is over.
"""

from __future__ import annotations

import re
import time
from collections.abc import Iterable
from pathlib import Path
from typing import IO

from .conversation import Conversation

_CONTROL = re.compile(r"[\x00-\x08\x0b-\x1f\x7f-\x9f\u200e\u200f\u202a-\u202e\u2066-\u2069]")
MAX_SHOWN = 4096  # characters of one line in a transcript (the rest is counted, not shown)
HIDDEN = "private "  # lines to an engine that only it may know until the game ends


def _shown(text: str) -> str:
    text = _CONTROL.sub(lambda m: m.group().encode("unicode_escape").decode(), text)
    if len(text) > MAX_SHOWN:
        text = text[:MAX_SHOWN] + f"... ({len(text) - MAX_SHOWN} more characters)"
    return text


class Transcript:
    """One game's transcript file."""

    def __init__(self, path: Path, title: str) -> None:
        self.path = path
        path.parent.mkdir(parents=True, exist_ok=True)
        self._file: IO[str] | None = path.open("w", encoding="utf-8", errors="backslashreplace")
        self._t0 = time.monotonic()
        self._held: list[str] = []  # hidden lines, written when the game is over
        self._file.write(
            f"# arena trace: {title}\n# seconds since the trace began (monotonic), seat, "
            f"engine, '>' to it, '<' from it, '!' its stderr\n"
        )

    def seat(self, seat: int, name: str) -> SeatTrace:
        return SeatTrace(self, f"{seat} {name}")

    def write(self, who: str, arrow: str, text: str) -> None:
        if self._file is None:
            return
        stamp = time.monotonic() - self._t0
        for line in text.split("\n"):
            entry = f"{stamp:11.6f} {who} {arrow} {_shown(line)}\n"
            if arrow == ">" and line.startswith(HIDDEN):
                self._held.append(entry)
                entry = f"{stamp:11.6f} {who} {arrow} {HIDDEN}(held back until the game is over; see the end)\n"
            self._file.write(entry)

    def note(self, text: str) -> None:
        if self._file is not None:
            self._file.write(f"# {_shown(text)}\n")

    def close(self) -> None:
        """End the transcript: the game is over, so the hidden lines can be shown."""
        if self._file is not None:
            if self._held:
                self._file.write("# hidden information, held back while the game ran:\n")
                self._file.writelines(self._held)
            self._file.close()
            self._file = None


class SeatTrace:
    """What one engine writes into a game's transcript."""

    def __init__(self, transcript: Transcript, who: str) -> None:
        self.transcript = transcript
        self.who = who
        self._stderr = ""  # a partial stderr line, until its newline comes

    def sent(self, text: str) -> None:
        self.transcript.write(self.who, ">", text)

    def received(self, line: str) -> None:
        self.transcript.write(self.who, "<", line)

    def stderr(self, chunk: bytes) -> None:
        text = self._stderr + chunk.decode(errors="replace")
        *lines, self._stderr = text.split("\n")
        if len(self._stderr) > MAX_SHOWN:
            lines.append(self._stderr)
            self._stderr = ""
        for line in lines:
            self.transcript.write(self.who, "!", line)


def trace_path(folder: Path, game_id: int | str) -> Path:
    return folder / f"game-{game_id}.txt"


def end_trace(transcript: Transcript, engines: Iterable[Conversation]) -> None:
    """Detach the transcript from the engines (they may play on untraced) and close it."""
    for engine in engines:
        engine.trace = None
    transcript.close()
