"""The engine's core: game declarations, the State API of CONTRACT.md, and the game registry.

A game module declares a :class:`Game` subclass (id, players, options with a one-line doc each,
notation) and a :class:`State` subclass, and registers the game with :func:`register`.  The base
``State`` owns what every game shares: the legal-action cache, ``apply`` with validation (an
illegal or malformed action raises :class:`IllegalAction` and changes nothing), the action
history, rule events, the seeded RNG and ``clone``.  Games implement the ``_``-prefixed hooks.
"""
from __future__ import annotations

import _random
import dataclasses
import importlib
import math
import random
from collections.abc import Callable, Iterable
from dataclasses import dataclass, field, replace
from typing import Any, ClassVar, TypeVar

try:
    from mypy_extensions import mypyc_attr
except ImportError:  # the pure source runs without it (the sandbox's interpreter); only mypyc reads it
    _C = TypeVar("_C")

    def mypyc_attr(*attrs: str, **kwattrs: object) -> Callable[[_C], _C]:
        return lambda cls: cls

from engine.cards import SUITS, TOKENS
from engine.errors import IllegalAction, quoted
from engine.notation import canonical, form_of, parse_action
from engine.tricks import Order, Points

JSON = Any
_S = TypeVar("_S", bound="State")
_T = TypeVar("_T")


NUMBER_BOUND = 10**6
"""Numeric options without a declared range must lie within +-NUMBER_BOUND (finite, no overflow)."""


@dataclass(frozen=True)
class Option:
    """A game option: name, default, one-line doc and, optionally, the accepted values.

    ``kind`` declares the type of an option whose default is None; ``min``/``max`` bound a number
    (a target score that ends a match in reasonable time); numbers are always finite.
    """

    name: str
    default: Any
    doc: str
    choices: tuple[Any, ...] | None = None
    check: Callable[[Any], bool] | None = field(default=None, compare=False)
    nullable: bool = False
    """``None`` is accepted too (e.g. 'no limit')."""
    kind: type | None = None
    """The accepted type when ``default`` is None (int, str, ...)."""
    min: float | None = None
    max: float | None = None

    def validate(self, value: Any, game_id: str) -> Any:
        """``value`` if it suits this option, else ``ValueError`` naming what is accepted."""
        if value is None and (self.nullable or self.default is None):
            return value
        if self.choices is not None:
            try:
                ok = value in self.choices and any(_same_kind(value, c) for c in self.choices if c == value)
            except TypeError:  # an unhashable or incomparable value
                ok = False
            if not ok:
                raise ValueError(f"option {self.name}={value!r} of {game_id}: accepted values are "
                                 f"{', '.join(map(repr, self.choices))}")
            return value
        model = self.default
        if model is not None and not _same_kind(value, model):
            raise ValueError(f"option {self.name}={value!r} of {game_id}: expected "
                             f"{type(model).__name__}, like the default {model!r}"
                             f"{' (or None)' if self.nullable else ''}")
        if model is None and self.kind is not None and not _of_kind(value, self.kind):
            raise ValueError(f"option {self.name}={value!r} of {game_id}: expected {self.kind.__name__} "
                             f"or None (the default)")
        if isinstance(value, (int, float)) and not isinstance(value, bool):
            lo = -NUMBER_BOUND if self.min is None else self.min
            hi = NUMBER_BOUND if self.max is None else self.max
            if not math.isfinite(value) or not lo <= value <= hi:
                raise ValueError(f"option {self.name}={value!r} of {game_id} is out of range: accepted "
                                 f"{lo:g} to {hi:g} ({self.doc})")
        if self.check is not None and not self.check(value):
            raise ValueError(f"option {self.name}={value!r} of {game_id} is out of range: {self.doc}")
        return value


def check_options_type(cls: type[Game]) -> None:
    """A ``ValueError`` unless ``cls.options_type`` (where declared) is a frozen dataclass whose fields
    are the options of ``cls.options_spec`` with the same defaults (at import; a family's options
    may be a base class of its games', so the fields' order is free)."""
    kind = cls.options_type
    if kind is None:
        return
    if not dataclasses.is_dataclass(kind) or not kind.__dataclass_params__.frozen:  # type: ignore[attr-defined]
        raise ValueError(f"{cls.__name__}.options_type must be a frozen dataclass (@dataclass(frozen=True))")
    fields = {f.name: f.default for f in dataclasses.fields(kind)}
    spec = {o.name: o.default for o in cls.options_spec}
    if fields != spec:
        raise ValueError(f"{cls.__name__}.options_type {kind.__name__} must declare the options of "
                         f"options_spec with their defaults: {spec}, not {fields}")


def _same_kind(value: Any, default: Any) -> bool:
    return _of_kind(value, type(default))


def _of_kind(value: Any, kind: type) -> bool:
    """``value`` is a ``kind`` (bools are not numbers; an int is a float)."""
    if kind is bool or isinstance(value, bool):
        return isinstance(value, bool) and kind is bool
    if kind is float:
        return isinstance(value, (int, float))
    return isinstance(value, kind)


