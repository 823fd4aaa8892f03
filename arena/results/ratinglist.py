"""One rating list over the games of many results folders, as Ordo and BayesElo rate a pile of
PGN files: ``arena ratings DIR...``.

The list is the folders' own table over all their games at once: the same Bradley–Terry fit
(:func:`arena.results.elo.fit_tally`, with the tables' prior of virtual draws), the same
intervals and LOS, read from each folder as ``arena results`` reads it (only the games the
folder counts, :func:`arena.results.admit.fold_counted`).  A folder's records are counted into
its tally one by one as they are read and let go: the list holds the pairwise results' counts
(about the pairs of engines that met), never a folder's records at once.

Two things keep a list honest:

- **One game.**  The folders must play one game with one set of options (a Hex 9 list and a
  Hex 11 list rate different skills); others are refused naming what differs, unless asked.
- **One engine per name.**  An engine is its name and its settings as the folder stored them
  (command, protocol, options, init, environment, limits and the time control it played
  under): two folders with one name and other settings are two engines, refused with both
  settings, or rated apart as ``NAME@FINGERPRINT`` when asked.
"""

from __future__ import annotations

import csv
import io
import math
from array import array
from collections.abc import Mapping, Sequence
from pathlib import Path
from typing import Any

import numpy as np
from tabulate import tabulate

from ..record import GameRecord, lost_before_start
from . import strictjson
from .admit import CountedStream, fold_counted
from .elo import Tally, fit_bayeselo, fit_tally, prior_of
from .export import SCHEMA_VERSION, arena_version, csv_cell
from .fingerprint import FREE_PER_ENGINE, StoredSettings, changes, digest
from .ratingtables import (
    Folder,
    ListedEngine,
    RatingList,
    folder_rows,
    list_rows,
    los_rows,
    notes,
    ranked,
    split_rows,
    value_text,
)
from .store import StorageError

FORMATS = ("table", "md", "csv", "json", "html")
MODELS = {"bradley-terry": fit_tally, "bayeselo": fit_bayeselo}  # --model: the fit of each
SHORT = 8  # hex digits of an engine's fingerprint in a split name


class RatingListError(Exception):
    """Folders that cannot be rated together; each line of ``lines`` is one clear message."""

    def __init__(self, lines: Sequence[str]) -> None:
        shown = [strictjson.printable(line) for line in lines]  # settings' text, shown as engine text is
        super().__init__("\n".join(shown))
        self.lines = shown


# -- reading the folders ------------------------------------------------------


def read_folders(paths: Sequence[Path]) -> list[Folder]:
    """Every folder of ``paths``, each shown as given; RatingListError with one line per folder
    that cannot be read, so all of them are named at once."""
    read, bad = [], []
    for path in paths:
        try:
            read.append(read_folder(path, str(path)))
        except StorageError as exc:
            bad.append(str(exc))
    if bad:
        raise RatingListError(bad)
    return read


def read_folder(path: Path, shown: str) -> Folder:
    """A results folder's counted games and its engines' settings; StorageError (one line)
    for a folder that is not one, holds no games, or is damaged.  Its games are counted into
    the folder's tally as they are read (fold_counted), never held together."""
    if not path.is_dir():
        what = "not a folder" if path.exists() else "no such folder"
        raise StorageError(f"{shown}: {what}; give the output folder of an arena run")
    return fold_counted(path, lambda found: _counted_folder(path, shown, found))


def _counted_folder(path: Path, shown: str, found: CountedStream) -> Folder:
    settings = found.settings
    engines: dict[str, StoredSettings | None] = {}
    if settings is not None:
        engines = {e["name"]: engine_settings(settings, e) for e in settings["engines"]}
    tally, prints, played, games = Tally(), array("Q"), 0, 0
    first: GameRecord | None = None
    for record in found.counted:
        first = first or record
        for name in record.players or []:
            engines.setdefault(name, None)
        tally.add_record(record)
        prints.append(fingerprint(record))
        played += not lost_before_start(record)
        games += 1
    if first is None:
        refused = (
            f" ({len(found.refused)} stored game(s) are not counted: 'arena results {shown}')" if found.refused else ""
        )
        raise StorageError(f"{shown}: the folder holds no games to rate{refused}; leave it out of the list")
    if settings is not None:
        game, options = settings["game"], dict(settings["options"])
    else:
        game, options = first.game, dict(first.options)
    name = (settings or {}).get("name") or first.tournament or path.name
    return Folder(
        shown,
        str(name),
        game,
        options,
        prior_of(settings),
        games,
        played,
        tally,
        np.frombuffer(prints, dtype=np.uint64),
        engines,
        found.refused,
    )


