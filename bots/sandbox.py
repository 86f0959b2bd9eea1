"""The process sandbox: each submitted bot runs in its own OS process and sees observations only.

One :class:`Sandbox` is one child process running ``bots/_runner.py`` with one bot loaded.  The
parent sends observations (JSON lines over a pipe) and reads actions back, with a per-move deadline
and a per-match time bank.  What is enforced (see :func:`isolation` and docs/bots.md):

* **bubblewrap** (``bwrap``, Debian ``bubblewrap``) when it works here: a new network namespace (no
  network), a new PID namespace (children die with the bot; ``setsid`` cannot escape), new IPC and
  UTS namespaces, uid/gid 65534 and never the host's root (:func:`_bwrap_argv`), no capabilities,
  no_new_privs, a read-only view of only ``/usr``, the Python installation, the runner and the bot's
  own file or folder (no project files, no other bot, no data directory), a ``/proc`` whose kernel
  settings are read-only (:data:`PROC_READ_ONLY`) and whose keyrings and kernel memory are hidden
  (:data:`PROC_HIDDEN`), and a private ``/tmp`` as the working directory.  The environment is cleared.
* **cgroups** (v1 or v2, when writable): a cap on processes and threads (``pids.max``, forks fail
  beyond it), a memory cap over the whole process group, and between its moves the bot's group is
  made ``SCHED_IDLE`` (``cpu.idle``): a thread it leaves running gets only CPU time nobody else
  wants, so it cannot slow the others while they think (4 µs per move; the cgroup freezer costs
  250 µs and SIGSTOP/SIGCONT 55 µs, measured here).
* **rlimits** set by the runner before the bot's code runs: address space (``MemoryError`` beyond
  it), CPU seconds (SIGXCPU), file size, open files, no core dumps.
* stdout and stderr are pipes that the parent drains and keeps up to ``Limits.output`` bytes each.

* every bot-supplied text is cleaned (:mod:`bots.text`), and only the parent decides a fault's
  outcome and stage (:meth:`Sandbox._protocol_fault`): the runner shares its process with the bot.

**The codec.**  Messages are JSON lines both ways.  Both ends encode and decode them with msgspec's
JSON codec where it is installed (a project dependency: 5 µs a Hartenjagen observation against 22 µs
for the standard library's ``json``): the sandbox binds only msgspec's own package folder, read-only,
at ``/sandbox/codec/msgspec`` (:func:`codec_dir`), and the runner imports it before the bot's code
runs.  Where msgspec is absent, or cannot be imported inside the sandbox, that end uses ``json`` on
the same bytes (:data:`CODEC` here; the runner names its own in its ready message, :attr:`Sandbox.codec`).
Whatever comes back, malformed, truncated, nested too deep or not an object, is the bot's ``illegal``
move, never an error of this process.

Submitted (untrusted) bots run only under bubblewrap: without it :class:`SandboxUnavailable` (one
line: how to install it, how to accept the fallback) is raised, unless ``CARDARENA_SANDBOX=unshare``
forces the hardened unshare fallback (root only: own mount, PID, network, IPC and UTS namespaces, a
private read-only root with its own ``/proc`` and tmpfs ``/tmp``, ``/var/tmp``, ``/dev/shm``, uid
65534, no capabilities, ``no_new_privs``; see :func:`_unshare_script`).  Trusted built-ins run in
whatever works, a plain process at worst.  :func:`isolation` says what is enforced.
"""
from __future__ import annotations

import base64
import itertools
import json
import os
import pickle
import select
import shlex
import shutil
import signal
import subprocess
import sys
import tempfile
import time
from collections.abc import Sequence
from dataclasses import dataclass, field, replace
from functools import cache
from pathlib import Path
from typing import Any

from bots import seccomp
from bots.api import BotSource, Observation
from bots.faults import BotFault  # the one fault record's exception form (bots/faults.py)
from bots.text import clean_lines, clean_text

try:
    import msgspec
except ImportError:  # pragma: no cover - msgspec is a dependency; json reads and writes the same bytes
    msgspec = None  # type: ignore[assignment]

RUNNER = Path(__file__).with_name("_runner.py")
CONFINE_FAILED = 96
"""The runner's exit status when the kernel refuses the seccomp filter (bots/_runner.py)."""
PROJECT_ROOT = Path(__file__).resolve().parent.parent

CODEC_INSIDE = "/sandbox/codec"
"""Where the sandbox shows the codec's package (``/sandbox/codec/msgspec``)."""


def _json_encode(obj: Any) -> bytes:
    return json.dumps(obj, separators=(",", ":")).encode()


if msgspec is not None:
    CODEC = "msgspec"
    _ENC = msgspec.json.Encoder().encode
    _DEC = msgspec.json.Decoder().decode

    def encode_message(obj: Any) -> bytes:
        """One message as JSON (no newline)."""
        try:
            return _ENC(obj)
        except (UnicodeEncodeError, msgspec.EncodeError, OverflowError, TypeError):
            return _json_encode(obj)   # what msgspec refuses (a lone surrogate): json writes it escaped

    def decode_message(line: bytes) -> Any:
        """One message; what msgspec refuses is read as ``json`` reads it (a ``\\ud800`` escape that
        json wrote, ``NaN``), so both codecs accept exactly the same lines."""
        try:
            return _DEC(line)
        except msgspec.DecodeError:
            return json.loads(line)
else:  # pragma: no cover
    CODEC = "json"
    encode_message = _json_encode
    decode_message = json.loads

CODECS = ("msgspec", "json")

DECODE_ERRORS = (ValueError, RecursionError)
"""What decoding a line may raise (msgspec's ``DecodeError`` and json's errors are ``ValueError``s;
both raise ``RecursionError`` on a deeply nested line)."""


@cache
def codec_dir() -> str | None:
    """The folder of msgspec's package, bound into the sandbox for the runner (None: not installed,
    or not a plain folder: the runner then uses ``json``)."""
    if msgspec is None:
        return None
    where = os.path.dirname(os.path.realpath(msgspec.__file__))
    return where if os.path.basename(where) == "msgspec" and os.path.isdir(where) else None


def _show(msg: Any, limit: int = 80) -> str:
    """A short text of a decoded reply, for a fault's reason (never fails, whatever its nesting)."""
    import reprlib

    r = reprlib.Repr()
    r.maxlevel, r.maxstring, r.maxother = 3, limit, limit
    return r.repr(msg)[:limit]


