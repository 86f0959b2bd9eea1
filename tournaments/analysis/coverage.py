"""Which rules did the tournament never exercise: rule-event counts against the shipped rules cards.

For each game in the log, every rule event of its card in ``docs/rules.md`` (the rules reference the
project ships, parsed by :mod:`tournaments.analysis.rules_doc`), then the events the game declares
(``engine.game_class(id).rule_events``) that its card does not list, with how often each fired and in
how many matches.  Events that never fired are flagged; events that fired but are on neither list are
listed apart (``extra``).  When the card lists no events (or ``docs/rules.md`` is not there: an
installed package without the repository), the game's declared events are its only list, and the
report says so (:attr:`EventList.note`).
"""
from __future__ import annotations

from dataclasses import dataclass, field
from functools import cache
from typing import Any

from engine import GAMES, game_class
from tournaments.analysis.rules_doc import RULES_DOC, RulesCard, parse_rules
from tournaments.analysis.views import TournamentLog

DOC = "docs/rules.md"
SOURCES = (DOC, f"{DOC} + declared", "declared only", "none")
"""``EventList.source``: the card alone, the card and the events the game declares beyond it, the
game's declaration alone (the card lists none), or no list at all."""


@cache
def _cards() -> dict[str, RulesCard] | None:
    try:
        return parse_rules(RULES_DOC)
    except OSError:
        return None


@dataclass(frozen=True)
class EventList:
    """The rule events ``coverage`` counts for one game, and where the list came from."""

    names: tuple[str, ...]
    on_card: frozenset[str]
    source: str
    note: str = ""


@cache
def event_list(game: str) -> EventList:
    """``game``'s events: its ``docs/rules.md`` card's, then those it declares beyond the card."""
    cards = _cards()
    card = [] if cards is None or game not in cards else cards[game].events
    declared = list(game_class(game).rule_events) if game in GAMES else []
    beyond = [e for e in declared if e not in card]
    names = tuple(card + beyond)
    if card:
        source = DOC if not beyond else f"{DOC} + declared"
        note = "" if not beyond else (f"{len(beyond)} event(s) the game declares are not on its "
                                      f"{DOC} card")
    elif declared:
        source = "declared only"
        why = (f"{RULES_DOC} is missing" if cards is None else
               f"its {DOC} card lists none" if game in cards else f"{DOC} has no card for {game}")
        note = f"the game's declared events are its only list ({why})"
    else:
        source = "none"
        note = f"no list of rule events: {DOC} has none for {game} and the engine declares none"
    return EventList(names, frozenset(card), source, note)


def card_events(game: str) -> tuple[list[str], str]:
    """(the event names ``coverage`` counts for ``game``, where the list came from)."""
    el = event_list(game)
    return list(el.names), el.source


@dataclass
class GameCoverage:
    game: str
    matches: int
    source: str
    note: str = ""
    events: list[dict[str, Any]] = field(default_factory=list)
    """One per listed event: name, fired (count), matches (with it), missing (never fired), on_card."""
    extra: list[dict[str, Any]] = field(default_factory=list)

    @property
    def missing(self) -> list[str]:
        return [e["event"] for e in self.events if e["fired"] == 0]


def coverage(log: TournamentLog, game: str | None = None) -> list[GameCoverage]:
    con = log.connect()
    try:
        counts = con.execute("SELECT game, event, count(*), count(DISTINCT match_id) FROM events "
                             "GROUP BY ALL ORDER BY ALL").fetchall()
        matches = dict(con.execute("SELECT game, count(*) FROM matches GROUP BY ALL").fetchall())
    finally:
        con.close()
    fired: dict[str, dict[str, tuple[int, int]]] = {}
    for g, ev, n, nm in counts:
        fired.setdefault(g, {})[ev] = (int(n), int(nm))
    out = []
    for g in sorted(set(matches) | set(fired)):
        if game is not None and g != game:
            continue
        el = event_list(g)
        got = fired.get(g, {})
        cov = GameCoverage(g, int(matches.get(g, 0)), el.source, el.note)
        for name in el.names:
            full = f"{g}.{name}"
            n, nm = got.get(full, (0, 0))
            cov.events.append({"event": full, "fired": n, "matches": nm, "missing": n == 0,
                               "on_card": name in el.on_card})
        listed = {f"{g}.{n}" for n in el.names}
        cov.extra = [{"event": ev, "fired": n, "matches": nm} for ev, (n, nm) in sorted(got.items())
                     if ev not in listed]
        out.append(cov)
    return out
