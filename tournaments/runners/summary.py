"""What a run reports: its :class:`Summary` (and the nodes it lost), or the one-line
:class:`TournamentError` that stopped it."""
from __future__ import annotations

from dataclasses import dataclass, field
from pathlib import Path


class TournamentError(Exception):
    """A tournament that cannot run or go on; the message is one line."""


@dataclass
class LostNode:
    """A node of the cluster that died during the run."""

    node_id: str
    address: str
    rerun: int = 0
    """Batches that were running on it, submitted again elsewhere."""
    shown: int = -1
    """:attr:`rerun` when its line was last shown (-1: not yet)."""
    changed: float = 0.0
    """``time.monotonic()`` of the last change."""

    def line(self) -> str:
        batches = "batch" if self.rerun == 1 else "batches"
        again = " in all" if self.shown >= 0 else ""
        return f"node {self.address} ({self.node_id[:8]}) lost; {self.rerun} {batches} re-run{again}"


@dataclass
class Summary:
    tournament: str
    root: Path | str
    """The output directory, or the object store's URI."""
    total: int
    done_before: int
    done_now: int = 0
    moves: int = 0
    faults: int = 0
    errors: int = 0
    seconds: float = 0.0
    startup_seconds: float = 0.0
    """Of :attr:`seconds`: starting or connecting to Ray, until the first batch could be submitted."""
    stopped: bool = False
    resubmitted: int = 0
    removed_orphans: int = 0
    quarantined: list[tuple[str, list[str]]] = field(default_factory=list)
    """Damaged batches this run moved to ``_quarantine/`` before replaying their matches."""
    workers: set[str] = field(default_factory=set)
    nodes: set[str] = field(default_factory=set)
    """Ray node ids that ran batches."""
    lost_nodes: dict[str, LostNode] = field(default_factory=dict)
    """Nodes that died during the run, by node id."""
    lost_workers: int = 0
    """Batches re-run after their worker (not its node) was lost."""
    ray_log: Path | None = None
    """Where Ray's own messages went (``OUT/_logs/ray-driver.log``); None without Ray."""
    executor: str = ""
    """What ran the batches: ``local`` (a pool of processes), ``ray`` or ``inline``."""

    @property
    def done(self) -> int:
        return self.done_before + self.done_now

    @property
    def complete(self) -> bool:
        return self.done >= self.total