def fingerprint(record: GameRecord) -> int:
    """64 bits of the record's digest: two runs never record the same moves at the same times,
    so equal fingerprints in two folders are a copied game."""
    return int(digest(record.to_json())[:16], 16)


def engine_settings(settings: Mapping[str, Any], entry: Mapping[str, Any]) -> StoredSettings:
    """What makes an engine the engine it is in a folder: its entry as the folder stored it
    (its name and when to stop starting it left out) with the time control it played under
    (its own, else the tournament's) and how its paths are written."""
    own = {k: v for k, v in entry.items() if k not in ("name", *FREE_PER_ENGINE)}
    own["time_control"] = entry.get("time_control") or settings.get("time_control")
    own["paths"] = settings.get("paths", "absolute")  # folders made before kept absolute paths
    return own


def engine_fingerprint(engine: Mapping[str, Any] | None) -> str | None:
    return None if engine is None else digest(engine)


# -- the list -----------------------------------------------------------------


def rating_list(
    folders: Sequence[Folder],
    *,
    allow_mixed: bool = False,
    split_names: bool = False,
    anchor: tuple[str, float] | None = None,
    prior: float | None = None,
    model: str = "bradley-terry",
) -> RatingList:
    """Rate every counted game of ``folders`` in one Bradley–Terry fit; RatingListError for
    folders of several games or options (unless ``allow_mixed``), one name for engines of
    different settings (unless ``split_names``), several priors when ``prior`` is None, a
    folder given twice, or an anchor that is not a rated engine of the list."""
    problems = _twice(folders) + _copies(folders)
    mixed = len({(f.game, strictjson.dumps(f.options, sort_keys=True)) for f in folders}) > 1
    if mixed and not allow_mixed:
        problems.append(mixed_line(folders))
    engines, labels, clashes = _engines(folders, split_names)
    problems += clashes
    if prior is None:
        priors = {f.prior for f in folders}
        if len(priors) > 1:
            each = ", ".join(f"{f.path}: {f.prior:g}" for f in folders)
            problems.append(
                f"the folders' tournament files ask for different elo_prior ({each}); "
                f"give the one to rate them all with, e.g. --elo-prior {max(priors):g}"
            )
        prior = priors.pop()
    if problems:
        raise RatingListError(problems)
    tally = Tally(engines)
    for k, f in enumerate(folders):
        tally.add_tally(f.tally, [labels[k].get(n, n) for n in f.tally.names])
    name, elo = anchor if anchor is not None else (None, 0.0)
    if name is not None and name not in engines:
        raise RatingListError(
            [f"--anchor {name}: no engine of the list is named so (its engines: {', '.join(engines)})"]
        )
    try:
        fit = MODELS[model](tally, anchor=name, anchor_elo=elo, prior=prior)
    except ValueError as exc:  # an anchor no result rates, or games BayesElo's model cannot
        what = f"--anchor {name}={elo:g}" if name is not None else f"--model {model}"
        raise RatingListError([f"{what}: {exc}"]) from None
    return RatingList(list(folders), engines, fit, mixed, labels)


def _twice(folders: Sequence[Folder]) -> list[str]:
    seen: dict[str, str] = {}
    out = []
    for f in folders:
        key = str(Path(f.path).resolve())
        if key in seen:
            out.append(f"{f.path}: given twice (as {seen[key]} too); its games would count twice")
        seen.setdefault(key, f.path)
    return out


