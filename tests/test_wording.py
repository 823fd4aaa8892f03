"""The words a user reads from the rules: check-engine's position labels and the viewer's legend.

The rules' other tests pin what a position or a mark *is*; these pin what it is *called*,
so a label or a legend meaning changed by accident fails here.  After a deliberate change,
rewrite the expected file with ``ARENA_UPDATE_WORDING=1 pytest tests/test_wording.py``.
"""

from __future__ import annotations

import json
import os
from pathlib import Path

from arena.engine.conformance import check_game, dealt_start
from arena.rules import GAMES

EXPECTED = Path(__file__).parent / "data" / "wording.json"


def wording() -> dict[str, dict[str, list[str]]]:
    found = {}
    for name in sorted(GAMES):
        game = check_game(name)
        found[name] = {
            "check positions": [p.label for p in game.check_positions(dealt_start)],
            "legend": [f"{m.name}: {m.meaning}" for m in game.picture().marks],
        }
    return found


def test_check_engine_labels_and_legend_meanings_read_as_written() -> None:
    found = wording()
    if os.environ.get("ARENA_UPDATE_WORDING"):
        EXPECTED.write_text(json.dumps(found, indent=2) + "\n")
    assert found == json.loads(EXPECTED.read_text())


def test_every_game_has_labels_and_a_legend() -> None:
    for name, words in wording().items():
        assert words["legend"], name
        assert all(label.strip() for label in words["check positions"]), name
