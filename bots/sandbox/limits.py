"""What a sandboxed bot may use (:class:`Limits`) and the outcomes of its moves."""
from __future__ import annotations

from dataclasses import dataclass, replace
from typing import Any

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


def with_limits(limits: Limits, **changes: Any) -> Limits:
    return replace(limits, **changes)
