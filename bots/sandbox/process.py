"""One sandboxed bot: :class:`Sandbox`, a child process running ``bots/_runner.py`` with one bot
loaded.  The parent sends observations (JSON lines over a pipe) and reads actions back, with a
per-move deadline and a per-match time bank; only the parent decides a fault's outcome and stage
(:meth:`Sandbox._protocol_fault`): the runner shares its process with the bot."""
from __future__ import annotations

import base64
import os
import pickle
import select
import shutil
import signal
import subprocess
import tempfile
import time
from collections.abc import Sequence
from typing import Any

from bots.api import BotSource, Observation
from bots.faults import BotFault  # the one fault record's exception form (bots/faults.py)
from bots.sandbox import codec
from bots.sandbox.cgroups import Cgroups
from bots.sandbox.detect import isolation
from bots.sandbox.launch import CONFINE_FAILED, command, needs_tmp
from bots.sandbox.library import LIB_ENV
from bots.sandbox.limits import DEFAULT_LIMITS, Limits
from bots.text import clean_lines, clean_text


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
        self._cg: Cgroups | None = None
        self._tmp: str | None = None
        self._idle = False

    # ------------------------------------------------------------------ life cycle
    def spawn(self) -> None:
        """Start the process and send the load request (does not wait for the answer)."""
        c_r, p_w = os.pipe()      # parent -> child
        p_r, c_w = os.pipe()      # child -> parent
        o_r, o_w = os.pipe()      # child's stdout
        e_r, e_w = os.pipe()      # child's stderr
        if needs_tmp(self.src, self.wrapper):
            self._tmp = tempfile.mkdtemp(prefix="cardarena-bot-")
        try:
            cmd, load, _ = command(self.src, self.wrapper, self.trusted, c_r, c_w, self.limits, self._tmp)
        except OSError as e:   # the bot's files vanished or cannot be copied
            for fd in (c_r, p_w, p_r, c_w, o_r, o_w, e_r, e_w):
                os.close(fd)
            self._cleanup()
            raise BotFault("crash", f"the sandbox could not start: {e}", "start") from None
        env = {"PATH": "/usr/bin:/bin", "LANG": "C.UTF-8", **LIB_ENV}
        cwd = None
        if self.wrapper == "unshare":
            env.update(HOME="/tmp", TMPDIR="/tmp")
        elif self.wrapper == "none":
            cwd = self._tmp
            env.update(HOME=cwd or "/tmp", TMPDIR=cwd or "/tmp")
        try:
            self._cg = Cgroups(self.limits)
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
        self._send(codec.encode_message({"load": load}) + b"\n", self._start_deadline, "import")

    def wait_ready(self) -> list[str] | None:
        """Wait until the bot is imported; its ``GAMES`` (None: every game)."""
        msg = self._await(self._start_deadline, "import")
        if msg.get("ready") is not True:
            self._protocol_fault(msg, "import")
        games, kind, wire = msg.get("games"), msg.get("kind"), msg.get("codec", "json")
        if set(msg) - {"ready", "games", "kind", "codec"} or kind not in ("class", "function") or not (
                games is None or (isinstance(games, list) and len(games) <= 1000
                                  and all(isinstance(g, str) for g in games))) or wire not in codec.CODECS:
            raise self._fail("illegal", f"malformed ready message on the bot channel: {codec.show(msg)}",
                             "import")
        self.games = None if games is None else [clean_text(g, 60) for g in games]
        self.kind = kind
        self.codec = wire
        return self.games

    def start(self) -> list[str] | None:
        self.spawn()
        return self.wait_ready()

    def new_match(self, game: str, seat: int, seed: int) -> None:
        """Construct the bot for a match (``Bot(game, seat, seed)``) and reset the time bank."""
        self._idle_off()
        deadline = time.monotonic() + self.limits.start_time
        self._send(codec.encode_message({"new": [game, seat, seed]}) + b"\n", deadline, "init")
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
            data = b"A" + codec.encode_message(observation) + b"\n"
        else:
            blob = base64.b64encode(pickle.dumps(list(worlds), protocol=pickle.HIGHEST_PROTOCOL)).decode()
            data = b"W" + codec.encode_message([observation, blob]) + b"\n"
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
                    msg = codec.decode_message(line)
                except codec.DECODE_ERRORS:
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
        raise self._fail("illegal", f"unexpected reply on the bot channel: {codec.show(msg)}", stage)

