"""arena: a referee and tournament runner for hex-board abstract games.

A game's data passes three stages, one package each: ``rules/`` (the games), ``engine/``
(driving one engine process) and, above ``match.py`` (one game under the referee),
``tournament/`` (what to play and on which worker) and ``results/`` (storage, ratings, checks,
reports). ``cli/`` is the thin command-line layer (a module per command) over them; ``bench/`` measures them.
"""
