"""The command that starts a sandbox: bubblewrap's options or the unshare fallback's set-up script,
the read-only binds (the interpreter, the runner, the bot, the codec), the drop to uid 65534."""
from __future__ import annotations

import os
import shlex
import shutil
import sys
from collections.abc import Sequence
from functools import cache
from pathlib import Path
from typing import Any

from bots import seccomp
from bots.api import BotSource
from bots.sandbox import codec
from bots.sandbox.library import LIB_ENV, LIB_INSIDE, library
from bots.sandbox.limits import Limits

RUNNER = Path(__file__).resolve().parent.parent / "_runner.py"
PROJECT_ROOT = Path(__file__).resolve().parent.parent.parent
CONFINE_FAILED = 96
"""The runner's exit status when the kernel refuses the seccomp filter (bots/_runner.py)."""

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
    return [tool("setpriv") or "/usr/bin/setpriv", "--reuid", ids, "--regid", ids, "--clear-groups",
            "--inh-caps=-all", "--bounding-set=-all", "--no-new-privs", "--"]


def _confinement() -> list[str]:
    """The runner's ``--confine`` argument: a fresh session keyring and the seccomp filter
    (bots/seccomp.py), or nothing where the filter cannot be built (then :func:`isolation` refuses
    submitted bots)."""
    return [seccomp.confine_arg()] if seccomp.unavailable() is None else []


def _identity() -> tuple[list[str], list[str]]:
    """(bubblewrap's options, the command prefix) that make the bot uid 65534, never the host's 0:
    see :func:`bwrap_argv`."""
    ids = str(UNPRIVILEGED)
    if os.geteuid() == 0:
        return (["--cap-drop", "ALL", "--cap-add", "CAP_SETUID", "--cap-add", "CAP_SETGID",
                 "--cap-add", "CAP_SETPCAP"], _setpriv())
    return ["--unshare-user", "--uid", ids, "--gid", ids, "--cap-drop", "ALL"], []


def bwrap_argv(limits: Limits, binds: Sequence[tuple[str, str]], argv: Sequence[str]) -> list[str]:
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
    for d in hidden_site_dirs():   # an empty read-only folder over each
        args += ["--perms", "0755", "--size", "4096", "--tmpfs", d, "--remount-ro", d]
    args += ["--unshare-net", "--unshare-pid", "--unshare-ipc", "--unshare-uts", "--unshare-cgroup-try",
             "--die-with-parent", "--new-session", "--clearenv",
             "--setenv", "HOME", "/tmp", "--setenv", "PATH", "/usr/bin:/bin",
             "--setenv", "LANG", "C.UTF-8", "--setenv", "TMPDIR", "/tmp", "--remount-ro", "/"]
    for key, value in LIB_ENV.items():
        args[-2:-2] = ["--setenv", key, value]
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
UNSHARE_TOOLS = ("unshare", "setpriv", "pivot_root", "mount", "umount")
_DEVICES = ("null", "zero", "full", "random", "urandom")
_TOOL_PATH = "/usr/sbin:/usr/bin:/sbin:/bin"


def tool(name: str) -> str:
    """The absolute path of a set-up tool ('' when missing): the sandbox's PATH has no sbin."""
    return shutil.which(name, path=_TOOL_PATH) or ""


def unshare_script(root: str, binds: Sequence[tuple[str, str]], limits: Limits) -> str:
    """The shell script that builds the private root at ``root`` with ``binds`` (host path, path
    inside), read-only."""
    q = shlex.quote
    r = q(root)
    mount, umount, pivot = (q(tool(t)) for t in ("mount", "umount", "pivot_root"))
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
    for d in hidden_site_dirs():
        lines.append(f"{mount} -t tmpfs -o ro,mode=755,size=4k,nosuid,nodev cardarena-hidden {q('.' + d)}")
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


def unshare_argv(script: str, argv: Sequence[str]) -> list[str]:
    return [tool("unshare") or "unshare", "--mount", "--pid", "--fork", "--net", "--ipc", "--uts",
            "--kill-child", "--", "/bin/sh", "-c", script, "sandbox", *argv]


def python_paths() -> tuple[str, str]:
    """The real interpreter (not the venv's symlink) and its installation prefix."""
    return os.path.realpath(sys.executable), os.path.realpath(sys.base_prefix)