def _copies(folders: Sequence[Folder]) -> list[str]:
    """Folders that hold the very same games (a copied folder): rated twice, they would look
    twice as certain.  Two runs never record the same moves at the same times."""
    shared: dict[tuple[int, int], int] = {}
    distinct = sorted({str(Path(f.path).resolve()): k for k, f in reversed(list(enumerate(folders)))}.values())
    for n, k in enumerate(distinct):
        left = folders[k].fingerprints  # its games not yet found in an earlier folder
        for first in distinct[:n]:
            found = np.isin(left, folders[first].fingerprints)
            if found.any():
                shared[first, k] = int(found.sum())
                left = left[~found]
    return [
        f"{folders[a].path} and {folders[b].path} hold {n} identical game(s) (one is a copy of the other?); "
        f"give each tournament's folder once"
        for (a, b), n in shared.items()
    ]


def mixed_line(folders: Sequence[Folder]) -> str:
    """One line naming what differs between the folders' games, and which folder has what."""
    keys = ["game"] + list(dict.fromkeys(k for f in folders for k in f.options))
    parts = []
    for key in keys:
        values: dict[str, list[str]] = {}
        for f in folders:
            value = f.game if key == "game" else value_text(f.options.get(key, "(not set)"))
            values.setdefault(value, []).append(f.path)
        if len(values) > 1:
            shown = ", ".join(f"{value} in {' '.join(paths)}" for value, paths in values.items())
            parts.append(f"{'game' if key == 'game' else 'option ' + key}: {shown}")
    return (
        "the folders play different games or options (" + "; ".join(parts) + "); a rating list rates one game "
        "with one set of options: give folders of one, or --allow-mixed to rate them together anyway"
    )


def _engines(folders: Sequence[Folder], split: bool) -> tuple[dict[str, ListedEngine], list[dict[str, str]], list[str]]:
    """The list's engines by label, each folder's name -> label, and a line per name whose
    settings differ between folders (when they are not to be told apart)."""
    variants: dict[str, dict[str | None, list[int]]] = {}  # name -> fingerprint -> folders
    for k, f in enumerate(folders):
        for name, settings in f.engines.items():
            variants.setdefault(name, {}).setdefault(engine_fingerprint(settings), []).append(k)
    engines: dict[str, ListedEngine] = {}
    labels: list[dict[str, str]] = [{} for _ in folders]
    clashes = []
    for name, by_print in variants.items():
        if len(by_print) > 1 and not split:
            clashes.append(clash_line(name, by_print, folders))
            continue
        for key, where in by_print.items():
            label = name if len(by_print) == 1 else f"{name}@{(key or 'unknown')[:SHORT]}"
            settings = folders[where[0]].engines[name]
            engines[label] = ListedEngine(label, name, key, settings, where)
            for k in where:
                labels[k][name] = label
    return engines, labels, clashes


def clash_line(name: str, by_print: Mapping[str | None, list[int]], folders: Sequence[Folder]) -> str:
    """One line: the folders of each setting of ``name`` and how each differs from the first."""
    groups = list(by_print.values())
    first = folders[groups[0][0]]
    shown = []
    for where in groups[1:]:
        other = folders[where[0]]
        a, b = first.engines[name], other.engines[name]
        if a is None or b is None:
            diff = ["settings not stored (a folder of an older arena) -> " + ("stored" if a is None else "not stored")]
        else:
            diff = changes(a, b)
        shown.append(f"{_paths(groups[0], folders)} -> {_paths(where, folders)}: " + "; ".join(diff))
    labels = ", ".join(f"{name}@{(key or 'unknown')[:SHORT]}" for key in by_print)
    return (
        f"engine {name!r} has other settings in other folders ({' | '.join(shown)}); one name is one engine in a "
        f"rating list: rename one, or --split-names to rate each setting as its own engine ({labels})"
    )


def _paths(where: Sequence[int], folders: Sequence[Folder]) -> str:
    return " ".join(folders[k].path for k in where)


# -- what is published --------------------------------------------------------


