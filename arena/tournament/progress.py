"""Live progress of a run, as fastchess and cutechess-cli show it.

Three modes: ``live`` redraws a few lines in place on a terminal (rich), at most
``redraws_per_s`` times a second; ``lines`` prints the same lines every
``report_every`` games (for logs and pipes, like fastchess's ``-ratinginterval``);
``quiet`` prints nothing.  The lines: games done of the total, games per minute and
the time left; for two engines ``Score of A vs B: W - L - D [score]`` with the Elo
and its 95% interval, else the leaders; under an SPRT its LLR and bounds.

The tally is updated per game in O(engines) and the text is only built when it is
shown, so the coordinator pays next to nothing per move (``arena bench -s progress``).
"""

from __future__ import annotations

import time
from collections.abc import Callable, Sequence
from typing import Any, Literal

from ..record import GameRecord
from ..results.ratings import pair_elo
from ..results.sprt import SprtTest

Mode = Literal["live", "lines", "quiet"]


class Progress:
    """The live progress of a run: an observer of :func:`arena.tournament.runner.run_tournament`."""

    def __init__(
        self,
        engines: Sequence[str],
        players: int,
        mode: Mode = "lines",
        *,
        report_every: int = 10,
        echo: Callable[[str], None] = print,
        console: Any = None,
        redraws_per_s: float = 4.0,
        clock: Callable[[], float] = time.monotonic,
        game_note: Callable[[GameRecord], str] | None = None,
    ) -> None:
        self.engines = list(engines)
        self.players = players
        self.mode = mode
        self.report_every = max(1, report_every)
        self.echo = echo
        self.clock = clock
        self.game_note = game_note  # a line per game (e.g. its trace file), above the live lines
        self.min_interval = 1 / redraws_per_s
        self.points = dict.fromkeys(self.engines, 0.0)
        self.games = dict.fromkeys(self.engines, 0)
        self.wld = [0, 0, 0]  # first engine against the second: wins, losses, draws
        self.sprt: SprtTest | None = None
        self.total = 0
        self.done = 0
        self.started_at = clock()
        self.played_here = 0  # games of this run (not resumed): the rate counts these
        self._next_draw = 0.0
        self._live = None
        if mode == "live":
            from rich.console import Console
            from rich.live import Live

            self._live = Live(console=console or Console(), auto_refresh=False, transient=False)

    # -- the run's calls --------------------------------------------------------

    def begin(self, total: int, records: Sequence[GameRecord], sprt: SprtTest | None = None) -> None:
        """Before the first game: the schedule's size, the games already stored, the test."""
        self.total, self.sprt = total, sprt
        for record in records:
            self._tally(record)
        self.done = len(records)
        self.started_at = self.clock()
        if self._live is not None:
            self._live.start()
            self._draw()

    def __call__(self, record: GameRecord, finished: int, total: int) -> None:
        self._tally(record)
        self.done, self.total = finished, total
        self.played_here += 1
        if self.game_note is not None and self.mode != "quiet":
            note = self.game_note(record)
            self._live.console.print(note, markup=False, highlight=False) if self._live else self.echo(note)
        if self.mode == "lines" and self.done % self.report_every == 0:
            for line in self.lines():
                self.echo(line)
        elif self._live is not None and self.clock() >= self._next_draw:
            self._draw()

    def close(self) -> None:
        if self._live is not None:
            self._draw()
            self._live.stop()
            self._live = None

    # -- as an observer of the run (observers.RunObserver) -----------------------

    on_start = begin
    on_game = __call__

    def on_end(self, records: list[GameRecord], results: dict[str, Any]) -> None:
        self.close()

    def on_stop(self) -> None:
        self.close()

    # -- the tally and its text ------------------------------------------------

    def _tally(self, record: GameRecord) -> None:
        places = record["places"]
        opponents = max(len(places) - 1, 1)
        for seat, name in enumerate(record["players"]):
            beaten = sum(1 for p in places if p > places[seat]) + 0.5 * (places.count(places[seat]) - 1)
            self.points[name] = self.points.get(name, 0.0) + beaten / opponents
            self.games[name] = self.games.get(name, 0) + 1
        if len(self.engines) == 2 and self.players == 2:
            first = record["players"].index(self.engines[0])
            mine, theirs = places[first], places[1 - first]
            self.wld[0 if mine < theirs else 1 if mine > theirs else 2] += 1

    def lines(self) -> list[str]:
        lines = [self._games_line()]
        if len(self.engines) == 2 and self.players == 2:
            lines.append(self._score_line())
        else:
            lines.append(self._leaders_line())
        if self.sprt is not None:
            s = self.sprt
            lines.append(f"SPRT {s.status_text()} after {s.pairs} pairs" + (f": {s.outcome}" if s.outcome else ""))
        return lines

    def _games_line(self) -> str:
        elapsed = max(self.clock() - self.started_at, 1e-9)
        rate = self.played_here / elapsed * 60
        total = self.sprt.games_needed if self.sprt is not None else self.total
        left = max(total - self.done, 0)
        eta = _duration(left / rate * 60) if rate > 0 and left else "-"
        pct = 100 * self.done / total if total else 100.0
        upto = "up to " if self.sprt is not None and self.sprt.decision is None else ""
        return f"Games {self.done} of {upto}{total} ({pct:.1f}%), {rate:.1f} games/min, ETA {eta}"

    def _score_line(self) -> str:
        a, b = self.engines
        w, ln, d = self.wld
        n = w + ln + d
        score = (w + d / 2) / n if n else 0.5
        text = f"Score of {a} vs {b}: {w} - {ln} - {d} [{score:.3f}] {n}"
        estimate = pair_elo(w, ln, d)  # the head-to-head table's figure for these games
        if estimate is not None:
            text += f", Elo {estimate.elo + 0.0:+.1f} +/- {estimate.margin:.1f} ({n} games, {estimate.label})"
        return text

    def _leaders_line(self) -> str:
        ranked = sorted(self.engines, key=lambda e: (-self.points[e] / max(self.games[e], 1), e))
        shown = ", ".join(
            f"{e} {100 * self.points[e] / self.games[e]:.1f}% ({self.games[e]})" for e in ranked[:4] if self.games[e]
        )
        return "Leaders: " + (shown or "-")

    def _draw(self) -> None:
        from rich.text import Text

        assert self._live is not None
        self._live.update(Text("\n".join(self.lines())), refresh=True)
        self._next_draw = self.clock() + self.min_interval


def _duration(seconds: float) -> str:
    seconds = int(seconds)
    hours, rest = divmod(seconds, 3600)
    minutes, secs = divmod(rest, 60)
    return f"{hours}h{minutes:02d}m" if hours else f"{minutes}m{secs:02d}s"
