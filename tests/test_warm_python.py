"""run_arena's commands, forked from a Python with the libraries loaded (tests/warm_python.py),
give what a command started as `python -m arena` gives: its output, exit code, folder,
environment and standard input; a command past its timeout is killed, and the next one runs."""

import os
import subprocess
import threading
import time

import pytest
from helpers import ROOT, arena_cmd, engine_toml, run_arena, write_tournament


def plain(*args: object, **kwargs) -> subprocess.CompletedProcess:
    return subprocess.run(arena_cmd(*args), capture_output=True, text=True, **kwargs)


@pytest.mark.parametrize("args", [("--version",), ("run", "--nosuch"), ("nosuch",), ("run", "/no/such.toml")])
def test_a_command_says_and_exits_as_a_plain_process_does(args):
    warm, cold = run_arena(*args), plain(*args)
    assert (warm.returncode, warm.stdout, warm.stderr) == (cold.returncode, cold.stdout, cold.stderr)
    assert warm.args == cold.args


@pytest.mark.slow
def test_the_folder_and_environment_are_the_callers(tmp_path):
    engines = engine_toml("r1", "{python}", "-m", "engines.random_engine")
    write_tournament(tmp_path, engines + engine_toml("r2", "{python}", "-m", "engines.random_engine"))
    done = run_arena("run", "t.toml", "--out", "out", cwd=tmp_path)  # relative to the command's folder
    assert done.returncode == 0, done.stderr
    shown = []
    for columns in ("1000", "40"):  # the tables fit the terminal's width the environment gives
        env = {**os.environ, "COLUMNS": columns}
        warm, cold = run_arena("results", "out", cwd=tmp_path, env=env), plain("results", "out", cwd=tmp_path, env=env)
        assert (warm.returncode, warm.stdout, warm.stderr) == (cold.returncode, cold.stdout, cold.stderr)
        shown.append(warm.stdout)
    assert shown[0] != shown[1]


def test_standard_input_is_the_callers():
    record = '{"game": "hex", "options": {"size": 3}, "moves": ["a1", "b2", "c3"]}\n'
    warm, cold = run_arena("verify", "-", input=record), plain("verify", "-", input=record)
    assert (warm.returncode, warm.stdout, warm.stderr) == (cold.returncode, cold.stdout, cold.stderr)
    assert '"plies": 3' in warm.stdout
    assert run_arena("verify", "-").stdout == ""  # no input: none read


@pytest.mark.slow
def test_a_command_past_its_timeout_is_killed_and_the_next_runs(tmp_path):
    sleeper = engine_toml("slow", "{python}", "-c", "import time; time.sleep(60)")
    path = write_tournament(tmp_path, sleeper + engine_toml("r", "{python}", "-m", "engines.random_engine"))
    with pytest.raises(subprocess.TimeoutExpired):
        run_arena("run", path, "--out", tmp_path / "out", timeout=1)
    assert run_arena("--version").stdout.startswith("python -m arena, version")


@pytest.mark.slow
def test_a_command_while_another_runs_is_a_process_of_its_own(tmp_path):
    sleeper = engine_toml("slow", "{python}", "-c", "import time; time.sleep(60)")
    path = write_tournament(tmp_path, sleeper + engine_toml("r", "{python}", "-m", "engines.random_engine"))
    ended: list[BaseException] = []

    def held() -> None:
        try:
            run_arena("run", path, "--out", tmp_path / "out", timeout=3)
        except BaseException as error:
            ended.append(error)

    blocked = threading.Thread(target=held)
    blocked.start()
    try:
        time.sleep(0.5)  # the thread's command is on its way
        assert run_arena("--version", cwd=ROOT).returncode == 0
        assert blocked.is_alive()  # not held up by the command in the thread
    finally:
        blocked.join()
    assert [type(error) for error in ended] == [subprocess.TimeoutExpired]
