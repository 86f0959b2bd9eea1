"""Play against the bots: ``cardarena play GAME --human SEAT [--web]``.

One seat is a person's, the others are bots (``--bots``, the other seats in seat order), and the match
is played by the one match loop, :func:`bots.match.play_match`: the person is a player like any bot,
whose ``act`` asks at the terminal (:class:`TerminalHuman`) or waits for the browser
(:mod:`dashboards.playweb`).  What the person is shown is that seat's observation and nothing else:

- at the person's turn, the observation the match loop hands to the seat's player (the same dict a bot
  gets, ``legal_actions`` included);
- after every other move, :class:`Watcher` (which replays the moves on its own copy of the match, in
  the parent) takes the seat's observation after the move, and says who moved and what: the action's
  text keeps a card only when the seat sees that card outside its own hand right before or right after
  the move (a card played to a trick, a meld laid, a discard taken), else it reads ``??`` (a card
  passed between two other seats stays hidden); in a game of simultaneous moves (Zenuwen's ticks: the
  observation has ``submitted``) another seat's submission is not shown at all until its tick resolves
  (the observation's ``last_tick`` then shows it);
- at the end only, every hand as it was dealt, deal by deal, and where every card lies
  (:meth:`Watcher.reveal`): the parent's end-of-match reveal.

With ``--out DIR`` the match is logged like a tournament match (tournament ``play``, one batch of one
match; the person's seat is labelled ``human`` with ``human@local`` in ``bot_refs``), so ``show``,
``query`` and ``verify`` read it; the boards never rank it
(:func:`tournaments.analysis.leaderboard.ranked_match`).
"""
from __future__ import annotations

import re
import time
import uuid
from collections.abc import Callable, Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import TYPE_CHECKING, Any

from bots.records import MoveRecord
from tournaments.analysis.leaderboard import HUMAN_REF

if TYPE_CHECKING:
    from bots.match import MatchResult
    from engine.core import Game, State

HUMAN_LABEL = "human"
"""The person's seat's label in ``matches.bots`` (its ``bot_refs`` entry is :data:`HUMAN_REF`)."""
TOURNAMENT = "play"
"""The tournament name a logged human match is filed under."""
DEFAULT_BOTS = "greedy"
"""The bots of the other seats unless ``--bots`` names them."""

CARD = re.compile(r"(?<![A-Za-z0-9])(?:[2-9TJQKA][CDHS]|JK)(?![A-Za-z0-9])")
"""A card token inside an action or a text (``JK=6H`` holds two: the joker and the card it names)."""
PRIVATE_KEYS = ("hand", "legal_actions", "my_submission", "options", "clock")
"""Observation keys that hold the seat's own cards: a card seen only there is not a public card."""
HIDDEN = "??"


class Abandoned(BaseException):
    """The person left (Ctrl-C, the input ended, the page's server stopped): the match stops at once.
    A ``BaseException``, so that the match loop does not take it for the player's crash."""


def card_tokens(value: Any) -> set[str]:
    """Every card token in a JSON-like value (its strings, at any depth; not dict keys, which name
    things: the trick games' card tables, ``card_order`` and ``card_points``, are keyed by every card
    of the deck)."""
    out: set[str] = set()
    stack = [value]
    while stack:
        v = stack.pop()
        if isinstance(v, str):
            out.update(CARD.findall(v))
        elif isinstance(v, dict):
            stack.extend(v.values())
        elif isinstance(v, (list, tuple)):
            stack.extend(v)
    return out


def public_tokens(obs: dict[str, Any]) -> set[str]:
    """The cards a seat sees outside its own hand (the table, tricks, melds, piles, known cards)."""
    return card_tokens({k: v for k, v in obs.items() if k not in PRIVATE_KEYS})


def redact(text: str, visible: set[str]) -> str:
    """``text`` with every card token not in ``visible`` replaced by ``??``."""
    return CARD.sub(lambda m: m.group(0) if m.group(0) in visible else HIDDEN, text)


