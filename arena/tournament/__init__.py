"""From a tournament file to played games: what to play, in which order, on which worker.

``config.py`` validates a tournament file into a ``Tournament`` (``settings.py``: the settings
its folder stores); ``schedule.py`` turns it into tables, seat orders and per-game seeds;
``openings.py`` reads opening books; ``runner.py`` runs the tournament (resume, storing, ratings
in schedule order, observers told: ``observers.py``). The games are played by an executor
(``executor.py``): ``local.py`` on worker processes (``worker.py``: engines reused and
restarted) under ``pool.py``, the process pool that replaces a dead worker and replays its
game, or ``cluster.py`` on a Dask cluster. ``droprule.py`` drops broken engines; ``sprt.py``
is a tournament's sequential test, ``progress.py`` the live progress lines, ``series.py`` the
games of ``arena play``, ``verdict.py`` how a run ends (its last line and exit code). Start at
``runner.run_tournament``.
"""
