"""`arena --version`, `--help` and input errors answer at once: importing the command line
loads none of the heavy libraries nor the engine drivers; each command imports them when it runs.
An engine process, started for each game a worker cannot keep it for, loads none of them either."""

import subprocess
import sys

from helpers import ROOT

from arena_bench.startup import measure

HEAVY = ("numpy", "rich", "pydantic", "matplotlib", "jinja2", "arena.engine", "arena.match")


def test_importing_the_command_line_loads_no_heavy_module():
    code = "import sys, arena.cli; print('\\n'.join(sys.modules))"
    loaded = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True).stdout.split()
    heavy = [name for name in loaded if any(name == h or name.startswith(h + ".") for h in HEAVY)]
    assert not heavy, f"import arena.cli loads {', '.join(sorted(heavy))}"


# What `arena play` and `arena check-engine` load to read their flags and start the engines:
# the Elo fit (scipy) and the report site (jinja2) are a run's end, not theirs.
REPORT_HEAVY = ("scipy", "jinja2", "arena.results.elo", "arena.results.site")


def test_the_play_and_check_engine_commands_load_no_report_module():
    code = (
        "import sys, arena.tournament.playsetup, arena.tournament.enginecheck, arena.engine.conformance,"
        " arena.tournament.series; print('\\n'.join(sys.modules))"
    )
    loaded = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True).stdout.split()
    heavy = [name for name in loaded if any(name == h or name.startswith(h + ".") for h in REPORT_HEAVY)]
    assert not heavy, f"the play and check-engine commands' modules load {', '.join(sorted(heavy))}"


def test_a_cluster_worker_loads_no_report_module():
    """A Dask worker imports the cluster's module to play its tasks: the Elo fit (numpy and
    scipy, half a second of CPU a worker) and the site are the coordinator's, not its."""
    code = "import sys, arena.tournament.cluster; print('\\n'.join(sys.modules))"
    loaded = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True).stdout.split()
    heavy = [name for name in loaded if any(name == h or name.startswith(h + ".") for h in (*REPORT_HEAVY, "numpy"))]
    assert not heavy, f"a cluster worker's module loads {', '.join(sorted(heavy))}"


def test_the_startup_benchmark_times_every_command():
    figures = measure(1)
    assert set(figures.cpu_s) == set(figures.wall_s)
    assert all(cpu > 0 for cpu in figures.cpu_s.values()), figures


# What an engine process has no use for: the referee's option checks (pydantic, which brings
# email and importlib.metadata), numpy, the spelling suggestions of error messages.
ENGINE_HEAVY = ("pydantic", "pydantic_core", "annotated_types", "email", "importlib.metadata", "numpy", "difflib")


def test_an_engine_playing_every_game_loads_no_heavy_module():
    from arena.rules import GAMES, make_game
    from protocol import codec

    lines = ["arena 1"]
    for name in GAMES:
        game = make_game(name)
        lines += [codec.format_newgame(name, 0, game.players, game.option_tokens()), "seed 5", "isready"]
        lines += [f"position {game.initial_state(5).setup_token()} moves", "go movetime 1000"]
    script = (
        "import io, sys\n"
        "from engines.random_engine import RandomEngine\n"
        "from protocol.sdk import run\n"
        "out = io.StringIO()\n"
        "run(RandomEngine(), io.StringIO(sys.argv[1]), out)\n"
        "print(out.getvalue().count('move '), *sys.modules)\n"
    )
    printed = subprocess.run(
        [sys.executable, "-c", script, "\n".join(lines) + "\n"], capture_output=True, text=True, check=True
    ).stdout.split()
    assert printed[0] == str(len(GAMES)), "an engine did not move in every game"
    heavy = [m for m in printed[1:] if any(m == h or m.startswith(h + ".") for h in ENGINE_HEAVY)]
    assert not heavy, f"an engine process loads {', '.join(sorted(heavy))}"


def test_the_engine_start_benchmark_plays_its_game_with_each_engine():
    from arena_bench.startup import ENGINE_STARTS, ONE_GAME

    figures = measure(1, ENGINE_STARTS, given=ONE_GAME)
    assert set(figures.cpu_s) == set(ENGINE_STARTS) and all(cpu > 0 for cpu in figures.cpu_s.values())
    for label, argv in ENGINE_STARTS.items():
        if "engine" in label:
            done = subprocess.run(argv, input=ONE_GAME, capture_output=True, check=True, cwd=ROOT)
            assert done.stdout.endswith(b"readyok\n") and not done.stderr, (label, done)
