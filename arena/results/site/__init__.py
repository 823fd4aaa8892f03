"""The report site: a static, self-contained HTML site of a results folder.

``report/`` opens from disk (``file://``) or any web host: no server, no network, no
CDN.  Pages: standings (``index.html``), cross table and head to head
(``crosstable.html``), engines' statistics and faults (``engines.html``), the list of
games (``games.html``, filtered and paginated in the browser from one compact index
script, and linking the paged lists ``lists/<K>.html`` of ``LIST_SIZE`` games each, plain
HTML) and the tournament's settings (``settings.html``).  The games of each paged list
share one viewer page (``games/<K>.html?game=<id>``): it holds their data (what the page
shows of each record and the frames the referee computed, ``boards.replay``) and draws the
game its address names from its board's geometry file (``boards/<key>.js``).  One page per
list, not per game: a folder of 100,000 games is 200 viewer pages, not 100,000 files each
rendered through the templates.

Games never change once stored, so a full list's viewer page is written once:
``.manifest.json`` remembers which games are written for this version of the site's code
and templates, and a refresh during a run rewrites only the summary pages and the lists
and viewer pages the new games are on (the data of a page still filling is kept, so only
the new games are replayed); what the summary shows of every game is kept as tallies
between refreshes, so a refresh costs the new games (and the field), not every game again.
Every file is written to a temporary name and renamed, so a browser reloading during a
run never reads half a page.
"""

from __future__ import annotations

import functools
import hashlib
import json
import logging
import multiprocessing
import os
import signal
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass, field
from datetime import UTC, datetime
from pathlib import Path
from typing import Any, TypedDict

import jinja2
import markupsafe

from ...record import GameRecord, lost_before_start
from ...rules import Game, IllegalMove, OptionError, make_game
from ...rules.base import Options
from .. import strictjson
from ..elo import Tally, fit_tally, prior_of
from ..export import (
    Summary,
    bracket_lines,
    event_table,
    field_elo_label,
    games_elo_label,
    ranked_standings,
    read_for_summary,
)
from ..fingerprint import StoredSettings
from ..ratings import HeadToHead, StandingsTally, count_head_to_head, note_dropped
from ..sprt import SprtSummary, outcome_text, sprt_lines
from ..stats import EngineStats, StatsTally
from ..store import StorageError, collector_paused
from ..tiebreaks import EventSummary, event_summary
from . import boards, pages, palette, plots

HERE = Path(__file__).resolve().parent
RULES = HERE.parent.parent / "rules"  # the built-in games
log = logging.getLogger("arena.site")
ASSETS = ("site.css", "tables.js", "board.js", "viewer.js", "games.js")


@dataclass
class SiteData:
    """What a site is made from: the stored games and what is known of the tournament.
    Its summary pages show ``summary``, the one the terminal and the exports show; without
    one (a run still going) they show the games counted so far (:class:`_Tallies`)."""

    title: str
    game: str
    options: Options
    engines: list[str]
    records: list[GameRecord]
    settings: StoredSettings | None = None  # the tournament file, as validated
    summary: Summary | None = None  # the folder's or the finished run's summary (its records are ``records``)
    progress: tuple[int, int] | None = None  # (finished, scheduled) while a run goes on
    elo_prior: float | None = None  # a live summary's BayesElo virtual draws; None: the settings' elo_prior
    # The folder's summary made when the summary pages need it (load_folder's ``later``): after
    # the viewer pages' writers have forked, so that they replay the games meanwhile.
    summarize: Callable[[SiteData], None] | None = None


@dataclass(frozen=True)
class PageHeader:
    """The facts every page's header shows."""

    title: str
    game: str
    options: Options
    games: int
    progress: tuple[int, int] | None  # (finished, scheduled) while a run goes on
    written: str  # when (UTC); "" on a game's page, which is written once


class Manifest(TypedDict):
    """``.manifest.json``: the pages already written, for this version of the site."""

    version: str  # the site's code and templates, the game and the time control
    games: list[list[int]]  # the games whose pages are written, as runs of ids [first, last]
    boards: list[str]  # the boards whose geometry files are written


class SiteError(Exception):
    """A results folder the site cannot be made from; the message says what to do."""


