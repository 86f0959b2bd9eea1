"""The Ray executor: embedded Ray on this machine, or a cluster at an ``address`` (checked and joined
before anything is written to the output directory; this project's packages shipped with the job
when a node is another machine).

While Ray runs in the driver, everything it prints (the ``(raylet)`` node-death and state dumps it
relays from the cluster, its C++ log lines, its Python logger) goes to ``OUT/_logs/ray-driver.log``
instead of the terminal (:class:`RayOutput`): stdout holds only the driver's own lines, so ``--json``
output parses whatever the cluster does.  A lost node is one line of our own, ``node 10.0.0.7
(1f3a9c2e) lost; 2 batches re-run`` (:class:`NodeWatch`).  :class:`RayExecutor` is the
:class:`~tournaments.runners.loop.Executor` the submission loop drives: a batch whose worker or node
was lost comes back as :class:`~tournaments.runners.loop.Lost` and is run again, alone.

This module does not shadow the ``ray`` package: every ``import ray`` here is absolute.
"""
from __future__ import annotations

import contextlib
import os
import re
import shutil
import socket
import sys
import tempfile
import time
from collections.abc import Callable, Iterable
from datetime import UTC, datetime
from pathlib import Path
from typing import Any, TextIO

from tournaments.paths import RAY_LOG
from tournaments.runner import Batch, BatchResult, run_batch
from tournaments.runners.loop import Failed, Lost
from tournaments.runners.progress import Progress
from tournaments.runners.summary import LostNode, Summary, TournamentError
from tournaments.store import is_uri, restore_uri

PROJECT = Path(__file__).resolve().parents[2]
PACKAGES = ("engine", "bots", "tournaments")
"""Shipped to a remote cluster with the job (``runtime_env.py_modules``)."""


def check_address(address: str, timeout: float = 3.0) -> None:
    """Fail within ``timeout`` seconds when nothing listens at a ``HOST:PORT`` (or ``ray://``) address."""
    if address in ("auto", "local"):
        return
    hostport = address.split("://", 1)[-1].rstrip("/")
    host, sep, port = hostport.rpartition(":")
    if not sep or not port.isdigit():
        raise TournamentError(f"--address {address!r}: expected HOST:PORT (e.g. 10.0.0.5:6379), "
                              "ray://HOST:10001 or auto")
    try:
        with socket.create_connection((host.strip("[]"), int(port)), timeout=timeout):
            pass
    except OSError as e:
        raise TournamentError(f"cannot reach a Ray cluster at {address}: {e.strerror or e}") from None


STORE_ENV = ("AWS_ENDPOINT_URL", "AWS_ENDPOINT_URL_S3", "AWS_REGION", "AWS_DEFAULT_REGION",
             "AWS_ACCESS_KEY_ID", "AWS_SECRET_ACCESS_KEY", "AWS_SESSION_TOKEN", "AWS_PROFILE",
             "AWS_CONFIG_FILE", "AWS_SHARED_CREDENTIALS_FILE", "GOOGLE_APPLICATION_CREDENTIALS")
"""The driver's object-store settings that a cluster's workers get with the job (``runtime_env``
``env_vars``) when the log is in a store: a worker on another machine does not see the driver's
environment, and without these it would talk to the default endpoint with no credentials."""


def store_env(output: str | os.PathLike[str]) -> dict[str, str]:
    """The :data:`STORE_ENV` settings of this process, for a log kept at ``output`` (none for a
    local directory)."""
    if not is_uri(restore_uri(output)):
        return {}
    return {k: os.environ[k] for k in STORE_ENV if os.environ.get(k)}


JOB_ENV = ("CARDARENA_SANDBOX",)
"""The driver's sandbox choice, which a cluster's workers get with the job whatever the log's place:
the organiser who accepted the unshare fallback (``CARDARENA_SANDBOX=unshare``) on the driver accepted
it for the tournament, so a node without bubblewrap runs its batches in the same fallback instead of
refusing them; an unset variable is not sent (each node then requires bubblewrap)."""


def job_env(output: str | os.PathLike[str]) -> dict[str, str]:
    """Everything the driver forwards to a cluster's workers: :func:`store_env` and :data:`JOB_ENV`."""
    return {**store_env(output), **{k: os.environ[k] for k in JOB_ENV if os.environ.get(k)}}