# ------------------------------------------------------------------------------------------ seats
@dataclass
class Seating:
    """Who sits where: labels (``matches.bots``), references (``matches.bot_refs``) and the names of
    the bots to make (the person's seat: ``None``)."""

    human: int
    bots: list[str | None]
    labels: list[str]

    @property
    def refs(self) -> list[str]:
        return [HUMAN_REF if b is None else b for b in self.bots]


def seating(players: int, human: int, bots: Sequence[str]) -> Seating:
    """The person at ``human`` and ``bots`` in the other seats in seat order (``ValueError``, one line,
    when the counts do not fit); a bot named twice is labelled ``NAME-2``, ``NAME-3``, ... as in
    ``bots eval``."""
    if not 0 <= human < players:
        raise ValueError(f"--human {human}: seats are 0 to {players - 1}")
    if len(bots) != players - 1:
        raise ValueError(f"--bots names {len(bots)} bot(s); with --human the other {players - 1} seat(s) "
                         f"need one each, in seat order")
    names: list[str | None] = list(bots)
    names.insert(human, None)
    labels: list[str] = []
    for b in names:
        base = HUMAN_LABEL if b is None else b
        label, k = base, 1
        while label in labels:
            k += 1
            label = f"{base}-{k}"
        labels.append(label)
    return Seating(human, names, labels)


# ------------------------------------------------------------------------------------------ the view
@dataclass
class Update:
    """One thing the person is told: a move by another seat (or the person's own, once played)."""

    ply: int
    seat: int
    label: str
    text: str
    """The action as the person may see it (:func:`redact`; ``submitted`` in a simultaneous tick)."""
    events: list[str]
    obs: dict[str, Any]
    """The person's seat's observation after the move."""

    def to_json(self) -> dict[str, Any]:
        return {"type": "move", "ply": self.ply, "seat": self.seat, "label": self.label, "text": self.text,
                "events": self.events, "obs": self.obs}


@dataclass
class Watcher:
    """The parent's copy of the match, replayed move by move from ``play_match``'s ``on_move``: what
    the person's seat sees after each move (:class:`Update`), and the hands as dealt for the reveal."""

    game: Game
    seed: int
    players: int
    max_deals: int | None
    seats: Seating
    notify: Callable[[Update], None]
    state: State = field(init=False)
    dealt: list[dict[str, Any]] = field(default_factory=list)

    def __post_init__(self) -> None:
        self.state = self.game.new_match(seed=self.seed, players=self.players, max_deals=self.max_deals)
        self.obs = self.state.observation(self.seats.human)
        self._note_deal()

    def _note_deal(self) -> None:
        st = self.state
        if st.is_over() or (self.dealt and self.dealt[-1]["deal"] == st.deal_no):
            return
        hands = []
        for s in range(self.players):
            h = st.observation(s).get("hand")
            hands.append(list(h) if isinstance(h, list) else [])
        self.dealt.append({"deal": st.deal_no, "hands": hands})

    def on_move(self, rec: MoveRecord) -> None:
        st = self.state
        before = self.obs
        n_events = len(st.events)
        st.apply(rec.action)
        h = self.seats.human
        after = st.observation(h)
        self.obs = after
        visible = public_tokens(before) | public_tokens(after)
        if rec.seat == h:   # the person's own move: its own cards too (an event may name them)
            visible |= card_tokens(rec.action) | card_tokens(before)
        if rec.seat != h and "submitted" in after:   # a simultaneous tick: submissions are secret (X2)
            text = "submitted an action"
        else:
            text = redact(rec.action, visible)
        events = [redact(_event_text(e), visible) for e in st.events[n_events:]]
        self._note_deal()
        self.notify(Update(rec.ply, rec.seat, self.seats.labels[rec.seat], text, events, after))

    def reveal(self) -> dict[str, Any]:
        """The end-of-match reveal: each deal's hands as dealt, and where every card lies at the end
        (the engine's zones).  Only once the match is over."""
        from engine.cards import hand_tokens
        assert self.state.is_over(), "the hands are revealed only at the end"
        return {"dealt": self.dealt,
                "zones": {z: hand_tokens(m) for z, m in self.state.zones().items() if m}}