def list_document(rl: RatingList) -> dict[str, Any]:
    """The JSON list: the fit as results.json's ``elo`` holds it, each engine with its
    settings and folders, and each folder with what it counted."""
    elo = rl.fit.as_dict()
    rows = {r["engine"]: r for r in rl.fit.rows()}
    first = rl.folders[0]
    return {
        "schema_version": SCHEMA_VERSION,
        "arena_version": arena_version(),
        "kind": "rating_list",
        "game": None if rl.mixed else first.game,
        "options": None if rl.mixed else first.options,
        "mixed": rl.mixed,
        "games": rl.games,
        "folders": [
            {
                "path": f.path,
                "tournament": f.tournament,
                "game": f.game,
                "options": f.options,
                "games": f.games,
                "engines": [rl.labels[k][n] for n in f.engines],
                "not_counted": [r.as_dict() for r in f.refused],
            }
            for k, f in enumerate(rl.folders)
        ],
        "elo": {"label": rl.elo_label, **elo},
        "engines": [
            {
                "rank": rank,
                **rows[r.engine],
                "score_pct": None if r.score is None else round(100 * r.score, 1),
                "name": rl.engines[r.engine].name,
                "fingerprint": rl.engines[r.engine].fingerprint,
                "settings": rl.engines[r.engine].settings,
                "folders": [rl.folders[k].path for k in rl.engines[r.engine].folders],
            }
            for rank, r in ranked(rl)
        ],
    }


def list_json(rl: RatingList) -> str:
    document = strictjson.printable(strictjson.finite(list_document(rl)))
    return strictjson.dumps(document, indent=2, ensure_ascii=False) + "\n"


def render(rl: RatingList, fmt: str) -> str:
    """The list as ``table``, ``md``, ``csv``, ``json`` or ``html`` (a page in the report
    site's style)."""
    if fmt == "json":
        return list_json(rl)
    if fmt == "csv":
        return list_csv(rl)
    if fmt == "html":
        from .site.ratinglist import ratings_page  # jinja2 and the site's assets, only here

        return ratings_page(rl)
    style = {"table": "simple", "md": "github"}[fmt]
    tables = [
        ("Rating list", list_rows(rl)),
        ("Likelihood of superiority", los_rows(rl)),
        ("Folders", folder_rows(rl)),
        ("Engines told apart (one name, other settings)", split_rows(rl)),
    ]
    parts = ["# Rating list\n\n" + "\n\n".join(notes(rl))] if fmt == "md" else ["\n".join(notes(rl))]
    for title, (headers, rows) in tables:
        if rows:
            text = tabulate(strictjson.printable(rows), headers=headers, tablefmt=style, disable_numparse=True)
            parts.append(f"## {title}\n\n{text}" if fmt == "md" else f"{title}\n{text}")
    return "\n\n".join(parts) + "\n"


def list_csv(rl: RatingList) -> str:
    """One row per engine: the JSON's figures, its folders (separated by ``;``) and its LOS
    over each other engine (0..1, as results.json's matrix)."""
    doc = strictjson.finite(list_document(rl))
    order = [e["engine"] for e in doc["engines"]]
    matrix = doc["elo"]["los"]["matrix"]
    headers = ["rank", "engine", "name", "elo", "elo_low", "elo_high", "elo_bound", "stderr", "games"]
    headers += ["points", "results", "score_pct", "fingerprint", "folders"] + [f"los_over_{n}" for n in order]
    buffer = io.StringIO()
    writer = csv.writer(buffer, lineterminator="\n")
    writer.writerow([csv_cell(h) for h in headers])
    for row, los in zip(doc["engines"], matrix):
        values = [row["rank"], row["engine"], row["name"], row["elo"], row["low"], row["high"], row["bound"]]
        values += [row["stderr"], row["games"], row["points"], row["results"], row["score_pct"]]
        values += [row["fingerprint"], "; ".join(row["folders"]), *los]
        writer.writerow([csv_cell(v) for v in strictjson.printable(values)])
    return buffer.getvalue()


def parse_anchor(text: str) -> tuple[str, float]:
    """``NAME=ELO`` -> (name, elo); ValueError with what is wrong."""
    name, sep, value = text.rpartition("=")
    try:
        elo = float(value)
    except ValueError:
        elo = math.nan
    if not sep or not name or not math.isfinite(elo):
        raise ValueError(f"--anchor {text}: give NAME=ELO, e.g. --anchor random=0")
    return name, elo