def start_ray(address: str | None, num_cpus: int = 0, env_vars: dict[str, str] | None = None) -> bool:
    """Connect to ``address``, or start embedded Ray; True if this call started it.  ``env_vars``
    reach the job's workers on a cluster (embedded workers inherit this process's environment)."""
    import logging

    import ray

    if ray.is_initialized():
        return False
    quiet: dict[str, Any] = {"logging_level": logging.ERROR, "log_to_driver": False}
    if address is None:
        # "local": a new instance of our own, never a cluster that happens to run on this machine
        try:
            ray.init(address="local", num_cpus=num_cpus or None, include_dashboard=False,
                     object_store_memory=128 << 20, **quiet)
        except (ConnectionError, RuntimeError, ValueError, OSError) as e:
            first = str(e).splitlines()[0] if str(e) else type(e).__name__
            raise TournamentError(f"embedded Ray did not start: {first}") from None
        return True
    from ray.exceptions import AuthenticationError

    check_address(address)
    env: dict[str, Any] = {"env_vars": dict(env_vars)} if env_vars else {}
    try:
        ray.init(address=address, runtime_env=env or None, **quiet)
        if remote_nodes():  # another machine runs batches too: ship this project's code with the job
            ray.shutdown()
            ray.init(address=address,
                     runtime_env={**env, "py_modules": [str(PROJECT / p) for p in PACKAGES]}, **quiet)
    except AuthenticationError as e:
        first = (e.message or type(e).__name__).splitlines()[0]
        raise TournamentError(f"the Ray cluster at {address} refused this driver ({first}); {AUTH_HINT}"
                              ) from None
    except (ConnectionError, RuntimeError, ValueError) as e:
        first = str(e).splitlines()[0] if str(e) else type(e).__name__
        raise TournamentError(f"cannot connect to the Ray cluster at {address}: {first}") from None
    return True


AUTH_HINT = ("give the driver the cluster's token (RAY_AUTH_TOKEN=<`ray get-auth-token` on the head>), or "
             "start the head, every node and the driver with RAY_AUTH_MODE=disabled")


def _join(address: str, ray_out: RayOutput, env_vars: dict[str, str] | None = None) -> bool:
    """:func:`start_ray` at ``address``; a refused token is said so (Ray itself only retries, logging
    ``InvalidAuthToken`` from C++, then raises a bare "Failed to connect")."""
    try:
        return start_ray(address, env_vars=env_vars)
    except TournamentError as e:
        if "InvalidAuthToken" in ray_out.caught() and AUTH_HINT not in str(e):
            raise TournamentError(f"{e} (the cluster refused this driver's token: InvalidAuthToken); "
                                  f"{AUTH_HINT}") from None
        raise


def remote_nodes() -> list[str]:
    """Addresses of the cluster's live nodes that are not this machine."""
    import ray

    here = {ray.util.get_node_ip_address(), "127.0.0.1"}
    return sorted({n["NodeManagerAddress"] for n in ray.nodes() if n.get("Alive")} - here)


def _run_batch_on_node(batch: Batch) -> tuple[BatchResult, str]:
    """The Ray task: :func:`run_batch`, and the id of the node it ran on.  The worker process pins
    itself to a CPU of its own on its first batch (:func:`~tournaments.runners.local.claim_cpu`)."""
    import ray

    from tournaments.runners.local import claim_cpu
    claim_cpu()
    return run_batch(batch), ray.get_runtime_context().get_node_id()


def _run_on_node(fn: Callable[[Any], Any], item: Any) -> tuple[Any, str]:
    """The Ray task of another driver of the loop (``cardarena verify``): ``fn(item)`` and the node id."""
    import ray

    return fn(item), ray.get_runtime_context().get_node_id()


def ray_task() -> Any:
    """The remote function.

    ``max_retries=0``: a batch whose worker or node died comes back to the driver as an error and the
    driver submits it again (counted in :attr:`Summary.resubmitted`); the rerun rewrites the same parts.
    """
    import ray

    return ray.remote(num_cpus=1, max_retries=0, retry_exceptions=False)(_run_batch_on_node)


# ------------------------------------------------------------------------------------------ output


def _flush_std() -> None:
    for stream in (sys.stdout, sys.stderr):
        with contextlib.suppress(ValueError, OSError):   # closed, or a full disk: nothing to keep
            stream.flush()


