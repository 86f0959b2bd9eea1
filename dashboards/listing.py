"""The listing of ``cardarena games``, rendered once: :func:`print_games` is what both the fast entry point
(dashboards/entry.py, before typer loads) and the typer command ``games`` (dashboards/app.py) print, so
both print the same bytes.  It reads the cached games index (tournaments/games_index.py), never a game.
"""
from __future__ import annotations

import json
import shutil
import textwrap
from typing import Any


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
