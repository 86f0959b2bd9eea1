"""Exceptions of the engine's public surface, and :func:`quoted`, the one way their messages quote
text a caller gave (an action, a card token, a deal key): at most :data:`QUOTED_CHARS` characters of
it, however long it is.

>>> quoted("play QS")
"'play QS'"
>>> quoted("play " + "QS " * 50_000)[-40:]
"S QS QS QS QS QS'... (150005 characters)"
"""
from __future__ import annotations

import reprlib

QUOTED_CHARS = 100
"""How much of a caller's text an error message quotes (the match loop keeps 200 of an action)."""


def quoted(text: object) -> str:
    """``repr(text)`` when short; a string longer than :data:`QUOTED_CHARS` is quoted by its first
    :data:`QUOTED_CHARS` characters and its length.  Anything else by :func:`reprlib.repr` (bounded
    in size and depth)."""
    if isinstance(text, str):
        if len(text) <= QUOTED_CHARS:
            return repr(text)
        return f"{text[:QUOTED_CHARS]!r}... ({len(text)} characters)"
    return reprlib.repr(text)[:QUOTED_CHARS]


class IllegalAction(ValueError):
    """An action that is malformed, or not legal in the current state.

    The state it was offered to is left unchanged.  The message says what was wrong and, for a
    malformed action, shows the right form.
    """
