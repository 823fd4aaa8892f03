"""The rating list as data and as tables: the folders read, the engines listed, the fit, and the
rows and notes that ``arena ratings`` prints and its HTML page (``site/ratinglist.py``) shows.

Below both the list's making (``ratinglist.py``) and its page, so the page takes the rows the
terminal prints without importing the module that renders it.
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass, field
from typing import Any

import numpy as np

from ..rules.base import Options
from . import strictjson
from .admit import Refused
from .elo import EloFit, EloRating, Tally
from .export import elo_cell, games_elo_label, number_cell
from .fingerprint import StoredSettings, changes


@dataclass
class Folder:
    """One results folder as the list reads it: what the fit needs of its counted games
    (their pairwise results counted, not the records)."""

    path: str  # as given on the command line
    tournament: str
    game: str
    options: Options
    prior: float
    games: int  # counted
    played: int  # counted and played (not lost before the first move)
    tally: Tally  # the counted games' pairwise results, engines by the folder's names
    fingerprints: np.ndarray  # of each counted record (64 bits of its digest), to find copied folders
    engines: dict[str, StoredSettings | None]  # name -> its settings (None: not stored)
    refused: list[Refused] = field(default_factory=list)


@dataclass
class ListedEngine:
    """One engine of the list: its label (the name, or NAME@FINGERPRINT when told apart)."""

    label: str
    name: str
    fingerprint: str | None  # of its settings; None: a folder of an older arena kept none
    settings: StoredSettings | None
    folders: list[int] = field(default_factory=list)  # indices into RatingList.folders


@dataclass
class RatingList:
    folders: list[Folder]
    engines: dict[str, ListedEngine]  # label -> engine
    fit: EloFit
    mixed: bool  # the folders play more than one game or set of options
    labels: list[dict[str, str]]  # per folder: its engine's name -> its label in the list

    @property
    def games(self) -> int:
        """Every counted game of the folders."""
        return sum(f.games for f in self.folders)

    @property
    def elo_label(self) -> str:
        return games_elo_label(sum(f.played for f in self.folders))

    @property
    def game_text(self) -> str:
        kinds = dict.fromkeys(f"{f.game} {options_text(f.options)}" for f in self.folders)
        return "; ".join(kinds)


def options_text(options: Mapping[str, Any]) -> str:
    """A game's options as one line (``size=9, swap=true``), as the tables name a game."""
    return ", ".join(f"{k}={value_text(v)}" for k, v in options.items()) or "no options"


def value_text(value: Any) -> str:
    """A setting's value as written: a string as it is, anything else as JSON."""
    return strictjson.dumps(value) if not isinstance(value, str) else value


def ranked(rl: RatingList) -> list[tuple[int, EloRating]]:
    """The fit's ratings best first with their rank, as a folder's table ranks them."""
    return list(enumerate(rl.fit.ratings, 1))


def list_rows(rl: RatingList) -> tuple[list[str], list[list[Any]]]:
    """The list's table: rank, engine, Elo and interval, games, score, the folders played in."""
    pct = round(100 * rl.fit.confidence)
    headers = ["rank", "engine", "elo", f"{pct}% low", f"{pct}% high", "games", "results", "score %", "folders"]
    rows = []
    for rank, r in ranked(rl):
        rows.append(
            [
                rank,
                r.engine,
                elo_cell(r.elo, r.bound),
                number_cell(r.low),
                number_cell(r.high),
                r.games,
                r.results,
                "" if r.score is None else round(100 * r.score, 1),
                ", ".join(str(k + 1) for k in rl.engines[r.engine].folders),
            ]
        )
    return headers, rows


def los_rows(rl: RatingList) -> tuple[list[str], list[list[Any]]]:
    """LOS (%) of each engine (row) over each other (column), from the fit's covariance."""
    order = [r.engine for r in rl.fit.ratings]
    matrix = rl.fit.los_matrix(order)
    return ["LOS % (row over column)", *order], [
        [a, *("" if v is None else round(100 * v, 1) for v in row)] for a, row in zip(order, matrix)
    ]


def folder_rows(rl: RatingList) -> tuple[list[str], list[list[Any]]]:
    headers = ["#", "folder", "tournament", "game", "games", "not counted", "engines"]
    return headers, [
        [
            k + 1,
            f.path,
            f.tournament,
            f"{f.game} {options_text(f.options)}",
            f.games,
            len(f.refused),
            ", ".join(rl.labels[k][n] for n in f.engines),
        ]
        for k, f in enumerate(rl.folders)
    ]


def split_rows(rl: RatingList) -> tuple[list[str], list[list[Any]]]:
    """The engines told apart: how each setting differs from the first of its name."""
    rows = []
    for e in rl.engines.values():
        if e.label == e.name:
            continue
        first = next(x for x in rl.engines.values() if x.name == e.name)
        if first is e:
            diff = "the first setting of this name"
        elif first.settings is None or e.settings is None:
            diff = "settings not stored in one of them (a folder of an older arena)"
        else:
            diff = "; ".join(changes(first.settings, e.settings))
        rows.append([e.label, ", ".join(rl.folders[k].path for k in e.folders), diff])
    return ["engine", "folders", "settings (against the first of its name)"], rows


def notes(rl: RatingList) -> list[str]:
    """What the tables count and how, in sentences."""
    fit = rl.fit
    lines = [
        f"{rl.elo_label} over {len(rl.folders)} folder(s): {rl.game_text}.",
        f"Elo: {fit.method}, anchor: {fit.anchor}; {round(100 * fit.confidence)}% intervals from the "
        f"{fit.interval_method}, as each folder's table; LOS from the fit's covariance. Ranked by Elo "
        f"(ties: score, then name). games: games with a result; results: pairwise results; folders: "
        f"the numbers in the folder table.",
    ]
    if rl.mixed:
        lines.append("These folders play different games or options, rated together as asked (--allow-mixed).")
    for f in rl.folders:
        if f.refused:
            lines.append(
                f"not counted: {len(f.refused)} stored game(s) of {f.path} are not the tournament's as played "
                f"('arena results {f.path}' names them)."
            )
    return lines
