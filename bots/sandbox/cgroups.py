"""A per-sandbox cgroup (v1 or v2, where writable): a cap on processes and threads (``pids.max``), a
memory cap over the whole process group, and ``SCHED_IDLE`` between the bot's moves (``cpu.idle``)."""
from __future__ import annotations

import itertools
import os
import signal
import time
from functools import cache
from pathlib import Path

from bots.sandbox.limits import Limits


# --------------------------------------------------------------------------- cgroups
class Cgroups:
    """A per-sandbox cgroup (v1: pids, memory, cpu hierarchies; v2: one unified group)."""

    V1 = Path("/sys/fs/cgroup")
    V2 = Path("/sys/fs/cgroup")
    PARENT = "cardarena"
    _count = itertools.count()

    @staticmethod
    @cache
    def detect() -> str:
        if os.environ.get("CARDARENA_NO_CGROUP"):
            return "none"
        v1 = Cgroups.V1
        if all((v1 / c / "cgroup.procs").exists() for c in ("pids", "memory", "cpu")):
            try:
                for c in ("pids", "memory", "cpu"):
                    (v1 / c / Cgroups.PARENT).mkdir(exist_ok=True)
                probe = v1 / "pids" / Cgroups.PARENT / f"probe-{os.getpid()}"
                probe.mkdir(exist_ok=True)
                (probe / "pids.max").write_text("8")
                probe.rmdir()
                Cgroups.reap_stale("v1")
                return "v1"
            except OSError:
                pass
        v2 = Cgroups.V2
        if (v2 / "cgroup.controllers").exists() and (v2 / "cgroup.subtree_control").exists():
            try:
                parent = v2 / Cgroups.PARENT
                parent.mkdir(exist_ok=True)
                ctl = set((v2 / "cgroup.subtree_control").read_text().split())
                want = {"pids", "memory", "cpu"} & set((v2 / "cgroup.controllers").read_text().split())
                if not want <= ctl:
                    (v2 / "cgroup.subtree_control").write_text(" ".join("+" + c for c in want))
                (parent / "cgroup.subtree_control").write_text(" ".join("+" + c for c in want))
                probe = parent / f"probe-{os.getpid()}"
                probe.mkdir(exist_ok=True)
                (probe / "pids.max").write_text("8")
                probe.rmdir()
                Cgroups.reap_stale("v2")
                return "v2"
            except OSError:
                pass
        return "none"

    @staticmethod
    def reap_stale(kind: str) -> None:
        """Remove empty per-sandbox groups left by processes that died without closing them."""
        roots = ([Cgroups.V1 / c / Cgroups.PARENT for c in ("pids", "memory", "cpu")] if kind == "v1"
                 else [Cgroups.V2 / Cgroups.PARENT])
        for root in roots:
            try:
                entries = list(root.iterdir())
            except OSError:
                continue
            for d in entries:
                pid = d.name.split("-", 1)[0]
                if d.is_dir() and pid.isdigit() and not Path(f"/proc/{pid}").exists():
                    try:
                        d.rmdir()
                    except OSError:
                        pass

    def __init__(self, limits: Limits) -> None:
        self.kind = self.detect()
        self.dirs: list[Path] = []
        self.idle_file: Path | None = None
        self._ffd: int | None = None
        if self.kind == "none":
            return
        name = f"{os.getpid()}-{next(self._count)}-{os.urandom(3).hex()}"
        if self.kind == "v1":
            for c in ("pids", "memory", "cpu"):
                d = self.V1 / c / self.PARENT / name
                d.mkdir()
                self.dirs.append(d)
            (self.dirs[0] / "pids.max").write_text(str(limits.pids))
            (self.dirs[1] / "memory.limit_in_bytes").write_text(str(limits.group_memory))
            idle = self.dirs[2] / "cpu.idle"
        else:
            d = self.V2 / self.PARENT / name
            d.mkdir()
            self.dirs.append(d)
            (d / "pids.max").write_text(str(limits.pids))
            (d / "memory.max").write_text(str(limits.group_memory))
            if (d / "memory.swap.max").exists():
                (d / "memory.swap.max").write_text("0")
            idle = d / "cpu.idle"
        self.idle_file = idle if idle.exists() else None

    def procs_files(self) -> list[str]:
        return [str(d / "cgroup.procs") for d in self.dirs]

    def idle(self, on: bool) -> None:
        """Make the group SCHED_IDLE (``on``) or normal again."""
        if self.idle_file is None:
            return
        if self._ffd is None:
            self._ffd = os.open(self.idle_file, os.O_WRONLY)
        try:
            os.write(self._ffd, b"1" if on else b"0")
        except OSError:
            pass

    def oom_killed(self) -> bool:
        try:
            if self.kind == "v1":
                text = (self.dirs[1] / "memory.oom_control").read_text()
                killed = any(ln.startswith("oom_kill ") and ln.split()[1] != "0" for ln in text.splitlines())
                return killed or (self.dirs[1] / "memory.failcnt").read_text().strip() != "0"
            if self.kind == "v2":
                for line in (self.dirs[0] / "memory.events").read_text().splitlines():
                    k, v = line.split()
                    if k in ("oom", "oom_kill") and v != "0":
                        return True
        except (OSError, IndexError, ValueError):
            pass
        return False

    def pids(self) -> list[int]:
        if not self.dirs:
            return []
        try:
            return [int(x) for x in (self.dirs[0] / "cgroup.procs").read_text().split()]
        except OSError:
            return []

    def kill_and_remove(self) -> None:
        if not self.dirs:
            return
        if self.kind == "v2" and (self.dirs[0] / "cgroup.kill").exists():
            try:
                (self.dirs[0] / "cgroup.kill").write_text("1")
            except OSError:
                pass
        for pid in self.pids():
            try:
                os.kill(pid, signal.SIGKILL)
            except OSError:
                pass
        if self._ffd is not None:
            os.close(self._ffd)
            self._ffd = None
        for _ in range(200):
            for d in list(self.dirs):
                try:
                    d.rmdir()
                    self.dirs.remove(d)
                except FileNotFoundError:
                    self.dirs.remove(d)
                except OSError:
                    pass
            if not self.dirs:
                return
            for pid in self.pids():
                try:
                    os.kill(pid, signal.SIGKILL)
                except OSError:
                    pass
            time.sleep(0.005)

