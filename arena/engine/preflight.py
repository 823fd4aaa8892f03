"""Each engine started once before a tournament's first game, to learn what it declares
and check it against the tournament (``declared.py`` says what fits).

Apart from ``declared.py``, which the protocol v1 conversation uses for its handshake: this
module starts conversations, so the checks and the engines that need them import no
module that imports them back.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import replace

from ..rules import Game
from . import open_engine
from .declared import Checked, games_problem, option_problems
from .player import EngineFault, EngineRefused, EngineSpec
from .transport import PipeSettings


def preflight(specs: Sequence[EngineSpec], game: Game, run_tag: str = "", at_once: int | None = None) -> list[Checked]:
    """Start each engine once (options not sent; launched first, so they boot side by
    side, ``at_once`` at a time: None, all) and check what it declares against the
    tournament: its games and options, or for a GTP engine the commands arena needs, its
    init commands' answers and its answer to the tournament's ``boardsize``.  An engine
    that cannot start is not refused here: its games record the fault, as any game's would."""
    step = max(1, at_once or len(specs))
    checked: list[Checked] = []
    for first in range(0, len(specs), step):
        checked += _preflight(specs[first : first + step], game, run_tag)
    return checked


def _preflight(specs: Sequence[EngineSpec], game: Game, run_tag: str) -> list[Checked]:
    pipe = PipeSettings(run_tag=run_tag)
    engines = dict(enumerate(open_engine(replace(spec, options=()), pipe=pipe, board=game) for spec in specs))
    checked = [Checked()] * len(specs)
    try:
        for k, engine in list(engines.items()):
            try:
                engine.launch()
            except EngineFault as exc:
                checked[k] = Checked(fault=f"{exc.code}: {exc.reason}")
                del engines[k]
        for k, engine in engines.items():
            try:
                engine.handshake()
            except EngineRefused as exc:
                checked[k] = Checked(problem=exc.reason.removeprefix("refused: "))
                continue
            except EngineFault as exc:
                checked[k] = Checked(fault=f"{exc.code}: {exc.reason}")
                continue
            found = [p for p in [games_problem(engine.identity, game.name)] if p]
            found += option_problems(engine.declared_options, specs[k].options)
            checked[k] = Checked(problem="; ".join(found) or None)
    finally:
        for engine in engines.values():
            engine.kill()
    return checked