def _event_text(e: dict[str, Any]) -> str:
    extra = ", ".join(f"{k}={v}" for k, v in e.items() if k not in ("event", "deal", "ply", "seat"))
    seat = f" seat {e['seat']}" if e.get("seat") is not None else ""
    return f"{e['event']}{seat}" + (f" ({extra})" if extra else "")


# ------------------------------------------------------------------------------------------ terminal
SKIP_KEYS = frozenset(("game", "seat", "players", "legal_actions", "options", "current_player"))


def show_value(v: Any) -> str:
    """An observation value on one line: card lists as tokens, nested lists bracketed."""
    if v is None:
        return "-"
    if isinstance(v, bool):
        return "yes" if v else "no"
    if isinstance(v, str):
        return v
    if isinstance(v, (int, float)):
        return str(int(v)) if float(v).is_integer() else f"{v:g}"
    if isinstance(v, list):
        if not v:
            return "none"
        if all(isinstance(x, str) and CARD.fullmatch(x.split("=")[0]) for x in v):
            return " ".join(v)   # cards
        return "[" + ", ".join(show_value(x) for x in v) + "]"
    if isinstance(v, dict):
        return "{" + ", ".join(f"{k}: {show_value(x)}" for k, x in v.items()) + "}"
    return str(v)


TABLE_KEYS = ("card_order", "card_points")
"""The trick games' card tables (every card of the deck -> its rank or points in the trump context):
the terminal shows them when they change, grouped by value."""


def table_value(v: Any) -> str:
    """A card table grouped by value: ``0: 2C 3C ... · 13: QS``."""
    if not isinstance(v, dict):
        return show_value(v)
    groups: dict[Any, list[str]] = {}
    for card, x in v.items():
        groups.setdefault(x, []).append(card)
    return " · ".join(f"{show_value(x)}: {' '.join(cs)}" for x, cs in sorted(groups.items(), key=_order))


def _order(item: tuple[Any, list[str]]) -> tuple[int, float | str]:
    x = item[0]
    return (0, float(x)) if isinstance(x, (int, float)) else (1, str(x))


def per_seat(meaning: str) -> bool:
    """Whether an observation key's declared meaning says it holds one entry per seat."""
    return "per seat" in meaning or "each seat" in meaning


def observation_lines(obs: dict[str, Any], labels: Sequence[str], think_s: float,
                      meanings: dict[str, str] | None = None, shown: dict[str, Any] | None = None
                      ) -> list[str]:
    """The person's observation as the terminal shows it: the hand first, then every other key (a key
    the game declares per seat, ``meanings``, with each entry labelled ``s0``, ``s1``, ...; the card
    tables only when they differ from ``shown``, which is updated), the clock (the person is not timed:
    the time taken so far is shown)."""
    lines = [f"-- your turn (seat {obs.get('seat')}, deal {obs.get('deal')}, phase {obs.get('phase')}) --"]
    if "hand" in obs:
        lines.append(f"  hand: {show_value(obs['hand'])}")
    for k, v in obs.items():
        if k in SKIP_KEYS or k == "hand" or k == "clock":
            continue
        if k in TABLE_KEYS:
            if shown is None or shown.get(k) != v:
                lines.append(f"  {k.replace('_', ' ')}: {table_value(v)}")
                if shown is not None:
                    shown[k] = v
            continue
        if k == "scores":
            v = [f"{labels[i]} {show_value(x)}" for i, x in enumerate(v)]
            lines.append(f"  scores: {', '.join(v)}")
            continue
        if isinstance(v, list) and len(v) == obs.get("players") and per_seat((meanings or {}).get(k, "")):
            lines.append(f"  {k.replace('_', ' ')}: " + " · ".join(f"s{i} {show_value(x)}"
                                                                for i, x in enumerate(v)))
            continue
        lines.append(f"  {k.replace('_', ' ')}: {show_value(v)}")
    clock = obs.get("clock") or {}
    limit = clock.get("move_s")
    lines.append(f"  clock: {think_s:.0f} s thought so far" + (f"; {limit} s a move" if limit else
                                                              " (you are not timed)"))
    return lines