CONTEXTS = ("plain", "trump")
"""The trump contexts of :class:`CardTables`: a card outside the trump suit (or with no trump),
and a card of the trump suit."""


@dataclass(frozen=True)
class CardTables:
    """A game's card orders and card points, published once from the objects its rules use.

    ``trick`` and ``points`` are the engine's own :class:`~engine.tricks.Order` and
    :class:`~engine.tricks.Points` (indexed by card id 0..51): ``trick.plain[c]`` is the trick
    strength of ``c`` outside the trump suit, ``trick.trump[c]`` within it (higher wins, comparable
    within one suit; -1: the card is not in the game's deck).  ``None`` says the notion does not
    exist in the game: no tricks (rummies, shedding games), or cards without points.
    """

    trick: Order | None
    """Trick strength per trump context; None: the game has no tricks."""
    points: Points | None
    """Card points per trump context; None: the cards carry no points."""
    trick_point: int = 0
    """Points for each trick won, beside the cards' points (manille family: 1)."""
    last_trick: int = 0
    """Bonus for the last trick of a deal (jass family: 10 or 5)."""
    penalty: bool = False
    """The points count against the seat that takes them (Hearts)."""

    @property
    def deck(self) -> tuple[str, ...]:
        """The card tokens of the deck of a trick game (suit by suit, low rank first)."""
        if self.trick is None:
            return ()
        return tuple(TOKENS[c] for c in range(52) if self.trick.plain[c] >= 0)

    def strength(self, token: str, trump: str | None) -> int:
        """Trick strength of card ``token`` with trump suit ``trump`` (a letter, or None)."""
        if self.trick is None:
            raise ValueError("this game has no tricks: its card tables give no trick order")
        c = TOKENS.index(token)
        return self.trick.strength(c, SUITS.index(trump) if trump else None)

    def value(self, token: str, trump: str | None) -> int:
        """Card points of ``token`` with trump suit ``trump`` (0 in a game without card points)."""
        if self.points is None:
            return 0
        c = TOKENS.index(token)
        return self.points.of(c, SUITS.index(trump) if trump else None)

    def only(self, cards: int) -> CardTables:
        """These tables for a smaller deck: the cards of mask ``cards`` only, ranked again from 0
        within each suit (the order among them unchanged)."""
        if self.trick is None:
            return self

        def keep(table: tuple[int, ...]) -> tuple[int, ...]:
            out = list(table)
            for s in range(4):
                suit_cards = range(13 * s, 13 * s + 13)
                kept = sorted((table[c], c) for c in suit_cards if cards >> c & 1 and table[c] >= 0)
                for c in suit_cards:
                    out[c] = -1
                for pos, (_, c) in enumerate(kept):
                    out[c] = pos
            return tuple(out)
        return replace(self, trick=Order(keep(self.trick.plain), keep(self.trick.trump)))

    def context(self, trump: str | None) -> tuple[dict[str, int], dict[str, int] | None]:
        """The tables in one trump context, as an observation shows them (``card_order``,
        ``card_points``): every card of the deck -> its rank index (from 1 for the weakest card of
        its suit, the :meth:`rows` index: a higher index beats a lower one of the same suit), and
        -> its card points (None in a game without card points).  A card of suit ``trump`` (a
        letter; None: no trump) is ranked and counted in the trump context, every other card in the
        plain one."""
        if self.trick is None:
            raise ValueError("this game has no tricks: its card tables give no trick order")
        t = SUITS.index(trump) if trump else -1
        order: dict[str, int] = {}
        points: dict[str, int] = {}
        for c in range(52):
            if self.trick.plain[c] >= 0:
                in_trump = c // 13 == t
                order[TOKENS[c]] = (self.trick.trump if in_trump else self.trick.plain)[c] + 1
                if self.points is not None:
                    points[TOKENS[c]] = (self.points.trump if in_trump else self.points.plain)[c]
        return order, (points if self.points is not None else None)

    def rows(self) -> list[tuple[str, str, int, int]]:
        """(context, card, rank index, points) for every card of the deck in both contexts; the rank
        index counts from 1 for the weakest card of a suit (the ``card_tables`` SQL table)."""
        if self.trick is None:
            return []
        out = []
        for ctx, order, pts in (("plain", self.trick.plain, self.points.plain if self.points else None),
                                ("trump", self.trick.trump, self.points.trump if self.points else None)):
            for c in range(52):
                if order[c] >= 0:
                    out.append((ctx, TOKENS[c], order[c] + 1, pts[c] if pts is not None else 0))
        return out


NO_CARD_TABLES = CardTables(trick=None, points=None)
"""The tables of a game without tricks and without card points (rummies, shedding games)."""