OUTCOMES = ("ok", "timeout", "crash", "illegal", "memory")
"""Outcome of a move or a match for one seat."""


@dataclass(frozen=True)
class Limits:
    """What a sandboxed bot may use.  Times in seconds, sizes in bytes."""

    move_time: float = 1.0
    """Per-move deadline; a slower move draws the excess from the time bank."""
    time_bank: float = 5.0
    """Per-match reserve for moves slower than ``move_time``; a move faults once it is spent."""
    match_time: float | None = None
    """Optional hard cap on the bot's total thinking time in one match, shown in its ``clock``."""
    quiet_match_time: float | None = None
    """A cap on the bot's total thinking time in one match that its ``clock`` does not show:
    validation's smoke matches never hang, while what the bot sees stays what a tournament shows."""
    start_time: float = 10.0
    """Deadline for starting the process, importing the bot and constructing ``Bot``."""
    memory: int = 1 << 30
    """Address-space cap of the bot's process (``RLIMIT_AS``): ``MemoryError`` beyond it."""
    group_memory: int = 1 << 30
    """Memory cap of the bot and everything it forks (cgroup, where available)."""
    cpu: int = 300
    """CPU seconds the process may use in all (``RLIMIT_CPU``); wall-clock deadlines do the rest."""
    pids: int = 32
    """Processes and threads in the sandbox (cgroup ``pids.max``, where available)."""
    output: int = 64 << 10
    """Bytes of stdout and of stderr kept for the author; the rest is read and dropped."""
    file_size: int = 16 << 20
    """Largest file the bot may write in its private /tmp (``RLIMIT_FSIZE``)."""
    open_files: int = 64
    reply_size: int = 1 << 16
    """Longest reply line accepted from the bot."""
    affinity: tuple[int, ...] | None = None
    """CPUs the bot's process runs on (None: any).  Pinning the match process and its bots to one
    core cuts the pipe round trip from ~55 to ~11 µs here (bench/sandbox.py)."""
    idle_between_moves: bool = True
    """Between its moves the bot runs only on otherwise idle CPU (cgroup ``cpu.idle``)."""
    tmp_size: int = 64 << 20
    """Size of each private tmpfs (``/tmp``, ``/dev/shm``, ``/var/tmp``) the bot may write in."""


DEFAULT_LIMITS = Limits()


class SandboxUnavailable(ValueError):
    """Submitted (untrusted) bots cannot run here: no sandbox strong enough.  The message is one
    line that says how to get bubblewrap and how to accept the weaker fallback explicitly."""


INSTALL_HINT = "install bubblewrap (apt-get install bubblewrap, or make sandbox-tools as root)"
FORCE_HINT = ("or accept the unshare fallback explicitly with CARDARENA_SANDBOX=unshare (root only; "
              "less proven than bubblewrap)")
WRAPPERS = ("bwrap", "unshare", "none")


# --------------------------------------------------------------------------- what this machine allows
@dataclass(frozen=True)
class Isolation:
    """The isolation available on this machine."""

    wrapper: str
    """``bwrap``, ``unshare`` or ``none``: what every sandbox (trusted built-ins included) runs in."""
    cgroup: str
    """``v1``, ``v2`` or ``none``."""
    enforced: tuple[str, ...]
    missing: tuple[str, ...]
    refusal: str | None = None
    """Why submitted bots are refused here (None: they run, under ``wrapper``)."""

    def describe(self) -> str:
        out = f"sandbox: {self.wrapper}, cgroups {self.cgroup}; enforced: {', '.join(self.enforced)}"
        if self.missing:
            out += f"; NOT enforced here: {', '.join(self.missing)}"
        if self.refusal:
            out += f"; submitted bots are refused: {self.refusal}"
        return out

    def require_untrusted(self) -> None:
        """Raise :class:`SandboxUnavailable` unless submitted bots may run here."""
        if self.refusal:
            raise SandboxUnavailable(self.refusal)


def _run_ok(cmd: Sequence[str], timeout: float = 5.0, env: dict[str, str] | None = None) -> bool:
    try:
        return subprocess.run(list(cmd), stdin=subprocess.DEVNULL, stdout=subprocess.DEVNULL,
                              stderr=subprocess.DEVNULL, timeout=timeout, env=env).returncode == 0
    except (OSError, subprocess.SubprocessError):
        return False


@cache
def _bwrap_ok() -> bool:
    """Does bubblewrap start the real interpreter here, as an unprivileged uid, with every option
    the sandbox uses?"""
    if shutil.which("bwrap") is None or (os.geteuid() == 0 and not _tool("setpriv")):
        return False
    python, _ = _python()
    return _run_ok(_bwrap_argv(DEFAULT_LIMITS, _python_binds(), [python, "-I", "-S", "-c", "pass"]))


@cache
def _unshare_ok() -> bool:
    """Does the hardened unshare sandbox work here, every part of it (root, mount/PID/net/IPC/UTS
    namespaces, a private root, setpriv to an unprivileged uid with no capabilities)?"""
    if os.geteuid() != 0 or not all(_tool(t) for t in _UNSHARE_TOOLS):
        return False
    python, _ = _python()
    with tempfile.TemporaryDirectory(prefix="cardarena-probe-") as d:
        root = os.path.join(d, "root")
        os.mkdir(root)
        return _run_ok(_unshare_argv(_unshare_script(root, _python_binds(), DEFAULT_LIMITS),
                                     [python, "-I", "-S", "-c", "pass"]),
                       env={"PATH": "/usr/bin:/bin", "LANG": "C.UTF-8"})


def isolation(force: str | None = None) -> Isolation:
    """What the sandbox enforces on this machine (``force``: ``bwrap``, ``unshare`` or ``none``;
    default ``$CARDARENA_SANDBOX``, else the strongest that works)."""
    if force is None:
        force = os.environ.get("CARDARENA_SANDBOX") or None
    return _isolation(force)