class RayOutput:
    """Keep Ray's own messages off this process's stdout and stderr while Ray runs in it.

    Ray writes to file descriptors 1 and 2 from Python (the ``(raylet)`` node-death and state dumps
    its error listener relays whatever ``log_to_driver`` says, its logger) and from C++ (the core
    worker's log lines), so the descriptors themselves are redirected: on entry both point at a
    temporary file, and :attr:`out` and :attr:`err` at copies of the real ones (or at the caller's
    own ``sys.stdout``/``sys.stderr`` when those are not descriptors 1 and 2), where this module's
    own lines go.  :meth:`attach` moves what was caught so far into ``OUT/_logs/ray-driver.log`` and
    sends the rest there, once the output directory may be written (never before: a cluster that
    cannot be joined leaves it untouched).  On exit the descriptors are restored; Ray must be shut
    down by then (``ray.shutdown`` joins its listener threads, so nothing of it prints later).
    """

    def __init__(self) -> None:
        self.path: Path | None = None
        self._saved: tuple[int, int] | None = None
        self._sink: Any = None
        self._std: tuple[TextIO, TextIO] = (sys.stdout, sys.stderr)
        self._opened: list[TextIO] = []
        self.out: TextIO = sys.stdout
        self.err: TextIO = sys.stderr

    def __enter__(self) -> RayOutput:
        _flush_std()
        saved = os.dup(1), os.dup(2)
        self._saved = saved
        self._sink = tempfile.TemporaryFile()   # closed in __exit__, or replaced by attach
        self._std = sys.stdout, sys.stderr
        # our lines: to where stdout and stderr went (a copy of the descriptor, or the caller's own stream
        # when sys.stdout is not descriptor 1, as under a test runner); Ray's Python-level writes follow
        # sys.stdout and sys.stderr, so while it runs those write to descriptors 1 and 2
        streams = []
        for fd, copy, stream in ((1, saved[0], sys.stdout), (2, saved[1], sys.stderr)):
            if _writes_to(stream, fd):
                streams.append(self._open(os.dup(copy)))
            else:
                streams.append(stream)
                setattr(sys, "stdout" if fd == 1 else "stderr", self._open(fd, closefd=False))
        self.out, self.err = streams
        self._point(self._sink.fileno())
        return self

    def _open(self, fd: int, closefd: bool = True) -> TextIO:
        stream = open(fd, "w", buffering=1, encoding="utf-8", errors="replace", closefd=closefd)
        self._opened.append(stream)
        return stream

    @staticmethod
    def _point(fd: int) -> None:
        _flush_std()   # what Python buffered goes where it was written to
        os.dup2(fd, 1)
        os.dup2(fd, 2)

    def caught(self) -> str:
        """What Ray printed so far, before :meth:`attach` (empty after it)."""
        if self._sink is None or self.path is not None:
            return ""
        _flush_std()
        self._sink.seek(0)
        text: str = self._sink.read().decode("utf-8", "replace")
        self._sink.seek(0, os.SEEK_END)
        return text

    def attach(self, root: Path, title: str) -> Path:
        """From now on Ray's messages go to ``root/_logs/ray-driver.log`` (appended to)."""
        path = root / RAY_LOG
        path.parent.mkdir(parents=True, exist_ok=True)
        log = open(path, "ab")   # closed in __exit__
        try:
            log.write(f"=== {datetime.now(UTC).isoformat(timespec='seconds')} {title}, pid {os.getpid()} "
                      f"on {socket.gethostname()}\n".encode())
            _flush_std()
            self._sink.seek(0)
            shutil.copyfileobj(self._sink, log)
            log.flush()
        except OSError as e:   # a full disk: name the file (a failed write names none)
            with contextlib.suppress(OSError):
                log.close()
            raise OSError(e.errno, e.strerror, str(path)) from None
        self._point(log.fileno())
        self._sink.close()
        self._sink, self.path = log, path
        return path

    def __exit__(self, *exc: object) -> None:
        if self._saved is None:
            return
        _flush_std()
        for fd, target in zip(self._saved, (1, 2), strict=True):
            os.dup2(fd, target)
            os.close(fd)
        self._saved = None
        sys.stdout, sys.stderr = self._std
        self._sink.close()
        for stream in self._opened:
            with contextlib.suppress(OSError, ValueError):
                stream.close()
        self._opened.clear()


def _writes_to(stream: TextIO, fd: int) -> bool:
    try:
        return stream.fileno() == fd
    except (AttributeError, ValueError, OSError):   # io.UnsupportedOperation: a stream in memory
        return False



_DIED_NODE = re.compile(r"node ID: ([0-9a-f]{8,})", re.IGNORECASE)
_DIED_IP = re.compile(r"Node IP: ([0-9A-Za-z.:\[\]-]+?)[,.]?\s")


