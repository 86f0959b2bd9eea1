"""Raises an exception with a 30 MB message (it must be a ``crash``, not a reply too long)."""
from typing import Any


def act(observation: dict[str, Any]) -> str:
    raise ValueError("x" * 30_000_000)