@cache
def _isolation(force: str | None) -> Isolation:
    refusal: str | None = None
    if force is None:
        wrapper = "bwrap" if _bwrap_ok() else "unshare" if _unshare_ok() else "none"
        if wrapper != "bwrap":
            refusal = (f"submitted bots run only under bubblewrap, which does not work here: {INSTALL_HINT}, "
                       f"{FORCE_HINT}")
    elif force == "bwrap":
        wrapper = "bwrap" if _bwrap_ok() else "none"
        if wrapper != "bwrap":
            refusal = f"CARDARENA_SANDBOX=bwrap but bubblewrap does not work here: {INSTALL_HINT}"
    elif force == "unshare":
        wrapper = "unshare" if _unshare_ok() else "none"
        if wrapper != "unshare":
            refusal = ("CARDARENA_SANDBOX=unshare but the unshare sandbox cannot be set up here (it needs "
                       f"root, unshare, setpriv and pivot_root from util-linux): {INSTALL_HINT}")
    elif force == "none":
        wrapper = "none"
        refusal = (f"CARDARENA_SANDBOX=none runs bots without a sandbox, which only built-in bots may: "
                   f"{INSTALL_HINT}, {FORCE_HINT}")
    else:
        wrapper = "bwrap" if _bwrap_ok() else "none"
        refusal = (f"CARDARENA_SANDBOX must be one of {', '.join(WRAPPERS)}, not {force!r} (unset, submitted "
                   "bots run under bubblewrap)")
    no_filter = seccomp.unavailable() if wrapper != "none" else None
    if no_filter is not None and refusal is None:
        refusal = f"submitted bots run only under a seccomp filter, which cannot be built here: {no_filter}"
    cg = _Cgroups.detect()
    enforced = ["own process", "observations only", "per-move deadline and time bank",
                "address-space cap (RLIMIT_AS)", "CPU cap (RLIMIT_CPU)", "file-size cap",
                "stripped environment", "stdout/stderr captured and capped",
                "bot text cleaned (no escapes, control characters or surrogates; capped)",
                "outcomes and stages decided by the match, never by the bot"]
    missing: list[str] = []
    if wrapper == "bwrap":
        enforced += ["no network (new net namespace)", "PID namespace (no escape from kill)",
                     "new IPC and UTS namespaces",
                     "read-only filesystem view without project or other bots' files",
                     "writes only in the private /tmp and /dev/shm",
                     "unprivileged uid 65534 (never the host's root)", "no capabilities", "no_new_privs",
                     "/proc/sys and kernel triggers read-only, keyrings and kernel memory hidden"]
    elif wrapper == "unshare":
        enforced += ["no network (new net namespace)", "PID namespace (no escape from kill)",
                     "new IPC and UTS namespaces", "own mount namespace, own /proc",
                     "read-only filesystem view without project or other bots' files",
                     "writes only in the private /tmp, /var/tmp and /dev/shm",
                     "unprivileged uid 65534 (never the host's root)", "no capabilities", "no_new_privs",
                     "/proc/sys and kernel triggers read-only, keyrings and kernel memory hidden"]
    if wrapper != "none" and no_filter is None:
        enforced += ["seccomp allow-list: keyrings, file locks, inotify, ptrace, bpf, perf, mounts and new "
                     "namespaces refused with EPERM (bots/seccomp.py)", "a fresh anonymous session keyring"]
    elif wrapper != "none":
        missing += [f"seccomp filter ({no_filter})"]
    if wrapper == "none":
        enforced += ["private temporary working directory"]
        missing += ["network isolation", "PID namespace (a setsid double-fork escapes the kill)",
                    "filesystem isolation (the bot can read and write what this user can)",
                    "uid and capabilities (the bot runs as this user)"]
    if cg != "none":
        enforced += ["process/thread cap (cgroup pids)", "group memory cap (cgroup memory)",
                     "idle priority between moves (cgroup cpu.idle)"]
    else:
        missing += ["process/thread cap (forks are limited only by RLIMIT_NPROC, which root ignores)",
                    "group memory cap over forked children", "idle priority between moves"]
    return Isolation(wrapper, cg, tuple(enforced), tuple(missing), refusal)


# --------------------------------------------------------------------------- cgroups
class _Cgroups:
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
        v1 = _Cgroups.V1
        if all((v1 / c / "cgroup.procs").exists() for c in ("pids", "memory", "cpu")):
            try:
                for c in ("pids", "memory", "cpu"):
                    (v1 / c / _Cgroups.PARENT).mkdir(exist_ok=True)
                probe = v1 / "pids" / _Cgroups.PARENT / f"probe-{os.getpid()}"
                probe.mkdir(exist_ok=True)
                (probe / "pids.max").write_text("8")
                probe.rmdir()
                _Cgroups.reap_stale("v1")
                return "v1"
            except OSError:
                pass
        v2 = _Cgroups.V2
        if (v2 / "cgroup.controllers").exists() and (v2 / "cgroup.subtree_control").exists():
            try:
                parent = v2 / _Cgroups.PARENT
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
                _Cgroups.reap_stale("v2")
                return "v2"
            except OSError:
                pass
        return "none"

    @staticmethod
    def reap_stale(kind: str) -> None:
        """Remove empty per-sandbox groups left by processes that died without closing them."""
        roots = ([_Cgroups.V1 / c / _Cgroups.PARENT for c in ("pids", "memory", "cpu")] if kind == "v1"
                 else [_Cgroups.V2 / _Cgroups.PARENT])
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


# --------------------------------------------------------------------------- the command
UNPRIVILEGED = 65534
"""The uid and gid a bot runs as (``nobody``), never the host's root, in both sandboxes."""

PROC_READ_ONLY = ("sys", "sysrq-trigger", "irq", "bus", "fs")
"""Parts of the bot's ``/proc`` bound read-only over themselves: the kernel's settings and triggers
(bubblewrap's ``--proc`` covers ``/proc/sys`` only when ``access(W_OK)`` succeeds, which it never does)."""
PROC_HIDDEN = ("keys", "key-users", "kcore", "kallsyms", "timer_list", "sched_debug", "latency_stats",
               "kpagecount", "kpageflags", "kpagecgroup")
"""Parts of ``/proc`` a bot does not need, covered with ``/dev/null`` (the kernel keyrings it can see,
kernel memory and symbols, other processes' timers)."""


def _proc_entries(names: Sequence[str]) -> list[str]:
    return [n for n in names if os.path.exists(f"/proc/{n}")]


def _dirs(inside: Sequence[str]) -> list[str]:
    """bubblewrap options making every missing parent folder of the ``inside`` paths, mode 0755
    (bubblewrap makes them 0700 when root starts it, which uid 65534 cannot enter)."""
    have = {"/", "/usr", "/tmp", "/dev", "/proc", "/bin", "/sbin", "/lib", "/lib32", "/lib64", "/libx32"}
    out: list[str] = []
    for path in inside:
        parts = Path(path).parent.parts
        for i in range(2, len(parts) + 1):
            d = "/" + "/".join(parts[1:i])
            if d not in have:
                have.add(d)
                out += ["--perms", "0755", "--dir", d]
    return out


