"""A random engine that also writes every line it receives to the file named in argv[1]
(first the value of $SPY_NOTE, when set: how tests see an engine's environment)."""

import os
import sys

from engines.random_engine import RandomEngine
from protocol.sdk import run


def main() -> None:
    with open(sys.argv[1], "a", encoding="utf-8") as transcript:
        if "SPY_NOTE" in os.environ:
            transcript.write(f"note {os.environ['SPY_NOTE']}\n")

        def lines():
            for line in sys.stdin:
                transcript.write(line)
                transcript.flush()
                yield line

        run(RandomEngine(), stdin=lines())


if __name__ == "__main__":
    main()
