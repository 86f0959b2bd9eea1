"""The records the match loop hands out, in the bots layer so that the tournament's log can take
them as they stand (standard library only: importing this loads no sandbox and no engine)."""
from __future__ import annotations

from bisect import bisect_right as _bisect_right
from collections.abc import Iterator, Sequence
from typing import Annotated, NamedTuple, overload


class MoveRecord(NamedTuple):
    """One action as the match loop saw it (:func:`play_match` hands one to ``on_move``).  The one type
    of a move row: the tournament's log keeps it as its ``moves`` row and derives the table's columns
    from these fields, in this order, stored at the width each names (``tournaments.log.MOVES_SCHEMA``;
    the log adds the tournament, the match and the seat's entrant, ``bot``, after ``seat``)."""

    deal: Annotated[int, "int32"]
    ply: Annotated[int, "int32"]
    """Actions played in the match before this one."""
    seat: Annotated[int, "int8"]
    phase: Annotated[str, "string"]
    action: Annotated[str, "string"]
    legal_count: Annotated[int, "int32"]
    think_us: Annotated[int, "int64"]
    """Microseconds the player took (the faulting player's, on the move it faulted)."""
    status: Annotated[str, "string"]
    """``ok``, the outcome of the seat's fault on the move it faulted (played by the fallback), or
    ``fallback`` afterwards."""


class MoveColumns(Sequence[MoveRecord]):
    """One match's moves as the match loop logs them, column by column (:func:`bots.match.play_match`
    with ``log=``): the fields of :class:`MoveRecord` without a record object per move.

    Per move the loop appends the seat, the legal count and the thinking time; ``deal``, ``phase``
    and ``status``, which change a few times a match, are kept as runs (a new run where any of them
    changes); at the end of the match :meth:`finish` takes the actions from the state's history, and
    ``ply`` is the row's index (the engine appends exactly one action to ``state.history`` per
    ``apply``: the log's ``ply`` is the index in the history, ``action`` is ``history[ply]``).

    A sequence of :class:`MoveRecord` (made on demand), so that code reading the rows one by one
    sees what ``on_move`` hands out."""

    __slots__ = ("action", "legal_count", "run_deal", "run_phase", "run_start", "run_status", "seat",
                 "think_us")

    def __init__(self) -> None:
        self.seat: list[int] = []
        self.legal_count: list[int] = []
        self.think_us: list[int] = []
        self.action: list[str] = []
        """The actions applied, canonical (``state.history``), filled by :meth:`finish`."""
        self.run_start: list[int] = []
        """The row where each run of equal (deal, phase, status) starts, and those values."""
        self.run_deal: list[int] = []
        self.run_phase: list[str] = []
        self.run_status: list[str] = []

    def finish(self, history: list[str]) -> None:
        """Take the match's actions from ``history``; ``ValueError`` when it does not hold one action
        per logged move (an engine whose ``apply`` broke that rule: its rows would be misnumbered)."""
        if len(history) != len(self.seat):
            raise ValueError(f"the state's history holds {len(history)} actions after {len(self.seat)} "
                             "logged moves: an engine's apply must append exactly one")
        self.action = list(history)

    def clear(self) -> None:
        """Drop every move (a match whose moves cannot be logged consistently)."""
        for name in self.__slots__:
            getattr(self, name).clear()

    def __len__(self) -> int:
        return len(self.action)

    @overload
    def __getitem__(self, i: int) -> MoveRecord: ...

    @overload
    def __getitem__(self, i: slice) -> list[MoveRecord]: ...

    def __getitem__(self, i: int | slice) -> MoveRecord | list[MoveRecord]:
        n = len(self.action)
        if isinstance(i, slice):
            return [self[k] for k in range(*i.indices(n))]
        if not -n <= i < n:
            raise IndexError(i)
        i %= n
        k = _bisect_right(self.run_start, i) - 1
        return MoveRecord(self.run_deal[k], i, self.seat[i], self.run_phase[k], self.action[i],
                          self.legal_count[i], self.think_us[i], self.run_status[k])

    def __iter__(self) -> Iterator[MoveRecord]:
        return (self[i] for i in range(len(self)))
