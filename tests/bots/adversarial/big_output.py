"""Writes 10**7 characters to stdout and to stderr on its first move, then plays legally."""
import sys
from typing import Any

seen: dict[str, bool] = {"first_move": True}


def act(observation: dict[str, Any]) -> str:
    if seen.pop("first_move", False):
        sys.stdout.write("x" * 10**7)
        sys.stdout.flush()
        sys.stderr.write("y" * 10**7)
        sys.stderr.flush()
    return str(observation["legal_actions"][0])
