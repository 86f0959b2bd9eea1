"""The process a sandboxed bot runs in (started by :mod:`bots.sandbox`; standard library only).

``python -I -S -B -u _runner.py [--confine=KEYCTL_NR:FILTER] IN_FD OUT_FD [CODEC_DIR]``.  The parent speaks
over two pipes, one JSON object per line; the bot's own stdout and stderr are separate pipes that the
parent captures and caps.

``--confine`` (both sandboxes): first of all, the runner joins a fresh anonymous session keyring and
installs the seccomp filter ``FILTER`` (base64 of the compiled BPF program, bots/seccomp.py); if the
kernel refuses the filter it exits with status 96 before anything of the bot is read.

The codec: ``CODEC_DIR`` is a folder holding only the ``msgspec`` package (bound read-only by the
sandbox), imported before the bot's code runs and taken off ``sys.path`` again; its JSON decoder reads
an observation 3x faster than the standard library's.  Without it (or when it does not import) the
standard library's ``json`` reads and writes the same bytes: the wire format is JSON lines either way,
and the parent, not this process, judges every byte it gets back.

parent -> runner                                   runner -> parent
``{"load": {path, package, name, limits, sys_path}}``  ``{"ready": true, "games": [...] or null,
                                                    "kind": ..., "codec": "msgspec" or "json"}``
``{"new": [game, seat, seed]}``                    ``{"ok": true}``
``A`` + observation JSON                           ``{"a": "play QS"}``
``W`` + [observation, base64 pickled worlds]       ``{"a": ...}`` (trusted built-ins only)
``{"bye": true}``                                  (exits)

A fault is answered with ``{"f": outcome, "r": reason, "t": traceback excerpt, "s": stage}``,
outcome one of ``crash``, ``illegal``, ``memory``, ``load``.
"""
from __future__ import annotations

import os
import sys

TYPE_CHECKING = False
if TYPE_CHECKING:  # not imported at run time: typing costs ~10 ms of every bot's start-up
    from collections.abc import Callable
    from typing import Any


def _codec(where: str | None) -> tuple[str, Callable[[bytes], Any], Callable[[Any], bytes]]:
    """(name, decode, encode): msgspec's JSON codec from the folder ``where``, else the standard
    library's ``json`` (same bytes on the wire)."""
    if where:
        sys.path.insert(0, where)
        try:
            import msgspec.json
        except ImportError:
            pass
        else:
            enc = msgspec.json.Encoder().encode

            def encode(obj: Any) -> bytes:
                try:
                    return enc(obj)
                except (UnicodeEncodeError, msgspec.EncodeError, OverflowError, TypeError):
                    return _json_encode(obj)  # e.g. a lone surrogate in a bot's exception message

            dec = msgspec.json.Decoder().decode

            def decode(line: bytes) -> Any:
                try:
                    return dec(line)
                except msgspec.DecodeError:   # what json wrote and msgspec refuses (a lone surrogate)
                    import json
                    return json.loads(line)

            return "msgspec", decode, encode
        finally:
            sys.path.remove(where)   # the bot imports nothing more from there
    import json
    return "json", json.loads, _json_encode


def _json_encode(obj: Any) -> bytes:
    import json
    return json.dumps(obj, separators=(",", ":")).encode()


CODEC = "json"
decode: Callable[[bytes], Any]
encode: Callable[[Any], bytes]

_MEMORY_FAULT = b'{"f":"memory","r":"MemoryError: the bot ran out of memory (the memory cap)","s":"act"}\n'


_LINE_CHARS = 300
"""Longest traceback line sent (a 30 MB exception message must not make the reply too long)."""
_REASON_CHARS = 300


def _excerpt(exc: BaseException, bot_file: str | None, lines: int = 12) -> str:
    """The traceback without this runner's frames, at most ``lines`` lines from its end, each cut
    to ``_LINE_CHARS`` characters.  (The parent cleans and caps it again: this only keeps an honest
    reply short.)"""
    import traceback  # only on a fault: it costs start-up time
    try:
        tb = traceback.TracebackException.from_exception(exc, limit=30)
        frames = [f for f in tb.stack if f.filename != __file__]
        tb.stack = traceback.StackSummary.from_list(frames)
        text = "".join(tb.format()).rstrip().splitlines()
    except BaseException:  # the bot's exception cannot even be formatted: the reason says what it was
        return ""
    return "\n".join(ln if len(ln) <= _LINE_CHARS else ln[:_LINE_CHARS] + "..." for ln in text[-lines:])