def _setpriv() -> list[str]:
    """The command prefix that drops to uid/gid 65534 with no groups, no capabilities (inheritable,
    bounding) and no_new_privs before the interpreter starts."""
    ids = str(UNPRIVILEGED)
    return [_tool("setpriv") or "/usr/bin/setpriv", "--reuid", ids, "--regid", ids, "--clear-groups",
            "--inh-caps=-all", "--bounding-set=-all", "--no-new-privs", "--"]


def _confinement() -> list[str]:
    """The runner's ``--confine`` argument: a fresh session keyring and the seccomp filter
    (bots/seccomp.py), or nothing where the filter cannot be built (then :func:`isolation` refuses
    submitted bots)."""
    return [seccomp.confine_arg()] if seccomp.unavailable() is None else []


def _identity() -> tuple[list[str], list[str]]:
    """(bubblewrap's options, the command prefix) that make the bot uid 65534, never the host's 0:
    see :func:`_bwrap_argv`."""
    ids = str(UNPRIVILEGED)
    if os.geteuid() == 0:
        return (["--cap-drop", "ALL", "--cap-add", "CAP_SETUID", "--cap-add", "CAP_SETGID",
                 "--cap-add", "CAP_SETPCAP"], _setpriv())
    return ["--unshare-user", "--uid", ids, "--gid", ids, "--cap-drop", "ALL"], []


def _bwrap_argv(limits: Limits, binds: Sequence[tuple[str, str]], argv: Sequence[str]) -> list[str]:
    """The whole bubblewrap command running ``argv`` with ``binds`` (host path, path inside) read-only.

    The bot is never the host's uid 0.  Started by root, bubblewrap keeps only CAP_SETUID, CAP_SETGID
    and CAP_SETPCAP for the child, which is ``setpriv`` dropping to uid/gid 65534 with no capabilities
    and no_new_privs (a user namespace would map the bot's uid to the host's 0).  Started by anyone
    else, bubblewrap makes a user namespace in which the bot is uid 65534, mapped to that user.
    """
    args: list[str] = ["--ro-bind", "/usr", "/usr"]
    for d in ("/bin", "/sbin", "/lib", "/lib32", "/lib64", "/libx32"):
        if os.path.islink(d):
            args += ["--symlink", os.readlink(d), d]
        elif os.path.isdir(d):
            args += ["--ro-bind", d, d]
    size = str(limits.tmp_size)
    args += ["--dev", "/dev", "--perms", "1777", "--size", size, "--tmpfs", "/dev/shm", "--proc", "/proc"]
    for n in _proc_entries(PROC_READ_ONLY):
        args += ["--ro-bind", f"/proc/{n}", f"/proc/{n}"]
    for n in _proc_entries(PROC_HIDDEN):
        args += ["--ro-bind", "/dev/null", f"/proc/{n}"]
    args += ["--perms", "1777", "--size", size, "--tmpfs", "/tmp", "--chdir", "/tmp"]
    args += _dirs([inside for _, inside in binds])
    for host, inside in binds:
        args += ["--ro-bind", host, inside]
    args += ["--unshare-net", "--unshare-pid", "--unshare-ipc", "--unshare-uts", "--unshare-cgroup-try",
             "--die-with-parent", "--new-session", "--clearenv",
             "--setenv", "HOME", "/tmp", "--setenv", "PATH", "/usr/bin:/bin",
             "--setenv", "LANG", "C.UTF-8", "--setenv", "TMPDIR", "/tmp", "--remount-ro", "/"]
    options, prefix = _identity()
    return [shutil.which("bwrap") or "bwrap", *args, *options, "--", *prefix, *argv]


# The unshare fallback (CARDARENA_SANDBOX=unshare, root only).  ``unshare`` makes new mount, PID,
# network, IPC and UTS namespaces; in them, as root, a shell builds a private root on a tmpfs (the
# host directory under it is the sandbox's own temporary directory, hidden by the mount): read-only
# binds of /usr, the Python installation, the runner and the bot (and, for trusted built-ins, the
# project's engine and bots packages), /dev/null and friends, a fresh /proc of the new PID namespace
# (its PROC_READ_ONLY parts read-only, its PROC_HIDDEN parts covered), size-capped tmpfs on /tmp,
# /var/tmp and /dev/shm; then the root itself is made read-only, ``pivot_root`` moves into it and the
# host's tree is unmounted (lazily) so that nothing of it stays reachable.  Last, ``setpriv`` becomes
# uid/gid 65534 with no groups, no capabilities (inheritable, bounding) and no_new_privs, and execs
# the interpreter.  Any failing step fails the start (``set -e``): the sandbox never runs weaker
# than this.
_UNSHARE_TOOLS = ("unshare", "setpriv", "pivot_root", "mount", "umount")
_DEVICES = ("null", "zero", "full", "random", "urandom")
_TOOL_PATH = "/usr/sbin:/usr/bin:/sbin:/bin"


def _tool(name: str) -> str:
    """The absolute path of a set-up tool ('' when missing): the sandbox's PATH has no sbin."""
    return shutil.which(name, path=_TOOL_PATH) or ""


def _unshare_script(root: str, binds: Sequence[tuple[str, str]], limits: Limits) -> str:
    """The shell script that builds the private root at ``root`` with ``binds`` (host path, path
    inside), read-only."""
    q = shlex.quote
    r = q(root)
    mount, umount, pivot = (q(_tool(t)) for t in ("mount", "umount", "pivot_root"))
    size = limits.tmp_size
    lines = ["set -e", "umask 022", f"{mount} -t tmpfs -o mode=755,size=4m,nosuid cardarena-root {r}",
             f"cd {r}", "mkdir -p usr proc tmp var/tmp dev/shm .old"]
    for d in ("/bin", "/sbin", "/lib", "/lib32", "/lib64", "/libx32"):
        if os.path.islink(d):
            lines.append(f"ln -s {q(os.readlink(d))} {q(d[1:])}")
        elif os.path.isdir(d):
            binds = [(d, d), *binds]
    for host, inside in [("/usr", "/usr"), *binds]:
        target = q("." + inside)
        if os.path.isdir(host):
            lines.append(f"mkdir -p {target}")
        else:
            lines.append(f"mkdir -p {q('.' + os.path.dirname(inside))}; : > {target}")
        lines.append(f"{mount} --bind {q(host)} {target}; {mount} -o remount,bind,ro,nosuid,nodev {target}")
    for n in _DEVICES:
        lines.append(f": > dev/{n}; {mount} --bind /dev/{n} dev/{n}")
    for d in ("tmp", "var/tmp", "dev/shm"):
        lines.append(f"{mount} -t tmpfs -o mode=1777,size={size},nosuid,nodev cardarena-tmp {d}")
    lines.append(f"{mount} -t proc -o nosuid,nodev,noexec proc proc")
    for n in _proc_entries(PROC_READ_ONLY):
        p = q(f"proc/{n}")
        lines.append(f"{mount} --bind {p} {p}; {mount} -o remount,bind,ro,nosuid,nodev {p}")
    for n in _proc_entries(PROC_HIDDEN):
        lines.append(f"{mount} --bind /dev/null {q(f'proc/{n}')}")
    lines += [f"{mount} -o remount,bind,ro,nosuid {r}",
              f"{pivot} . .old", f"{umount} -l /.old", "cd /tmp",
              "exec " + " ".join(q(a) for a in _setpriv()) + ' "$@"']
    return "\n".join(lines)


