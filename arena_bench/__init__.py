"""``arena bench``: what the referee and the tournament manager cost, next to baselines.

The benchmarks' own package, beside the product: it imports ``arena``, and ``arena`` finds its
command through the ``arena.commands`` entry point (command.py) without importing it.

Eleven sections (docs/performance.md explains each method and shows a run):

1. referee  - random playouts and moves validated per second, per game on one core;
              OpenSpiel's Hex on the same games when open-spiel is installed.
2. manager  - the manager's own CPU and wall time per move in a real tournament
              between two instant engines (the live site's share apart), next to a raw
              pipe ping-pong and, given a binary, fastchess measured the same way.
3. scaling  - games per second with 1..cores workers and CPU-bound engines.
4. memory   - peak RSS of the coordinator and of each worker.
5. clock    - what the referee charges an engine that sleeps a known time.
6. site     - building the report site of 10,000 games, and loading its pages in Chromium.
7. engines  - the bundled search engine's iterations per second and move times per
              game, and what its clock mode is charged under a move time.
8. progress - the live progress display's CPU per move in the coordinator, on and off.
9. startup  - the CPU of ``arena --version``, ``--help`` and an input error, and of an engine
              started for one game, as whole processes.
10. sandbox - an engine's start and the manager per move, sandboxed and not.
11. watching - the manager's CPU per move with ``arena run --serve``: no server, a server nobody
              watches, 20 pages watching; the same with engines that think 2 ms a move (every
              game shown); and a move's delay to a page.

Every figure is the median of ``repeats`` runs, baselines measured in the same run.
"""
