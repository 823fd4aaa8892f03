"""A tournament played the way ``arena run`` plays it in a terminal: the progress chosen for
where the output goes, a cluster from the command line or the file, a warning when more games
run at once than there are cores, the run log and the live report site attached, the machine's
load watched. The command line parses and prints; this is what it calls."""

from __future__ import annotations

from collections.abc import Callable, Sequence
from dataclasses import dataclass
from pathlib import Path

from ..engine.proctree import usable_cpus
from ..engine.trace import trace_path
from ..record import GameRecord
from ..results.logfile import attach_run_log
from .cluster import ClusterError, ClusterSpec
from .config import Tournament
from .load import LoadWatch
from .observers import RunObserver, live_site
from .progress import Mode, Progress
from .runner import RunSummary, run_tournament


@dataclass(frozen=True)
class Foreground:
    """How to play and show a run: ``workers``, ``idle_engines`` and ``cluster_address`` over the
    file's (None: the file's); ``terminal``: stdout is one (live progress, else lines)."""

    workers: int | None = None
    quiet: bool = False
    terminal: bool = False
    report_every: int = 10
    trace: bool = False
    cluster_address: str | None = None
    idle_engines: int | None = None
    forfeit_failed_engines: bool = False


def progress_mode(quiet: bool, terminal: bool) -> Mode:
    """Nothing but the tables when quiet; a live board on a terminal; else a line every N games."""
    return "quiet" if quiet else "live" if terminal else "lines"


def play_in_foreground(
    t: Tournament,
    out: Path,
    how: Foreground,
    observers: Sequence[RunObserver],
    echo: Callable[[str], None],
    alert: Callable[[str], None],
) -> RunSummary:
    """Play ``t`` into ``out`` with progress through ``echo``; ``alert`` takes a warning that
    comes before the run. Raises what run_tournament raises, and ClusterError naming where a bad
    cluster address was given."""
    note = (lambda record: _trace_note(out, record)) if how.trace else None
    progress = Progress(
        [e.name for e in t.engines],
        t.game.players,
        progress_mode(how.quiet, how.terminal),
        report_every=how.report_every,
        echo=echo,
        game_note=note,
    )
    cluster = _cluster(t, how, progress.warn)
    if cluster is None and (warning := too_many_workers(how.workers or t.data.workers)) is not None:
        alert(warning)
    attach_run_log(out)
    site = live_site(out / "report", t)  # before the progress: its pages are fresh when a line shows
    try:
        return run_tournament(
            t,
            out,
            how.workers,
            [*observers, site, progress],
            cluster=cluster,
            trace=how.trace,
            idle_engines=how.idle_engines,
            forfeit_failed_engines=how.forfeit_failed_engines,
            load=None if cluster else LoadWatch(warn=progress.warn),  # a cluster's load is its machines'
        )
    finally:
        progress.close()


def _trace_note(out: Path, record: GameRecord) -> str:
    return f"game {record['id']}: trace: {trace_path(out / 'traces', record['id'])}"


def _cluster(t: Tournament, how: Foreground, warn: Callable[[str], None]) -> ClusterSpec | None:
    """The cluster the command line names, else the file's; None: play here."""
    given = how.cluster_address
    address = given if given is not None else t.data.cluster.address if t.data.cluster else None
    if address is None:
        return None
    where = "--cluster" if given is not None else f"{t.path}: [cluster] address"
    try:
        return ClusterSpec.parse(address, echo=warn, tell=None if how.quiet else warn)
    except ClusterError as exc:
        raise ClusterError(f"{where}: {exc}") from None


def too_many_workers(workers: int) -> str | None:
    """More games at once than cores: engines think in turns with other games' engines, so
    each gets less CPU than its clock assumes (fastchess's concurrency advice)."""
    cores = len(usable_cpus())
    if workers <= cores:
        return None
    return (
        f"{workers} workers on {cores} core{'s' if cores != 1 else ''}: games in parallel share the "
        f"CPUs, so engines get less thinking time than their clocks allow; --workers {cores} avoids it"
    )