def template_environment() -> jinja2.Environment:
    """The site's templates, autoescaped and strict: every page of the site (and the rating
    list's page) is rendered through it."""
    env = jinja2.Environment(
        loader=jinja2.FileSystemLoader(HERE / "templates"),
        bytecode_cache=_template_cache(),
        autoescape=True,
        undefined=jinja2.StrictUndefined,
        trim_blocks=True,
        lstrip_blocks=True,
        finalize=_shown,
    )
    env.filters["options"] = pages.options_text
    env.policies["json.dumps_function"] = strictjson.dumps  # |tojson: a game page's data is strict JSON
    return env


def _template_cache() -> jinja2.BytecodeCache | None:
    """Compiled templates kept between runs (compiling them costs a run's site more CPU than
    a few hundred game pages); keyed by each template's source, so an edit recompiles it.
    None where no cache folder can be made: the templates are then compiled each run."""
    folder = Path(os.environ.get("XDG_CACHE_HOME") or Path.home() / ".cache") / "arena" / "templates"
    try:
        folder.mkdir(parents=True, exist_ok=True)
    except OSError:
        return None
    return _TemplateCache(str(folder))


class _TemplateCache(jinja2.FileSystemBytecodeCache):
    """A cache that can only make pages faster: a damaged entry is compiled afresh, and one
    that cannot be written (a full disk, a read-only home) is not kept."""

    def load_bytecode(self, bucket: jinja2.bccache.Bucket) -> None:
        try:
            super().load_bytecode(bucket)
        except Exception:  # truncated or foreign bytes: a miss
            bucket.reset()

    def dump_bytecode(self, bucket: jinja2.bccache.Bucket) -> None:
        try:
            super().dump_bytecode(bucket)
        except OSError:
            pass


def _shown(value: Any) -> Any:
    """What a page prints for a value: never Python's None, True or False."""
    if value is None:
        return ""
    if isinstance(value, bool):
        return "yes" if value else "no"
    return value


@functools.cache
def _code_version() -> str:
    """Changes whenever the site's code or templates do, or the rules' (the pages replay the
    games through them, and each board's file holds its game's marks): game pages and board
    files are then rewritten."""
    digest = hashlib.sha256()
    for path in sorted([*HERE.rglob("*"), *RULES.glob("*.py")]):
        if path.is_file() and path.suffix in (".py", ".html", ".js", ".css"):
            digest.update(path.name.encode() + path.read_bytes())
    return digest.hexdigest()[:16]