def _unshare_argv(script: str, argv: Sequence[str]) -> list[str]:
    return [_tool("unshare") or "unshare", "--mount", "--pid", "--fork", "--net", "--ipc", "--uts",
            "--kill-child", "--", "/bin/sh", "-c", script, "sandbox", *argv]


def _python() -> tuple[str, str]:
    """The real interpreter (not the venv's symlink) and its installation prefix."""
    return os.path.realpath(sys.executable), os.path.realpath(sys.base_prefix)


def _python_binds() -> list[tuple[str, str]]:
    python, prefix = _python()
    binds: list[tuple[str, str]] = []
    if not prefix.startswith("/usr/"):
        binds.append((prefix, prefix))
    if not python.startswith(prefix + "/") and not python.startswith("/usr/"):
        binds.append((python, python))
    return binds


def _readable_by_all(paths: Sequence[Path], folders: Sequence[Path] = ()) -> bool:
    """Can uid 65534 read every file of ``paths`` and enter every one of ``folders``?"""
    try:
        return (all(p.stat().st_mode & 0o004 for p in paths)
                and all(d.stat().st_mode & 0o005 == 0o005 for d in folders))
    except OSError:
        return False


def _bot_readable(src: BotSource) -> bool:
    folders = [Path(root) for root, _, _ in os.walk(src.path)] if src.package else []
    return _readable_by_all([src.path if not src.package else src.entry, *(p for _, p in src.files())],
                            folders)


@cache
def _codec_readable(codec: str) -> bool:
    """Can uid 65534 import msgspec from ``codec`` (else the runner uses ``json``)?"""
    files = [Path(root) / f for root, _, fs in os.walk(codec) for f in fs]
    return _readable_by_all(files, [Path(root) for root, _, _ in os.walk(codec)])


def _readable_copy(src: BotSource, tmp: str) -> str:
    """A copy of the bot in ``tmp`` that uid 65534 can read; its path."""
    copy = os.path.join(tmp, "bot-copy")
    os.mkdir(copy, 0o755)
    bot = os.path.join(copy, src.path.name)
    if src.package:
        for rel, p in src.files():
            dst = os.path.join(bot, rel)
            os.makedirs(os.path.dirname(dst), 0o755, exist_ok=True)
            shutil.copyfile(p, dst)
            os.chmod(dst, 0o644)
        for root, _, _ in os.walk(bot):
            os.chmod(root, 0o755)
    else:
        shutil.copyfile(src.path, bot)
        os.chmod(bot, 0o644)
    return bot


def _needs_tmp(src: BotSource, wrapper: str) -> bool:
    """Does a sandbox need its own host temporary directory (the fallback's root, a copy of the
    bot or runner that uid 65534 can read, the unsandboxed working directory)?"""
    if wrapper != "bwrap":
        return True
    return os.geteuid() == 0 and not (_bot_readable(src) and _readable_by_all([RUNNER]))


def _command(src: BotSource, wrapper: str, trusted: bool, rfd: int, wfd: int, limits: Limits,
             tmp: str | None) -> tuple[list[str], dict[str, Any], list[str]]:
    """(argv, load message, sys.path entries) for a sandbox (``tmp``: its host temporary directory,
    see :func:`_needs_tmp`)."""
    python, _ = _python()
    sys_path: list[str] = []
    codec = codec_dir()
    if codec is not None and wrapper != "none" and not _codec_readable(codec):
        codec = None   # uid 65534 could not import it: the runner uses json
    runner_args = [python, "-I", "-S", "-B", "-u", "/sandbox/_runner.py", str(rfd), str(wfd)]
    if wrapper != "none":
        runner_args[6:6] = _confinement()
    if codec is not None and wrapper != "none":
        runner_args.append(CODEC_INSIDE)
    inside = f"/bot/{src.path.name}"
    path = f"{inside}/__init__.py" if src.package else inside
    if wrapper in ("bwrap", "unshare"):
        bot, runner = str(src.path), str(RUNNER)
        if tmp is not None and not _bot_readable(src):   # uid 65534 must read it: a world-readable copy
            bot = _readable_copy(src, tmp)
        if tmp is not None and not _readable_by_all([RUNNER]):
            runner = os.path.join(tmp, "_runner.py")
            shutil.copyfile(RUNNER, runner)
            os.chmod(runner, 0o644)
        binds = [*_python_binds(), (runner, "/sandbox/_runner.py"), (bot, inside)]
        if codec is not None:
            binds.append((codec, f"{CODEC_INSIDE}/msgspec"))
        if trusted:
            binds += [(str(PROJECT_ROOT / pkg), f"/cardarena/{pkg}") for pkg in ("engine", "bots")]
            sys_path.append("/cardarena")
        if wrapper == "bwrap":
            cmd = _bwrap_argv(limits, binds, runner_args)
        else:
            assert tmp is not None
            root = os.path.join(tmp, "root")
            os.mkdir(root, 0o700)
            cmd = _unshare_argv(_unshare_script(root, binds, limits), runner_args)
    else:
        cmd = [python, "-I", "-S", "-B", "-u", str(RUNNER), str(rfd), str(wfd)]
        if codec is not None:
            cmd.append(os.path.dirname(codec))
        if trusted:
            sys_path.append(str(PROJECT_ROOT))
        path = str(src.entry)
    if src.package:
        sys_path.append(os.path.dirname(os.path.dirname(path)))
    load = {"path": path, "name": src.name, "package": src.package, "sys_path": sys_path}
    if trusted and src.path.parent == PROJECT_ROOT / "bots" / "builtin":
        load["module"] = f"bots.builtin.{src.path.stem}"
    return cmd, load, sys_path


