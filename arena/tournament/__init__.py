"""From a tournament file to played games: what to play, in which order, on which worker.

``config.py`` validates a tournament file into a ``Tournament``; ``schedule.py`` turns it into
tables, seat orders and per-game seeds; ``openings.py`` reads opening books; ``runner.py`` runs
the tournament (workers that reuse and restart engines, the drop rule, resume, ratings in
schedule order); ``pool.py`` is the process pool under it, which replaces a dead worker and
replays its game; ``cluster.py`` sends the same games to a Dask cluster instead. ``sprt.py`` is
the sequential test on game pairs, ``progress.py`` the live progress lines, ``series.py`` the
games of ``arena play``. Start at ``runner.run_tournament``.
"""