class SiteWriter:
    """Writes a site into ``folder``; call :meth:`write` again to refresh it."""

    def __init__(self, folder: Path, parallel: bool = True) -> None:
        self.folder = folder
        self.parallel = parallel  # many new game pages: write them in forked processes
        self.env = template_environment()
        self._manifest_path = folder / ".manifest.json"
        self._manifest: Manifest | None = None
        self._written: set[int] = set()  # the manifest's games, as a set
        self._tallies = _Tallies()
        self._unchanged: dict[Path, str] = {}  # what this writer last wrote to a file it rewrites
        self._arrivals = _Arrivals()  # the games this writer has written
        self._index_rows: list[str] = []  # each game's row of the games index, as JSON ...
        self._index_key: tuple[tuple[str, ...], tuple[str, ...]] = ((), ())  # ... for these engines and codes
        self._lists: dict[int, dict[int, pages.ListedGame]] = {}  # the paged lists' games: page -> id -> row
        self._entries: dict[int, str] = {}  # the viewer's data of each game on a page still filling
        self._list_pages: list[int] = []  # the pages written, in order
        self._sweep = False  # remove the pages of games/ that are not this site's viewer pages

    def write(self, data: SiteData) -> Path:
        """Write or refresh every page; returns the index page."""
        with collector_paused():  # the replays' frames, beside every record (see collector_paused)
            return self._write_pages(data)

    def _write_pages(self, data: SiteData) -> Path:
        for sub in ("games", "lists", "boards", "assets", "data", "plots"):
            (self.folder / sub).mkdir(parents=True, exist_ok=True)
        manifest = self._load_manifest(data)
        for name in ASSETS:
            self._write_changed(self.folder / "assets" / name, asset_text(name))
        fresh, again = self._arrivals.new(data.records)
        lists_due = self._list_games(fresh, again)
        due = self._viewers_due(fresh)
        records = self._records_of(data, fresh, due)
        self._boards(list(records.values()), manifest)
        # Full pages never change again: their games are not kept. A page still filling (a
        # run's last) keeps its games' data, so a refresh makes only the new games' data.
        full = [k for k in due if len(self._lists[k]) >= LIST_SIZE]
        filling = [k for k in due if len(self._lists[k]) < LIST_SIZE]
        processes = min(os.cpu_count() or 1, MAX_PROCESSES) if self.parallel else 1
        if len(full) >= PARALLEL_FROM and processes > 1:
            # Forked workers write the full pages while this process writes the lists and the summary.
            global _JOB
            _JOB = (self, data, records)
            chunks = [full[k::processes] for k in range(processes)]
            with multiprocessing.get_context("fork").Pool(processes, initializer=_plain_signals) as pool:
                pending = pool.map_async(_write_viewers_in_child, chunks)
                for page in filling:
                    self._viewer_page(data, page, records)
                self._write_lists(data, lists_due)
                self._summary_pages(data, fresh, again)
                pending.get()
            _JOB = None
            for page in full:
                self._forget(page)
        else:
            for page in due:
                self._viewer_page(data, page, records)
            self._write_lists(data, lists_due)
            self._summary_pages(data, fresh, again)
        if due:
            self._written.update(k for page in due for k in self._lists[page])
            manifest["games"] = _runs(self._written)
        self._arrivals.take(data.records, fresh)
        _write(self._manifest_path, strictjson.dumps(manifest, separators=(",", ":")))
        if self._sweep:
            self._sweep_viewers()
        return self.folder / "index.html"

    def _sweep_viewers(self) -> None:
        """Remove the files of ``games/`` that are not a viewer page of this site: a site written
        again into a report folder of an older arena (one page per game) would keep them all."""
        self._sweep = False
        for path in (self.folder / "games").iterdir():
            ours = path.suffix == ".html" and path.stem.isascii() and path.stem.isdigit()  # "²" is no page id
            if not (ours and int(path.stem) in self._lists):
                path.unlink(missing_ok=True)

    def _load_manifest(self, data: SiteData) -> Manifest:
        # Game pages depend on the code, the game and the time control (the clocks).
        version = _code_version() + strictjson.dumps(
            [data.game, data.options, (data.settings or {}).get("time_control")], sort_keys=True
        )
        if self._manifest is not None and self._manifest.get("version") == version:
            return self._manifest  # this writer's own, kept in step with the pages it wrote
        found = self._read_manifest() if self._manifest is None else None
        if found is not None and found[0].get("version") == version:
            self._manifest, self._written = found
        else:
            self._manifest, self._written = {"version": version, "games": [], "boards": []}, set()
            self._sweep = True  # written anew: what an older site left in games/ goes
        return self._manifest

    def _read_manifest(self) -> tuple[Manifest, set[int]] | None:
        """The manifest a writer before this one left, with its games as a set (None: none
        that can be read, so every page is written again)."""
        try:
            manifest = json.loads(self._manifest_path.read_text(encoding="utf-8"))
            written = {k for first, last in manifest["games"] for k in range(first, last + 1)}
            return manifest, written
        except (OSError, ValueError, KeyError, TypeError):
            return None

    # -- one game -------------------------------------------------------------

    def _boards(self, records: list[GameRecord], manifest: Manifest) -> None:
        """The geometry file of every board these games are played on."""
        games: dict[str, GameRecord] = {}
        last: GameRecord | None = None
        for r in records:  # a folder's games are mostly on one board: a key only where it changes
            if last is None or r.game != last.game or r.options != last.options:
                games.setdefault(json.dumps([r.game, r.options], sort_keys=True), r)
                last = r
        for record in games.values():
            try:
                game = make_game(record.game, record.options)
            except OptionError:
                continue  # its game page says the record cannot be replayed
            key = boards.board_key(game)
            if key not in manifest["boards"] or not (self.folder / "boards" / f"{key}.js").exists():
                geometry = boards.board_geometry(game)
                _write(
                    self.folder / "boards" / f"{key}.js",
                    "window.ARENA_BOARD = " + strictjson.dumps(geometry, separators=(",", ":")) + ";\n",
                )
                manifest["boards"].append(key)

    def _viewers_due(self, fresh: Sequence[GameRecord]) -> list[int]:
        """The viewer pages (``games/K.html``: the games of ``lists/K.html``) to write: those
        the new games are on, unless every game on one is written there already (a site
        written before, for this version of the site)."""
        touched = sorted({(r.id or 0) // LIST_SIZE for r in fresh})
        written = self._written
        return [
            page
            for page in touched
            if not written.issuperset(self._lists[page]) or not (self.folder / "games" / f"{page}.html").exists()
        ]

    def _records_of(self, data: SiteData, fresh: Sequence[GameRecord], due: Sequence[int]) -> dict[int, GameRecord]:
        """The records of the games on ``due`` pages whose data is not kept, by id: found among
        the new games (a refresh), else among all (a site's first write)."""
        needed = {k for page in due for k in self._lists[page] if k not in self._entries}
        found = {r.id or 0: r for r in fresh if (r.id or 0) in needed}
        if len(found) < len(needed):
            found = {r.id or 0: r for r in data.records if (r.id or 0) in needed}
        return found

    def _viewer_page(self, data: SiteData, page: int, records: Mapping[int, GameRecord]) -> None:
        """``games/K.html``: the viewer with the data of every game of the page's list; the
        address says which game it shows (``?game=ID``).  The data of a page still filling is
        kept for its next write."""
        keep = len(self._lists[page]) < LIST_SIZE
        entries = []
        for game_id in sorted(self._lists[page]):
            entry = self._entries.get(game_id)
            if entry is None:
                entry = self._game_entry(data, records[game_id])
                if keep:
                    self._entries[game_id] = entry
            entries.append(f'"{game_id}":{entry}')
        text = self.env.get_template("game.html").render(
            site=self._site_context(data, summary=False),
            root="../",
            page=page,
            first=page * LIST_SIZE,
            last=page * LIST_SIZE + LIST_SIZE - 1,
            data=_script_markup('{"games":{' + ",".join(entries) + "}}"),
        )
        _write(self.folder / "games" / f"{page}.html", text)
        if not keep:
            self._forget(page)

    def _forget(self, page: int) -> None:
        """Drop the kept data of a page's games (a full page is written for good)."""
        for game_id in self._lists[page]:
            self._entries.pop(game_id, None)

    def _game_entry(self, data: SiteData, record: GameRecord) -> str:
        """A game's data on its viewer page, as strict JSON: what the page shows of the record
        and, unless the rules cannot replay it, the positions the referee computed."""
        shown = {
            "id": record.id,
            "round": record.round,
            "players": list(record.players or []),
            "result": pages.result_text(record),
            "termination": str(record.termination),
            "reason": record.reason if "reason" in record else "",
            "started": record.get("started"),
            "duration_s": record.get("duration_s"),
        }
        try:
            replayed = boards.replay(record)
        except (IllegalMove, OptionError, ValueError, KeyError, TypeError) as exc:
            # A record the rules cannot replay (edited by hand, or from another version):
            # its page says so; the rest of the site is still written.
            log.warning("game %s: cannot replay its record (%s); its page shows no board", record.id, exc)
            shown.update(colours=[""] * len(shown["players"]), moves=list(record.moves), error=str(exc))
            return strictjson.compact(shown)
        moves = pages.move_data(record, (data.settings or {}).get("time_control"))
        shown.update(
            colours=replayed.colours,
            board=replayed.board,
            frames=replayed.frames,
            cells=replayed.cells,
            game=record.game,
            error="",
            **moves,
        )
        return strictjson.compact(shown)

    # -- the paged lists of games --------------------------------------------

    def _list_games(self, fresh: Sequence[GameRecord], again: bool) -> list[int]:
        """The games new to this writer put on the paged lists (``lists/K.html``: the games
        numbered ``K * LIST_SIZE`` to ``K * LIST_SIZE + LIST_SIZE - 1``, each linking its
        games' pages; every page, in order, in ``_list_pages``).  Returns the pages to write:
        those the new games change, and their neighbours' when a page is new (their links to
        it); the others stay as they are.  Written apart (:meth:`_write_lists`), so a site's
        first write renders them while forked workers replay the games."""
        if again:  # other games than before: listed all again
            self._lists, self._entries = {}, {}
        before = set(self._lists)
        touched = set()
        for record in fresh:
            page = (record.id or 0) // LIST_SIZE
            self._lists.setdefault(page, {})[record.id or 0] = pages.listed_game(record)
            touched.add(page)
        order = self._list_pages = sorted(self._lists)
        for page in set(order) - before:
            at = order.index(page)
            touched.update(order[max(0, at - 1) : at + 2])
        return sorted(touched)

    def _write_lists(self, data: SiteData, due: Sequence[int]) -> None:
        """Write the ``due`` pages of the paged lists (:meth:`_list_games`)."""
        order = self._list_pages
        header = self._site_context(data, summary=False)  # nothing on it changes as games come
        template = self.env.get_template("gamelist.html")
        for page in due:
            at = order.index(page)
            text = template.render(
                site=header,
                root="../",
                games=[row for _, row in sorted(self._lists[page].items())],
                first=page * LIST_SIZE,
                last=page * LIST_SIZE + LIST_SIZE - 1,
                size=LIST_SIZE,
                previous=order[at - 1] if at > 0 else None,
                following=order[at + 1] if at + 1 < len(order) else None,
            )
            _write(self.folder / "lists" / f"{page}.html", text)

    # -- the summary pages ----------------------------------------------------

    def _site_context(self, data: SiteData, summary: bool = True) -> PageHeader:
        """The header's facts; a game page, written once, shows none that change."""
        written = datetime.now(UTC).strftime("%Y-%m-%d %H:%M:%S UTC") if summary else ""
        progress = data.progress if summary else None
        return PageHeader(data.title, data.game, data.options, len(data.records), progress, written)

    def _summary_pages(self, data: SiteData, fresh: Sequence[GameRecord], again: bool) -> None:
        if data.summarize is not None:
            summarize, data.summarize = data.summarize, None
            summarize(data)
        summary = data.summary or self._tallies.summary(data)
        # A running site's figures over every game from its tallies: counting every record
        # again would make a refresh cost more the more games a run has.
        if data.summary is None:
            label, terminations = games_elo_label(self._tallies.played()), self._tallies.terminations()
        else:
            label, terminations = field_elo_label(summary.records), summary.terminations
        tables = pages.summary_tables(summary)
        elo = pages.elo_table(summary.elo, summary.dropped)
        stats = pages.stats_table(summary.game, _in_order(summary.stats, tables.order))
        common = {
            "site": self._site_context(data),
            "root": "",
            "plots": self._plots(tables, elo, summary.sprt),
            "tables": tables,
            "dropped": summary.dropped,
            "not_recorded": summary.not_recorded,
            "terminations": sorted(terminations.items()),
            "sprt": [] if summary.sprt is None else sprt_lines(summary.sprt),
            "not_recorded_rows": [[e] for e in summary.not_recorded],
            "not_counted_rows": [[r.id, r.why] for r in summary.refused],
            "elo": elo,
            "elo_label": label,
            "stats": stats,
            "event": summary.event and _event_view(summary.event),
        }
        for name, extra in (
            ("index.html", {}),
            ("crosstable.html", {}),
            ("engines.html", {}),
            ("settings.html", {"settings": data.settings and pages.settings_page(data.settings)}),
            (
                "games.html",
                {
                    "engines": tables.order,
                    "termination_names": sorted(terminations),
                    "list_pages": self._list_pages,
                    "list_size": LIST_SIZE,
                },
            ),
        ):
            _write(self.folder / name, self.env.get_template(name).render(**common, **extra))
        index = self._games_index(data, fresh, again, tables.order, sorted(terminations))
        self._write_changed(self.folder / "data" / "games-index.js", index)

    def _plots(self, tables: pages.SummaryTables, elo: pages.EloTable, sprt: SprtSummary | None) -> dict[str, str]:
        files = {}
        if len(elo.plotted) > 1:
            self._write_changed(self.folder / "plots" / "elo.svg", plots.elo_plot(elo.plotted))
            files["elo"] = "plots/elo.svg"
        if data_points := {k: v for k, v in tables.history.items() if v}:
            self._write_changed(self.folder / "plots" / "ratings.svg", plots.ratings_plot(data_points))
            files["ratings"] = "plots/ratings.svg"
        if len(tables.order) > 1 and any(v is not None for row in tables.matrix for v in row):
            self._write_changed(
                self.folder / "plots" / "scores.svg", plots.score_matrix_plot(tables.order, tables.matrix)
            )
            files["scores"] = "plots/scores.svg"
        if sprt is not None and sprt.llr_history:  # the bounds and the LLR after each pair
            label = f"{sprt.engine} vs {sprt.opponent}: {outcome_text(sprt.decision, sprt.engine)}"
            self._write_changed(
                self.folder / "plots" / "sprt.svg",
                plots.sprt_plot(list(sprt.llr_history), sprt.lower_bound, sprt.upper_bound, label),
            )
            files["sprt"] = "plots/sprt.svg"
        return files

    def _write_changed(self, path: Path, text: str) -> None:
        """Write ``path`` unless this writer last wrote it with this very text (and it is there)."""
        if self._unchanged.get(path) == text and path.exists():
            return
        _write(path, text)
        self._unchanged[path] = text

    def _games_index(
        self, data: SiteData, fresh: Sequence[GameRecord], again: bool, engines: Sequence[str], codes: Sequence[str]
    ) -> str:
        """One compact row per game for the games list: the browser filters and pages it.  A
        game's row is made once (while the engines' order and the terminations stay), so a
        refresh makes the rows of the new games and joins them to the others."""
        names, rows = list(engines), self._index_rows
        key = (tuple(names), tuple(codes))
        if again or self._index_key != key:
            self._index_key, rows[:], fresh = key, [], data.records
        for r in fresh:
            row = [
                r.id,
                r.round,
                [names.index(p) for p in r.players or []],
                codes.index(str(r.termination)),
                -1 if r.winner is None else r.winner,
                len(r.moves),
                r.reason if "reason" in r else "",
            ]
            rows.append(strictjson.compact(row))
        head = strictjson.dumps(
            {"engines": names, "terminations": list(codes), "list_size": LIST_SIZE}, separators=(",", ":")
        )
        return f'window.ARENA_INDEX = {head[:-1]},"games":[{",".join(rows)}]}};\n'


class _Arrivals:
    """Which of a site's records are new since the last write.  A running site's records only
    grow at their end (the live site appends each game that comes), so while the record last
    taken is still in its place the new ones are those after it, found without looking at
    every game; else (other records: a folder's summary, or another folder) each is looked
    up by id, and ``again`` says when the records are not the ones taken before plus new ones."""

    def __init__(self) -> None:
        self.ids: set[int | None] = set()
        self.count = 0  # records taken
        self.last: GameRecord | None = None

    def new(self, records: Sequence[GameRecord]) -> tuple[Sequence[GameRecord], bool]:
        """The records not taken yet, and whether the ones taken are not all among them (then
        every record is returned, to be counted again)."""
        if self.count and self.count <= len(records) and records[self.count - 1] is self.last:
            return records[self.count :], False
        fresh = [r for r in records if r.id not in self.ids]
        if len(records) - len(fresh) != self.count:
            self.ids, self.count = set(), 0
            return records, True
        return fresh, False

    def take(self, records: Sequence[GameRecord], fresh: Sequence[GameRecord]) -> None:
        """``records`` are taken, ``fresh`` (what :meth:`new` gave) among them."""
        self.ids.update(r.id for r in fresh)
        self.count += len(fresh)
        self.last = records[-1] if records else None


@dataclass
class _Counted:
    standings: StandingsTally
    stats: StatsTally
    elo: Tally
    pairs: dict[tuple[str, str], HeadToHead] = field(default_factory=dict)
    dropped: dict[str, str] = field(default_factory=dict)
    played: int = 0  # games not lost before their first move (the Elo label's count)
    terminations: dict[str, int] = field(default_factory=dict)


class _Tallies:
    """The summary of a run's games counted so far, its tallies kept from one write to the
    next: a live site's games only grow, so a refresh counts the new ones only (and rates
    them, when they come after the others in ``id`` order; else the ratings are redone).  A
    stored game never changes, so a game is known by its ``id``.  Every figure over all the
    games (the Elo fit's counts, head to head, drops, terminations) is a tally too, so a
    refresh costs the new games and the field, never every game again."""

    def __init__(self) -> None:
        self.arrivals = _Arrivals()
        self.key: tuple[str, str, tuple[str, ...]] | None = None
        self.counted: _Counted | None = None

    def summary(self, data: SiteData) -> Summary:
        """The summary of ``data``'s games as :func:`~arena.results.export.summarize` makes
        it, from the tallies (the Elo fit is made afresh: a new game moves every rating)."""
        rules = make_game(data.game, data.options)
        counted = self.update(data, rules)
        dropped = counted.dropped
        prior = prior_of(data.settings) if data.elo_prior is None else data.elo_prior
        fit = fit_tally(counted.elo, prior=prior)
        return Summary(
            tournament=data.title,
            game=data.game,
            options=data.options,
            players=rules.players,
            records=data.records,
            standings=ranked_standings(counted.standings.standings(), fit, dropped),
            elo=fit,
            pairs=dict(counted.pairs),
            stats=counted.stats.table(data.engines),
            dropped=dropped,
            history=counted.standings.history,
            settings=data.settings,
            event=event_summary(data.records, data.engines, data.settings, rules.players),
        )

    def played(self) -> int:
        """The games counted that an engine played (not lost before their first move)."""
        return 0 if self.counted is None else self.counted.played

    def terminations(self) -> dict[str, int]:
        """The games counted by termination code, in order of first appearance (as Summary's)."""
        return {} if self.counted is None else dict(self.counted.terminations)

    def update(self, data: SiteData, rules: Game) -> _Counted:
        key = (data.game, strictjson.dumps(data.options, sort_keys=True), tuple(data.engines))
        new, again = self.arrivals.new(data.records)
        if self.counted is None or key != self.key or again:
            self.key, self.arrivals, new = key, _Arrivals(), data.records
            self.counted = _Counted(
                StandingsTally(data.engines, rules.players, can_draw=rules.can_draw, history=True),
                StatsTally(replayed=True),  # a run's games, or a folder's as admitted (replayed)
                Tally(data.engines),
            )
        counted = self.counted
        if new and min(r.id or 0 for r in new) <= counted.standings.last_id:  # out of order: rate again
            counted.standings = pages.standings_tally(data.engines, data.records, rules.players, rules.can_draw)
        else:
            for record in sorted(new, key=lambda r: r.id or 0):
                counted.standings.add(record)
        for record in new:  # in the order the games came, as dropped_engines reads them
            note_dropped(counted.dropped, record)
            counted.stats.add(record)
            counted.elo.add_record(record)
            count_head_to_head(counted.pairs, record)
            counted.played += not lost_before_start(record)
            code = str(record.termination)
            counted.terminations[code] = counted.terminations.get(code, 0) + 1
        self.arrivals.take(data.records, new)
        return counted


class EventView(TypedDict):
    """What the index page shows of an event: its table (the terminal's rows) and bracket."""

    title: str
    headers: list[str]
    rows: list[list[Any]]
    bracket: list[str]
    stopped: str  # why a Swiss event ended before its rounds, or ""


def _event_view(event: EventSummary) -> EventView:
    headers, rows = event_table(event)
    title = f"{event.format.capitalize()} standings" + ("" if event.finished else " (so far)")
    lines = bracket_lines(event) if event.bracket else []
    return EventView(title=title, headers=headers, rows=rows, bracket=lines, stopped=event.stopped or "")


def _runs(ids: set[int]) -> list[list[int]]:
    """``ids`` as runs of consecutive ids, ``[first, last]``: a run's games are mostly one run,
    so the manifest stays a few bytes however many games a site has."""
    runs: list[list[int]] = []
    for k in sorted(ids):
        if runs and runs[-1][1] == k - 1:
            runs[-1][1] = k
        else:
            runs.append([k, k])
    return runs


def _in_order(stats: Mapping[str, EngineStats], order: Sequence[str]) -> dict[str, EngineStats]:
    """The engines' statistics, those of ``order`` first, in its order."""
    return {name: stats[name] for name in [*order, *stats] if name in stats}


LIST_SIZE = 500  # games a page of the paged lists: a page of about 100 KB

# Full viewer pages worth forking for: a page of 500 games costs about a tenth of a second
# (replaying them), and forking the writers costs tens of milliseconds of CPU (their copied
# pages), so only a large batch (a whole site's build, a resumed run's first write) saves
# more time than it costs.
PARALLEL_FROM = 4
MAX_PROCESSES = 4
_JOB: tuple[SiteWriter, SiteData, Mapping[int, GameRecord]] | None = None  # what forked workers inherit


def _write_viewers_in_child(viewer_pages: list[int]) -> None:
    assert _JOB is not None
    writer, data, records = _JOB
    for page in viewer_pages:
        writer._viewer_page(data, page, records)


def _script_markup(text: str) -> markupsafe.Markup:
    """Strict JSON text to paste in a ``<script type="application/json">`` block, as Jinja's
    ``tojson`` writes it (``<``, ``>``, ``&`` and ``'`` as ``\\u`` escapes, so no text of an
    engine can close the block), in one pass over the whole text: a viewer page is mostly this."""
    for char, code in _SCRIPT_ESCAPES:
        text = text.replace(char, code)
    return markupsafe.Markup(text)


_SCRIPT_ESCAPES = (("<", "\\u003c"), (">", "\\u003e"), ("&", "\\u0026"), ("'", "\\u0027"))


def asset_text(name: str) -> str:
    """A file of assets/; the stylesheet starts with the palette's colours (palette.py)."""
    text = (HERE / "static" / name).read_text(encoding="utf-8")
    return palette.css_variables() + "\n" + text if name == "site.css" else text


def _write(path: Path, text: str) -> None:
    tmp = path.with_name(f".{path.name}.tmp")
    tmp.write_text(text, encoding="utf-8")
    os.replace(tmp, path)


def write_site(folder: Path, data: SiteData) -> Path:
    """Write the whole site of ``data`` into ``folder`` (reusing game pages already there)."""
    return SiteWriter(folder).write(data)


# -- a results folder ---------------------------------------------------------


def _plain_signals() -> None:
    """In a page-writing child: the pool stops its children with SIGTERM, which must end
    them (arena's own handler, inherited through fork, would raise KeyboardInterrupt in
    the middle of the pool's queue and could deadlock it); Ctrl-C is the parent's."""
    signal.signal(signal.SIGTERM, signal.SIG_DFL)
    signal.signal(signal.SIGINT, signal.SIG_IGN)


def load_folder(folder: Path, elo_prior: float | None = None, later: bool = False) -> SiteData:
    """The site's data from a results folder: its summary, as ``arena results`` prints it
    (``elo_prior``: as its ``--elo-prior``). The folder may be in use by a run: the
    database is only read.  ``later``: the summary is made when the site's summary pages
    need it (``SiteData.summarize``), after the viewer pages' writers fork: they need only
    the records, so on two cores the summary and the replays take their time side by side."""
    try:
        read = read_for_summary(folder)
    except (StorageError, ValueError) as exc:
        raise SiteError(str(exc)) from None
    settings = read.found.settings or {}
    named = [e["name"] for e in settings.get("engines", [])]
    data = SiteData(f"arena · {read.tournament}", read.game, read.options, named, read.records, read.found.settings)

    def summarize(data: SiteData) -> None:
        try:
            summary = read.summary(elo_prior)
        except (StorageError, ValueError) as exc:
            raise SiteError(str(exc)) from None
        summary.not_recorded = last_run_not_recorded(folder / "results.json")
        data.engines = named + [name for name in summary.order if name not in named]
        data.records, data.summary = summary.records, summary

    if later:
        data.summarize = summarize
    else:
        with collector_paused():  # as summarize_folder's: the tallies beside every record
            summarize(data)
    return data


def last_run_not_recorded(path: Path) -> list[str]:
    """The games the last run could not record (arena's own failures), which only its
    results.json tells; none when it has not written one (or it cannot be read)."""
    try:
        document = json.loads(path.read_text(encoding="utf-8"))
    except (OSError, ValueError):
        return []
    found = document.get("not_recorded") if isinstance(document, dict) else None
    return [line for line in found if isinstance(line, str)] if isinstance(found, list) else []