@mypyc_attr(allow_interpreted_subclasses=True)
class Game:
    """A game with its options fixed; makes matches (:meth:`new_match`)."""

    id: ClassVar[str]
    name: ClassVar[str]
    family: ClassVar[str]
    seed_ref: ClassVar[str]
    """Where the rules come from (seed file and section)."""
    summary: ClassVar[str]
    """The RULES.md card in brief, for ``cardarena rules``."""
    notation: ClassVar[str]
    """The actions this game uses, one per line, for ``cardarena rules``."""
    min_players: ClassVar[int]
    max_players: ClassVar[int]
    default_players: ClassVar[int]
    rule_events: ClassVar[tuple[str, ...]] = ()
    """The rule events of the game's RULES.md card, without the game prefix (``"moon_shot"``)."""
    teams: ClassVar[bool] = False
    """Partnership game: seats 0 and 2 play against 1 and 3."""
    lower_score_wins: ClassVar[bool] = False
    """The direction of the score sheet (``State.scores()``): True where the lowest score is best
    (Hearts' penalty points, Genive's totals, a rummy's deadwood); the leaderboards say it per game."""
    options_spec: ClassVar[tuple[Option, ...]] = ()
    options_type: ClassVar[type | None] = None
    """The game's options typed: a frozen dataclass with one field per option of
    :attr:`options_spec` with its default (checked when the class is made, so a misspelt or missing
    name fails at import), built once per game from the checked options;
    the rules read it through :meth:`opts` (``self.game.opts(GeniveOptions).long_play``), which
    mypy checks.  None: the game has no typed options (yet), only :attr:`options`."""
    extra_verbs: ClassVar[dict[str, tuple[str, str]]] = {}
    """Verbs of this game beyond CONTRACT.md's shared ones: verb -> (argument kind, form)."""
    state_class: ClassVar[type[State]]
    tables: ClassVar[CardTables]
    """The card orders and points of the game with its default options (:class:`CardTables`);
    every game declares it, :data:`NO_CARD_TABLES` where it has neither tricks nor card points."""

    def card_tables(self) -> CardTables:
        """The card tables with this game's options; a game whose options change them overrides."""
        return type(self).tables

    _contexts: dict[str | None, tuple[dict[str, int], dict[str, int] | None]]
    """:meth:`card_context` per trump suit, made on first use."""

    def card_context(self, trump: str | None) -> tuple[dict[str, int], dict[str, int] | None]:
        """:meth:`CardTables.context` of :meth:`card_tables` for trump suit ``trump`` (a letter, or
        None), made once per game and trump suit: callers copy what they hand out."""
        view = self._contexts.get(trump)
        if view is None:
            view = self._contexts[trump] = self.card_tables().context(trump)
        return view

    action_forms: ClassVar[tuple[str, ...]]
    """The forms of the game's fixed action alphabet for learning agents, in id order (engine.rl,
    docs/rl.md): ``play CARD``, ``layoff NAMED 1..36``; every game declares it."""

    def action_catalogue(self, form: str) -> list[str]:
        """The values of the catalogue slot of ``form`` (``discard COMBINATION``), from the game's
        own rule objects (engine.rl.catalogues); a game with such a form overrides this."""
        raise ValueError(f"{self.id} has no action catalogue for the form {form!r}")

    def __init__(self, **options: Any) -> None:
        spec = {o.name: o for o in self.options_spec}
        unknown = sorted(set(options) - set(spec))
        if unknown:
            valid = ", ".join(spec) or "none"
            raise ValueError(f"unknown option(s) {', '.join(unknown)} for {self.id}; valid options: {valid}")
        self.options: dict[str, Any] = {
            name: spec[name].validate(options[name], self.id) if name in options else o.default
            for name, o in spec.items()}
        kind = self.options_type
        self._typed: object = None if kind is None else kind(**self.options)
        self._contexts = {}
        self._check_options()

    def opts(self, kind: type[_T]) -> _T:
        """This game's typed options (:attr:`options_type`), as ``kind``: one object per game, built
        from the checked options; a game whose options are of another type is a ``TypeError``."""
        o = self._typed
        if not isinstance(o, kind):
            raise TypeError(f"{self.id}: its typed options are {type(o).__name__}, not {kind.__name__}")
        return o

    def __init_subclass__(cls, **kwargs: Any) -> None:
        super().__init_subclass__(**kwargs)
        check_options_type(cls)

    def _check_options(self) -> None:
        """Hook: cross-option checks; raise ``ValueError`` with a clear message."""

    def __repr__(self) -> str:
        changed = {k: v for k, v in self.options.items()
                   if v != next(o.default for o in self.options_spec if o.name == k)}
        args = "".join(f", {k}={v!r}" for k, v in changed.items())
        return f"load_game({self.id!r}{args})"

    def check_players(self, players: Any) -> int:  # Any: checked here (the compiled build too)
        """The number of seats of a match of this game (``None``: :attr:`default_players`), or a
        one-line ``ValueError``: the one players check (``new_match`` and the tournament spec call it)."""
        n = self.default_players if players is None else players
        if (type(n) is not int and not _is_int(n)) or not self.min_players <= n <= self.max_players:
            seats = (str(self.min_players) if self.min_players == self.max_players
                     else f"{self.min_players} to {self.max_players}")
            got = repr(players)
            got = got if len(got) <= 80 else got[:77] + "..."
            raise ValueError(f"{self.id} takes {seats} players, got {got}")
        return n

    def new_match(self, seed: Any = 0, players: Any = None, max_deals: Any = None,
                  deal: Any = None) -> State:
        """A new match; ``deal`` injects the first deal (CONTRACT.md), later deals use ``seed``.

        ``seed=None`` draws a fresh seed from the operating system and keeps it as ``state.seed``:
        ``new_match(seed=state.seed)`` replays the same match.  (The arguments are typed ``Any``
        because they are checked here: compiled code would raise a bare ``TypeError`` instead.)
        """
        # ``type(x) is int`` first: the usual int passes without a call to :func:`_is_int`
        if type(seed) is int:
            pass
        elif seed is None:
            seed = random.SystemRandom().randrange(2**63)
        elif not _is_int(seed):
            raise ValueError(f"seed must be an int (or None for a fresh one), got {seed!r}")
        n = self.check_players(players)
        if max_deals is not None and (
                (type(max_deals) is not int and not _is_int(max_deals)) or max_deals < 1):
            raise ValueError(f"max_deals must be a positive int or None, got {max_deals!r}")
        if deal is not None and not isinstance(deal, dict):
            raise ValueError(f"deal must be a dict (CONTRACT.md) or None, got {type(deal).__name__}")
        state = self.state_class.__new__(self.state_class)
        state._init_base(self, seed, n, max_deals)
        state._setup(deal)
        return state


