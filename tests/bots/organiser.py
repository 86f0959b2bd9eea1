"""The organiser's side of a sandbox probe, run in the test process (root) or as its own process
under another uid (``python organiser.py BOT``, e.g. ``setpriv --reuid=nobody``): starts the bot in
a :class:`bots.sandbox.Sandbox`, asks for one move and prints, as JSON, the bot's ``REPORT`` line and
how the host sees the bot's process (:func:`runner_status`).  Standard library and the project only,
so that Debian's ``/usr/bin/python3`` runs it with the project and the venv's site-packages on
``sys.path``."""
from __future__ import annotations

import json
import os
import sys
from typing import Any


def _children() -> dict[int, list[int]]:
    kids: dict[int, list[int]] = {}
    for name in os.listdir("/proc"):
        if not name.isdigit():
            continue
        try:
            with open(f"/proc/{name}/stat") as f:
                ppid = int(f.read().rsplit(")", 1)[1].split()[1])
        except (OSError, IndexError, ValueError):
            continue
        kids.setdefault(ppid, []).append(int(name))
    return kids


def runner_status(pid: int) -> dict[str, str]:
    """/proc/PID/status, as the host sees it, of the runner (``_runner.py``) started under ``pid``."""
    kids = _children()
    todo, found = [pid], None
    while todo:
        p = todo.pop()
        try:
            with open(f"/proc/{p}/cmdline", "rb") as f:
                argv = f.read().split(b"\0")
            if os.path.basename(argv[0]).startswith(b"python") and b"/sandbox/_runner.py" in argv:
                found = p
        except OSError:
            pass
        todo += kids.get(p, [])
    if found is None:
        raise LookupError(f"no runner under {pid}")
    out = {}
    with open(f"/proc/{found}/status") as f:
        for line in f:
            key, _, value = line.partition(":")
            out[key] = value.strip()
    return out


def probe(path: str, wrapper: str | None = None, observation: dict[str, Any] | None = None) -> dict[str, Any]:
    """Start the bot at ``path`` (a submitted bot), ask one move (``observation``, default one legal
    action); its report and the host's view."""
    from bots.api import bot_source
    from bots.sandbox import Limits, Sandbox, SandboxUnavailable

    try:
        box = Sandbox(bot_source(path), Limits(start_time=20.0, move_time=20.0), wrapper=wrapper)
    except SandboxUnavailable as e:
        return {"refused": str(e)}
    try:
        box.start()
        box.new_match("toy", 0, 1)
        assert box.proc is not None
        host = runner_status(box.proc.pid)
        action = box.act(observation or {"legal_actions": ["play QS"]})
    finally:
        box.close()
    line = next(ln for ln in box.stdout.decode("utf-8", "replace").splitlines() if ln.startswith("REPORT "))
    return {"action": action, "host": host, "report": json.loads(line[len("REPORT "):]),
            "organiser_uid": os.geteuid()}


if __name__ == "__main__":
    print(json.dumps(probe(sys.argv[1], sys.argv[2] if len(sys.argv) > 2 else None)))
