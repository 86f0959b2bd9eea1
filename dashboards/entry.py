"""The ``cardarena`` console entry point (``[project.scripts]``; ``python -m dashboards`` is the same).

``cardarena games`` and ``cardarena games --json``, the commands a user types first and scripts call
most, are answered here without building the typer app: they read the cached games index
(tournaments/games_index.py) and print it with :func:`dashboards.listing.print_games`, the one
rendering that the typer command ``games`` (dashboards/app.py) uses too, so both print the same bytes.
Importing typer, rich and typer's parameter coercion (pydantic) costs more than the whole listing
(bench/startup.py).
Every other command line, ``games --help`` included, goes to the typer app in dashboards/app.py.
The import goes one way: this module imports the app (lazily), the app never imports this module.
"""
from __future__ import annotations

import sys

from dashboards.listing import print_games

FAST = {("games",): False, ("games", "--json"): True}
"""The argument lists answered without typer, and whether each asks for JSON."""


def main() -> None:
    """Console entry point: the fast ``games`` listing, else the typer app (one-line errors, exit 2)."""
    as_json = FAST.get(tuple(sys.argv[1:]))
    if as_json is None:
        from dashboards.app import main as app_main
        app_main()
        return
    try:
        print_games(as_json)
        sys.stdout.flush()
    except BrokenPipeError:  # `cardarena games | head`: the reader left; nothing more to say
        import os  # stdout goes to /dev/null, so the flush at exit raises no second error
        os.dup2(os.open(os.devnull, os.O_WRONLY), sys.stdout.fileno())
    sys.exit(0)