OBSERVATION_COMMON: dict[str, str] = {
    "game": "the game id (str)",
    "seat": "your seat (int, from 0)",
    "players": "the number of seats (int)",
    "deal": "the deal being played (int, from 1)",
    "phase": "the step of the deal the game is in (str: the game's own phase names, e.g. `play`)",
    "current_player": "the seat to act (int), null once the match is over",
    "scores": "the match score sheet so far, one number per seat, in the game's own units",
    "legal_actions": "the actions you may play now (list[str] in canonical notation, docs/notation.md); "
                     "empty when it is not your turn",
}
"""The keys every observation has (:meth:`State.observation`) -> meaning and shape."""


@mypyc_attr(allow_interpreted_subclasses=True)
class State:
    """One match in progress.  The public methods are CONTRACT.md's engine API."""

    OBSERVATION: ClassVar[dict[str, str | None]] = {}
    """The keys :meth:`_observe` adds to the common ones (:data:`OBSERVATION_COMMON`) -> a one-line
    meaning and shape, for bot authors (docs/bots.md is generated from it).  A game declares the keys
    it adds to its family's; ``None`` withdraws a family key the game does not show.  See
    :meth:`observation_keys`."""

    PHASES: ClassVar[tuple[str, ...]] = ()
    """Every phase the game's :attr:`phase` takes, ``"over"`` included (issue 22 section 5): each
    game declares it (tests/test_phases.py fails on a phase seen in play but not declared; engine.rl
    encodes the phase over it)."""

    @classmethod
    def observation_keys(cls) -> dict[str, str]:
        """Every game-specific observation key -> its meaning: the ``OBSERVATION`` declarations of
        this class and its bases, the most derived one winning."""
        out: dict[str, str] = {}
        for c in reversed(cls.__mro__):
            for k, v in vars(c).get("OBSERVATION", {}).items():
                if v is None:
                    out.pop(k, None)
                else:
                    out[k] = v
        return out

    def __init_subclass__(cls, **kwargs: Any) -> None:
        super().__init_subclass__(**kwargs)
        own = vars(cls).get("determinize")
        if own is not None and not getattr(own, "_checked", False):
            setattr(cls, "determinize", _checked_determinize(own))  # noqa: B010  (mypyc: no method-assign)

    game: Game
    players: int
    seed: int
    max_deals: int | None
    _rng: random.Random | None
    """The match's RNG, made on first use (:attr:`rng`); None until then."""
    events: list[dict[str, JSON]]
    history: list[str]
    deal_no: int
    """The deal being played, from 1."""
    sheet: list[list[float]]
    """One row per finished deal: each seat's score for that deal, in the game's units."""
    deck_mask: int
    """Every physical card of the game (for the conservation check)."""
    phase: str
    _legal: list[str] | None
    _over: bool

    # ----------------------------------------------------------------- construction
    def _init_base(self, game: Game, seed: int, players: int, max_deals: int | None) -> None:
        self.game = game
        self.players = players
        self.seed = seed
        self.max_deals = max_deals
        self._rng = None  # random.Random(seed) on first use: a game that deals otherwise never pays for it
        self.events = []
        self.history = []
        self.deal_no = 0
        self.sheet = []
        self.deck_mask = 0
        self.phase = "setup"
        self._legal = None
        self._over = False

    @property
    def rng(self) -> random.Random:
        """The match's RNG: ``random.Random(seed)``, made the first time it is used (its stream is
        the same as if it were made with the state), so that a game whose deals do not come from it
        (Hartenjagen) does not pay 4-5 µs a match to seed a Mersenne Twister; a clone copies it only
        once it exists.  Assigning sets it (``determinize`` reseeds it)."""
        r = self._rng
        if r is None:
            r = self._rng = _seeded_random(self.seed)
        return r

    @rng.setter
    def rng(self, r: random.Random) -> None:
        self._rng = r

    def _setup(self, deal: dict[str, Any] | None) -> None:
        """Hook: deal the first deal (or take the injected ``deal``)."""
        raise NotImplementedError

    # ----------------------------------------------------------------- public API
    @property
    def current_player(self) -> int | None:
        """The seat to act, or None once the match is over."""
        return None if self._over else self._current()

    def legal_actions(self) -> list[str]:
        """Legal actions in canonical notation; never empty while the match is not over."""
        legal = self._legal
        if legal is None:
            legal = self._legal = [] if self._over else self._legal_actions()
        return list(legal)

    def apply(self, action: Any) -> None:
        """Play ``action`` for the current player.

        An illegal or malformed action raises :class:`IllegalAction` and leaves the state unchanged.
        Actions are compared in canonical notation; a game may accept other spellings of the same
        action (a run given in another order) through :meth:`_canonical`.
        """
        legal = self._legal
        if legal is None:
            legal = self._legal = [] if self._over else self._legal_actions()
        if action not in legal:
            action = self._resolve(action, legal)
        self._legal = None
        self._apply(action)
        self.history.append(action)

    def is_over(self) -> bool:
        return self._over

    def scores(self) -> list[float]:
        """The match score sheet, one entry per seat, in the game's own units."""
        raise NotImplementedError

    def ranking(self) -> list[int]:
        """Final (or current) place per seat: 1 is best, equal places for ties."""
        raise NotImplementedError

    def observation(self, seat: Any) -> dict[str, JSON]:
        """What ``seat`` may know, as a JSON-able dict with at least ``hand`` and ``legal_actions``."""
        if not _is_int(seat) or not 0 <= seat < self.players:
            raise ValueError(f"seat must be an int 0..{self.players - 1}, got {seat!r}")
        obs: dict[str, JSON] = {
            "game": self.game.id,
            "seat": seat,
            "players": self.players,
            "deal": self.deal_no,
            "phase": self.phase,
            "current_player": self.current_player,
            "scores": self.scores(),
            "legal_actions": self.legal_actions() if self.current_player == seat else [],
        }
        obs.update(self._observe(seat))
        return obs

    def clone(self) -> State:
        """An independent copy (hand-written copy of the mutable fields; no deepcopy): shares
        nothing mutable with its original.  :meth:`copy_fields`, deep (:func:`copy_value`:
        containers copied, nested ones too; an RNG with its state; objects with a ``clone()``
        cloned).  A game adds what this cannot see (objects held inside its containers: the
        rummies' melds); Hartenjagen writes its own."""
        return self.copy_fields()

    def copy_fields(self: _S, deep: bool = True, shared: frozenset[str] = frozenset(),
                    logs: bool = True) -> _S:
        """The one owner of copying a state field by field, which :meth:`clone` and a game's
        lighter copies (the rummies' search copies, ``RummyState._light_clone``) share: a blank
        instance of the class, the base's fields (:meth:`_copy_base_into`; without ``logs``, empty
        ``history`` and ``events``, no RNG and no legal list), then every other field the state
        holds (:func:`state_fields`: a compiled class's native fields, an interpreted class's
        ``__slots__``, the instance ``__dict__``): ``deep``, through :func:`copy_value`; else flat
        (:func:`flat_copy`: a list or dict copied one level, the rest shared); the fields named in
        ``shared`` are shared with the original as they are."""
        cls = type(self)
        new = cls.__new__(cls)
        names = _FIELDS.get(cls)
        if names is None:
            names = _FIELDS[cls] = state_fields(cls)
        d = getattr(self, "__dict__", None)
        if d:  # first, as one dict copy (the base's fields in it are set again just below)
            nd = d.copy()
            if deep:
                for k, v in d.items():
                    if k not in _BASE_FIELDS and k not in shared:
                        nd[k] = copy_value(v)
            else:  # flat_copy, inline (the rummies' turn search makes one per move it tries)
                for k, v in d.items():
                    t = type(v)
                    if (t is list or t is dict) and k not in _BASE_FIELDS and k not in shared:
                        nd[k] = list(v) if t is list else dict(v)
            new.__dict__.update(nd)
        self._copy_base_into(new, logs, not d or cls not in _BASE_IN_DICT)
        for k in names:
            try:
                v = getattr(self, k)
            except AttributeError:  # a field not set (yet) in this state
                continue
            if k in shared:
                pass
            elif deep:
                v = copy_value(v)
            else:
                t = type(v)
                if t is list:
                    v = list(v)
                elif t is dict:
                    v = dict(v)
            setattr(new, k, v)
        return new

    def _copy_base_into(self, new: State, logs: bool = True, values: bool = True) -> None:
        """Copy the fields this base class declares into ``new`` (a blank instance); without
        ``logs``, ``history`` and ``events`` start empty, the RNG unmade and the legal list unknown;
        without ``values``, the immutable ones (ints, strings, the game) are already there (a copy
        of the instance ``__dict__`` brought them: :meth:`copy_fields` on the source)."""
        if values:
            new.game = self.game
            new.players = self.players
            new.seed = self.seed
            new.max_deals = self.max_deals
            new.deal_no = self.deal_no
            new.deck_mask = self.deck_mask
            new.phase = self.phase
            new._over = self._over
        sheet = self.sheet
        new.sheet = [list(row) for row in sheet] if sheet else []
        if not logs:
            new._rng = None
            new.events = []
            new.history = []
            new._legal = None
            return
        r = self._rng
        new._rng = None if r is None else _copy_rng(r)
        new.events = self.events.copy()    # logs of immutable entries: a flat copy is enough
        new.history = self.history.copy()
        legal = self._legal
        new._legal = None if legal is None else list(legal)

    def determinize(self, seat: Any, rng: Any) -> State:
        """A clone in which the cards hidden from ``seat`` are redealt at random, consistently with
        what ``seat`` knows (hand sizes, cards seen passed or taken from the discard pile, ...).

        For information-set search (ISMCTS): the clone's RNG is reseeded from ``rng`` too, so the
        future stock order is not leaked either.
        """
        raise NotImplementedError(f"{self.game.id} does not implement determinize()")

    def score_sheet(self) -> list[list[float]]:
        """Each finished deal's score per seat, in the game's own units."""
        return [list(row) for row in self.sheet]

    def hidden_cards(self, viewer: int) -> int:
        """Mask of the cards that other seats hold and ``viewer`` cannot know."""
        raise NotImplementedError

    def zones(self) -> dict[str, int]:
        """Where every card of the deal is: zone name -> mask of physical cards.

        Zones are disjoint and together hold :attr:`deck_mask` (see :meth:`invariant_violations`).
        """
        raise NotImplementedError

    def invariant_violations(self) -> list[str]:
        """The conformance invariants that fail in this state (empty when all hold).

        The base checks that cards are conserved; games add their own (deal score totals).
        """
        out: list[str] = []
        seen = 0
        for name, m in self.zones().items():
            if m & seen:
                out.append(f"zone {name} shares cards with another zone: {m & seen:#x}")
            seen |= m
        if seen != self.deck_mask:
            out.append(f"cards not conserved: missing {self.deck_mask & ~seen:#x}, "
                       f"extra {seen & ~self.deck_mask:#x}")
        return out + self._invariants()

    def __repr__(self) -> str:
        return (f"<{type(self).__name__} {self.game.id} deal {self.deal_no} phase {self.phase} "
                f"to act {self.current_player} after {len(self.history)} actions>")

    # ----------------------------------------------------------------- helpers for games
    def _emit(self, name: str, seat: int | None = None, **data: JSON) -> None:
        """Record rule event ``<game id>.<name>``.  ``ply`` is the number of actions applied before
        the one that triggered it."""
        ev: dict[str, JSON] = {"event": f"{self.game.id}.{name}", "deal": self.deal_no,
                               "ply": len(self.history), "seat": seat}
        ev.update(data)
        self.events.append(ev)

    def _deals_done(self) -> bool:
        """True when ``max_deals`` deals have been played."""
        return self.max_deals is not None and self.deal_no >= self.max_deals

    def _finish(self) -> None:
        self._over = True
        self.phase = "over"
        self._legal = None

    def _resolve(self, action: Any, legal: list[str]) -> str:
        """The legal action that ``action`` spells, or raise IllegalAction saying why not."""
        if not isinstance(action, str):
            raise IllegalAction(f"an action is a string such as 'play QS', got {type(action).__name__} "
                                f"{quoted(action)}")
        if self._over:
            raise IllegalAction(f"the match is over; no action is legal (got {quoted(action)})")
        verb, args = parse_action(action, self.game.extra_verbs or None)
        text = canonical(verb, args)
        if text in legal:
            return text
        alt = self._canonical(verb, args)
        if alt is not None and alt in legal:
            return alt
        reason = self._why_illegal(verb, args)
        shown = ", ".join(legal[:12]) + (", ..." if len(legal) > 12 else "")
        forms = sorted({a.split()[0] for a in legal})
        hint = f"; legal now ({len(legal)}): {shown}"
        if verb not in forms:
            hint = f"; seat {self._current()} must now {' or '.join(forms)} ({form_of(forms[0])}){hint}"
        raise IllegalAction(f"{quoted(text)} is not legal now" + (f": {reason}" if reason else "") + hint)

    # ----------------------------------------------------------------- hooks for games
    def _current(self) -> int:
        raise NotImplementedError

    def _legal_actions(self) -> list[str]:
        raise NotImplementedError

    def _apply(self, action: str) -> None:
        """Apply a legal action in canonical notation."""
        raise NotImplementedError

    def _observe(self, seat: int) -> dict[str, JSON]:
        """The game-specific part of an observation (``hand`` at least)."""
        raise NotImplementedError

    def _canonical(self, verb: str, args: tuple[str, ...]) -> str | None:
        """Hook: another spelling of a legal action (e.g. a run's cards in another order)."""
        return None

    def _invariants(self) -> list[str]:
        """Hook: game-specific invariant violations (e.g. Hearts: each deal row sums to 26 or 78)."""
        return []

    def _why_illegal(self, verb: str, args: tuple[str, ...]) -> str:
        """Hook: a short reason why a well-formed action is illegal now."""
        return ""


