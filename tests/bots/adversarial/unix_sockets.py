"""Connects to every unix socket it can find: under /tmp/ray (Ray's sockets), the paths and the
abstract names the test gives.  Prints a ``REPORT`` line (JSON: what connected, what failed), then
keeps playing."""
import glob
import json
import socket
from typing import Any

PATHS: list[str] = []      # the test adds a listening socket's path
ABSTRACT: list[str] = []   # and an abstract socket's name
done: dict[str, bool] = {}


def _connect(addr: str | bytes) -> str:
    s = socket.socket(socket.AF_UNIX, socket.SOCK_STREAM)
    s.settimeout(0.2)
    try:
        s.connect(addr)
        return "connected"
    except OSError as e:
        return f"failed: {type(e).__name__}"
    finally:
        s.close()


def act(observation: dict[str, Any]) -> str:
    if not done:
        done["x"] = True
        found = glob.glob("/tmp/ray/**/*sock*", recursive=True)[:20] + PATHS
        report = {p: _connect(p) for p in found}
        report.update({"@" + a: _connect(b"\0" + a.encode()) for a in ABSTRACT})
        print("REPORT " + json.dumps(report), flush=True)
    return str(observation["legal_actions"][0])
