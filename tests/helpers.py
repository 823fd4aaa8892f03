"""Shared by the end-to-end tests: running the real CLI and writing tournament files."""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
ZOO = str(ROOT / "tests" / "engines" / "zoo_engine.py")


def arena_cmd(*args: object) -> list[str]:
    """The argument list that runs the arena CLI with this interpreter."""
    return [sys.executable, "-m", "arena", *map(str, args)]


def run_arena(
    *args: object, input: str | None = None, cwd: Path = ROOT, env: dict | None = None, timeout: float = 300
) -> subprocess.CompletedProcess:
    """Run the CLI as a real process (workers, logging and exit codes included)."""
    return subprocess.run(
        arena_cmd(*args), capture_output=True, text=True, input=input, cwd=cwd, env=env, timeout=timeout
    )


def engine_toml(name: str, *command: str, extra: str = "") -> str:
    """One [[engines]] block; ``{python}`` in a command is arena's interpreter."""
    quoted = ", ".join(f'"{part}"' for part in command)
    return f'[[engines]]\nname = "{name}"\ncommand = [{quoted}]\n{extra}\n'


def write_tournament(
    tmp_path: Path,
    engines: str,
    *,
    name: str = "t",
    game: str = "hex",
    options: str = "size = 5",
    rounds: int = 1,
    seed: int = 0,
    workers: int = 2,
    time_control: str = "movetime_ms = 2000",
    extra: str = "",
) -> Path:
    """A tournament file in ``tmp_path`` from TOML pieces; returns its path."""
    path = tmp_path / "t.toml"
    path.write_text(
        f'name = "{name}"\ngame = "{game}"\nrounds = {rounds}\nseed = {seed}\n'
        f"workers = {workers}\n{extra}\n[options]\n{options}\n"
        f"[time_control]\n{time_control}\n{engines}"
    )
    return path