def _is_int(v: Any) -> bool:
    return isinstance(v, int) and not isinstance(v, bool)


_C_SEED = _random.Random.seed


def _seeded_random(seed: int) -> random.Random:
    """``random.Random(seed)``, the same state, without its two Python-level frames: for an int
    seed ``Random.__init__`` calls ``Random.seed``, which calls the C seed and sets ``gauss_next``
    to None; this does those two things directly (a match start's cost)."""
    if type(seed) is not int:
        return random.Random(seed)
    r = random.Random.__new__(random.Random)
    _C_SEED(r, seed)
    r.gauss_next = None  # type: ignore[attr-defined]
    return r


def check_determinize(state: State, seat: Any, rng: Any) -> None:
    """The public boundary's argument check of ``determinize`` (``ValueError`` saying what is wrong)."""
    if not _is_int(seat) or not 0 <= seat < state.players:
        raise ValueError(f"seat must be an int 0..{state.players - 1}, got {seat!r}")
    if not isinstance(rng, random.Random):
        raise ValueError(f"rng must be a random.Random, got {type(rng).__name__}")


def _checked_determinize(f: Callable[..., State]) -> Callable[..., State]:
    """A game's ``determinize`` behind the public boundary's argument check."""
    def determinize(self: State, seat: int, rng: random.Random) -> State:
        check_determinize(self, seat, rng)
        return f(self, seat, rng)
    determinize._checked = True  # type: ignore[attr-defined]
    determinize.__doc__ = f.__doc__
    return determinize


