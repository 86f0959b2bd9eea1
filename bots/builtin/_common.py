"""What the built-in players know about the games: card orders and points, and how to read the
parts of an observation that the game families share.  Ranks, suits and tokens are the engine's
(``engine.cards``), never retyped here.

Card orders and points come from the game's declaration (``Game.card_tables()``,
:class:`engine.core.CardTables`), never from a copy here and never from the engine's private
attributes: a trick game whose declaration lacks a trick order is an error (:class:`MissingTables`),
not a silent natural order.  Nothing here reads an engine state.
"""
from __future__ import annotations

import math
from collections.abc import Iterable, Sequence
from dataclasses import dataclass, field
from functools import cache
from typing import Any

from engine.cards import BASE_TOKENS, JOKER_TOKEN, is_token
from engine.cards import RANKS as RANKS  # the engine's notation, for the bots
from engine.cards import SUITS as SUITS

ALL_TOKENS = BASE_TOKENS[:52]
"""The 52 natural cards' tokens, in the engine's card-id order."""


def is_card(tok: str) -> bool:
    """A card token (``QS``, ``JK``, ``JK=6H``)?"""
    return is_token(tok) or tok.startswith(JOKER_TOKEN)


def suit(tok: str) -> str:
    return tok[1] if len(tok) == 2 else "J"


def rank(tok: str) -> str:
    return tok[0]


class MissingTables(ValueError):
    """A game's declaration lacks the card tables a built-in player needs."""


@dataclass(frozen=True)
class TrickRules:
    """Card strength and points of a trick game; ``strength`` compares cards of one suit."""

    plain: dict[str, int]
    """token -> strength (higher wins, 1 for the weakest card) outside the trump suit; the tokens of
    the deck."""
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


def _by_token(table: Sequence[int], deck: Iterable[int], offset: int = 0) -> dict[str, int]:
    """An engine table (card id -> value) as token -> value + ``offset``, over ``deck``."""
    from engine.cards import TOKENS
    return {TOKENS[c]: table[c] + offset for c in deck}


@cache
def trick_rules(game: str) -> TrickRules:
    """The trick rules of ``game`` from its declared card tables (default options).

    Raises :class:`MissingTables` for an unknown game or one that declares no trick order."""
    from engine import load_game
    try:
        g = load_game(game)
    except ValueError as e:
        raise MissingTables(f"no card tables for {game!r}: {e}") from None
    teams = bool(g.teams)
    tables = g.card_tables()
    if tables.trick is None:
        raise MissingTables(f"{game} declares no trick order (its CardTables.trick is None), so the "
                            "built-in players cannot play its tricks")
    order = tables.trick
    deck = [c for c in range(len(order.plain)) if order.plain[c] >= 0]
    plain = _by_token(order.plain, deck, 1)
    trump = _by_token(order.trump, deck, 1)
    pts = tables.points
    points = _by_token(pts.plain, deck) if pts is not None else {}
    tpoints = _by_token(pts.trump, deck) if pts is not None else {}
    return TrickRules(plain, trump, points, tpoints, tables.trick_point, tables.penalty, teams)


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
