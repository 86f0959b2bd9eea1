"""What this machine allows: which wrapper every sandbox runs in, and whether submitted bots may run
(:func:`isolation`, :class:`Isolation`)."""
from __future__ import annotations

import os
import shutil
import subprocess
import tempfile
from collections.abc import Sequence
from dataclasses import dataclass
from functools import cache

from bots import seccomp
from bots.sandbox.cgroups import Cgroups
from bots.sandbox.launch import (
    UNSHARE_TOOLS,
    bwrap_argv,
    python_binds,
    python_paths,
    tool,
    unshare_argv,
    unshare_script,
)
from bots.sandbox.limits import DEFAULT_LIMITS


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
    if shutil.which("bwrap") is None or (os.geteuid() == 0 and not tool("setpriv")):
        return False
    python, _ = python_paths()
    return _run_ok(bwrap_argv(DEFAULT_LIMITS, python_binds(), [python, "-I", "-S", "-c", "pass"]))


@cache
def _unshare_ok() -> bool:
    """Does the hardened unshare sandbox work here, every part of it (root, mount/PID/net/IPC/UTS
    namespaces, a private root, setpriv to an unprivileged uid with no capabilities)?"""
    if os.geteuid() != 0 or not all(tool(t) for t in UNSHARE_TOOLS):
        return False
    python, _ = python_paths()
    with tempfile.TemporaryDirectory(prefix="cardarena-probe-") as d:
        root = os.path.join(d, "root")
        os.mkdir(root)
        return _run_ok(unshare_argv(unshare_script(root, python_binds(), DEFAULT_LIMITS),
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
    cg = Cgroups.detect()
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
                     "no site-packages: only numpy and cardarena_rl, read-only at /sandbox/lib",
                     "writes only in the private /tmp and /dev/shm",
                     "unprivileged uid 65534 (never the host's root)", "no capabilities", "no_new_privs",
                     "/proc/sys and kernel triggers read-only, keyrings and kernel memory hidden"]
    elif wrapper == "unshare":
        enforced += ["no network (new net namespace)", "PID namespace (no escape from kill)",
                     "new IPC and UTS namespaces", "own mount namespace, own /proc",
                     "read-only filesystem view without project or other bots' files",
                     "no site-packages: only numpy and cardarena_rl, read-only at /sandbox/lib",
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

