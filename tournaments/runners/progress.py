"""How a run shows its progress (:class:`Progress`): a live bar on a terminal, a plain line every few
seconds otherwise (CI, ``nohup``, a log file), and lines of our own such as a lost node."""
from __future__ import annotations

import sys
import time
from typing import Any, TextIO

from tournaments.runners.summary import Summary


def _isatty(stream: TextIO) -> bool:
    try:
        return stream.isatty()
    except (ValueError, AttributeError):   # closed, or a stream without a descriptor
        return False


def _duration(seconds: float) -> str:
    if seconds < 90:
        return f"{seconds:.0f} s"
    if seconds < 90 * 60:
        return f"{seconds / 60:.0f} min"
    return f"{seconds / 3600:.1f} h"


class Progress:
    """How a run shows its progress on ``out``: a live rich bar on a terminal (matches done of total,
    rate, ETA, faults); when ``out`` is not a terminal (CI, ``nohup``, a log file), a plain line every
    ``every_s`` seconds (no ANSI codes, no cursor movement, never wrapped); nothing when not
    ``enabled``.  Lines of our own (:meth:`event`, e.g. a lost node) go above the bar, among the plain
    lines, or to ``err`` when no progress is shown (so ``--json`` keeps stdout to itself)."""

    def __init__(self, summary: Summary, enabled: bool, out: TextIO | None = None, err: TextIO | None = None,
                 every_s: float = 5.0) -> None:
        self.s = summary
        self.out = out if out is not None else sys.stdout
        self.err = err if err is not None else sys.stderr
        self.every_s = every_s
        self.bar: Any = None
        self.plain = enabled and not _isatty(self.out)
        self.t0 = time.monotonic()
        self.last_line = self.t0
        self.last_done = summary.done
        self.note = ""
        if enabled and not self.plain:
            from rich.console import Console
            from rich.progress import (
                BarColumn,
                MofNCompleteColumn,
                TextColumn,
                TimeElapsedColumn,
                TimeRemainingColumn,
            )
            from rich.progress import Progress as RichProgress

            self.bar = RichProgress(
                TextColumn("[bold]{task.description}"), BarColumn(), MofNCompleteColumn(),
                TextColumn("matches"), TextColumn("{task.fields[rate]:>7.1f}/s"), TimeElapsedColumn(),
                TextColumn("ETA"), TimeRemainingColumn(), TextColumn("faults {task.fields[faults]}"),
                TextColumn("{task.fields[note]}"), refresh_per_second=4, transient=False,
                console=Console(file=self.out, highlight=False))
            self.task = self.bar.add_task(summary.tournament, total=summary.total,
                                          completed=summary.done_before, rate=0.0, faults=0, note="")

    def __enter__(self) -> Progress:
        if self.bar is not None:
            self.bar.start()
        return self

    def __exit__(self, *exc: object) -> None:
        if self.bar is not None:
            self.update()
            self.bar.stop()
        elif self.plain and self.s.done != self.last_done:
            self._line()

    def _rerun_note(self) -> str:
        n = self.s.resubmitted
        return f"batches rerun after a lost worker or node: {n}" if n else ""

    def line(self) -> str:
        """The plain progress line: ``t: 120 of 600 matches (20%) in 4 s, 30.0 matches/s, ETA 13 s,
        faults 0``."""
        s = self.s
        dt = max(time.monotonic() - self.t0, 1e-9)
        rate = s.done_now / dt
        left = s.total - s.done
        eta = _duration(left / rate) if rate > 0 else "unknown"
        pct = 100 * s.done // s.total if s.total else 100
        text = (f"{s.tournament}: {s.done} of {s.total} matches ({pct}%) in {_duration(dt)}, "
                f"{rate:.1f} matches/s, ETA {eta}, faults {s.faults}")
        note = self.note or self._rerun_note()
        return f"{text}; {note}" if note else text

    def _line(self) -> None:
        print(self.line(), file=self.out, flush=True)
        self.last_line, self.last_done = time.monotonic(), self.s.done

    def update(self, note: str | None = None) -> None:
        if self.plain:
            if note is not None and note != self.note:
                self.note = note
                self._line()
            elif time.monotonic() - self.last_line >= self.every_s and self.s.done != self.last_done:
                self._line()
            return
        if self.bar is None:
            return
        dt = max(time.monotonic() - self.t0, 1e-9)
        fields: dict[str, Any] = {"rate": self.s.done_now / dt, "faults": self.s.faults}
        if self.s.resubmitted and note is None:
            note = self._rerun_note()
        if note is not None:
            fields["note"] = note
        self.bar.update(self.task, completed=self.s.done, **fields)

    def event(self, text: str) -> None:
        """One line of our own: above the live bar, among the plain lines, or on ``err``."""
        if self.bar is not None:
            self.bar.console.print(text, markup=False, highlight=False, soft_wrap=True)
        else:
            print(text, file=self.out if self.plain else self.err, flush=True)


