"""The process sandbox: each submitted bot runs in its own OS process and sees observations only.

One :class:`Sandbox` (:mod:`bots.sandbox.process`) is one child process running ``bots/_runner.py``
with one bot loaded.  The parent sends observations (JSON lines over a pipe) and reads actions back,
with a per-move deadline and a per-match time bank.  The package, by job:

* :mod:`~bots.sandbox.limits`: what a bot may use (:class:`Limits`) and the outcomes of its moves;
* :mod:`~bots.sandbox.codec`: the JSON-lines codec both ends speak (msgspec where installed);
* :mod:`~bots.sandbox.detect`: what this machine allows (:func:`isolation`) and the refusal of
  submitted bots where no strong sandbox works (:class:`SandboxUnavailable`);
* :mod:`~bots.sandbox.launch`: the command, bubblewrap's options or the unshare fallback's set-up
  script, with the read-only binds and the drop to uid 65534;
* :mod:`~bots.sandbox.library`: the libraries every bot may import, read-only at ``/sandbox/lib``
  (numpy, and ``cardarena_rl``: engine.rl's ids and encoder, :mod:`~bots.sandbox.rl_runtime`);
* :mod:`~bots.sandbox.cgroups`: the per-sandbox cgroup (pids, memory, idle between moves);
* :mod:`~bots.sandbox.process`: :class:`Sandbox`, the protocol with the runner and the deadlines;
* :mod:`~bots.sandbox.players`: :class:`SandboxPlayer` and :func:`start_players` for the match loop.

What is enforced (see :func:`isolation` and docs/bots.md):

* **bubblewrap** (``bwrap``, Debian ``bubblewrap``) when it works here: a new network namespace (no
  network), a new PID namespace (children die with the bot; ``setsid`` cannot escape), new IPC and
  UTS namespaces, uid/gid 65534 and never the host's root, no capabilities, no_new_privs, a read-only
  view of only ``/usr``, the Python installation, the runner, the bot's own file or folder and the
  offered libraries (no project files, no rest of site-packages, no other bot, no data directory),
  a ``/proc`` whose kernel settings are read-only and whose keyrings and kernel memory are hidden,
  and a private ``/tmp`` as the working directory.  The environment is cleared.
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

Submitted (untrusted) bots run only under bubblewrap: without it :class:`SandboxUnavailable` (one
line: how to install it, how to accept the fallback) is raised, unless ``CARDARENA_SANDBOX=unshare``
forces the hardened unshare fallback (root only: own mount, PID, network, IPC and UTS namespaces, a
private read-only root with its own ``/proc`` and tmpfs ``/tmp``, ``/var/tmp``, ``/dev/shm``, uid
65534, no capabilities, ``no_new_privs``; see :func:`bots.sandbox.launch.unshare_script`).  Trusted
built-ins run in whatever works, a plain process at worst.  :func:`isolation` says what is enforced.
"""
from __future__ import annotations

from bots.faults import BotFault
from bots.sandbox.codec import CODEC, CODECS, DECODE_ERRORS, codec_dir, decode_message, encode_message
from bots.sandbox.detect import (
    FORCE_HINT,
    INSTALL_HINT,
    WRAPPERS,
    Isolation,
    SandboxUnavailable,
    isolation,
)
from bots.sandbox.launch import (
    CONFINE_FAILED,
    PROC_HIDDEN,
    PROC_READ_ONLY,
    PROJECT_ROOT,
    RUNNER,
    UNPRIVILEGED,
)
from bots.sandbox.limits import DEFAULT_LIMITS, OUTCOMES, Limits, with_limits
from bots.sandbox.players import SandboxPlayer, start_players
from bots.sandbox.process import Sandbox

__all__ = ["CODEC", "CODECS", "CONFINE_FAILED", "DECODE_ERRORS", "DEFAULT_LIMITS", "FORCE_HINT",
           "INSTALL_HINT", "OUTCOMES", "PROC_HIDDEN", "PROC_READ_ONLY", "PROJECT_ROOT", "RUNNER",
           "UNPRIVILEGED", "WRAPPERS", "BotFault", "Isolation", "Limits", "Sandbox", "SandboxPlayer",
           "SandboxUnavailable", "codec_dir", "decode_message", "encode_message", "isolation",
           "start_players", "with_limits"]