class NodeWatch:
    """The cluster's nodes as this driver sees them.  A node that dies is one line of our own
    (:meth:`LostNode.line`), shown once the batches it took with it are counted: ``settle_s`` after
    the last of them failed (they fail together; Ray's ``NodeDiedError`` names the node) or after a
    poll of ``nodes()`` (default ``ray.nodes()``, every ``poll_s``) found it dead."""

    def __init__(self, s: Summary, bar: Progress, poll_s: float = 2.0, settle_s: float = 1.0,
                 nodes: Callable[[], list[dict[str, Any]]] | None = None) -> None:
        self.s, self.bar, self.poll_s, self.settle_s = s, bar, poll_s, settle_s
        self.nodes = nodes if nodes is not None else _ray_nodes
        self.known: dict[str, str] = {}
        self.last_poll = 0.0
        self.poll(time.monotonic())

    def poll(self, now: float) -> None:
        self.last_poll = now
        for n in self.nodes():
            nid, where = str(n.get("NodeID", "")), str(n.get("NodeManagerAddress") or "?")
            if n.get("Alive"):
                self.known[nid] = where
            elif nid in self.known and nid not in self.s.lost_nodes:
                self.s.lost_nodes[nid] = LostNode(nid, self.known[nid], changed=now)

    def batch_lost(self, error: BaseException, now: float) -> bool:
        """Count a batch lost with its node; False if ``error`` names no node (a lost worker)."""
        text = str(error)
        m = _DIED_NODE.search(text)
        if m is None:
            return False
        nid = m.group(1).lower()
        ip = _DIED_IP.search(text)
        lost = self.s.lost_nodes.get(nid)
        if lost is None:
            lost = self.s.lost_nodes[nid] = LostNode(nid, self.known.get(nid) or (ip.group(1) if ip else "?"))
        lost.rerun += 1
        lost.changed = now
        return True

    def tick(self, final: bool = False) -> None:
        now = time.monotonic()
        if final or now - self.last_poll >= self.poll_s:
            self.poll(now)
        for lost in self.s.lost_nodes.values():
            if lost.shown != lost.rerun and (final or now - lost.changed >= self.settle_s):
                self.bar.event(lost.line())
                lost.shown = lost.rerun




def _ray_nodes() -> list[dict[str, Any]]:
    import ray

    nodes: list[dict[str, Any]] = ray.nodes()
    return nodes


def _ray_shutdown() -> None:
    import ray

    ray.shutdown()


class RayExecutor:
    """Ray as the submission loop's :class:`~tournaments.runners.loop.Executor`: embedded Ray, or the
    cluster at ``address``.  A batch whose worker or node was lost is run again alone; a lost node is
    one line of :class:`NodeWatch`'s, a lost worker one line of its own."""

    def __init__(self, address: str | None, num_cpus: int = 0,
                 fn: Callable[[Any], Any] | None = None) -> None:
        self.address, self.num_cpus = address, num_cpus
        self.fn = fn
        """What a task runs on each submitted item (None: a tournament's :func:`run_batch`)."""
        self.started = False
        self.task: Any = None
        self.s: Summary | None = None
        self.bar: Progress | None = None
        self.watch: NodeWatch | None = None

    def start(self, s: Summary, bar: Progress) -> int:
        import ray

        self.s, self.bar = s, bar
        t0 = time.monotonic()
        self.started = start_ray(self.address, self.num_cpus)
        try:
            cpus = int(ray.cluster_resources().get("CPU", 1))
            self.task = ray_task() if self.fn is None else ray.remote(
                num_cpus=1, max_retries=0, retry_exceptions=False)(_run_on_node)
            s.startup_seconds = time.monotonic() - t0
            self.watch = NodeWatch(s, bar)
        except BaseException:
            self.stop([])
            raise
        return cpus

    def submit(self, batch: Batch) -> Any:
        return self.task.remote(batch) if self.fn is None else self.task.remote(self.fn, batch)

    def wait(self, handles: list[Any], timeout: float) -> Iterable[Any]:
        import ray

        ready, _ = ray.wait(handles, num_returns=1, timeout=timeout)
        return ready

    def result(self, handle: Any) -> BatchResult | None:
        import ray
        from ray.exceptions import RayError, RayTaskError, TaskCancelledError

        assert self.s is not None, "start() first"
        try:
            r, node = ray.get(handle)
        except RayTaskError as e:   # an exception inside run_batch: a bug, not a lost worker
            raise Failed(e.cause if e.cause is not None else e, e) from e
        except TaskCancelledError:
            return None
        except RayError as e:   # its worker or node was lost: run it again (unless stopping)
            raise Lost(type(e).__name__, e) from e
        r.node = node
        self.s.nodes.add(node)
        return r

    def lost(self, batches: list[Batch], error: Lost) -> None:
        assert self.s is not None and self.bar is not None and self.watch is not None, "start() first"
        for b in batches:
            if error.error is None or not self.watch.batch_lost(error.error, time.monotonic()):
                self.s.lost_workers += 1
                self.bar.event(f"a worker was lost ({error.why}); a batch of {b.game} re-run")

    def tick(self, final: bool = False) -> None:
        if self.watch is not None:
            self.watch.tick(final)

    def stop(self, handles: list[Any]) -> None:
        import ray
        from ray.exceptions import RayError

        for ref in handles:   # stopped, or failed: nothing of ours keeps running on the cluster
            with contextlib.suppress(RayError):
                ray.cancel(ref, force=True)
        if self.started:
            self.started = False
            ray.shutdown()
