"""What an engine wrote on stderr: its last bytes kept, shown as its last words in a crash's reason.

The pipes (``pipes.py``) hand over each chunk; the tail keeps the end (a crash's last
words are there), quotes its last few lines for the game's record and gives the whole of
it, sanitized, to the worker's log.  The engine's text is untrusted: every line leaves
here quoted or sanitized by the codec.
"""

from __future__ import annotations

import re

from protocol import codec

STDERR_KEEP = 64 * 1024
INFO_KEEP = 1024  # characters of one engine line (info, stderr) kept for logs
STDERR_LINES_SHOWN = 3  # stderr lines quoted in a crash's reason
_STACK_FRAME = re.compile(r"\s+(at |File \")|\s*\^+\s*$")  # JavaScript / Python frames, '^' markers


class StderrTail:
    """The last STDERR_KEEP bytes an engine wrote on stderr."""

    def __init__(self, home: str = "") -> None:
        self.data = bytearray()
        self.home = home  # where the whole of it goes (named in crash reasons)

    def keep(self, chunk: bytes) -> None:
        data = self.data
        data += chunk
        if len(data) > STDERR_KEEP:
            del data[: len(data) - STDERR_KEEP]

    def last_words(self) -> str:
        """The engine's last few lines, for the record, without stack-frame lines (a Node.js
        crash ends with frames and a version line, the error is above them), and where
        the rest is: "" if it wrote nothing."""
        lines = [
            ln
            for ln in self.data.decode(errors="replace").splitlines()[-40:]
            if ln.strip() and not _STACK_FRAME.match(ln)
        ][-STDERR_LINES_SHOWN:]
        if not lines:
            return ""
        shown = " | ".join(codec.quote(ln.strip(), 160 if len(lines) == 1 else 90) for ln in lines)
        where = f" (all of it: {self.home})" if self.home else ""
        return f"; last stderr line{'s' if len(lines) > 1 else ''}: {shown}{where}"

    def text(self) -> str:
        """The whole tail as printable lines (untrusted text: sanitized)."""
        lines = self.data.decode(errors="replace").splitlines()
        return "\n".join(codec.sanitize(line, INFO_KEEP) for line in lines if line.strip())