@cache
def hidden_site_dirs() -> tuple[str, ...]:
    """The folders of installed packages inside the sandbox's view, which both sandboxes cover with an
    empty read-only tmpfs: the interpreter's own ``site-packages`` (bound with its installation) and
    the system's ``dist-packages`` under ``/usr``.  A bot imports the standard library and what
    ``/sandbox/lib`` offers, nothing a ``sys.path`` entry of its own could reach there."""
    _, prefix = python_paths()
    ver = f"python{sys.version_info.major}.{sys.version_info.minor}"
    found = set()
    for root in {prefix, "/usr", "/usr/local"}:
        for sub in (f"lib/{ver}/site-packages", f"lib/{ver}/dist-packages", "lib/python3/dist-packages",
                    "lib/python3/site-packages"):
            d = os.path.realpath(os.path.join(root, sub))
            if os.path.isdir(d) and (d.startswith("/usr/") or d.startswith(prefix + "/")):
                found.add(d)
    return tuple(sorted(found))


def python_binds() -> list[tuple[str, str]]:
    python, prefix = python_paths()
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
def _codec_readable(folder: str) -> bool:
    """Can uid 65534 import msgspec from ``codec`` (else the runner uses ``json``)?"""
    files = [Path(root) / f for root, _, fs in os.walk(folder) for f in fs]
    return _readable_by_all(files, [Path(root) for root, _, _ in os.walk(folder)])


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


def needs_tmp(src: BotSource, wrapper: str) -> bool:
    """Does a sandbox need its own host temporary directory (the fallback's root, a copy of the
    bot or runner that uid 65534 can read, the unsandboxed working directory)?"""
    if wrapper != "bwrap":
        return True
    return os.geteuid() == 0 and not (_bot_readable(src) and _readable_by_all([RUNNER]))


def command(src: BotSource, wrapper: str, trusted: bool, rfd: int, wfd: int, limits: Limits,
             tmp: str | None) -> tuple[list[str], dict[str, Any], list[str]]:
    """(argv, load message, sys.path entries) for a sandbox (``tmp``: its host temporary directory,
    see :func:`needs_tmp`)."""
    python, _ = python_paths()
    sys_path: list[str] = []
    msgspec_dir = codec.codec_dir()
    if msgspec_dir is not None and wrapper != "none" and not _codec_readable(msgspec_dir):
        msgspec_dir = None   # uid 65534 could not import it: the runner uses json
    runner_args = [python, "-I", "-S", "-B", "-u", "/sandbox/_runner.py", str(rfd), str(wfd)]
    if wrapper != "none":
        runner_args[6:6] = _confinement()
    if msgspec_dir is not None and wrapper != "none":
        runner_args.append(codec.CODEC_INSIDE)
    inside = f"/bot/{src.path.name}"
    path = f"{inside}/__init__.py" if src.package else inside
    lib = library()
    if wrapper in ("bwrap", "unshare"):
        bot, runner = str(src.path), str(RUNNER)
        if tmp is not None and not _bot_readable(src):   # uid 65534 must read it: a world-readable copy
            bot = _readable_copy(src, tmp)
        if tmp is not None and not _readable_by_all([RUNNER]):
            runner = os.path.join(tmp, "_runner.py")
            shutil.copyfile(RUNNER, runner)
            os.chmod(runner, 0o644)
        binds = [*python_binds(), (runner, "/sandbox/_runner.py"), (bot, inside)]
        if msgspec_dir is not None:
            binds.append((msgspec_dir, f"{codec.CODEC_INSIDE}/msgspec"))
        if lib is not None:   # numpy and cardarena_rl, read-only (bots/sandbox/library.py)
            binds += lib.binds
            sys_path.append(LIB_INSIDE)
        if trusted:
            binds += [(str(PROJECT_ROOT / pkg), f"/cardarena/{pkg}") for pkg in ("engine", "bots")]
            sys_path.append("/cardarena")
        if wrapper == "bwrap":
            cmd = bwrap_argv(limits, binds, runner_args)
        else:
            assert tmp is not None
            root = os.path.join(tmp, "root")
            os.mkdir(root, 0o700)
            cmd = unshare_argv(unshare_script(root, binds, limits), runner_args)
    else:
        cmd = [python, "-I", "-S", "-B", "-u", str(RUNNER), str(rfd), str(wfd)]
        if msgspec_dir is not None:
            cmd.append(os.path.dirname(msgspec_dir))
        if lib is not None:
            sys_path.append(lib.host_path)
        if trusted:
            sys_path.append(str(PROJECT_ROOT))
        path = str(src.entry)
    if src.package:
        sys_path.append(os.path.dirname(os.path.dirname(path)))
    load = {"path": path, "name": src.name, "package": src.package, "sys_path": sys_path}
    if trusted and src.path.parent == PROJECT_ROOT / "bots" / "builtin":
        load["module"] = f"bots.builtin.{src.path.stem}"
    return cmd, load, sys_path

