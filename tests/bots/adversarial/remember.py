"""Tries every persistence channel it can find to carry the hands it saw from one match (one rotation
of a duplicate board) to the next (issue 27, sections 2 and 3).

At the start of each match (``Bot(game, seat, seed)``) it looks in every channel for a record that
another process left; at its first move it writes its own record (its token, seat and hand) into
every channel, and checks within the same process that the channel really holds it (so that a channel
that fails says how).  The channels: the kernel keyrings (thread, process, session, user and
user-session), files in /tmp, /var/tmp, /dev/shm, $HOME, the working directory and the bot's own
folder, SysV shared memory, message queues and semaphores, POSIX message queues, an abstract and a
path unix socket served by a forked daemon, flock / fcntl / open-file-description locks on a shared
file (the runner), and the environment.

Anything found from another process is a leak: the bot then raises ``RuntimeError("LEAK ...")``, which
the match logs as its fault, so that a tournament or a validation run shows it from the outside.  It
prints a ``REPORT`` line (JSON) of what each channel did, and plays the first legal action.
"""
import ctypes
import errno
import fcntl
import json
import os
import platform
import socket
import struct
import sys
import time
from typing import Any

TAG = b"cardarena-remember"
KEY_DESC = b"cardarena-remember"
IPC_KEY = 0x0C4D7A11
ABSTRACT = b"\0cardarena-remember"
FILES = ["/tmp/cardarena-remember", "/var/tmp/cardarena-remember", "/dev/shm/cardarena-remember",
         os.path.join(os.environ.get("HOME", "/tmp"), ".cardarena-remember"), "cardarena-remember",
         os.path.join(os.path.dirname(os.path.abspath(__file__)), "cardarena-remember")]
SOCK_PATH = "/tmp/cardarena-remember.sock"
LOCK_TARGETS = ["/sandbox/_runner.py", "/usr/lib/os-release", sys.executable]
ENV = "CARDARENA_REMEMBER"
# x86_64 system call numbers (the tests run there; elsewhere the keyring channel reports "skipped")
NR = {"add_key": 248, "request_key": 249, "keyctl": 250} if platform.machine() == "x86_64" else {}
KEYRINGS = {"thread": -1, "process": -2, "session": -3, "user": -4, "user-session": -5}
KEYCTL_SEARCH, KEYCTL_READ = 10, 11
IPC_CREAT, IPC_NOWAIT, SETVAL, GETVAL = 0o1000, 0o4000, 16, 12

TOKEN = os.urandom(8).hex()
_libc = ctypes.CDLL(None, use_errno=True)
_libc.syscall.restype = ctypes.c_long
report: dict[str, Any] = {"token": TOKEN, "found": {}, "wrote": {}}


def _err() -> str:
    e = ctypes.get_errno()
    return f"failed: {errno.errorcode.get(e, e)}"


def _mine(data: bytes) -> bool:
    return TOKEN.encode() in data


# --------------------------------------------------------------------------- the channels: (read, write)
def read_keyrings() -> dict[str, str]:
    out = {}
    if not NR:
        return {"keyrings": "skipped"}
    for name, ring in KEYRINGS.items():
        serial = _libc.syscall(NR["keyctl"], KEYCTL_SEARCH, ring, b"user", KEY_DESC, 0)
        if serial < 0:
            out[f"key:{name}"] = _err()
            continue
        buf = ctypes.create_string_buffer(4096)
        n = _libc.syscall(NR["keyctl"], KEYCTL_READ, serial, buf, 4096)
        out[f"key:{name}"] = buf.raw[:max(n, 0)].decode("utf-8", "replace") if n >= 0 else _err()
    serial = _libc.syscall(NR["request_key"], b"user", KEY_DESC, None, 0)
    out["request_key"] = f"serial {serial}" if serial >= 0 else _err()
    return out


def write_keyrings(record: bytes) -> dict[str, str]:
    if not NR:
        return {"keyrings": "skipped"}
    out = {}
    for name, ring in KEYRINGS.items():
        serial = _libc.syscall(NR["add_key"], b"user", KEY_DESC, record, len(record), ring)
        out[f"key:{name}"] = f"stored as {serial}" if serial >= 0 else _err()
    return out


