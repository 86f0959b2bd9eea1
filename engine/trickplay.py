"""The trick-game kernel: what every trick game's state does the same way, written once.

:class:`TrickState` is the base of the trick families (``manille/_manille.py``, ``jass/_bela.py``,
``jass/_honderden.py``, ``jass/_kruisjas.py``, ``jass/handjas.py``) and of ``hartenjagen.py``.  It owns

* the injected deal's hands (:meth:`TrickState._read_hands`: :func:`engine.deal.check_deal`, then
  the dealer and one mask per hand), the one deal parser of the trick games;
* ``zones`` (every hand, every seat's won cards, the trick in progress, then the family's own
  piles) and ``hidden_cards`` (other hands less what everyone knows of them, plus the face-down
  piles);
* what a play shows everyone (:func:`voids_shown`: the cards a seat cannot hold after its plays,
  by :func:`engine.tricks.absent_after_play` over this deal's plays);
* ``determinize``: a clone with the hidden cards redealt among the other hands and the face-down
  piles by one constrained deal (:func:`redeal`), keeping hand sizes, public cards and the voids.

A family differs only in its hooks, each a method with a default: the cards of the trick in
progress (:meth:`~TrickState._trick_cards`), the cards of a hand everyone knows
(:meth:`~TrickState._public`), the face-down piles (:meth:`~TrickState._face_down`,
:meth:`~TrickState._pile_zones`), and, for ``determinize``, who holds hidden cards
(:meth:`~TrickState._redeal_holders`), what they cannot hold (:meth:`~TrickState._redeal_forbid`),
the piles' sizes and how the redealt piles are laid back (:meth:`~TrickState._pile_sizes`,
:meth:`~TrickState._lay_piles`), a public check a redeal must pass (:meth:`~TrickState._redeal_ok`,
:attr:`~TrickState.REDEAL_TRIES` tries), how the clone's own randomness is reseeded
(:meth:`~TrickState._reseed`) and the fields derived from the hands
(:meth:`~TrickState._redealt`, then the game's :meth:`~TrickState._after_redeal`).

Every trick base keeps ``hands`` (one mask per seat), ``won`` (the cards of each seat's tricks
this deal), ``pts`` (points each seat has taken this deal) and ``last_trick`` (the previous trick)
(:attr:`TrickState.TRICK_FIELDS`).  Tests and tools read a trick game's conventions through its
declared hooks, never its fields: :meth:`~TrickState.points_taken` (what the card tables count, by
seat or side) and :meth:`~TrickState.previous_trick`.
"""
from __future__ import annotations

import random
from collections.abc import Callable, Iterable, Sequence
from typing import Any, ClassVar

from engine.cards import SUIT_MASKS, SUITS, TOKENS, bits, card, hand_tokens
from engine.core import JSON, Game, State, rank_by
from engine.deal import Deal, StockMode, UpcardMode, check_deal, pack_tokens
from engine.tricks import (
    FOLLOW_SUIT,
    MaskFunction,
    Order,
    PlayRule,
    Points,
    absent_after_play,
    beats,
    constrained_deal,
    mask_function,
    play_list,
    why_refused,
)


