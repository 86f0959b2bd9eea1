"""The ``cardarena`` console entry point (``[project.scripts]``; ``python -m dashboards`` is the same).

``cardarena games`` and ``cardarena games --json``, the commands a user types first and scripts call
most, are answered here without building the typer app: they read the cached games index
(tournaments/games_index.py) and print it with :func:`print_games`, the one rendering that the typer
command ``games`` (dashboards/app.py) uses too, so both print the same bytes.  Importing typer, rich
and typer's parameter coercion (pydantic) costs more than the whole listing (bench/startup.py).
Every other command line, ``games --help`` included, goes to the typer app in dashboards/app.py.
"""
from __future__ import annotations

import json
import shutil
import sys
import textwrap
from typing import Any

FAST = {("games",): False, ("games", "--json"): True}
"""The argument lists answered without typer, and whether each asks for JSON."""


def games_text(rows: list[dict[str, Any]], width: int) -> str:
    """The listing of ``cardarena games``: one line per game (id, seats, name), then its family and
    option names wrapped under the name at ``width`` columns (at least 40, at most 100)."""
    head = ("id", "players")
    cells = [(r["id"], _players(r["players"])) for r in rows]
    widths = [max(len(h), *(len(c[i]) for c in cells)) for i, h in enumerate(head)]
    indent = " " * (widths[0] + 2)
    lines = ["  ".join(h.ljust(w) for h, w in zip(head, widths, strict=True)) + "  name (family; options)"]
    for r, c in zip(rows, cells, strict=True):
        lines.append("  ".join(x.ljust(w) for x, w in zip(c, widths, strict=True)) + "  " + r["name"])
        lines += textwrap.wrap(f"{r['family']}; options: " + (", ".join(r["options"]) or "none"),
                               max(40, min(width, 100) - 1), initial_indent=indent,
                               subsequent_indent=indent + "  ", break_long_words=False,
                               break_on_hyphens=False)
    return "\n".join(lines)


def _players(span: list[int]) -> str:
    lo, hi = span
    return str(lo) if lo == hi else f"{lo}-{hi}"


def print_games(as_json: bool) -> None:
    """Print ``cardarena games`` (``--json``: the index rows as JSON)."""
    from tournaments.games_index import listing
    rows, _ = listing()
    if as_json:
        print(json.dumps(rows, indent=2))
    else:
        print(games_text(rows, shutil.get_terminal_size().columns))


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
