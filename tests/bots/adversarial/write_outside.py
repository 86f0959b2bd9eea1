"""Tries to write files outside its working directory and prints what happened; keeps playing."""
import os
import sys
from typing import Any

TARGETS = ["/etc/cardarena-escape", "/usr/cardarena-escape", "/cardarena-escape"]
# the test adds the host paths it watches to EXTRA
EXTRA: list[str] = []
seen: dict[str, bool] = {"first_move": True}


def act(observation: dict[str, Any]) -> str:
    if seen.pop("first_move", False):
        for path in TARGETS + EXTRA + [os.path.join(os.path.dirname(__file__), "cardarena-escape")]:
            try:
                with open(path, "w") as f:
                    f.write("escaped")
                print(f"wrote {path}")
            except OSError as e:
                print(f"could not write {path}: {type(e).__name__}")
        with open("own-file.txt", "w") as f:  # its private working directory is writable
            f.write("fine")
        print("wrote own-file.txt in", os.getcwd())
        sys.stdout.flush()
    return str(observation["legal_actions"][0])