def voids_shown(plays: Sequence[int], seats: int, trick_size: int, trump: int | None, order: Order,
                rule: PlayRule, partner: Sequence[int] | None = None) -> list[int]:
    """Per seat: the cards everyone knows ``seat`` does not hold, from the deal's ``plays`` (each
    ``seat << 6 | card``, in order, tricks of ``trick_size`` plays from the first): what each play
    shows under ``rule`` (:func:`engine.tricks.absent_after_play`), the partner's winning card
    taken into account where ``partner`` (each seat's partner, -1 for none) is given."""
    absent = [0] * seats
    led = w = wseat = 0
    k = 0
    if rule == FOLLOW_SUIT:
        # no duty beyond following suit (Hartenjagen, a plain game): a play shows only that a seat
        # not following is void in the led suit, whoever wins (absent_after_play's answer, cheaper)
        for t in range(0, len(plays), trick_size):
            led = (plays[t] & 63) // 13
            for p in plays[t + 1:t + trick_size]:
                if (p & 63) // 13 != led:
                    absent[p >> 6] |= SUIT_MASKS[led]
        return absent
    for p in plays:
        seat, c = p >> 6, p & 63
        if k:
            pw = partner is not None and partner[seat] == wseat
            absent[seat] |= absent_after_play(led, w, c, trump, order, rule, pw)
            if (c // 13 == w // 13 and order.strength(c, trump) > order.strength(w, trump)) or \
                    (c // 13 != w // 13 and c // 13 == trump):
                w, wseat = c, seat
        else:
            led, w, wseat = c // 13, c, seat
        k += 1
        if k == trick_size:
            k = 0
    return absent


def redeal(hidden: int, sizes: Sequence[int], forbid: Sequence[int], rng: random.Random,
           ok: Callable[[list[int]], bool] | None = None, tries: int = 1) -> list[int]:
    """The cards of ``hidden`` dealt into holders of ``sizes``, none getting a card of its
    ``forbid`` mask (:func:`engine.tricks.constrained_deal`); up to ``tries`` deals until
    ``ok(dealt)`` accepts one.  If the constraints cannot all hold (a bug elsewhere: they come from
    the plays), the sizes alone."""
    dealt = None
    for _ in range(tries):
        dealt = constrained_deal(hidden, sizes, forbid, rng)
        if dealt is None or ok is None or ok(dealt):
            break
    if dealt is None:
        dealt = constrained_deal(hidden, sizes, [0] * len(sizes), rng)
        assert dealt is not None
    return dealt


def trick_pairs(plays: Sequence[int]) -> list[tuple[int, int]]:
    """Plays ``seat << 6 | card`` as ``(seat, card)`` pairs (:meth:`TrickState.previous_trick`)."""
    return [(p >> 6, p & 63) for p in plays]


def token_mask(toks: Iterable[str]) -> int:
    """The mask of a checked list of card tokens."""
    m = 0
    for t in toks:
        m |= 1 << card(t)
    return m


CARD_OBSERVATION: dict[str, str | None] = {
    "card_order": "every card of the deck -> its trick rank in the current trump context (dict[card, "
                  "int]: from 1 for the weakest card of its suit; a higher rank beats a lower one of the "
                  "same suit; the trump suit's cards ranked in the trump order, the others in the plain "
                  "order; the engine's CardTables, docs/rules.md)",
    "card_points": "every card of the deck -> its card points in the current trump context "
                   "(dict[card, int]); null in a game whose cards carry no points",
}
"""The observation keys every trick game adds (:meth:`TrickState.observation`): its published card
tables (:class:`engine.core.CardTables`) in the current trump context."""
CARD_TENSOR_SKIP: dict[str, str] = {
    "card_order": "the game's fixed card tables in the trump context the `trump` key gives",
    "card_points": "the game's fixed card tables in the trump context the `trump` key gives",
}
"""engine.rl: why the tensor leaves the card tables out (they follow from the game and the trump)."""


_TRUMP_SUITS = frozenset(SUITS)


def add_card_context(obs: dict[str, JSON], game: Game, trump: str | None) -> None:
    """Add ``card_order`` and ``card_points`` (:data:`CARD_OBSERVATION`) for trump suit ``trump``
    (a letter; None or ``none``: no trump) to ``obs``: fresh dicts, the caller's to keep."""
    order, points = game.card_context(trump if trump in _TRUMP_SUITS else None)
    obs["card_order"] = dict(order)
    obs["card_points"] = None if points is None else dict(points)


class TrickState(State):
    """The trick games' shared state: see the module docstring for what it owns and its hooks."""

    OBSERVATION: ClassVar[dict[str, str | None]] = CARD_OBSERVATION
    TENSOR_SKIP: ClassVar[dict[str, str]] = CARD_TENSOR_SKIP

    TRICK_FIELDS: ClassVar[tuple[str, ...]] = ("hands", "won", "pts", "last_trick")
    """The fields every trick base keeps (read outside the game through the declared hooks)."""
    REDEAL_TRIES: ClassVar[int] = 1
    """How many constrained deals ``determinize`` tries until :meth:`_redeal_ok` accepts one."""

    STOCK: ClassVar[bool] = False
    """The game keeps a face-down ``stock`` (top first) that is hidden from every seat: it is a
    zone, part of the hidden cards, and ``determinize`` deals its cards anew in a random order."""

    hands: list[int]
    """Each seat's cards (a mask)."""
    won: list[int]
    """The cards of the tricks each seat has won this deal."""
    pts: list[int]
    """The points each seat has taken this deal."""
    dealer: int
    turn: int
    """The seat to act."""
    stock: list[int]
    """With :attr:`STOCK`: the face-down cards, top first."""
    plays: list[int]
    """This deal's plays in order, each ``seat << 6 | card`` (where the family keeps them)."""
    tn: int
    """Cards in the trick in progress (its plays are the last ``tn`` of ``plays``)."""
    led: int
    """The suit led to the trick in progress."""
    wcard: int
    """The card winning the trick in progress."""
    wseat: int
    """The seat of :attr:`wcard`."""

    def _current(self) -> int:
        """The seat to act is :attr:`turn` in every trick game."""
        return self.turn

    def _why_not_card(self, tok: str) -> str:
        """Why the seat to act may not play card ``tok`` to the trick now: a card it does not
        hold, else the family's reason for a held card (:meth:`_why_not_held_card`)."""
        c = card(tok)
        if not self.hands[self.turn] >> c & 1:
            return f"seat {self.turn} does not hold {tok}"
        return self._why_not_held_card(c)

    def _why_not_held_card(self, c: int) -> str:
        """Hook: why card ``c``, held by the seat to act, may not be played now (the family's
        :class:`~engine.tricks.PlayRule` duty, or its own rule); ``""`` when nothing refuses it."""
        return ""

    # ------------------------------------------------------------------ the deal
    def _read_hands(self, deal: Any, sizes: Sequence[int] | None, *, stock: StockMode = "none",
                    upcard: UpcardMode = "none", extra: tuple[str, ...] = (),
                    zones: tuple[str, ...] = ()) -> Deal:
        """The one deal parser of the trick games: check an injected ``deal`` (X6) against this
        deal's pack (:func:`engine.deal.check_deal`), set ``dealer`` (0 when not named) and
        ``hands`` (a mask per seat), and return the checked deal for the family's own keys."""
        d = check_deal(deal, game=self.game.id, players=self.players, pack=pack_tokens(bits(self.deck_mask)),
                       sizes=sizes, stock=stock, upcard=upcard, extra=extra, zones=zones)
        self.dealer = 0 if d.dealer is None else d.dealer
        self.hands = [token_mask(h) for h in d.hands]
        return d

    # ------------------------------------------------------------------ hooks
    def _trick_cards(self) -> int:
        """Hook: the cards of the trick in progress (default: the last ``tn`` of ``plays``)."""
        m = 0
        if self.tn:
            for p in self.plays[len(self.plays) - self.tn:]:
                m |= 1 << (p & 63)
        return m

    def _trick_obs(self) -> list[list[Any]]:
        """The trick in progress as ``[seat, card]`` pairs in play order (from ``plays``)."""
        if not self.tn:
            return []
        return [[p >> 6, TOKENS[p & 63]] for p in self.plays[len(self.plays) - self.tn:]]

    def _play_view(self, last_trick: list[int], tricks_won: list[int]) -> dict[str, JSON]:
        """The observation keys of the play that the families share, in this order: ``trick``,
        ``last_trick`` (its plays ``seat << 6 | card``), ``played``, ``hand_sizes``,
        ``tricks_won`` and ``points_won``."""
        return {
            "trick": self._trick_obs(),
            "last_trick": [[p >> 6, TOKENS[p & 63]] for p in last_trick],
            "played": [TOKENS[p & 63] for p in self.plays],
            "hand_sizes": [h.bit_count() for h in self.hands],
            "tricks_won": list(tricks_won),
            "points_won": list(self.pts),
        }

    def _stock_mask(self) -> int:
        m = 0
        for c in self.stock:
            m |= 1 << c
        return m

    def _public(self, seat: int) -> int:
        """Hook: cards of ``seat``'s hand that every player knows (shown, taken face up)."""
        return 0

    def _face_down(self, viewer: int) -> int:
        """Hook: the cards of the face-down piles ``viewer`` cannot see (default: the stock)."""
        return self._stock_mask() if self.STOCK else 0

    def _known_to(self, viewer: int) -> int:
        """Hook: cards in other hands or the piles whose place ``viewer`` alone knows."""
        return 0

    def _pile_zones(self) -> dict[str, int]:
        """Hook: the family's zones besides the hands, the won cards and the trick (default: the
        stock)."""
        return {"stock": self._stock_mask()} if self.STOCK else {}

    # ------------------------------------------------------------------ declared views
    def observation(self, seat: Any) -> dict[str, JSON]:
        """:meth:`engine.core.State.observation` plus the card tables in the current trump context
        (:data:`CARD_OBSERVATION`), the trump read off the observation itself (:meth:`_shown_trump`)."""
        obs = State.observation(self, seat)
        add_card_context(obs, self.game, self._shown_trump(obs))
        return obs

    def _shown_trump(self, obs: dict[str, JSON]) -> str | None:
        """Hook: the trump suit letter the observation ``obs`` shows (default: its ``trump`` key;
        None, ``none`` or no key: no trump, every card in the plain context)."""
        t = obs.get("trump")
        return t if isinstance(t, str) else None

    def points_taken(self) -> list[int]:
        """Declared hook: the points taken so far this deal, one entry per seat (or per side, in a
        game that books them by side), as the game's :class:`~engine.core.CardTables` count them:
        each trick's card points, its trick point and the last trick's bonus.  A game whose cards
        carry no points counts its trick points only (zeros if none).  Default: ``pts``."""
        return list(self.pts)

    def previous_trick(self) -> list[tuple[int, int]]:
        """Declared hook: the last trick finished in this deal as ``(seat, card)`` pairs in play
        order, ``[]`` before the first.  Every family declares it (:func:`trick_pairs` reads a
        ``last_trick`` of plays ``seat << 6 | card``)."""
        raise NotImplementedError(f"{type(self).__name__}: a trick game declares previous_trick() "
                                  "(engine/trickplay.py, TrickState's declared views)")

    # ------------------------------------------------------------------ conformance
    def _won_cards(self) -> list[int]:
        """Hook: the cards of the tricks each seat has won this deal (default: :attr:`won`; a game
        whose hot path does not keep them derives them when asked)."""
        return self.won

    def zones(self) -> dict[str, int]:
        z: dict[str, int] = {}
        won = self._won_cards()
        for s in range(self.players):
            z[f"hand{s}"] = self.hands[s]
            z[f"won{s}"] = won[s]
        z["trick"] = self._trick_cards()
        z.update(self._pile_zones())
        return z

    def hidden_cards(self, viewer: int) -> int:
        m = 0
        for s in range(self.players):
            if s != viewer:
                m |= self.hands[s] & ~self._public(s)
        return (m | self._face_down(viewer)) & ~self._known_to(viewer)

    # ------------------------------------------------------------------ determinize
    def _redeal_hidden(self, seat: int) -> int:
        """Hook: the cards ``determinize`` redeals (default: :meth:`hidden_cards`)."""
        return self.hidden_cards(seat)

    def _redeal_holders(self, seat: int) -> list[int]:
        """Hook: the seats whose hidden cards are redealt (default: every other seat)."""
        return [s for s in range(self.players) if s != seat]

    def _redeal_forbid(self, holders: list[int]) -> list[int]:
        """Hook: per holder, the cards it cannot hold (default: none)."""
        return [0] * len(holders)

    def _pile_sizes(self, hidden: int) -> list[int]:
        """Hook: the sizes of the face-down piles that take part in the redeal (default: the
        stock)."""
        return [len(self.stock)] if self.STOCK else []

    def _lay_piles(self, new: TrickState, piles: list[int], hidden: int, rng: random.Random) -> None:
        """Hook: put the redealt piles' cards (one mask per pile of :meth:`_pile_sizes`) in
        ``new`` (default: the stock's cards in a random order)."""
        if self.STOCK:
            stock = bits(piles[0])
            rng.shuffle(stock)
            new.stock = stock

    def _reseed(self, rng: random.Random) -> None:
        """Hook: reseed a determinized clone's own randomness from ``rng``, so that what comes
        later (the stock's order, later deals) is unknown to the searcher (default: its RNG)."""
        self.rng = random.Random(rng.getrandbits(64))

    def _redeal_ok(self, hands: list[int]) -> bool:
        """Hook: extra public constraints a redeal must meet (checked by rejection)."""
        return True

    def _redealt(self, seat: int) -> None:
        """Hook of the family base: fix the fields derived from the hands after a redeal."""

    def _after_redeal(self, seat: int) -> None:
        """Hook of a game: fix its own derived fields after a redeal."""

    def determinize(self, seat: int, rng: random.Random) -> State:
        """A clone with the cards hidden from ``seat`` redealt among the other hands and the
        face-down piles, keeping hand sizes, publicly known cards and what the plays have shown."""
        new = self.clone()
        assert isinstance(new, TrickState)
        new._reseed(rng)
        new._legal = None
        hidden = self._redeal_hidden(seat)
        holders = self._redeal_holders(seat)
        if hidden:
            piles = self._pile_sizes(hidden)
            sizes = [(self.hands[s] & hidden).bit_count() for s in holders] + piles
            forbid = self._redeal_forbid(holders) + [0] * len(piles)
            hands = self.hands
            k = len(holders)

            def ok(dealt: list[int]) -> bool:
                trial = list(hands)
                for i, s in enumerate(holders):
                    trial[s] = (hands[s] & ~hidden) | dealt[i]
                return self._redeal_ok(trial)

            dealt = redeal(hidden, sizes, forbid, rng, ok if self.REDEAL_TRIES > 1 else None,
                           self.REDEAL_TRIES)
            for i, s in enumerate(holders):
                new.hands[s] = (hands[s] & ~hidden) | dealt[i]
            self._lay_piles(new, dealt[k:], hidden, rng)
        new._redealt(seat)
        new._after_redeal(seat)
        return new


class PlainTrickState(TrickState):
    """A plain trick game, written as a declaration plus a preset (engine/README.md, "A new game").

    The pack :attr:`DECK` is dealt out evenly, one card at a time from the dealer's left; the
    dealer's left leads the first trick and each trick's taker leads the next; the legal cards come
    from :attr:`RULE` (:class:`~engine.tricks.PlayRule`, follow suit by default) in :attr:`ORDER`
    with trump :attr:`TRUMP` (none by default), and a refused card's reason from the same rule
    (:func:`~engine.tricks.why_refused`).  A trick scores its cards' :attr:`POINTS` (``None``: the
    cards carry no points) plus :attr:`TRICK_POINT` for its taker.  A match is :attr:`DEALS` deals
    (or ``max_deals``, whichever is fewer), the deal passing to the left; the most points wins.
    """

    OBSERVATION: ClassVar[dict[str, str | None]] = {
        "hand": "your cards (list[card])",
        "dealer": "the seat that dealt this deal (int)",
        "trick": "the current trick as [seat, card] pairs in play order (list[[int, card]])",
        "last_trick": "the previous trick as [seat, card] pairs in play order ([] before the first)",
        "tricks_won": "tricks won per seat in this deal (list[int])",
        "points_won": "points won per seat in this deal (list[int])",
        "totals": "points per seat over the finished deals (list[int])",
    }
    """Observation keys -> meaning (docs/bots.md)."""
    PHASES: ClassVar[tuple[str, ...]] = ("play", "over")  # engine.rl: every phase, "over" included
    TENSOR: ClassVar[dict[str, str]] = {  # engine.rl (docs/rl.md); a game with larger totals widens them
        "scores": "seat_nums:200", "hand": "cards", "dealer": "seat", "trick": "trick",
        "last_trick": "trick", "tricks_won": "seat_nums:13", "points_won": "seat_nums:100",
        "totals": "seat_nums:200",
    }

    DECK: ClassVar[int]
    """The cards of the game (a mask over engine/cards.py's ids)."""
    ORDER: ClassVar[Order]
    RULE: ClassVar[PlayRule] = FOLLOW_SUIT
    TRUMP: ClassVar[int | None] = None
    POINTS: ClassVar[Points | None] = None
    TRICK_POINT: ClassVar[int] = 1
    DEALS: ClassVar[int] = 1

    ntricks: list[int]
    last_trick: list[int]
    totals: list[int]
    deal_totals: list[int]
    _lmf: MaskFunction
    _ptable: tuple[int, ...]

    # ------------------------------------------------------------------ the deal
    def _setup(self, deal: dict[str, Any] | None) -> None:
        self.deck_mask = self.DECK
        self.deal_no = 1
        n = self.players
        self.totals = [0] * n
        self.deal_totals = []
        self.dealer = 0
        self._lmf = mask_function(self.ORDER, self.RULE, self.TRUMP)
        self._ptable = self.POINTS.plain if self.POINTS is not None else (0,) * 52
        self._new_deal()
        if deal is not None:
            self._read_hands(deal, [self.DECK.bit_count() // n] * n)
        else:
            self._deal()
        self._start()

    def _new_deal(self) -> None:
        n = self.players
        self.hands = [0] * n
        self.won = [0] * n
        self.pts = [0] * n
        self.ntricks = [0] * n
        self.plays = []
        self.last_trick = []
        self.tn = self.led = self.wcard = self.wseat = 0

    def _deal(self) -> None:
        """One card at a time from the dealer's left, the pack shuffled by the match RNG."""
        n = self.players
        r = self.rng.random
        deck = sorted(bits(self.DECK), key=lambda _: r())
        size = len(deck) // n
        for i, c in enumerate(deck[:size * n]):
            self.hands[(self.dealer + 1 + i) % n] |= 1 << c

    def _start(self) -> None:
        self.phase = "play"
        self.turn = (self.dealer + 1) % self.players

    # ------------------------------------------------------------------ play
    def _mask(self) -> int:
        hand = self.hands[self.turn]
        return self._lmf(hand, self.led, self.wcard, False) if self.tn else hand

    def _legal_actions(self) -> list[str]:
        return play_list(self._mask())

    def _apply(self, action: str) -> None:
        c = card(action.split()[1])
        seat = self.turn
        self.hands[seat] ^= 1 << c
        self.plays.append(seat << 6 | c)
        if not self.tn:
            self.led, self.wcard, self.wseat = c // 13, c, seat
        elif beats(c, self.wcard, self.TRUMP, self.ORDER):
            self.wcard, self.wseat = c, seat
        self.tn += 1
        if self.tn < self.players:
            self.turn = (seat + 1) % self.players
            return
        taker = self.wseat
        trick = self.plays[-self.tn:]
        m = 0
        for p in trick:
            m |= 1 << (p & 63)
            self.pts[taker] += self._ptable[p & 63]
        self.pts[taker] += self.TRICK_POINT
        self.won[taker] |= m
        self.ntricks[taker] += 1
        self.last_trick = trick
        self.tn = 0
        self.turn = taker
        if not self.hands[taker]:
            self._deal_over()

    def _deal_over(self) -> None:
        self.deal_totals.append(sum(self.pts))
        self.sheet.append([float(p) for p in self.pts])
        for s in range(self.players):
            self.totals[s] += self.pts[s]
        if self.deal_no >= self.DEALS or self._deals_done():
            self._finish()
            return
        self.deal_no += 1
        self.dealer = (self.dealer + 1) % self.players
        self._new_deal()
        self._deal()
        self._start()

    def _why_illegal(self, verb: str, args: tuple[str, ...]) -> str:
        if verb != "play" or len(args) != 1:
            return "play one card to the trick (play QS)"
        return self._why_not_card(args[0])

    def _why_not_held_card(self, c: int) -> str:
        return why_refused(self.ORDER, self.RULE, self.TRUMP, self.hands[self.turn], self.led, self.wcard,
                           False, c)

    # ------------------------------------------------------------------ views and checks
    def _observe(self, seat: int) -> dict[str, JSON]:
        return {
            "hand": hand_tokens(self.hands[seat]),
            "dealer": self.dealer,
            "trick": self._trick_obs(),
            "last_trick": [[p >> 6, TOKENS[p & 63]] for p in self.last_trick],
            "tricks_won": list(self.ntricks),
            "points_won": list(self.pts),
            "totals": list(self.totals),
        }

    def scores(self) -> list[float]:
        return [float(t) for t in self.totals]

    def ranking(self) -> list[int]:
        return rank_by(self.scores(), lower_is_better=False)

    def previous_trick(self) -> list[tuple[int, int]]:
        return trick_pairs(self.last_trick)

    def _shown_trump(self, obs: dict[str, JSON]) -> str | None:
        return None if self.TRUMP is None else SUITS[self.TRUMP]

    def _deal_points(self) -> int:
        table = self._ptable
        return sum(table[c] for c in bits(self.DECK)) + self.TRICK_POINT * (
            self.DECK.bit_count() // self.players)

    def _invariants(self) -> list[str]:
        want = self._deal_points()
        return [f"deal {i + 1}: {t} points taken, expected {want}"
                for i, t in enumerate(self.deal_totals) if t != want]

    def _redeal_forbid(self, holders: list[int]) -> list[int]:
        n = self.players
        absent = voids_shown(self.plays, n, n, self.TRUMP, self.ORDER, self.RULE)
        return [absent[s] for s in holders]
