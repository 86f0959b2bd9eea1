"""Which rules did the tournament never exercise: rule-event counts against the RULES.md cards.

For each game in the log, every rule event its card lists (``engine.game_class(id).rule_events``; for
a game that does not declare them yet, parsed from ``shared/rules/RULES.md`` with
``shared/tools/rules_coverage.py``'s ``parse_rules``) with how often it fired and in how many
matches.  Events that never fired are flagged; events that fired but are not on the card are listed
apart (``extra``).
"""
from __future__ import annotations

import importlib.util
import os
from dataclasses import dataclass, field
from functools import cache
from pathlib import Path
from typing import Any

from engine import GAMES, game_class
from tournaments.analysis.views import TournamentLog


def shared_dir() -> Path:
    """``shared/`` beside the project root (``$CARDARENA_SHARED`` overrides)."""
    env = os.environ.get("CARDARENA_SHARED")
    if env:
        return Path(env)
    return Path(__file__).resolve().parents[3] / "shared"


@cache
def rules_events() -> dict[str, list[str]]:
    """game id -> the event names its RULES.md card lists (parsed by shared/tools/rules_coverage.py)."""
    tool = shared_dir() / "tools" / "rules_coverage.py"
    rules = shared_dir() / "rules" / "RULES.md"
    if not tool.is_file() or not rules.is_file():
        return {}
    spec = importlib.util.spec_from_file_location("_cardarena_rules_coverage", tool)
    if spec is None or spec.loader is None:
        return {}
    mod = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(mod)
    parsed: dict[str, dict[str, list[str]]] = mod.parse_rules(str(rules))
    return {g: list(v["events"]) for g, v in parsed.items()}


def card_events(game: str) -> tuple[list[str], str]:
    """(event names of ``game``'s card, where the list came from)."""
    if game in GAMES:
        declared = list(game_class(game).rule_events)
        if declared:
            return declared, "engine"
    listed = rules_events().get(game)
    if listed is not None:
        return listed, "RULES.md"
    return [], "none"


@dataclass
class GameCoverage:
    game: str
    matches: int
    source: str
    events: list[dict[str, Any]] = field(default_factory=list)
    """One per card event: name, fired (count), matches (with it), missing (never fired)."""
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
        names, source = card_events(g)
        got = fired.get(g, {})
        cov = GameCoverage(g, int(matches.get(g, 0)), source)
        for name in names:
            full = f"{g}.{name}"
            n, nm = got.get(full, (0, 0))
            cov.events.append({"event": full, "fired": n, "matches": nm, "missing": n == 0})
        listed = {f"{g}.{n}" for n in names}
        cov.extra = [{"event": ev, "fired": n, "matches": nm} for ev, (n, nm) in sorted(got.items())
                     if ev not in listed]
        out.append(cov)
    return out