# --------------------------------------------------------------------------- one sandboxed bot
class Sandbox:
    """One bot in its own process.  ``start()``, then ``new_match()`` and ``act()`` per move;
    ``close()`` kills it.  Every call that fails raises :class:`BotFault` and leaves the sandbox
    closed."""

    def __init__(self, src: BotSource, limits: Limits = DEFAULT_LIMITS, trusted: bool = False,
                 wrapper: str | None = None) -> None:
        self.src = src
        self.limits = limits
        self.trusted = trusted
        iso = isolation(wrapper)
        if not trusted:   # submitted bots: bubblewrap, or the unshare fallback when forced, or nothing
            iso.require_untrusted()
        self.wrapper = iso.wrapper
        self.games: list[str] | None = None
        self.kind = ""
        self.codec = ""
        """The runner's codec, from its ready message: ``msgspec`` or ``json``."""
        self.stdout = bytearray()
        self.stderr = bytearray()
        self.dropped = [0, 0]
        self.proc: subprocess.Popen[bytes] | None = None
        self.closed = False
        self.bank = limits.time_bank
        self.used = 0.0
        self.moves = 0
        self._buf = bytearray()
        self._cg: _Cgroups | None = None
        self._tmp: str | None = None
        self._idle = False

    # ------------------------------------------------------------------ life cycle
    def spawn(self) -> None:
        """Start the process and send the load request (does not wait for the answer)."""
        c_r, p_w = os.pipe()      # parent -> child
        p_r, c_w = os.pipe()      # child -> parent
        o_r, o_w = os.pipe()      # child's stdout
        e_r, e_w = os.pipe()      # child's stderr
        if _needs_tmp(self.src, self.wrapper):
            self._tmp = tempfile.mkdtemp(prefix="cardarena-bot-")
        try:
            cmd, load, _ = _command(self.src, self.wrapper, self.trusted, c_r, c_w, self.limits, self._tmp)
        except OSError as e:   # the bot's files vanished or cannot be copied
            for fd in (c_r, p_w, p_r, c_w, o_r, o_w, e_r, e_w):
                os.close(fd)
            self._cleanup()
            raise BotFault("crash", f"the sandbox could not start: {e}", "start") from None
        env = {"PATH": "/usr/bin:/bin", "LANG": "C.UTF-8"}
        cwd = None
        if self.wrapper == "unshare":
            env.update(HOME="/tmp", TMPDIR="/tmp")
        elif self.wrapper == "none":
            cwd = self._tmp
            env.update(HOME=cwd or "/tmp", TMPDIR=cwd or "/tmp")
        try:
            self._cg = _Cgroups(self.limits)
        except OSError:
            self._cg = None
        lim = self.limits
        load["limits"] = {"as": lim.memory, "cpu": lim.cpu, "fsize": lim.file_size,
                          "nofile": lim.open_files, "core": 0}
        if self._cg is None or not self._cg.dirs:
            # no pids cgroup: RLIMIT_NPROC is the only cap on forks.  (With one it is left alone: it
            # counts every process of uid 65534 on the machine, so one bot's threads would starve
            # every other sandbox's.)
            load["limits"]["nproc"] = max(lim.pids, 8)
        if lim.affinity is not None:
            load["cpus"] = list(lim.affinity)
        if self._cg is not None and self._cg.dirs:
            env["CARDARENA_CG"] = " ".join(self._cg.procs_files())
            cmd = ["/bin/sh", "-c", 'for f in $CARDARENA_CG; do echo $$ > "$f" || exit 97; done; '
                   'unset CARDARENA_CG; exec "$@"', "sh", *cmd]
        try:
            self.proc = subprocess.Popen(cmd, stdin=subprocess.DEVNULL, stdout=o_w, stderr=e_w,
                                         pass_fds=(c_r, c_w), start_new_session=True, env=env, cwd=cwd)
        except OSError as e:
            for fd in (c_r, p_w, p_r, c_w, o_r, o_w, e_r, e_w):
                os.close(fd)
            self._cleanup()
            raise BotFault("crash", f"the sandbox could not start: {e}", "start") from None
        for fd in (c_r, c_w, o_w, e_w):
            os.close(fd)
        self._w, self._r, self._out, self._err = p_w, p_r, o_r, e_r
        for fd in (p_w, p_r, o_r, e_r):
            os.set_blocking(fd, False)
        self._poll = select.poll()
        self._open = {p_r, o_r, e_r}
        for fd in (p_r, o_r, e_r):
            self._poll.register(fd, select.POLLIN)
        self._start_deadline = time.monotonic() + self.limits.start_time
        self._send(encode_message({"load": load}) + b"\n", self._start_deadline, "import")

    def wait_ready(self) -> list[str] | None:
        """Wait until the bot is imported; its ``GAMES`` (None: every game)."""
        msg = self._await(self._start_deadline, "import")
        if msg.get("ready") is not True:
            self._protocol_fault(msg, "import")
        games, kind, codec = msg.get("games"), msg.get("kind"), msg.get("codec", "json")
        if set(msg) - {"ready", "games", "kind", "codec"} or kind not in ("class", "function") or not (
                games is None or (isinstance(games, list) and len(games) <= 1000
                                  and all(isinstance(g, str) for g in games))) or codec not in CODECS:
            raise self._fail("illegal", f"malformed ready message on the bot channel: {_show(msg)}", "import")
        self.games = None if games is None else [clean_text(g, 60) for g in games]
        self.kind = kind
        self.codec = codec
        return self.games

    def start(self) -> list[str] | None:
        self.spawn()
        return self.wait_ready()

    def new_match(self, game: str, seat: int, seed: int) -> None:
        """Construct the bot for a match (``Bot(game, seat, seed)``) and reset the time bank."""
        self._idle_off()
        deadline = time.monotonic() + self.limits.start_time
        self._send(encode_message({"new": [game, seat, seed]}) + b"\n", deadline, "init")
        msg = self._await(deadline, "init")
        if msg != {"ok": True}:
            self._protocol_fault(msg, "init")
        self.bank = self.limits.time_bank
        self.used = 0.0
        self.moves = 0
        self._idle_on()

    def clock(self) -> dict[str, float | None]:
        """The time the bot has for its next move (the ``clock`` observation key): the per-move
        limit, the bank left, and the match's thinking time left where ``match_time`` caps it."""
        lim = self.limits
        return {"move_s": lim.move_time, "bank_s": round(max(self.bank, 0.0), 3),
                "match_s": None if lim.match_time is None else round(max(lim.match_time - self.used, 0.0), 3)}

    def act(self, observation: Observation, worlds: Sequence[Any] | None = None) -> str:
        """The bot's action for ``observation``; raises :class:`BotFault`."""
        if worlds is None:
            data = b"A" + encode_message(observation) + b"\n"
        else:
            blob = base64.b64encode(pickle.dumps(list(worlds), protocol=pickle.HIGHEST_PROTOCOL)).decode()
            data = b"W" + encode_message([observation, blob]) + b"\n"
        lim = self.limits
        allowed = lim.move_time + max(self.bank, 0.0)
        if lim.match_time is not None:
            allowed = min(allowed, lim.match_time - self.used)
        if lim.quiet_match_time is not None:
            allowed = min(allowed, lim.quiet_match_time - self.used)
        self._idle_off()
        t0 = time.monotonic()
        deadline = t0 + allowed
        self._send(data, deadline, "act", allowed)
        msg = self._await(deadline, "act", allowed)
        spent = time.monotonic() - t0
        self._idle_on()
        self.used += spent
        self.moves += 1
        if spent > lim.move_time:
            self.bank -= spent - lim.move_time
        a = msg.get("a")
        if isinstance(a, str) and len(msg) == 1:
            return a
        self._protocol_fault(msg, "act")
        raise AssertionError("unreachable")

    def close(self) -> None:
        """Stop the process (politely if it is idle, else kill) and release everything."""
        if self.closed:
            return
        self.closed = True
        proc = self.proc
        if proc is not None:
            if proc.poll() is None:
                try:
                    os.killpg(proc.pid, signal.SIGKILL)
                except OSError:
                    pass
            if self._cg is not None:
                self._cg.kill_and_remove()
            try:
                proc.wait(timeout=5)
            except subprocess.TimeoutExpired:  # pragma: no cover - SIGKILL does not wait
                pass
            self._drain_output()
            for fd in (self._w, self._r, self._out, self._err):
                try:
                    os.close(fd)
                except OSError:
                    pass
        self._cleanup()

    def __enter__(self) -> Sandbox:
        return self

    def __exit__(self, *exc: object) -> None:
        self.close()

    def output_excerpt(self, limit: int = 2000) -> str:
        """The start of what the bot wrote to stdout and stderr, for its author."""
        parts = []
        for name, buf, dropped in (("stdout", self.stdout, self.dropped[0]),
                                   ("stderr", self.stderr, self.dropped[1])):
            if buf:
                text = clean_lines(buf[:limit].decode("utf-8", "replace"), limit)
                more = len(buf) - limit + dropped
                parts.append(f"[{name}] {text}" + (f" ... ({more} more bytes)" if more > 0 else ""))
        return "\n".join(parts)

    # ------------------------------------------------------------------ internals
    def _cleanup(self) -> None:
        if self._cg is not None:
            self._cg.kill_and_remove()
            self._cg = None
        if self._tmp is not None:
            shutil.rmtree(self._tmp, ignore_errors=True)
            self._tmp = None

    def _idle_on(self) -> None:
        """Between moves: the bot runs only on otherwise idle CPU."""
        if self.limits.idle_between_moves and self._cg is not None and not self._idle:
            self._cg.idle(True)
            self._idle = True

    def _idle_off(self) -> None:
        if self._idle and self._cg is not None:
            self._cg.idle(False)
            self._idle = False

    def _fail(self, outcome: str, reason: str, stage: str, tb: str = "") -> BotFault:
        """Close the sandbox; the fault, with every bot-supplied text cleaned (bots.text)."""
        self.close()
        out = self.output_excerpt()
        tb = clean_lines(tb)
        return BotFault(outcome, clean_text(reason), stage, (tb + ("\n" if tb and out else "") + out).strip())

    def _send(self, data: bytes, deadline: float, stage: str, allowed: float | None = None) -> None:
        """Write ``data`` to the bot; a bot that does not read it in time times out.  (Non-blocking:
        while the pipe is full, keep draining the bot's output so that it cannot block on it.)"""
        if self.closed:
            raise BotFault("crash", "the bot's process is gone", stage)
        if self._buf:   # the runner answers once per request: anything more was written by the bot
            raise self._fail("illegal", "unexpected reply on the bot channel before the request: "
                             f"{bytes(self._buf[:60])!r}", stage)
        w = self._w
        try:
            n = os.write(w, data)
        except BlockingIOError:
            n = 0
        except BrokenPipeError:
            raise self._died(stage) from None
        if n == len(data):
            return
        view = memoryview(data)[n:]
        poll = select.poll()
        poll.register(w, select.POLLOUT)
        for fd in self._open - {self._r}:
            poll.register(fd, select.POLLIN)
        while view:
            left = deadline - time.monotonic()
            if left <= 0:
                raise self._timeout(stage, allowed)
            for fd, ev in poll.poll(max(1, int(left * 1000 + 0.999))):
                if fd == w:
                    if ev & (select.POLLERR | select.POLLHUP):
                        raise self._died(stage)
                    try:
                        k = os.write(w, view)
                    except BlockingIOError:
                        continue
                    except BrokenPipeError:
                        raise self._died(stage) from None
                    view = view[k:]
                    if not view:
                        return
                else:
                    self._read_output(fd)
                    if fd not in self._open:
                        poll.unregister(fd)

    def _await(self, deadline: float, stage: str, allowed: float | None = None) -> dict[str, Any]:
        buf = self._buf
        r = self._r
        while True:
            i = buf.find(b"\n")
            if i >= 0:
                line = bytes(buf[:i])
                del buf[:i + 1]
                try:
                    msg = decode_message(line)
                except DECODE_ERRORS:
                    raise self._fail("illegal", f"malformed reply on the bot channel: {line[:60]!r}",
                                     stage) from None
                if not isinstance(msg, dict):
                    raise self._fail("illegal", f"malformed reply on the bot channel: {line[:60]!r}", stage)
                return msg
            left = deadline - time.monotonic()
            if left <= 0:
                raise self._timeout(stage, allowed)
            for fd, _ in self._poll.poll(max(1, int(left * 1000 + 0.999))):
                if fd == r:
                    try:
                        chunk = os.read(r, 1 << 16)
                    except BlockingIOError:
                        continue
                    if not chunk:
                        raise self._died(stage)
                    buf += chunk
                    if len(buf) > self.limits.reply_size:
                        raise self._fail("illegal", f"reply longer than {self.limits.reply_size} bytes",
                                         stage)
                else:
                    self._read_output(fd)

    def _read_output(self, fd: int) -> None:
        k = 0 if fd == self._out else 1
        keep = self.stdout if k == 0 else self.stderr
        cap = self.limits.output
        try:
            while True:
                chunk = os.read(fd, 1 << 16)
                if not chunk:
                    if fd in self._open:
                        self._open.discard(fd)
                        self._poll.unregister(fd)
                    return
                room = cap - len(keep)
                if room > 0:
                    keep += chunk[:room]
                self.dropped[k] += max(0, len(chunk) - max(room, 0))
        except BlockingIOError:
            return
        except OSError:
            return

    def _drain_output(self) -> None:
        for fd in (self._out, self._err):
            self._read_output(fd)

    def _timeout(self, stage: str, allowed: float | None) -> BotFault:
        lim = self.limits
        if stage == "act" and allowed is not None:
            why = (f"no answer within {allowed:.3g} s (move limit {lim.move_time:g} s + time bank "
                   f"{max(self.bank, 0):.3g} s left)")
            cap = min(x for x in (lim.match_time, lim.quiet_match_time, float("inf")) if x is not None)
            if allowed < lim.move_time + max(self.bank, 0) and cap < float("inf"):
                why = f"no answer within {allowed:.3g} s (the match limit of {cap:g} s is spent)"
        else:
            why = f"not ready within {lim.start_time:g} s ({stage})"
        return self._fail("timeout", why, stage)

    def _died(self, stage: str) -> BotFault:
        proc = self.proc
        rc = None
        if proc is not None:
            try:
                rc = proc.wait(timeout=2)
            except subprocess.TimeoutExpired:
                rc = None
        oom = self._cg is not None and self._cg.oom_killed()
        self._drain_output()
        sig = -rc if rc is not None and rc < 0 else (rc - 128 if rc is not None and rc > 128 else None)
        if oom:
            cap = self.limits.group_memory >> 20
            return self._fail("memory", f"killed at the memory cap of {cap} MiB (all its processes)", stage)
        if sig == signal.SIGXCPU:
            return self._fail("timeout", f"killed at the CPU cap of {self.limits.cpu} s", stage)
        if rc == 97:
            return self._fail("crash", "the sandbox could not join its cgroup", stage)
        if rc == CONFINE_FAILED:
            return self._fail("crash", "the sandbox could not install its seccomp filter", stage)
        if sig is not None:
            name = signal.Signals(sig).name if sig in signal.Signals._value2member_map_ else str(sig)
            return self._fail("crash", f"the bot's process was killed by {name}", stage)
        return self._fail("crash", f"the bot's process exited (status {rc})", stage)

    def _protocol_fault(self, msg: dict[str, Any], stage: str) -> None:
        """Turn a message that is not the expected answer into a fault.  Everything the runner sends
        is the bot's (they share a process), so only the parent decides: the stage is always the
        one the parent is in; a reported fault is a ``crash`` (``memory`` and ``illegal`` are kept
        only as what they claim, a forfeit just the same); any other outcome it names (``ok``,
        ``timeout``, anything) and any other message are ``illegal``."""
        f = msg.get("f")
        if isinstance(f, str) and set(msg) <= {"f", "r", "s", "t"}:
            outcome = {"crash": "crash", "load": "crash", "memory": "memory",
                       "illegal": "illegal" if stage == "act" else "crash"}.get(f)
            if outcome is not None:
                r, t = msg.get("r"), msg.get("t")
                raise self._fail(outcome, r if isinstance(r, str) and r else "fault", stage,
                                 t if isinstance(t, str) else "")
            raise self._fail("illegal", f"forged fault record on the bot channel (outcome {f[:20]!r})", stage)
        raise self._fail("illegal", f"unexpected reply on the bot channel: {_show(msg)}", stage)