def _reason(exc: BaseException) -> str:
    try:
        if isinstance(exc, SyntaxError):
            where = f" ({os.path.basename(exc.filename or '?')}, line {exc.lineno})"
            return f"SyntaxError: {str(exc.msg)[:_REASON_CHARS]}{where}"
        if isinstance(exc, SystemExit):
            return f"the bot called sys.exit({repr(exc.code)[:_REASON_CHARS]})"
        text = str(exc)
    except BaseException:  # a __str__ or __repr__ of the bot's that fails
        return f"{type(exc).__name__} (its message cannot be shown)"
    msg = text[:_REASON_CHARS * 4].splitlines()[0] if text else ""
    return f"{type(exc).__name__}: {msg}"[:_REASON_CHARS] if msg else type(exc).__name__


class Runner:
    def __init__(self, rfd: int, wfd: int) -> None:
        self.rfile = os.fdopen(rfd, "rb", buffering=1 << 16)
        self.wfd = wfd
        self.fn: Any = None
        self.cls: Any = None
        self.bot_file: str | None = None

    def send(self, data: bytes) -> None:
        view = memoryview(data)
        while view:
            n = os.write(self.wfd, view)
            view = view[n:]

    def reply(self, obj: dict[str, Any]) -> None:
        self.send(encode(obj) + b"\n")

    def fault(self, outcome: str, stage: str, exc: BaseException | None = None, reason: str = "") -> None:
        self.reply({"f": outcome, "s": stage, "r": reason or (_reason(exc) if exc else outcome),
                    "t": _excerpt(exc, self.bot_file) if exc is not None else ""})

    # ------------------------------------------------------------------ stages
    def load(self, spec: dict[str, Any]) -> bool:
        _apply_limits(spec.get("limits", {}))
        if spec.get("cpus"):
            try:
                os.sched_setaffinity(0, spec["cpus"])
            except OSError:
                pass
        for p in reversed(spec.get("sys_path", [])):
            sys.path.insert(0, p)
        import importlib
        import importlib.util
        path, name, package = spec["path"], spec["name"], spec["package"]
        self.bot_file = path
        try:
            if spec.get("module"):  # a trusted built-in, imported by its dotted name
                module = importlib.import_module(spec["module"])
            else:
                if not package or name in sys.stdlib_module_names or name in sys.modules:
                    name = "__bot__"  # a bot file named random.py must not shadow the standard library
                loc = [os.path.dirname(path)] if package else None
                mspec = importlib.util.spec_from_file_location(name, path, submodule_search_locations=loc)
                if mspec is None or mspec.loader is None:
                    self.fault("load", "import", reason=f"cannot import {path}")
                    return False
                module = importlib.util.module_from_spec(mspec)
                sys.modules[name] = module
                mspec.loader.exec_module(module)
        except MemoryError:
            self.send(_MEMORY_FAULT.replace(b'"act"', b'"import"'))
            return False
        except BaseException as e:  # the bot's own code failed on import: report it, whatever it was
            self.fault("crash", "import", e, "will not import: " + _reason(e))
            return False
        cls, fn = getattr(module, "Bot", None), getattr(module, "act", None)
        if isinstance(cls, type):
            self.cls = cls
        elif callable(fn):
            self.fn = fn
        else:
            self.fault("load", "import", reason="defines neither act(observation) nor a class Bot")
            return False
        games = getattr(module, "GAMES", None)
        if games is not None and not (isinstance(games, (list, tuple))
                                      and all(isinstance(g, str) for g in games)):
            self.fault("load", "import", reason="GAMES must be a list of game ids (strings)")
            return False
        self.reply({"ready": True, "games": list(games) if games is not None else None,
                    "kind": "class" if self.cls is not None else "function", "codec": CODEC})
        return True

    def new(self, game: str, seat: int, seed: int) -> None:
        if self.cls is None:
            self.reply({"ok": True})
            return
        try:
            bot = self.cls(game, seat, seed)
            act = bot.act
        except MemoryError:
            self.send(_MEMORY_FAULT.replace(b'"act"', b'"init"'))
            return
        except BaseException as e:  # the bot's constructor failed: report it
            self.fault("crash", "init", e, "Bot(game, seat, seed) failed: " + _reason(e))
            return
        self.fn = act
        self.reply({"ok": True})

    def act(self, obs: Any, worlds: Any = None) -> None:
        try:
            action = self.fn(obs) if worlds is None else self.fn.__self__.act_in_worlds(obs, worlds)
        except MemoryError:
            self.send(_MEMORY_FAULT)
            return
        except BaseException as e:  # the bot's act() failed: report it
            self.fault("crash", "act", e)
            return
        if isinstance(action, str):
            if len(action) > 4096:
                self.fault("illegal", "act", reason=f"act returned a string of {len(action)} characters")
            else:
                self.send(encode({"a": action}) + b"\n")
        else:
            self.fault("illegal", "act", reason=f"act returned {type(action).__name__} "
                                                f"{_short(action)}, not a string such as 'play QS'")

    def loop(self) -> None:
        readline = self.rfile.readline
        while True:
            line = readline()
            if not line:
                return
            head = line[:1]
            if head == b"A":
                self.act(decode(line[1:]))
            elif head == b"W":  # trusted built-ins only: the parent pickled engine states
                import base64
                import pickle
                obs, blob = decode(line[1:])
                try:
                    worlds = pickle.loads(base64.b64decode(blob))
                except Exception as e:  # e.g. a game module not importable here
                    self.fault("crash", "act", e, "cannot load the worlds: " + _reason(e))
                    continue
                self.act(obs, worlds)
            else:
                msg = decode(line)
                if "new" in msg:
                    self.new(*msg["new"])
                elif "load" in msg:
                    if not self.load(msg["load"]):
                        return
                elif "bye" in msg:
                    return


