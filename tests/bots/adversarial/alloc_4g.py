"""Allocates 4 GiB on its first move."""
from typing import Any

hoard: list[bytearray] = []


def act(observation: dict[str, Any]) -> str:
    hoard.append(bytearray(4 << 30))
    return str(observation["legal_actions"][0])
