"""What a tournament leaves behind, and what is computed from it.

``store.py`` writes every finished game to SQLite and JSON Lines and holds the folder's lock;
``ratings.py`` computes TrueSkill standings and the head-to-head Elo / LOS table;
``elo.py`` fits Bradley–Terry Elo over the whole field (intervals, LOS matrix);
``stats.py`` tallies per-engine statistics (seats, swaps, terminations, time, depth, speed);
``verify.py`` re-checks game records against the rules; ``site/`` writes the static report site
(standings, plots, a viewer for every game; engine text escaped by Jinja2); ``fingerprint.py``
keeps a folder to one tournament's settings; ``sprt.py`` is the sequential test on game pairs;
``export.py`` writes the tables (md, csv, json) and
``sgf.py`` Hex games as SGF; ``logfile.py`` caps ``arena.log``. Nothing here starts an engine.
"""