def _short(x: Any) -> str:
    r = repr(x)
    return r if len(r) <= 40 else r[:37] + "..."


def _apply_limits(limits: dict[str, int]) -> None:
    """Resource limits on this process (and what it forks), set before the bot's code runs."""
    import resource
    table = {"as": resource.RLIMIT_AS, "cpu": resource.RLIMIT_CPU, "fsize": resource.RLIMIT_FSIZE,
             "nofile": resource.RLIMIT_NOFILE, "core": resource.RLIMIT_CORE, "nproc": resource.RLIMIT_NPROC}
    for key, value in limits.items():
        res = table.get(key)
        if res is None or value is None:
            continue
        hard = value + 1 if key == "cpu" else value  # SIGXCPU at the soft limit, SIGKILL one second later
        try:
            resource.setrlimit(res, (value, hard))
        except (ValueError, OSError):
            pass  # a limit above the current hard limit: keep the stricter one already in force


CONFINE_FAILED = 96
"""The exit status when the seccomp filter cannot be installed (the bot's code never runs)."""


def join_session_keyring(keyctl: int) -> int:
    """Join a fresh anonymous session keyring (``keyctl(KEYCTL_JOIN_SESSION_KEYRING, NULL)``, the
    system call number ``keyctl`` of this architecture); its serial, or -1 (over the key quota, say:
    the filter refuses every keyring call anyway)."""
    import ctypes
    libc = ctypes.CDLL(None, use_errno=True)
    return int(libc.syscall(ctypes.c_long(keyctl), ctypes.c_long(1), ctypes.c_void_p(None)))


def install_filter(program: bytes) -> None:
    """Install the compiled seccomp filter ``program`` (classic BPF, 8 bytes an instruction) on this
    process and all it will start; ``OSError`` when the kernel refuses it."""
    import ctypes

    class SockFprog(ctypes.Structure):
        _fields_ = [("len", ctypes.c_ushort), ("filter", ctypes.c_void_p)]

    libc = ctypes.CDLL(None, use_errno=True)
    buf = ctypes.create_string_buffer(program, len(program))
    prog = SockFprog(len(program) // 8, ctypes.cast(buf, ctypes.c_void_p))
    pr_set_no_new_privs, pr_set_seccomp, seccomp_mode_filter = 38, 22, 2
    if libc.prctl(pr_set_no_new_privs, 1, 0, 0, 0) != 0 or libc.prctl(
            pr_set_seccomp, seccomp_mode_filter, ctypes.byref(prog), 0, 0) != 0:
        e = ctypes.get_errno()
        raise OSError(e, os.strerror(e))


def _confine(arg: str) -> None:
    """``KEYCTL_NR:BASE64``: a fresh session keyring, then the filter; exit 96 if the filter fails."""
    import binascii
    try:
        nr, _, blob = arg.partition(":")
        join_session_keyring(int(nr))
        install_filter(binascii.a2b_base64(blob))
    except (OSError, ValueError, binascii.Error):
        os._exit(CONFINE_FAILED)


def main() -> None:
    global CODEC, decode, encode
    args = sys.argv[1:]
    for a in [a for a in args if a.startswith("--confine=")]:
        args.remove(a)
        _confine(a[len("--confine="):])   # before anything of the bot is read
    rfd, wfd = int(args[0]), int(args[1])
    CODEC, decode, encode = _codec(args[2] if len(args) > 2 else None)
    # stdin is not the bot's: it reads nothing
    null = os.open(os.devnull, os.O_RDONLY)
    os.dup2(null, 0)
    os.close(null)
    sys.argv = ["bot"]
    Runner(rfd, wfd).loop()


if __name__ == "__main__":
    main()
