"""Tables that fit their data at 80 columns: no cell is cut (``…``), ids are never wrapped or cut.

Every column folds a cell that does not fit onto the next line (never an ellipsis); the columns named
in ``ids`` (match ids, tournament ids: they are pasted into ``verify --match`` and other commands) do
not wrap at all and keep their full width.  Commands show fewer, shorter columns by default and the
rest with ``--wide`` (:func:`console` gives a console wide enough for them).
"""
from __future__ import annotations

from collections.abc import Collection
from typing import Any

from rich.console import Console
from rich.table import Table


def fit_table(*headers: str, ids: Collection[str] = (), **kw: Any) -> Table:
    """A rich Table whose cells fold instead of being cut; the ``ids`` columns never wrap."""
    t = Table(**kw)
    for h in headers:
        if h in ids:
            t.add_column(h, no_wrap=True, overflow="ignore")
        else:
            t.add_column(h, overflow="fold")
    return t


def console(wide: bool, base: Console) -> Console:
    """``base``, or for ``--wide`` a console as wide as the widest table needs (no folding at all)."""
    if not wide:
        return base
    return Console(highlight=False, soft_wrap=False, width=max(base.width, 400), file=base.file)