def read_files() -> dict[str, str]:
    out = {}
    for path in FILES:
        try:
            with open(path, "rb") as f:
                out[path] = f.read(4096).decode("utf-8", "replace")
        except OSError as e:
            out[path] = f"failed: {type(e).__name__}"
    return out


def write_files(record: bytes) -> dict[str, str]:
    out = {}
    for path in FILES:
        try:
            with open(path, "wb") as f:
                f.write(record)
            with open(path, "rb") as f:
                out[path] = "stored" if f.read() == record else "not kept"
        except OSError as e:
            out[path] = f"failed: {type(e).__name__}"
    return out


def read_sysv() -> dict[str, str]:
    out = {}
    shm = _libc.shmget(IPC_KEY, 0, 0)
    if shm < 0:
        out["shm"] = _err()
    else:
        _libc.shmat.restype = ctypes.c_void_p
        addr = _libc.shmat(shm, None, 0)
        out["shm"] = ctypes.string_at(addr, 256).rstrip(b"\0").decode("utf-8", "replace") if addr not in (
            None, ctypes.c_void_p(-1).value) else _err()
    mq = _libc.msgget(IPC_KEY, 0)
    if mq < 0:
        out["msg"] = _err()
    else:
        buf = ctypes.create_string_buffer(8 + 512)
        n = _libc.msgrcv(mq, buf, 512, 0, IPC_NOWAIT)
        out["msg"] = buf.raw[8:8 + n].decode("utf-8", "replace") if n >= 0 else _err()
    sem = _libc.semget(IPC_KEY, 1, 0)
    out["sem"] = f"value {_libc.semctl(sem, 0, GETVAL)} (other {TOKEN})" if sem >= 0 else _err()
    _libc.mq_open.restype = ctypes.c_int
    q = _libc.mq_open(b"/cardarena-remember", os.O_RDONLY | os.O_NONBLOCK)
    out["mq_open"] = "opened" if q >= 0 else _err()
    return out


def write_sysv(record: bytes) -> dict[str, str]:
    out = {}
    shm = _libc.shmget(IPC_KEY, 4096, IPC_CREAT | 0o666)
    if shm < 0:
        out["shm"] = _err()
    else:
        _libc.shmat.restype = ctypes.c_void_p
        addr = _libc.shmat(shm, None, 0)
        if addr in (None, ctypes.c_void_p(-1).value):
            out["shm"] = _err()
        else:
            ctypes.memmove(addr, record, len(record))
            out["shm"] = "stored"
    mq = _libc.msgget(IPC_KEY, IPC_CREAT | 0o666)
    if mq < 0:
        out["msg"] = _err()
    else:
        msg = struct.pack("q", 1) + record
        out["msg"] = "stored" if _libc.msgsnd(mq, msg, len(record), IPC_NOWAIT) == 0 else _err()
    sem = _libc.semget(IPC_KEY, 1, IPC_CREAT | 0o666)
    out["sem"] = "stored" if sem >= 0 and _libc.semctl(sem, 0, SETVAL, 7) == 0 else _err()
    q = _libc.mq_open(b"/cardarena-remember", os.O_RDWR | os.O_CREAT, 0o666, None)
    out["mq_open"] = "stored" if q >= 0 else _err()
    return out


def read_sockets() -> dict[str, str]:
    out = {}
    for name, addr in (("abstract", ABSTRACT), ("path", SOCK_PATH)):
        s = socket.socket(socket.AF_UNIX, socket.SOCK_STREAM)
        s.settimeout(0.5)
        try:
            s.connect(addr)
            out[f"socket:{name}"] = s.recv(4096).decode("utf-8", "replace")
        except OSError as e:
            out[f"socket:{name}"] = f"failed: {type(e).__name__}"
        finally:
            s.close()
    return out


