"""Answers an action made of terminal escape sequences (quoted in the illegal-move reason)."""
from typing import Any


def act(observation: dict[str, Any]) -> str:
    return "play \x1b[2J\x1b]0;pwned\x07\x1b[31mQS\x9b1m\r\n"
