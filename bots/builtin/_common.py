"""What the built-in players know about the games: card orders and points, and how to read the
parts of an observation that the game families share.

Everything here is static rule knowledge (RULES.md tables) or reads an observation; nothing reads
an engine state.  Games without an entry get a sensible fallback: a trick game's own ``ORDER`` /
``POINTS`` class tables when its module declares them, else the natural order without points.
"""
from __future__ import annotations

import math
from collections.abc import Iterable, Sequence
from dataclasses import dataclass, field
from functools import cache
from typing import Any

RANKS = "23456789TJQKA"
SUITS = "CDHS"
ALL_TOKENS = tuple(r + s for s in SUITS for r in RANKS)


def is_card(tok: str) -> bool:
    """A card token (``QS``, ``JK``, ``JK=6H``)?"""
    return (len(tok) == 2 and tok[0] in RANKS and tok[1] in SUITS) or tok.startswith("JK")


def suit(tok: str) -> str:
    return tok[1] if len(tok) == 2 else "J"


def rank(tok: str) -> str:
    return tok[0]


@dataclass(frozen=True)
class TrickRules:
    """Card strength and points of a trick game; ``strength`` compares cards of one suit."""

    plain: dict[str, int]
    """token -> strength (higher wins) outside the trump suit; the tokens of the deck."""
    trump: dict[str, int]
    points: dict[str, int]
    trump_points: dict[str, int]
    trick_point: int = 0
    avoid: bool = False
    """A reverse game: points are penalties (Hearts)."""
    teams: bool = False

    def strength(self, tok: str, trump: str | None) -> int:
        return self.trump[tok] if suit(tok) == trump else self.plain.get(tok, -1)

    def value(self, tok: str, trump: str | None) -> int:
        return (self.trump_points if suit(tok) == trump else self.points).get(tok, 0)

    @property
    def deck(self) -> Iterable[str]:
        return self.plain.keys()


def _table(order_high_first: str) -> dict[str, int]:
    return {r + s: len(order_high_first) - i for s in SUITS for i, r in enumerate(order_high_first)}


def _points(ranks: dict[str, int], deck: Iterable[str]) -> dict[str, int]:
    return {t: ranks.get(rank(t), 0) for t in deck}


def _rules(order: str, pts: dict[str, int], trick_point: int = 0, teams: bool = False,
           trump_order: str | None = None, trump_pts: dict[str, int] | None = None) -> TrickRules:
    plain = _table(order)
    trump = _table(trump_order) if trump_order else plain
    points = _points(pts, plain)
    return TrickRules(plain, trump, points, _points(trump_pts, plain) if trump_pts else points, trick_point,
                      False, teams)


MANILLE_PTS = {"T": 5, "A": 4, "K": 3, "Q": 2, "J": 1}
HEARTS = TrickRules(_table("AKQJT98765432"), _table("AKQJT98765432"),
                    {t: (1 if suit(t) == "H" else 13 if t == "QS" else 0) for t in ALL_TOKENS},
                    {t: (1 if suit(t) == "H" else 13 if t == "QS" else 0) for t in ALL_TOKENS}, 0, True)

KNOWN_TRICK_RULES: dict[str, TrickRules] = {
    "hartenjagen": HEARTS,
    "manillen": _rules("TAKQJ987", MANILLE_PTS, 0, teams=True),
    "manille_parlee": _rules("TAKQJ987", MANILLE_PTS, 1, teams=True),
    "manille_muette": _rules("TAKQJ987", MANILLE_PTS, 1, teams=True),
    "manille_2_7": _rules("TAKQJ987", MANILLE_PTS, 1),
    "butifarra": _rules("9AKQJ8765432", {"9": 5, "A": 4, "K": 3, "Q": 2, "J": 1}, 1, teams=True),
}


@cache
def trick_rules(game: str) -> TrickRules:
    """The trick rules of ``game``: RULES.md tables for the games above, else the game module's
    own ``ORDER``/``POINTS`` tables, else the natural order (A high) without points."""
    if game in KNOWN_TRICK_RULES:
        return KNOWN_TRICK_RULES[game]
    teams = False
    try:
        from engine import game_class
        from engine.cards import TOKENS
        cls = game_class(game)
        teams = bool(cls.teams)
        order = getattr(cls.state_class, "ORDER", None)
        pts = getattr(cls.state_class, "POINTS", None)
        if order is not None:
            plain = {TOKENS[c]: v for c, v in enumerate(order.plain[:52]) if v >= 0}
            trump = {TOKENS[c]: v for c, v in enumerate(order.trump[:52]) if v >= 0}
            points = ({TOKENS[c]: v for c, v in enumerate(pts.plain[:52])} if pts is not None else {})
            tpoints = ({TOKENS[c]: v for c, v in enumerate(pts.trump[:52])} if pts is not None else points)
            tp = int(getattr(cls.state_class, "TRICK_POINT", 0))
            return TrickRules(plain, trump, points, tpoints, tp, False, teams)
    except (ImportError, ValueError, AttributeError, TypeError):
        pass
    natural = _table("AKQJT98765432")
    return TrickRules(natural, natural, {}, {}, 0, False, teams)


SHEDDING_FACE = {"genive": 10, "geneve": 11}
"""Value of J, Q, K in the shedding games (A 1, pips, joker 0)."""