def write_sockets(record: bytes) -> dict[str, str]:
    """A daemon (setsid, double fork) serving ``record`` on an abstract and a path socket."""
    out = {}
    servers = []
    for name, addr in (("abstract", ABSTRACT), ("path", SOCK_PATH)):
        s = socket.socket(socket.AF_UNIX, socket.SOCK_STREAM)
        try:
            if isinstance(addr, str) and os.path.exists(addr):
                os.unlink(addr)
            s.bind(addr)
            s.listen()
            servers.append(s)
            out[f"socket:{name}"] = "stored"
        except OSError as e:
            out[f"socket:{name}"] = f"failed: {type(e).__name__}"
            s.close()
    if not servers:
        return out
    try:
        pid = os.fork()
    except OSError as e:
        return {k: f"failed: fork {type(e).__name__}" for k in out}
    if pid == 0:   # the daemon
        try:
            os.setsid()
            if os.fork():
                os._exit(0)
            deadline = time.monotonic() + 120
            for s in servers:
                s.settimeout(0.05)
            while time.monotonic() < deadline:
                for s in servers:
                    try:
                        c, _ = s.accept()
                        c.sendall(record)
                        c.close()
                    except OSError:
                        pass
        finally:
            os._exit(0)
    os.waitpid(pid, 0)
    for s in servers:
        s.close()
    return out


def locks() -> dict[str, str]:
    """Take every kind of lock on files every sandbox shares (a channel between bots; section 3)."""
    out = {}
    for path in LOCK_TARGETS:
        try:
            fd = os.open(path, os.O_RDONLY)
        except OSError as e:
            out[f"open {path}"] = f"failed: {type(e).__name__}"
            continue
        try:
            flk = struct.pack("hhqqi4x", 0, 0, 0, 0, 0)
            calls = {"flock": (fcntl.flock, fcntl.LOCK_SH | fcntl.LOCK_NB),
                     "F_SETLK": (fcntl.lockf, fcntl.LOCK_SH | fcntl.LOCK_NB),
                     "F_GETLK": (fcntl.fcntl, fcntl.F_GETLK, flk), "F_OFD_SETLK": (fcntl.fcntl, 37, flk),
                     "F_SETLEASE": (fcntl.fcntl, 1024, fcntl.F_RDLCK)}
            for name, (fn, *args) in calls.items():
                try:
                    fn(fd, *args)
                    out[f"{name} {path}"] = "locked"
                except OSError as e:
                    out[f"{name} {path}"] = f"failed: {errno.errorcode.get(e.errno or 0, e.errno)}"
        finally:
            os.close(fd)
    return out


def read_env() -> dict[str, str]:
    return {"env": os.environ.get(ENV, "failed: unset")}


def write_env(record: bytes) -> dict[str, str]:
    os.environ[ENV] = record.decode()
    return {"env": "stored" if os.environ.get(ENV) == record.decode() else "not kept"}


def recall() -> dict[str, str]:
    found: dict[str, str] = {}
    for reader in (read_keyrings, read_files, read_sysv, read_sockets, read_env):
        found.update(reader())
    return found


def store(record: bytes) -> dict[str, str]:
    wrote: dict[str, str] = {}
    for writer in (write_keyrings, write_files, write_sysv, write_env, write_sockets):
        wrote.update(writer(record))
    wrote.update(locks())
    return wrote


def leaks(found: dict[str, str]) -> list[str]:
    """The channels holding a record another process left."""
    return [ch for ch, v in found.items() if TAG.decode() in v and not _mine(v.encode())]


class Bot:
    def __init__(self, game: str, seat: int, seed: int) -> None:
        self.seat = seat
        self.stored = False
        report["found"] = recall()
        self.leaked = leaks(report["found"])

    def act(self, observation: dict[str, Any]) -> str:
        if self.leaked:
            raise RuntimeError("LEAK through " + ", ".join(sorted(self.leaked)))
        if not self.stored:
            self.stored = True
            record = json.dumps({"tag": TAG.decode(), "token": TOKEN, "seat": self.seat,
                                 "hand": observation.get("hand")}).encode()
            report["wrote"] = store(record)
            print("REPORT " + json.dumps(report), flush=True)
        return str(observation["legal_actions"][0])
