"""Tries to leave its cgroup (writes its pid into the root groups' and the parent group's
``cgroup.procs``), then forks until forking fails, every child a long ``sleep``.  Prints a
``REPORT`` line (JSON), then keeps playing."""
import glob
import json
import os
from typing import Any

MARK = "876543"
done: dict[str, bool] = {}


def act(observation: dict[str, Any]) -> str:
    if not done:
        done["x"] = True
        report: dict[str, Any] = {"escaped": [], "forks": 0, "failed": ""}
        targets = ["/sys/fs/cgroup/cgroup.procs", *glob.glob("/sys/fs/cgroup/*/cgroup.procs"),
                   *glob.glob("/sys/fs/cgroup/*/cardarena/cgroup.procs")]
        for path in targets:
            try:
                with open(path, "w") as f:
                    f.write(str(os.getpid()))
                report["escaped"].append(path)
            except OSError:
                pass
        for _ in range(200):
            try:
                pid = os.fork()
            except OSError as e:
                report["failed"] = f"{type(e).__name__}: {e}"
                break
            if pid == 0:
                try:
                    os.execv("/usr/bin/sleep", ["sleep", MARK])
                finally:
                    os._exit(0)
            report["forks"] += 1
        print("REPORT " + json.dumps(report), flush=True)
    return str(observation["legal_actions"][0])
