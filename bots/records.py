"""The records the match loop hands out, in the bots layer so that the tournament's log can take
them as they stand (standard library only: importing this loads no sandbox and no engine)."""
from __future__ import annotations

from typing import Annotated, NamedTuple


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