def action_lines(legal: Sequence[str], width: int = 100) -> list[str]:
    """The legal actions numbered from 1, in columns."""
    cells = [f"{i:>3}) {a}" for i, a in enumerate(legal, 1)]
    w = max(len(c) for c in cells) + 2
    per = max(1, width // w)
    return ["".join(c.ljust(w) for c in cells[i:i + per]).rstrip() for i in range(0, len(cells), per)]


def choose(line: str, legal: Sequence[str]) -> str | None:
    """The action a typed line names: a number from 1, or an action as listed (case and spacing
    free); None when it names none."""
    text = " ".join(line.split())
    if text.isdigit():
        k = int(text)
        return legal[k - 1] if 1 <= k <= len(legal) else None
    for a in legal:
        if a == text or a.upper() == text.upper():
            return a
    return None


class TerminalHuman:
    """The person at the terminal: each turn the observation and the numbered legal actions; a number
    or an action string; bad input gets one line and the question again.  In a game of simultaneous
    ticks (Zenuwen) an empty line passes."""

    def __init__(self, labels: Sequence[str], read: Callable[[str], str] | None = None,
                 write: Callable[[str], None] = print, meanings: dict[str, str] | None = None) -> None:
        self.labels = list(labels)
        self.meanings = meanings or {}
        self.shown: dict[str, Any] = {}
        self.read = read or (lambda prompt: input(prompt))   # (looked up at each call)
        self.write = write
        self.think = 0.0

    def act(self, obs: dict[str, Any]) -> str:
        legal: list[str] = list(obs["legal_actions"])
        ticks = "submitted" in obs
        t0 = time.monotonic()
        for line in observation_lines(obs, self.labels, self.think, self.meanings, self.shown):
            self.write(line)
        for line in action_lines(legal):
            self.write(line)
        hint = f"1-{len(legal)} or an action" + (", Enter = pass" if ticks and "pass" in legal else "")
        try:
            while True:
                try:
                    raw = self.read(f"your move ({hint}): ")
                except EOFError:
                    raise Abandoned("the input ended before the match did") from None
                if ticks and not raw.strip() and "pass" in legal:
                    return "pass"
                got = choose(raw, legal)
                if got is not None:
                    return got
                shown = raw.strip()[:60]
                self.write(f"  {shown!r} is not one of the {len(legal)} legal actions: type a number "
                           f"from 1 to {len(legal)}, or an action as listed")
        finally:
            self.think += time.monotonic() - t0


# ------------------------------------------------------------------------------------------ the log
def log_match(out: Path, game: Game, result: MatchResult, seats: Seating, records: Sequence[MoveRecord],
              tournament: str = TOURNAMENT) -> Path:
    """Log the finished match under ``out`` as ``tournament`` (``play``; one batch of one match,
    committed like a tournament's: matches part last); return the matches part."""
    from engine import game_class
    from tournaments.log import BatchLog, commit_batch, options_json
    st = result.state
    n = st.players
    match_id = f"play-{uuid.uuid4().hex[:12]}"
    teams = [s % 2 for s in range(n)] if game_class(game.id).teams else list(range(n))
    log = BatchLog(tournament, game.id)
    log.add_match(match_id=match_id, group_id=match_id, options=options_json(game.options), seed=result.seed,
                  players=n, max_deals=st.max_deals, board=0, rotation=0, bots=seats.labels,
                  bot_refs=seats.refs, teams=teams, scores=st.scores(), ranking=result.placement,
                  engine_ranking=st.ranking(), deals_played=st.deal_no, sheet=st.score_sheet(),
                  moves=list(records), events=st.events, faults=result.faults, duration_s=result.seconds,
                  finished_at_ms=int(time.time() * 1000), worker="human")
    out.mkdir(parents=True, exist_ok=True)
    return commit_batch(out, log)[-1]
