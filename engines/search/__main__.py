"""``python -m engines.search``: the bundled search engine (see engine.py)."""

from protocol.sdk import run

from .engine import SearchEngine


def main() -> None:
    run(SearchEngine())


if __name__ == "__main__":
    main()
