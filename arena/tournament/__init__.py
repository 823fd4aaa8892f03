"""From a tournament file to played games: what to play, in which order, on which worker.

``config.py`` validates a tournament file into a ``Tournament``; ``schedule.py`` turns it into
tables, seat orders and per-game seeds; ``openings.py`` reads opening books; ``runner.py`` runs
the tournament (workers that reuse and restart engines, the drop rule, resume, ratings in
schedule order); ``pool.py`` is the process pool under it, which replaces a dead worker and
replays its game. Start at ``runner.run_tournament``.
"""
