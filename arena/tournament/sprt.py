"""A tournament's SPRT: the test of its ``[sprt]`` settings (the statistics: arena/results/sprt.py)."""

from __future__ import annotations

from collections.abc import Iterable

from ..record import GameRecord
from ..results.sprt import SprtTest, sprt_from_settings
from .config import Tournament
from .settings import tournament_settings


def sprt_test(t: Tournament, records: Iterable[GameRecord] = ()) -> SprtTest | None:
    """The tournament's SPRT (None without ``[sprt]``), with ``records`` counted."""
    return sprt_from_settings(tournament_settings(t), records)
