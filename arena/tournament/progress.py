"""Live progress of a run, as fastchess and cutechess-cli show it.

Three modes: ``live`` redraws a few lines in place on a terminal (rich), at most
``redraws_per_s`` times a second, each fitted to the terminal's width; ``lines`` prints
the same lines every ``report_every`` games (for logs and pipes, like fastchess's
``-ratinginterval``); ``quiet`` prints nothing but warnings.  The lines: games done of
the total, games per minute and the time left (once a few games and seconds make the
rate steady); for two engines ``Score of A vs B: W - L - D [score]`` with the Elo and
its 95% interval, else the leaders; under an SPRT its LLR and bounds.  Above them, out
of quiet mode, a line per finished game, as cutechess-cli's ``Finished game``; in every
mode, a warning as an engine fails its start-up check or is dropped.

The tally is updated per game in O(engines) and the text is only built when it is
shown, so the coordinator pays next to nothing per move (``arena bench -s progress``).
"""

from __future__ import annotations

import sys
import time
from collections.abc import Callable, Sequence
from typing import TYPE_CHECKING, Any, Literal

from ..record import GameRecord, lost_before_start
from ..results.ratings import pair_elo
from ..results.sprt import SprtTest

if TYPE_CHECKING:
    from ..results.export import Summary

Mode = Literal["live", "lines", "quiet"]

ETA_AFTER_GAMES = 5  # the rate, and so the time left, is shown once this run played this many
ETA_AFTER_S = 5.0  # ... and ran this long: the first games carry the engines' start-up
SHOWN_LEADERS = 4  # at most, when the width does not limit them


def _to_stderr(text: str) -> None:
    print(text, file=sys.stderr, flush=True)


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
        warn: Callable[[str], None] = _to_stderr,
    ) -> None:
        self.engines = list(engines)
        self.players = players
        self.mode = mode
        self.report_every = max(1, report_every)
        self.echo = echo
        self.clock = clock
        self.game_note = game_note  # a line per game (e.g. its trace file), after its Finished line
        self._warn = warn
        self.dropped: set[str] = set()
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
        if self.mode != "quiet":
            self._above(finished_line(record), crop=True)
            if self.game_note is not None:
                self._above(self.game_note(record), crop=True)
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

    def on_start_failure(self, engine: str, reason: str) -> None:
        self.warn(f"arena: engine {engine} failed its start-up check ({reason}); its games go on and record the fault")

    def on_drop(self, engine: str, why: str) -> None:
        self.dropped.add(engine)
        self.warn(f"arena: engine {engine} dropped after {why}; its remaining games are lost without starting it")

    def warn(self, text: str) -> None:
        """A line the user must see whatever the mode: above the live lines, else on stderr."""
        self._above(text, crop=False) if self._live is not None else self._warn(text)

    def on_end(self, summary: Summary) -> None:
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
        if len(self.engines) == 2 and self.players == 2 and not lost_before_start(record):
            # the head-to-head table's games: those both engines played
            first = record["players"].index(self.engines[0])
            mine, theirs = places[first], places[1 - first]
            self.wld[0 if mine < theirs else 1 if mine > theirs else 2] += 1

    def lines(self, width: int | None = None) -> list[str]:
        """The progress lines; with ``width``, the leaders that fit in it."""
        lines = [self._games_line()]
        if len(self.engines) == 2 and self.players == 2:
            lines.append(self._score_line())
        else:
            lines.append(self._leaders_line(width))
        if self.sprt is not None:
            s = self.sprt
            lines.append(f"SPRT {s.status_text()} after {s.pairs} pairs" + (f": {s.outcome}" if s.outcome else ""))
        return lines

    def _games_line(self) -> str:
        total = self._total()
        pct = min(100 * self.done / total, 100.0) if total else 100.0
        upto = "up to " if self.sprt is not None and self.sprt.decision is None else ""
        text = f"Games {self.done} of {upto}{total} ({pct:.1f}%)"
        elapsed = self.clock() - self.started_at
        if self.played_here < ETA_AFTER_GAMES or elapsed < ETA_AFTER_S:
            return text  # not steady yet: the first games carry the engines' start-up
        rate = self.played_here / elapsed * 60
        left = max(total - self.done, 0)
        return text + f", {rate:.1f} games/min, ETA {_duration(left / rate * 60) if left else '-'}"

    def _total(self) -> int:
        """Games of the whole run: under an SPRT the most it may play, and once it decided,
        the games played (those running at the decision still finish and count)."""
        if self.sprt is None:
            return self.total
        return self.done if self.sprt.decision is not None else self.sprt.games_needed

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

    def _leaders_line(self, width: int | None = None) -> str:
        """The best scores first, dropped engines last; as many as fit in ``width``."""
        ranked = sorted(
            (e for e in self.engines if self.games[e]),
            key=lambda e: (e in self.dropped, -self.points[e] / self.games[e], e),
        )
        entries = [self._leader(e) for e in ranked]
        shown = min(len(entries), SHOWN_LEADERS if width is None else len(entries))
        while True:
            more = len(entries) - shown
            text = "Leaders: " + (", ".join(entries[:shown]) or "-") + (f", +{more} more" if more else "")
            if width is None or len(text) <= width or shown == 0:
                return text
            shown -= 1

    def _leader(self, engine: str) -> str:
        if engine in self.dropped:
            return f"{engine} dropped"
        return f"{engine} {100 * self.points[engine] / self.games[engine]:.1f}% ({self.games[engine]})"

    def _above(self, text: str, crop: bool) -> None:
        """A line printed once, above the live lines (cut to the width if ``crop``)."""
        if self._live is None:
            self.echo(text)
            return
        from rich.console import OverflowMethod
        from rich.text import Text

        overflow: OverflowMethod = "ellipsis" if crop else "fold"
        # print's own no_wrap and overflow too: its defaults override the Text's (rich 15), which wrapped a cut line
        line = Text(text, no_wrap=crop, overflow=overflow)
        self._live.console.print(line, markup=False, highlight=False, crop=crop, no_wrap=crop, overflow=overflow)

    def _draw(self) -> None:
        from rich.text import Text

        assert self._live is not None
        width = self._live.console.width
        text = Text("\n".join(self.lines(width)), no_wrap=True, overflow="ellipsis")
        self._live.update(text, refresh=True)
        self._next_draw = self.clock() + self.min_interval


def _duration(seconds: float) -> str:
    seconds = int(seconds)
    hours, rest = divmod(seconds, 3600)
    minutes, secs = divmod(rest, 60)
    return f"{hours}h{minutes:02d}m" if hours else f"{minutes}m{secs:02d}s"


def finished_line(record: GameRecord) -> str:
    """``Finished game 12 (a vs b): 1-0 {Red connected}, 21 plies``, as cutechess-cli says
    it: the engines in seat order, the result (points for two seats, places for more) and
    why the game ended (a forfeit's code first)."""
    reason = record["reason"] if record["termination"] == "normal" else f"{record['termination']}: {record['reason']}"
    plies = len(record["moves"])
    return (
        f"Finished game {record['id']} ({' vs '.join(record['players'])}): {result_text(record['places'])} "
        f"{{{reason}}}, {plies} {'ply' if plies == 1 else 'plies'}"
    )


def result_text(places: Sequence[int]) -> str:
    """Two seats: ``1-0``, ``0-1`` or ``1/2-1/2`` (PGN's); more: each seat's place, ``places 2-1-3``."""
    if len(places) == 2:
        first, second = places
        return "1/2-1/2" if first == second else "1-0" if first < second else "0-1"
    return "places " + "-".join(str(p + 1) for p in places)
