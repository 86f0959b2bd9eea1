"""Exceptions of the engine's public surface."""
from __future__ import annotations


class IllegalAction(ValueError):
    """An action that is malformed, or not legal in the current state.

    The state it was offered to is left unchanged.  The message says what was wrong and, for a
    malformed action, shows the right form.
    """