def state_fields(cls: type) -> tuple[str, ...]:
    """The fields a state of class ``cls`` keeps outside its instance ``__dict__``, less
    :data:`_BASE_FIELDS`: the native fields of the most derived compiled class in its MRO (an
    interpreted game state may subclass a compiled one; ``__mypyc_attrs__``, the compiler's list,
    holds its bases' too) and the ``__slots__`` of its interpreted classes (ManilleState's hot
    fields); () for a plain source class."""
    out: list[str] = []
    native = False
    for c in cls.__mro__:
        names = vars(c).get("__mypyc_attrs__")
        if names is not None and not native:
            native = True
            out.extend(names)
        slots = vars(c).get("__slots__", ())
        out.extend((slots,) if isinstance(slots, str) else slots)
    fields: list[str] = []
    for k in out:
        if k not in fields and k not in _BASE_FIELDS and k not in ("__dict__", "__weakref__"):
            fields.append(k)
    if not native and not _BASE_FIELDS.intersection(out):
        _BASE_IN_DICT.add(cls)
    return tuple(fields)


_FIELDS: dict[type, tuple[str, ...]] = {}
""":func:`state_fields` per state class (filled by :meth:`State.copy_fields`)."""
_BASE_IN_DICT: set[type] = set()
"""The state classes whose instances keep every base field in their ``__dict__`` (no compiled
class, no slot of a base field: a copy of the ``__dict__`` brings the base's immutable values)."""

