"""Tries to change the host's kernel settings (issue 27, section 1): reports its ids, capabilities and
seccomp mode from /proc/self/status, every file under /proc/sys that passes ``access(W_OK)``, and
every file there it could open for writing (writing back the value it read, so that a breach changes
nothing), plus /proc/sysrq-trigger and what /proc/keys shows.  Prints a ``REPORT`` line (JSON), then
keeps playing."""
import json
import os
from typing import Any

done: dict[str, bool] = {}


def _status() -> dict[str, str]:
    out = {}
    with open("/proc/self/status") as f:
        for line in f:
            key, _, value = line.partition(":")
            if key in ("Uid", "Gid", "Groups", "CapEff", "CapPrm", "CapBnd", "NoNewPrivs", "Seccomp"):
                out[key] = value.strip()
    return out


def _writes() -> tuple[list[str], list[str], int]:
    access, opened, seen = [], [], 0
    for root, _, files in os.walk("/proc/sys"):
        for name in files:
            path = os.path.join(root, name)
            seen += 1
            if os.access(path, os.W_OK):
                access.append(path)
            try:
                with open(path, "rb") as f:
                    value = f.read(4096)
            except OSError:
                value = None
            try:
                fd = os.open(path, os.O_WRONLY)
            except OSError:
                continue
            try:
                if value is not None:
                    os.write(fd, value)
                opened.append(path)
            except OSError:
                opened.append(path + " (opened)")
            finally:
                os.close(fd)
    return access, opened, seen


def probe() -> dict[str, Any]:
    access, opened, seen = _writes()
    try:
        with open("/proc/keys") as f:
            keys = f.read()
    except OSError as e:
        keys = f"failed: {type(e).__name__}"
    trigger = os.access("/proc/sysrq-trigger", os.W_OK)
    return {"status": _status(), "uid": os.getuid(), "euid": os.geteuid(), "access": access,
            "opened": opened, "seen": seen, "keys": keys, "sysrq": trigger}


def act(observation: dict[str, Any]) -> str:
    if not done:
        done["x"] = True
        print("REPORT " + json.dumps(probe()), flush=True)
    return str(observation["legal_actions"][0])