def shed_value(tok: str, face: int = 10) -> int:
    """Penalty value of a card token (a joker, or ``JK=6H``, is 0; so is anything not a card)."""
    if tok.startswith("JK") or len(tok) != 2 or tok[0] not in RANKS:
        return 0
    r = tok[0]
    if r == "A":
        return 1
    if r in "JQK":
        return face
    if r == "T":
        return 10
    return int(r)


def family(game: str) -> str:
    """The game's family as the engine declares it ("trick-taking", "shedding", ...), or ""."""
    try:
        from engine import game_class
        return str(game_class(game).family)
    except (ImportError, ValueError):
        return ""


def teams_of(game: str) -> bool:
    try:
        from engine import game_class
        return bool(game_class(game).teams)
    except (ImportError, ValueError):
        return False


# --------------------------------------------------------------------------- reading observations
@dataclass
class TrickView:
    """The trick-play part of an observation, in one shape for every trick game."""

    seat: int
    players: int
    hand: list[str]
    trick: list[tuple[int, str]]
    """(seat, card) played to the current trick, in order."""
    trump: str | None
    partner: int | None
    seen: set[str] = field(default_factory=set)
    """Cards played earlier this deal (and the current trick)."""

    @property
    def led(self) -> str | None:
        return suit(self.trick[0][1]) if self.trick else None


def trick_view(obs: dict[str, Any], teams: bool) -> TrickView:
    seat = int(obs.get("seat", 0))
    n = int(obs.get("players", 4))
    raw = obs.get("trick") or []
    trick: list[tuple[int, str]] = []
    if raw and isinstance(raw[0], (list, tuple)):
        trick = [(int(s), str(c)) for s, c in raw]
    elif raw:
        leader = obs.get("trick_leader")
        if leader is None:
            leader = (seat - len(raw)) % n
        trick = [((int(leader) + i) % n, str(c)) for i, c in enumerate(raw)]
    t = obs.get("trump")
    trump = t if isinstance(t, str) and t in SUITS else None
    partner = obs.get("partner")
    if partner is None and teams and n == 4:
        partner = (seat + 2) % 4
    seen: set[str] = set()
    for c in obs.get("played") or []:
        if isinstance(c, str):
            seen.add(c)
    for tr in obs.get("tricks") or []:
        if isinstance(tr, dict):
            seen.update(str(c) for c in tr.get("cards", []))
    seen.update(c for _, c in trick)
    return TrickView(seat, n, [str(c) for c in obs.get("hand", [])], trick, trump,
                     int(partner) if isinstance(partner, int) else None, seen)


def winner(trick: Sequence[tuple[int, str]], trump: str | None, rules: TrickRules) -> tuple[int, str]:
    """(seat, card) winning the trick so far."""
    best = trick[0]
    for s, c in trick[1:]:
        if beats(c, best[1], trump, rules):
            best = (s, c)
    return best


def beats(card: str, best: str, trump: str | None, rules: TrickRules) -> bool:
    if suit(card) == suit(best):
        return rules.strength(card, trump) > rules.strength(best, trump)
    return suit(card) == trump


def is_master(card: str, view: TrickView, rules: TrickRules) -> bool:
    """No card still unseen (not played, not in our hand) of this suit beats ``card``."""
    s = suit(card)
    mine = set(view.hand)
    st = rules.strength(card, view.trump)
    for t in rules.deck:
        if suit(t) == s and t not in view.seen and t not in mine and rules.strength(t, view.trump) > st:
            return False
    return True


# ------------------------------------------------------------------------------------------ options
@dataclass(frozen=True)
class BotOption:
    """One constructor option of a built-in bot, with its type and accepted range (each built-in
    module lists its own in ``OPTIONS``; the spec checks them at load, the constructor again)."""

    name: str
    kind: type[int] | type[float]
    lo: float
    hi: float
    doc: str

    def check(self, value: Any) -> int | float:
        """``value`` if it is a finite ``kind`` in ``lo..hi``, else ``ValueError`` saying what is accepted."""
        what = "an integer" if self.kind is int else "a number"
        ok_type = (isinstance(value, int) if self.kind is int else isinstance(value, (int, float)))
        shown = repr(value) if len(repr(value)) <= 40 else repr(value)[:37] + "..."
        if isinstance(value, bool) or not ok_type:
            raise ValueError(f"{self.name}: expected {what} in {self.lo:g}..{self.hi:g}, got {shown}")
        if not math.isfinite(value) or not self.lo <= value <= self.hi:
            raise ValueError(f"{self.name}: {shown} is out of range {self.lo:g}..{self.hi:g} ({self.doc})")
        return value


def check_options(bot: str, declared: Sequence[BotOption], options: dict[str, Any]) -> dict[str, Any]:
    """The options of built-in ``bot`` checked against its ``OPTIONS``: ``ValueError`` naming the first
    unknown or bad one (its message starts with the option's name)."""
    by_name = {o.name: o for o in declared}
    out: dict[str, Any] = {}
    for k, v in options.items():
        o = by_name.get(k)
        if o is None:
            key = k if isinstance(k, str) and k.isidentifier() and len(k) <= 64 else repr(k)[:40]
            raise ValueError(f"{key}: {bot} accepts {', '.join(by_name) or 'no options'}")
        out[k] = o.check(v)
    return out