_BASE_FIELDS = frozenset(("game", "players", "seed", "max_deals", "_rng", "events", "history", "deal_no",
                          "sheet", "deck_mask", "phase", "_legal", "_over"))
"""The fields :class:`State` declares (copied by :meth:`State._copy_base_into`).  ``history`` and
``events`` only ever grow by appending entries nobody mutates afterwards: a clone shares the entries."""


def copy_value(v: Any) -> Any:
    """A field's value for a clone: containers copied (nested ones too), an RNG with its state,
    objects with a ``clone`` cloned; the rest (ints, strings, tuples, the game) shared."""
    if isinstance(v, (list, dict, set)):
        return _copy_data(v)
    if isinstance(v, random.Random):
        return _copy_rng(v)
    if hasattr(v, "clone") and not isinstance(v, (Game, type)):
        return v.clone()
    return v


def flat_copy(v: Any) -> Any:
    """A field's value for a search copy (:meth:`State.copy_fields`): a list or dict copied one
    level deep, the rest shared (what the copy's moves rebind, never change in place)."""
    t = type(v)
    if t is list:
        return list(v)
    if t is dict:
        return dict(v)
    return v


def _copy_rng(r: random.Random) -> random.Random:
    """A copy of ``r`` with its state: made unseeded (``random.Random()`` would first seed itself
    from the operating system, half the cost of a copy), then given ``r``'s state."""
    new = random.Random.__new__(random.Random)
    new.setstate(r.getstate())
    return new


def _copy_data(v: Any) -> Any:
    if isinstance(v, list):
        return [_copy_data(x) if isinstance(x, (list, dict, set)) else x for x in v]
    if isinstance(v, dict):
        return {k: _copy_data(x) if isinstance(x, (list, dict, set)) else x for k, x in v.items()}
    if isinstance(v, set):
        return set(v)
    return v


