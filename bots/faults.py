"""A fault, one record of it, and its grouping, so that one bug is one row (standard library only).

:class:`Fault` is the one record of a fault: a seat's bot (a timeout, crash, illegal action or memory
fault) or the engine itself (``seat`` None, outcome ``error``).  The match loop makes it
(``bots.match``: from a sandbox's :class:`BotFault`, an in-process player's exception or an illegal
action), the tournament's log keeps it (``tournaments.log``: ``matches.faults`` holds its seat, its
outcome as ``kind``, its ply and :meth:`Fault.detail`), and the reports group it.
:class:`BotFault` is the exception a sandbox raises: a fault whose seat and move the match loop
adds when it records it.

:func:`normalise_reason` reduces a fault's reason to its shape (the action the bot gave, the engine's
legal list, numbers, cards, suits, addresses and ids replaced by placeholders), and
:func:`group_faults` groups fault rows by bot, kind and that shape.  The tournament's fault report
(``cardarena bots faults DIR NAME``, :mod:`tournaments.analysis.faults`) and the dashboard's faults
table (:mod:`dashboards.report`) both group with them, so they agree.
"""
from __future__ import annotations

import re
from collections import defaultdict
from collections.abc import Sequence
from dataclasses import dataclass
from typing import Any


@dataclass
class Fault:
    """A fault, for the bot's author and the log: who, what, where and why."""

    seat: int | None
    """The seat whose bot faulted; None for an engine error (outcome ``error``)."""
    outcome: str
    """``timeout``, ``crash``, ``illegal`` or ``memory``; ``error``: the engine's."""
    reason: str
    stage: str
    """``start``, ``import``, ``init`` (constructing ``Bot``) or ``act``; ``engine`` for an engine error."""
    deal: int
    ply: int
    """Actions played in the match before the failed move."""
    move: int
    """The seat's own move number (1 = its first move)."""
    action: str | None = None
    """The action the bot gave, when it was illegal."""
    traceback: str = ""

    @property
    def bot_seat(self) -> int:
        """The seat of a bot's fault; ``ValueError`` for an engine error, which is no seat's."""
        if self.seat is None:
            raise ValueError(f"an engine error is no seat's fault: {self.reason}")
        return self.seat

    def line(self) -> str:
        """One line: where and why."""
        where = (f"at {self.stage}" if self.stage in ("start", "import", "init")
                 else f"deal {self.deal}, its move {self.move} (ply {self.ply})")
        return f"seat {self.seat}: {self.outcome} {where}: {self.reason}"

    def detail(self) -> str:
        """What the log keeps as the fault's reason (``matches.faults.reason``): the reason, after the
        action given (quoted) when there was one, then the traceback excerpt."""
        reason = f"{self.action!r}: {self.reason}" if self.action is not None else self.reason
        return reason + (f"\n{self.traceback}" if self.traceback else "")

    def to_json(self) -> dict[str, Any]:
        return {"seat": self.seat, "outcome": self.outcome, "reason": self.reason, "stage": self.stage,
                "deal": self.deal, "ply": self.ply, "move": self.move, "action": self.action,
                "traceback": self.traceback}


class BotFault(Exception):
    """A bot's fault as its sandbox raises it: ``outcome`` (``timeout``, ``crash``, ``illegal``,
    ``memory``), a one-line ``reason``, the ``stage`` it happened in (``start``, ``import``, ``init``,
    ``act``) and a traceback excerpt for the bot's author; the match loop records it as a
    :class:`Fault` with its seat and move."""

    def __init__(self, outcome: str, reason: str, stage: str = "act", traceback: str = "") -> None:
        super().__init__(f"{outcome}: {reason}")
        self.outcome = outcome
        self.reason = reason
        self.stage = stage
        self.traceback = traceback


_CARD_RE = re.compile(r"(?<![A-Za-z0-9])(?:JK(?:=[2-9TJQKA][CDHS])?|(?:10|[2-9TJQKA])[CDHS])(?![A-Za-z0-9])")
_NORMALISE = [
    (re.compile(r"^\s*(['\"]).*?\1:\s"), "<action>: "),  # the runner's prefix: the action the bot gave
    (re.compile(r";\s*legal now\b.*$"), ""),  # the engine's list of what was legal then
    (re.compile(r"\b0x[0-9a-fA-F]+\b"), "<addr>"),
    (re.compile(r"\b[0-9a-fA-F]{8,}\b"), "<hex>"),  # ids, hashes
    (_CARD_RE, "<card>"),
    (re.compile(r"<card>(?:[\s,;|/+]*<card>)+"), "<cards>"),
    (re.compile(r"(?<![A-Za-z_<])[-+]?\d+(?:\.\d+)?(?:e[-+]?\d+)?(?![A-Za-z_])"), "<n>"),
    (re.compile(r"\b(?:clubs|diamonds|hearts|spades)\b|[\u2660-\u2667]", re.I), "<suit>"),
    (re.compile(r"\s+"), " "),
]


def normalise_reason(reason: str) -> str:
    """The shape of a fault's reason, so that one bug at different moves is one group: its first
    line with the action the bot gave, the engine's legal list, addresses, hex ids, card tokens,
    numbers and suit names replaced by placeholders.

    >>> normalise_reason("'play 7H': 'play 7H' is not legal now: follow hearts; legal now (1): play 2H")
    "<action>: 'play <card>' is not legal now: follow <suit>"
    >>> normalise_reason("RuntimeError: gave up at move 12 with <Hand object at 0x7f3a2c>")
    'RuntimeError: gave up at move <n> with <Hand object at <addr>>'
    """
    first = next((ln for ln in reason.strip().splitlines() if ln.strip()), "")
    for rx, sub in _NORMALISE:
        first = rx.sub(sub, first)
    return first.strip()[:200]


def group_faults(rows: Sequence[dict[str, Any]]) -> list[dict[str, Any]]:
    """Fault rows (each with ``bot``, ``kind``, ``reason``, ``game``, ``match_id``) grouped by bot,
    kind and normalised reason, the biggest group first: each with ``count``, ``matches`` (how many),
    ``games``, ``first`` (its first row, in the order given) and ``rows`` (all of them, in order)."""
    groups: dict[tuple[str, str, str], list[dict[str, Any]]] = defaultdict(list)
    for r in rows:
        groups[(r["bot"], r["kind"], normalise_reason(r["reason"]))].append(r)
    out: list[dict[str, Any]] = []
    for (bot, kind, norm), rs in groups.items():
        out.append({"bot": bot, "kind": kind, "reason": norm, "count": len(rs),
                    "matches": len({r["match_id"] for r in rs}), "games": sorted({r["game"] for r in rs}),
                    "first": rs[0], "rows": rs})
    out.sort(key=lambda g: (-g["count"], g["bot"], g["kind"], g["reason"]))
    return out


__all__ = ["BotFault", "Fault", "group_faults", "normalise_reason"]
