"""The bundled search engine: one Monte Carlo tree search (``mcts.py``) for every game,
with per-game parts only where a game needs them (``hex.py``, ``groups.py``,
``posies.py``) and the levels and clock handling in ``engine.py``."""
