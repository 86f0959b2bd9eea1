"""Looks for other seats' hands: imports the engine, walks gc.get_objects() and the call stack.

Whatever it finds it plays as an action (``spy ...``), which the test would see as an illegal
move; when it finds nothing it plays legally.
"""
import gc
import inspect
import sys
from typing import Any


def find_secrets(observation: dict[str, Any]) -> list[str]:
    found: list[str] = []
    try:
        import engine  # noqa: F401
        found.append("imported engine")
    except ImportError:
        pass
    own = sorted(observation.get("hand", []))
    for obj in gc.get_objects():
        if type(obj).__name__.endswith("State") and hasattr(obj, "hands"):
            found.append(f"a {type(obj).__name__} object")
        elif isinstance(obj, dict) and obj is not observation and "hand" in obj and "legal_actions" in obj:
            hand = obj.get("hand")
            if isinstance(hand, list) and sorted(hand) != own and obj.get("seat") != observation.get("seat"):
                found.append(f"another observation (seat {obj.get('seat')})")
    for frame in inspect.stack():
        for name, value in frame.frame.f_locals.items():
            if type(value).__name__.endswith("State"):
                found.append(f"a state in frame {frame.function}:{name}")
    found += [m for m in sys.modules if m == "engine" or m.startswith("engine.")][:1]
    return found


def act(observation: dict[str, Any]) -> str:
    found = find_secrets(observation)
    if found:
        return "spy " + "; ".join(found[:3])
    return str(observation["legal_actions"][0])
