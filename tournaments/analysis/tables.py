"""Tables that fit their data at 80 columns: no cell is cut (``…``), ids are never wrapped or cut.

Every column folds a cell that does not fit onto the next line (never an ellipsis); the columns named
in ``ids`` (match ids, tournament ids: they are pasted into ``verify --match`` and other commands) do
not wrap at all and keep their full width.  Commands show fewer, shorter columns by default and the
rest with ``--wide`` (:func:`console` gives a console wide enough for them).

Text from a log or a bot (names, ids, reasons, actions, any cell of ``query``) is never terminal
markup: the commands' consoles (:func:`plain_console`) read no markup, and :func:`plain` shows the
text's control characters, ANSI escapes and bidirectional controls escaped, so ``[/x]`` cannot crash
a command and ``[link=...]``, ``[conceal]`` or ``ESC [ 2J`` print as the characters they are.
:class:`PlainTable` (what :func:`fit_table` builds) does so for every string cell, header and title.

>>> plain("[link=http://evil]x[/link] \\x1b[2J").plain
'[link=http://evil]x[/link] \\\\x1b[2J'
"""
from __future__ import annotations

from collections.abc import Collection
from typing import IO, Any

from rich.console import Console, RenderableType
from rich.table import Table
from rich.text import Text

from bots.failure import one_line


def plain(value: object, style: str = "") -> Text:
    """``value``'s text as it is (no markup), with what could act on a terminal shown escaped."""
    return Text(one_line(str(value), limit=None), style=style)


def styled(*parts: str | tuple[str, str]) -> Text:
    """One line of plain pieces, each a string or ``(text, style)`` (``("hartenjagen", "bold")``)."""
    out = Text()
    for p in parts:
        out.append_text(plain(p) if isinstance(p, str) else plain(p[0], p[1]))
    return out


def _cell(r: RenderableType | None) -> RenderableType | None:
    return plain(r) if isinstance(r, str) else r


class PlainTable(Table):
    """A rich Table whose string cells, headers and title are :func:`plain` text."""

    def __init__(self, *headers: str, title: str | None = None, **kw: Any) -> None:
        super().__init__(title=None if title is None else plain(title), **kw)
        for h in headers:
            self.add_column(h)

    def add_column(self, header: RenderableType = "", *args: Any, **kw: Any) -> None:
        super().add_column(_cell(header) or "", *args, **kw)

    def add_row(self, *renderables: RenderableType | None, **kw: Any) -> None:
        super().add_row(*[_cell(r) for r in renderables], **kw)


def fit_table(*headers: str, ids: Collection[str] = (), **kw: Any) -> PlainTable:
    """A :class:`PlainTable` whose cells fold instead of being cut; the ``ids`` columns never wrap."""
    t = PlainTable(**kw)
    for h in headers:
        if h in ids:
            t.add_column(h, no_wrap=True, overflow="ignore")
        else:
            t.add_column(h, overflow="fold")
    return t


def plain_console(file: IO[str] | None = None, **kw: Any) -> Console:
    """A console that reads no markup in the strings it prints (the commands' consoles)."""
    return Console(file=file, highlight=False, soft_wrap=False, markup=False, **kw)


def console(wide: bool, base: Console) -> Console:
    """``base``, or for ``--wide`` a console as wide as the widest table needs (no folding at all)."""
    if not wide:
        return base
    wide_console = plain_console(base.file)
    wide_console.width = max(base.width, 400)   # (rich's constructor lets $COLUMNS override width=)
    return wide_console
