"""Forks children until forking fails.  The first escapes its process group the classic way
(``setsid`` and a second fork, so it is re-parented); every child execs a long ``sleep``.
It prints how many forks worked and how the last one failed, and keeps playing."""
import os
from typing import Any

MARK = "987654"
tally: dict[str, int | str] = {"forked": 0, "failed": ""}


def _sleep_forever() -> None:
    try:
        os.execv("/usr/bin/sleep", ["sleep", MARK])
    finally:
        os._exit(0)


def _spawn() -> None:
    pid = os.fork()
    if pid == 0:  # the escaping grandchild
        os.setsid()
        if os.fork() == 0:
            _sleep_forever()
        os._exit(0)
    os.waitpid(pid, 0)
    tally["forked"] = 1
    for _ in range(500):
        try:
            pid = os.fork()
        except OSError as e:
            tally["failed"] = f"{type(e).__name__}: {e}"
            return
        if pid == 0:
            os.setsid()
            _sleep_forever()
        tally["forked"] = int(tally["forked"]) + 1


def act(observation: dict[str, Any]) -> str:
    if not tally["forked"] and not tally["failed"]:
        _spawn()
        print(f"forked {tally['forked']}; then {tally['failed'] or 'no failure'}")
    return str(observation["legal_actions"][0])
