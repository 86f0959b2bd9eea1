"""Fills /tmp, /dev/shm and /var/tmp with 40 MB files (one each, named by the test) and leaves
them there.  Prints a ``REPORT`` line (JSON: bytes written per path), then keeps playing."""
import json
import os
from typing import Any

NAME = "cardarena-fill"   # the test makes the name unique
done: dict[str, bool] = {}


def fill(path: str, size: int = 40 << 20) -> int:
    written = 0
    block = b"x" * (1 << 20)
    try:
        with open(path, "wb") as f:
            while written < size:
                written += f.write(block)
                f.flush()
    except OSError:
        pass
    return written


def act(observation: dict[str, Any]) -> str:
    if not done:
        done["x"] = True
        written = {d: fill(os.path.join(d, NAME)) for d in ("/tmp", "/dev/shm", "/var/tmp")}
        print("REPORT " + json.dumps(written), flush=True)
    return str(observation["legal_actions"][0])
