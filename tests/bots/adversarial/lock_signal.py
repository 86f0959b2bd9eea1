"""The flock covert channel between bots (issue 27, section 3): every seat, at its first move, tries to
take an exclusive lock on files every sandbox shares (the runner, a file of /usr, the interpreter) with
flock and with open-file-description locks, keeps what it got until the match ends, and looks whether
another process already holds one (``busy``: one bit received).  Prints a ``REPORT`` line (JSON)."""
import errno
import fcntl
import json
import os
import struct
import sys
import time
from typing import Any

TARGETS = ["/sandbox/_runner.py", "/usr/lib/os-release", sys.executable]
F_OFD_GETLK, F_OFD_SETLK = 36, 37
held: list[int] = []
done: dict[str, bool] = {}


def _flock_struct(kind: int) -> bytes:
    return struct.pack("hhqqi4x", kind, 0, 0, 0, 0)


def signal(paths: list[str]) -> dict[str, str]:
    out = {}
    for path in paths:
        try:
            fd = os.open(path, os.O_RDONLY)
        except OSError as e:
            out[path] = f"failed: {type(e).__name__}"
            continue
        held.append(fd)
        try:
            fcntl.flock(fd, fcntl.LOCK_EX | fcntl.LOCK_NB)
            out[f"flock {path}"] = "locked"
        except OSError as e:
            busy = e.errno == errno.EWOULDBLOCK
            out[f"flock {path}"] = "busy" if busy else f"failed: {errno.errorcode.get(e.errno or 0)}"
        try:
            got = fcntl.fcntl(fd, F_OFD_GETLK, _flock_struct(fcntl.F_WRLCK))
            out[f"ofd-getlk {path}"] = "busy" if struct.unpack("hhqqi4x", got)[0] != fcntl.F_UNLCK else "free"
        except OSError as e:
            out[f"ofd-getlk {path}"] = f"failed: {errno.errorcode.get(e.errno or 0)}"
        try:
            fcntl.fcntl(fd, F_OFD_SETLK, _flock_struct(fcntl.F_RDLCK))
            out[f"ofd-setlk {path}"] = "locked"
        except OSError as e:
            out[f"ofd-setlk {path}"] = f"failed: {errno.errorcode.get(e.errno or 0)}"
    return out


def act(observation: dict[str, Any]) -> str:
    if not done:
        done["x"] = True
        time.sleep(0.2)   # the other seats start their probes meanwhile
        print("REPORT " + json.dumps(signal(TARGETS)), flush=True)
    return str(observation["legal_actions"][0])
