"""One-line failures for every ``cardarena`` command (standard library only).

Every command reports bad input the same way: :func:`fail` prints ``PROG: message`` as one line on
stderr, with control characters, line separators, ANSI escapes and lone surrogates shown escaped
(:func:`one_line`), and exits with status 2 or the code given.  It raises ``SystemExit``, not
``typer.Exit``: the main command runs typer with ``standalone_mode=False``, where a ``typer.Exit``'s
code would be returned instead of raised, and a bare sub-app (``python -m bots.cli``) exits the same.

>>> one_line("a\\nb\\x1b[2J")
'a\\\\nb\\\\x1b[2J'
"""
from __future__ import annotations

import json
import sys
from collections.abc import Sequence
from typing import Any, NoReturn

HELP_SETTINGS: dict[str, Any] = {"help_option_names": ["-h", "--help"]}
"""The typer/click context settings of every ``cardarena`` app: ``-h`` is ``--help``."""


def one_line(text: str, limit: int | None = 2000) -> str:
    """``text`` safe to print as one line: control characters, line separators, ANSI escapes, lone
    surrogates and the bidirectional controls (from a path, an id, a bot's message or a log's text)
    shown escaped, at most ``limit`` characters (``None``: all of them)."""
    out = "".join(c if c.isprintable() and not 0xD800 <= ord(c) <= 0xDFFF and c not in _BIDI
                  else repr(c)[1:-1] if not c.isprintable() else f"\\u{ord(c):04x}" for c in text)
    return out if limit is None or len(out) <= limit else out[:limit - 3] + "..."


_BIDI = frozenset("\u200e\u200f\u202a\u202b\u202c\u202d\u202e\u2066\u2067\u2068\u2069")
"""Bidirectional marks and overrides: printable by ``str.isprintable``, but they reorder what a
terminal shows around them."""


def json_requested(argv: Sequence[str] | None = None) -> bool:
    """Whether the command line (``sys.argv``) asks for machine-readable output: ``--json``, or
    ``--format json``, before any ``--``."""
    args = list(sys.argv[1:] if argv is None else argv)
    for i, a in enumerate(args):
        if a == "--":
            return False
        if a == "--json" or a == "--format=json" or (a == "--format" and args[i + 1:i + 2] == ["json"]):
            return True
    return False


def fail(prog: str, message: str, code: int = 2) -> NoReturn:
    """Print ``PROG: message`` as one clean line on stderr and exit with ``code`` (2: bad input).

    When the command line asks for JSON, stdout gets one JSON document too,
    ``{"error": "PROG: message", "exit": code}``: a script reading stdout sees why the command was
    refused instead of nothing."""
    line = f"{one_line(prog)}: {one_line(message)}"
    if json_requested():
        print(json.dumps({"error": line, "exit": code}), flush=True)
    print(line, file=sys.stderr)
    raise SystemExit(code)
