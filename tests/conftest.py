import sys
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parent.parent


@pytest.fixture
def python_engine():
    """Argument list that runs a bundled engine module with this interpreter."""
    def command(module: str) -> tuple[str, ...]:
        return (sys.executable, "-m", module)
    return command
