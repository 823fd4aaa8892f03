"""How programs outside arena name a game's board and moves: GTP engines (arena.engine.gtp)
and SGF files (arena.results.sgf) ask the game for a :class:`Translation` instead of knowing
any game themselves.

A game such programs play returns one from ``Game.translation()``; a game they do not play
returns None, and the GTP bridge and the SGF writer refuse it with one line.  The swap is
where conventions part: arena's swap moves the first stone (Hex: onto its mirror image) and
keeps the colours, while the outside programs keep the stone and exchange the colours.  Both
describe one game, so after a swap every cell is renamed (``after_swap``) in both directions.
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass, field


@dataclass(frozen=True)
class Translation:
    """One game's board and moves as GTP programs and SGF readers name them.

    ``size`` is the side of its square board (GTP's ``boardsize``, SGF's ``SZ``),
    ``sgf_game`` SGF's ``GM`` number, ``swap_move`` arena's swap token (None: no swap),
    ``swap_names`` how outside programs write it (the first) and what they may answer,
    ``swap_allowed`` whether the options allow it, ``after_swap`` each arena cell's name
    outside once a swap has exchanged the colours (cells missing from it keep their name)."""

    size: int
    sgf_game: int
    swap_move: str | None = None
    swap_names: tuple[str, ...] = ()
    swap_allowed: bool = False
    after_swap: Mapping[str, str] = field(default_factory=dict)
    _back: Mapping[str, str] = field(init=False, repr=False, compare=False)

    def __post_init__(self) -> None:
        object.__setattr__(self, "_back", {outside: cell for cell, outside in self.after_swap.items()})

    def outside(self, move: str, swapped: bool) -> str:
        """An arena move as outside programs write it; ``swapped``: a swap has been played."""
        if move == self.swap_move:
            return self.swap_names[0]
        return self.after_swap.get(move, move) if swapped else move

    def inside(self, name: str, swapped: bool) -> str:
        """An outside program's move (lower case) as arena's token; a name it does not know is
        left as it is, for the referee to reject as an illegal move."""
        if self.swap_move is not None and name in self.swap_names:
            return self.swap_move
        return self._back.get(name, name) if swapped else name
