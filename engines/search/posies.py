"""Posies for the tree search: RAVE, and the hidden posies the engine cannot see guessed.

In the hidden-piece variant an engine knows only its own hidden posy, so the
rules cannot score a finished rollout.  Each rollout deals the unknown ones at
random from the colours not known to be taken (one determinisation per rollout,
so the search averages over the deals).
"""

from __future__ import annotations

from random import Random

from arena.rules.posies import COLOURS, PosiesState

from .mcts import RulesDomain, rank_rewards


class PosiesDomain(RulesDomain):
    def __init__(self, players: int) -> None:
        super().__init__(players, rave=True)  # a pair removed later is the same pair

    def rewards(self, position: PosiesState, rng: Random) -> list[float]:
        hidden = position.hidden
        if None in hidden and position.game.options.variant == 2:
            pool = [c for c in COLOURS if c not in hidden]
            rng.shuffle(pool)
            position.hidden = [pool.pop() if h is None else h for h in hidden]
        return rank_rewards(position.scores())
