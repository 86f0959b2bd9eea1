"""A bot's faults, grouped so that one bug is one row (standard library only).

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
from typing import Any

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


__all__ = ["group_faults", "normalise_reason"]
