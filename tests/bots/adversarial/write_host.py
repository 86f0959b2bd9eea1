"""Tries to tamper with the host: writes into the project tree, plants a ``.pth`` file in the
venv's site-packages (it would run at the next ``python``), writes into the bot registry and the
data directory, reads /etc/shadow and another bot's file.  The test gives the paths.  Prints a
``REPORT`` line (JSON: path -> what happened), then keeps playing."""
import json
from typing import Any

WRITE: list[str] = ["/etc/cardarena-escape"]   # the test adds its paths
READ: list[str] = ["/etc/shadow"]
done: dict[str, bool] = {}


def act(observation: dict[str, Any]) -> str:
    if not done:
        done["x"] = True
        report: dict[str, str] = {}
        for path in WRITE:
            try:
                with open(path, "w") as f:
                    f.write("import os; os.system('echo pwned')\n")
                report[path] = "wrote"
            except OSError as e:
                report[path] = f"failed: {type(e).__name__}"
        for path in READ:
            try:
                with open(path, "rb") as f:
                    report[path] = "read " + f.read(200).decode("utf-8", "replace")
            except OSError as e:
                report[path] = f"failed: {type(e).__name__}"
        print("REPORT " + json.dumps(report), flush=True)
    return str(observation["legal_actions"][0])