# --------------------------------------------------------------------- registry
# A game is one module ``engine/games/<id>.py`` or ``engine/games/<family>/<id>.py`` that declares
# ``class X(Game): id = "<id>"`` and calls ``register(X)`` (a call rather than a decorator, so that
# mypyc compiles the module).  The ids are the module names found on the package's path
# (``engine.games.__path__``) and in its family folders one level down (a folder with an
# ``__init__.py``), read as a directory listing: nothing is imported; :func:`game_class` imports
# only the module it is asked for.  Modules and folders whose name starts with ``_`` are family
# modules and helpers, not games.
_REGISTRY: dict[str, type[Game]] = {}
GAMES: list[str] = []
"""Ids of every game module on the discovery path, in RULES.md order (other ids after, sorted)."""
GAME_MODULES: dict[str, str] = {}
"""Game id -> the dotted name of the module that declares it (``engine.games.jass.handjas``)."""

RULES_ORDER = (
    "genive", "geneve", "hartenjagen", "manillen", "jokeren_nl", "zenuwen", "butifarra",
    "manille_parlee", "manille_muette", "manille_2_7", "handjas", "schutjassen", "kruisjassen",
    "jo_jotte", "klop_bela", "klop_bela_3p", "grevjas", "honderden", "honderden_3p",
    "amerikaans_jokeren", "jokeren_drift", "tonk", "klop_rummy", "wildcard_rummy", "loba",
    "ramino_klop", "ramino_drift", "cincinnati_rummy",
)
"""The ids of RULES.md, in its order (it orders :data:`GAMES`; a new game needs no entry)."""
GAMES_PACKAGE = "engine.games"


def _game_modules(folder: str, package: str, found: dict[str, str], depth: int) -> None:
    """Add the game modules of one folder (and, ``depth`` levels down, of its family folders) to
    ``found``: a directory listing; the first module of an id on the path wins."""
    import os
    try:
        entries = sorted(os.scandir(folder), key=lambda e: e.name)
    except OSError:
        return
    for e in entries:
        if e.name.startswith(("_", ".")):
            continue
        if e.name.endswith(".py") and e.is_file():
            found.setdefault(e.name[:-3], f"{package}.{e.name[:-3]}")
        elif depth and e.is_dir() and os.path.isfile(os.path.join(e.path, "__init__.py")):
            _game_modules(e.path, f"{package}.{e.name}", found, depth - 1)


def discover() -> list[str]:
    """Scan the game package's path and its family folders for game modules and refresh
    :data:`GAMES` and :data:`GAME_MODULES` in place (called at import, and again when an id is
    asked for that the last scan did not see)."""
    from engine import games as package
    found: dict[str, str] = {}
    for folder in package.__path__:
        _game_modules(folder, GAMES_PACKAGE, found, 1)
    rank = {g: i for i, g in enumerate(RULES_ORDER)}
    GAMES[:] = sorted(found, key=lambda g: (rank.get(g, len(rank)), g))
    GAME_MODULES.clear()
    GAME_MODULES.update(found)
    return GAMES


def register(cls: type[Game]) -> type[Game]:
    """Add a game to the registry under its ``id``, which must be the name of the module that
    declares it (``engine/games/<id>.py`` or ``engine/games/<family>/<id>.py``)."""
    module = vars(cls).get("__module__", "")
    name = module.rpartition(".")[2]
    if not module.startswith(GAMES_PACKAGE + ".") or cls.id != name:
        raise ValueError(f"game id {cls.id!r} declared in module {module}: a game is declared in "
                         f"{GAMES_PACKAGE}.<its id> or {GAMES_PACKAGE}.<family>.<its id> "
                         f"({GAMES_PACKAGE}.{cls.id})")
    _REGISTRY[cls.id] = cls
    if GAME_MODULES.get(cls.id) != module:
        discover()
    return cls


def game_class(game_id: Any) -> type[Game]:
    """The class of game ``game_id``, importing its module (and only it) on first use."""
    if not isinstance(game_id, str):
        raise ValueError(f"a game id is a string; known games: {', '.join(GAMES)}")
    cls = _REGISTRY.get(game_id)
    if cls is not None:
        return cls
    if game_id not in GAME_MODULES:
        discover()  # a game module added to the path since the last scan
        if game_id not in GAME_MODULES:
            raise ValueError(f"unknown game {game_id!r}; known games: {', '.join(GAMES)}")
    module = GAME_MODULES[game_id]
    importlib.import_module(module)
    cls = _REGISTRY.get(game_id)
    if cls is None:
        raise ValueError(f"module {module} registers no game: it must declare "
                         f"class ...(Game) with id = {game_id!r} and call register(...) on it")
    return cls


def load_game(game_id: str, **options: Any) -> Game:
    """The game ``game_id`` with ``options``; an unknown id or option raises ``ValueError``."""
    return game_class(game_id)(**options)


def rank_by(values: Iterable[float], lower_is_better: bool = True) -> list[int]:
    """Competition ranking (1, 1, 3, ...) of per-seat values.

    >>> rank_by([10, 3, 10, 7])
    [3, 1, 3, 2]
    >>> rank_by([2, 0, 2], lower_is_better=False)
    [1, 3, 1]
    """
    vals = list(values)
    sign = 1 if lower_is_better else -1
    return [1 + sum(1 for w in vals if sign * w < sign * v) for v in vals]


discover()
