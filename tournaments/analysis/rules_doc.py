"""The rules reference the project ships, ``docs/rules.md`` (a copy of the rules catalogue), parsed.

Each game's card (``### 2.N `id```) lists its decisions (table rows ``| H2 | ...``) and its rule events
(``**Rule events:** `moon_shot`, `hearts_broken` ...``); a family section (``### Common rule for the
... family (`a`, `b`)``) gives events to every game it names.  The notation of an events paragraph:

* ``a | b`` or ``a / b``: two events; a bare second name takes the first one's prefix
  (``meld_50 | 100`` is ``meld_50`` and ``meld_100``);
* ``name(args)``: the event ``name``; a word that is not a lower-case identifier is prose, not an event;
* ``name (not in `x`, `y`)``: the event is not on the cards of ``x`` and ``y`` (in a family section).

:func:`parse_rules` is what ``cardarena coverage`` compares a tournament's events with, and what
``tests/test_rules_reference.py`` checks each game's declared ``rule_events`` against.

>>> cards = parse_rules_text('''### 2.3 `hartenjagen`
... | H2 | no heart led before hearts are broken |
... **Rule events:** `moon_shot`, `meld_50 | 100`, `hearts_broken(seat)`
... ''')
>>> cards["hartenjagen"].decisions, cards["hartenjagen"].events
(['H2'], ['moon_shot', 'meld_50', 'meld_100', 'hearts_broken'])
"""
from __future__ import annotations

import re
from dataclasses import dataclass, field
from functools import cache
from pathlib import Path

RULES_DOC = Path(__file__).resolve().parents[2] / "docs" / "rules.md"
"""The shipped rules reference (inside the repository, beside README.md)."""

_SECTION = re.compile(r"^### (?:2\.\d+ )?`([a-z0-9_]+)`")
_FAMILY = re.compile(r"^### Common rule for the .* family \((.*)\)")
_DECISION = re.compile(r"^\| ([A-Z]{1,3}\d{1,2}) \|")
_EVENTS = re.compile(r"^\*\*Rule events:\*\*(.*)$|^Rule events for the whole family:(.*)$")
_TICKED = re.compile(r"`([^`]+)`")
_NOT_IN = re.compile(r"`([a-z0-9_]+)`\s*\(not in ((?:`[a-z0-9_]+`[, ]*(?:or )?)+)\)")
_NAME = re.compile(r"[a-z][a-z0-9_]*")


@dataclass
class RulesCard:
    """One game's card: its decision ids and rule event names (without the game prefix), in order."""

    decisions: list[str] = field(default_factory=list)
    events: list[str] = field(default_factory=list)


def event_names(text: str) -> list[str]:
    """The event names of an events paragraph (see the module docstring for the notation)."""
    names: list[str] = []
    for raw in _TICKED.findall(re.sub(r"\(not in [^)]*\)", "", text)):
        pieces = [p.strip() for p in re.split(r"[|/]", raw.split("(")[0].strip())]
        prefix = pieces[0].rsplit("_", 1)[0] + "_" if "_" in pieces[0] else ""
        for i, piece in enumerate(pieces):
            if i and prefix and "_" not in piece:
                piece = prefix + piece
            if _NAME.fullmatch(piece):
                names.append(piece)
    return names


def _joined_lines(text: str) -> list[str]:
    """The lines of ``text``, an events paragraph's continuation lines joined to it."""
    lines: list[str] = []
    for raw in text.splitlines():
        if lines and _EVENTS.match(lines[-1]) and raw.strip() and not raw.startswith(("#", "|", "*", "-")):
            lines[-1] += " " + raw.strip()
        else:
            lines.append(raw)
    return lines


def parse_rules_text(text: str) -> dict[str, RulesCard]:
    """game id -> its card, from the text of a rules catalogue."""
    cards: dict[str, RulesCard] = {}
    current: list[str] = []
    for line in _joined_lines(text):
        if fam := _FAMILY.match(line):
            current = _TICKED.findall(fam.group(1))
        elif sec := _SECTION.match(line):
            current = [sec.group(1)]
        elif line.startswith(("## ", "### ")):
            current = []
        for gid in current:
            cards.setdefault(gid, RulesCard())
        if (dec := _DECISION.match(line)) and len(current) == 1:
            cards[current[0]].decisions.append(dec.group(1))
        if (ev := _EVENTS.match(line)) and current:
            body = ev.group(1) or ev.group(2) or ""
            excluded = {(name, gid) for name, gids in _NOT_IN.findall(body) for gid in _TICKED.findall(gids)}
            for gid in current:
                card = cards[gid]
                card.events += [n for n in dict.fromkeys(event_names(body))
                                if n not in card.events and (n, gid) not in excluded]
    return cards


@cache
def parse_rules(path: Path = RULES_DOC) -> dict[str, RulesCard]:
    """game id -> its card in the shipped ``docs/rules.md`` (or ``path``); OSError if it cannot be read."""
    return parse_rules_text(path.read_text(encoding="utf-8"))
