"""Sleeps far past the deadline on its first move (sleeping uses no CPU: only a wall clock catches it)."""
import time
from typing import Any


def act(observation: dict[str, Any]) -> str:
    time.sleep(60)
    return str(observation["legal_actions"][0])
