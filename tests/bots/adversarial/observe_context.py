"""Tries to tell a validation from a tournament match by what it observes (issue 27, section 6): at
its first move it fails on purpose with a reason that sums up its observation's shape (the hash of its
sorted keys and of the game's options) and its clock, so that the two can be compared from outside."""
import hashlib
import json
from typing import Any


def _digest(x: Any) -> str:
    return hashlib.sha256(json.dumps(x, sort_keys=True).encode()).hexdigest()[:16]


def act(observation: dict[str, Any]) -> str:
    types = {k: type(v).__name__ for k, v in observation.items()}
    shape = {"keys": _digest(sorted(observation)), "options": _digest(observation.get("options")),
             "clock": observation.get("clock"), "types": _digest(types)}
    raise RuntimeError("OBS " + json.dumps(shape, sort_keys=True))