# --------------------------------------------------------------------------- a player for the match loop
@dataclass
class SandboxPlayer:
    """A seat played by a sandboxed bot (the :class:`bots.api.Player` protocol).

    A fault at start-up is kept and raised at the seat's first move, so that it is attributed to
    the match like any other fault.
    """

    sandbox: Sandbox
    game: str
    seat: int
    seed: int
    worlds: int = 0
    pending: BotFault | None = field(default=None)

    def act(self, observation: Observation) -> str:
        if self.pending is not None:
            raise self.pending
        return self.sandbox.act(observation)

    def clock(self) -> dict[str, float | None]:
        return self.sandbox.clock()

    def act_in_worlds(self, observation: Observation, worlds: Sequence[Any]) -> str:
        if self.pending is not None:
            raise self.pending
        return self.sandbox.act(observation, worlds)

    def close(self) -> None:
        self.sandbox.close()

    @property
    def output(self) -> str:
        return self.sandbox.output_excerpt()


def start_players(specs: Sequence[tuple[BotSource, bool, int]], game: str, seeds: Sequence[int],
                  limits: Limits = DEFAULT_LIMITS, seats: Sequence[int] | None = None) -> list[SandboxPlayer]:
    """Sandboxed players, started in parallel (each process's start-up overlaps the others').

    ``specs[i]`` is (source, trusted, worlds) of the bot for ``seats[i]`` (default: seat ``i``),
    constructed with ``seeds[i]``.  A fault at start-up is kept in :attr:`SandboxPlayer.pending`.
    """
    seat_of = list(seats) if seats is not None else list(range(len(specs)))
    boxes = [Sandbox(src, limits, trusted=trusted) for src, trusted, _ in specs]
    pending: list[BotFault | None] = [None] * len(boxes)
    for i, box in enumerate(boxes):
        try:
            box.spawn()
        except BotFault as f:
            pending[i] = f
    players = []
    for i, box in enumerate(boxes):
        if pending[i] is None:
            try:
                games = box.wait_ready()
                if games is not None and game not in games:
                    raise box._fail("crash", f"the bot does not enter {game} (its GAMES: {', '.join(games)})",
                                    "import")
                box.new_match(game, seat_of[i], seeds[i])
            except BotFault as f:
                pending[i] = f
        players.append(SandboxPlayer(box, game, seat_of[i], seeds[i], specs[i][2], pending[i]))
    return players


def with_limits(limits: Limits, **changes: Any) -> Limits:
    return replace(limits, **changes)
