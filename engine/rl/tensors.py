"""Observation dict -> float32 tensor (issue 24, section 3): :class:`ObservationEncoder`.

The tensor is a pure function of the observation dict a seat receives (``State.observation``), so
it holds only what that seat may know.  Every value is in [-1, 1]; seats are relative to the
observer (0 the observer, 1 the next seat, ...).  The layout is the common part (``phase`` one-hot
over the game's ``PHASES``, ``current_player`` relative one-hot plus "nobody", ``scores``), then one
slice per key of the game's ``OBSERVATION`` declaration, in declaration order, each encoded by the
kind its state class declares in ``TENSOR`` (or listed in ``TENSOR_SKIP`` with a reason):

=================  ==========================================================================
kind               encoding
=================  ==========================================================================
``cards``          a list of cards (or a space-separated string, or nested lists) -> one column
                   per card of the game's ``CARD|JK`` domain: copies / copies the packs hold
                   (a laid joker ``JK=6H`` counts as a joker)
``card``           one card or null -> one-hot over the domain, plus "none"
``seat_cards``     one card list per seat (a list, or a dict keyed by the seat as a string) -> one
                   cards plane per relative seat
``seat_piles:P``   per seat, P card lists -> P planes per relative seat
``by_seat_cards``  a list of ``{"seat": s, "cards": ...}`` -> one plane per relative seat (an
                   announcement not shown yet: the cards its ``melds`` descriptions name)
``piles:P``        P card lists (or cards, or nulls) -> one plane each (Zenuwen's centre piles)
``seat_lists:P:B`` per seat, P numbers -> value / B per relative seat and place
``seat_suits``     per seat, a list of suit letters -> four flags per relative seat
``seat_nums:B``    one number (or bool) per seat -> value / B per relative seat, clipped
``nums:K:B``       a fixed list of K numbers (a team's) -> value / B, clipped
``seat``           a seat or null -> relative one-hot, plus "none"
``seats``          a list of seats -> relative multi-hot
``seat_suit``      a [seat, suit] pair or null -> relative seat one-hot plus "none", suit one-hot plus "none"
``num:B``          a number -> value / B, clipped to [-1, 1]
``bool``           true -> 1
``choice:a|b|..``  one of the declared values -> one-hot, plus "other" (null or an undeclared value)
``trick[:KEY]``    the current trick: ``[seat, card]`` pairs, or cards played from the seat in
                   observation key KEY on -> one card one-hot per relative seat
``tricks``         the deal's tricks (``{"cards": [...], "winner": s}``) -> the cards each
                   relative seat has won
``named_cards``    a card list with laid jokers (``JK=6H``) -> a cards plane, then a plane of the
                   cards the jokers stand for
``melds:M``        the rummy table: up to M melds ``{"n"|"number", "owner", "kind", "cards"}`` ->
                   per meld number a cards plane, a plane of the cards its jokers stand for, the
                   owner's relative seat and a run flag
=================  ==========================================================================
"""
from __future__ import annotations

from collections.abc import Callable, Sequence
from functools import cache
from typing import Any

import numpy as np
from numpy.typing import NDArray

from engine.cards import PACK, RANKS, SUITS
from engine.core import OBSERVATION_COMMON, Game, State, load_game
from engine.rl.actions import NATURALS, card_domain

Writer = Callable[[dict[str, Any], int, list[int], list[int], list[float]], None]
"""Appends one key of an observation (the observer's seat given) to the tensor's entries: the flat
indices of counted entries (a card copy, a one-hot flag), then the indices and values of numbers."""

NUMBER_KINDS = ("seat_nums", "seat_bools", "nums", "num", "bool")
NUMBER_TYPES = {int, float, bool}

COMMON_SKIP = {"game", "seat", "players", "deal", "legal_actions"}
"""Common keys the tensor does not encode: constants of the encoder (game, player count), the
observer itself (every seat is relative to it), the deal number (no bound), and the legal
actions (the action mask carries them)."""


def declared(cls: type[State], name: str) -> dict[str, str]:
    """A state class's ``TENSOR`` or ``TENSOR_SKIP`` declarations, merged over its bases (the most
    derived class wins)."""
    out: dict[str, str] = {}
    for c in reversed(cls.__mro__):
        out.update(vars(c).get(name, {}))
    return out


def phases_of(cls: type[State]) -> tuple[str, ...]:
    """The phases a game declares (``PHASES``), "over" included."""
    ph = getattr(cls, "PHASES", None)
    if not ph:
        raise ValueError(f"{cls.__name__} declares no PHASES (engine.rl, docs/rl.md)")
    return tuple(ph)


class ObservationEncoder:
    """Encodes one game's observations for ``players`` seats into flat float32 tensors."""

    game_id: str
    players: int
    shape: tuple[int]
    layout: dict[str, slice]

    def __init__(self, game_id: str, players: int | None = None, **options: Any) -> None:
        game = load_game(game_id, **options)
        n = game.check_players(players)
        sample = game.new_match(seed=0, players=n)
        cls = type(sample)
        self.game_id, self.players, self.options = game_id, n, dict(options)
        self.phases = phases_of(cls)
        kinds = declared(cls, "TENSOR")
        skips = declared(cls, "TENSOR_SKIP")
        keys = cls.observation_keys()
        missing = [k for k in keys if k not in kinds and k not in skips]
        if missing:
            raise ValueError(f"{game_id}: observation keys neither in TENSOR nor in TENSOR_SKIP: {missing}")
        if "scores" not in kinds:
            raise ValueError(f"{game_id}: TENSOR declares no score scale (\"scores\": \"seat_nums:B\")")
        self.domain = (*card_domain(game), "JK")
        self.col = {t: i for i, t in enumerate(self.domain)}
        self.denom = self._denominators(sample, game)
        self.kinds = {"phase": "phase", "current_player": "seat", "scores": kinds["scores"]}
        self.kinds.update({k: kinds[k] for k in keys if k in kinds})
        self.skipped = {k: skips[k] for k in keys if k in skips and k not in kinds}
        self.layout = {}
        self._tables: dict[int, dict[str, int]] = {}
        self._planes: list[int] = []  # the first index of every cards plane (copies / copies held)
        self._seats: list[tuple[str, int]] = []  # seat keys: (key, first index), one writer for all
        self._choices: list[tuple[str, dict[str, int], int]] = []  # choice keys: (key, indices, other)
        self._numbers: list[tuple[str, int, int, Writer]] = []  # (key, form, size, general writer)
        positions: list[int] = []  # the numbers' indices, in the order _number_values lists them
        bounds: list[float] = []
        writers: list[Writer] = []
        pos = 0
        for key, kind in self.kinds.items():
            size, writer = self._compile(key, kind, pos)
            self.layout[key] = slice(pos, pos + size)
            name, _, arg = kind.partition(":")
            if name == "seat":
                self._seats.append((key, pos))
            elif name == "choice":
                values = {v: pos + i for i, v in enumerate(arg.split("|"))}
                self._choices.append((key, values, pos + len(values)))
            elif name in NUMBER_KINDS:
                form = 0 if name in ("seat_nums", "seat_bools") else 1 if name == "nums" else 2
                bound = float(arg.rpartition(":")[2] or 1)
                self._numbers.append((key, form, size, writer))
                positions += range(pos, pos + size)
                bounds += [bound] * size
            else:
                writers.append(writer)
            pos += size
        self.shape = (pos,)
        self._writers = (*writers, self._flags)
        scale = np.ones(pos)
        inverse = 1.0 / np.array(self.denom)
        for b in self._planes:
            scale[b:b + len(self.domain)] = inverse
        self._scale = scale.astype(np.float32)
        self._positions = np.array(positions, dtype=np.intp)
        self._bounds = np.array(bounds, dtype=np.float64)
        self._bound_list = bounds
        self._zeros = {k: [0] * k for k in {size for _, _, size, _ in self._numbers}}

    def __repr__(self) -> str:
        return f"<ObservationEncoder {self.game_id} players {self.players} shape {self.shape}>"

    # ------------------------------------------------------------------ encoding
    def encode(self, observation: dict[str, Any]) -> NDArray[np.float32]:
        """The flat float32 tensor of one observation dict (as ``State.observation`` returns it,
        or after a JSON round trip)."""
        seat = observation["seat"]
        counted: list[int] = []
        at: list[int] = []
        val: list[float] = []
        for writer in self._writers:
            writer(observation, seat, counted, at, val)
        numbers = self._number_values(observation, seat, at, val)
        # one vectorised write per part: the counted entries (card copies, one-hot flags) added up,
        # each 1 / copies the packs hold on the cards planes and 1 elsewhere (a card's
        # copies never exceed what the packs hold); the numbers of the declared keys, divided by
        # their bounds and clipped to [-1, 1]; last the numbers the general writers appended (each
        # clipped as it was appended), which overwrite the block's zeros for their key
        x = np.zeros(self.shape, np.float32)
        i = np.fromiter(counted, np.intp, len(counted))
        np.add.at(x, i, self._scale[i])
        if len(numbers) > 24:  # numpy's calls cost less than a Python loop over this many
            y = np.array(numbers, dtype=np.float64)
            np.divide(y, self._bounds, out=y)
            np.minimum(y, 1.0, out=y)
            np.maximum(y, -1.0, out=y)
            x[self._positions] = y
        elif numbers:
            x[self._positions] = [-1.0 if (q := v / b) < -1.0 else 1.0 if q > 1.0 else q
                                  for v, b in zip(numbers, self._bound_list, strict=True)]
        if at:
            x[np.fromiter(at, np.intp, len(at))] = val
        return x

    def _flags(self, o: dict[str, Any], seat: int, c: list[int], at: list[int], val: list[float]) -> None:
        """The seat keys (relative one-hot, plus none) and the choice keys (one-hot, plus other)."""
        n = self.players
        for key, b0 in self._seats:
            s = o.get(key)
            c.append(b0 + ((s - seat) % n if s.__class__ is int and 0 <= s < n else n))
        for key, values, other in self._choices:
            c.append(values.get(str(o.get(key)), other))

    def _number_values(self, o: dict[str, Any], seat: int, at: list[int], val: list[float]) -> list[Any]:
        """The raw values of the number keys, in the order of ``_positions`` (per-seat lists turned
        to relative seats), for one vectorised division and clip.  A value of another shape (a
        null, a short list) puts zeros in the block and runs the key's general writer, whose
        (index, value) pairs are written after the block; an element that is not a number sends
        every number key to its general writer."""
        out: list[Any] = []
        zeros = self._zeros
        for key, form, size, general in self._numbers:
            v = o.get(key)
            if form == 2:  # one number; anything else counts as 0, as the general writer reads it
                out.append(v if v.__class__ in NUMBER_TYPES else 0)
                continue
            if v.__class__ is list and len(v) == size:
                if form == 0:
                    out += v[seat:]
                    out += v[:seat]
                else:
                    out += v
                continue
            out += zeros[size]
            if v is not None:
                general(o, seat, [], at, val)
        if set(map(type, out)) <= NUMBER_TYPES:
            return out
        for _, _, _, general in self._numbers:
            general(o, seat, [], at, val)
        return []

    # ------------------------------------------------------------------ set-up
    def _denominators(self, sample: State, game: Game) -> list[float]:
        """Copies of each domain column that the packs hold (jokers: two per pack)."""
        counts = [0] * len(self.domain)
        m = sample.deck_mask
        packs = max(1, (m.bit_length() + PACK - 1) // PACK)
        c = 0
        while m:
            if m & 1:
                base = c % PACK
                tok = "JK" if base >= 52 else self.domain_token(base)
                if tok in self.col:
                    counts[self.col[tok]] += 1
            m >>= 1
            c += 1
        counts[self.col["JK"]] = max(counts[self.col["JK"]], 2 * packs)
        return [float(max(1, k)) for k in counts]

    @staticmethod
    def domain_token(base: int) -> str:
        from engine.cards import TOKENS
        return TOKENS[base]

    def _plane(self, base: int) -> dict[str, int]:
        """Declare a cards plane at ``base``: the table of every token's index in it (a laid joker
        ``JK=6H`` is a joker)."""
        table = self._tables.get(base)
        if table is None:
            table = {t: base + j for t, j in self.col.items()}
            jk = base + self.col["JK"]
            table.update({f"JK={t}": jk for t in NATURALS})
            self._tables[base] = table
            self._planes.append(base)
        return table

    @staticmethod
    def _cards_into(value: Any, table: dict[str, int], counted: list[int]) -> None:
        """Append a cards plane's entries: each token's index (the scale divides by its copies)."""
        if value.__class__ is str:
            value = value.split()
        elif value.__class__ is not list:
            _cards_general(value, table, counted)
            return
        start = len(counted)
        try:  # the common case, every element a token of the plane: one C-level pass
            counted.extend(map(table.__getitem__, value))
        except (KeyError, TypeError):  # an unknown token or a nested list: the general path
            del counted[start:]
            _cards_general(value, table, counted)

    def _compile(self, key: str, kind: str, b0: int) -> tuple[int, Writer]:
        """The size of a key's slice and its writer, which appends absolute indices (``b0`` on):
        counted entries (card copies on the planes :meth:`_plane` declares, 1.0 flags elsewhere)
        and numbers (index, value)."""
        n = self.players
        name, _, arg = kind.partition(":")
        nd = len(self.domain)
        cards_into = self._cards_into

        def rel(s: Any, seat: int) -> int | None:
            return (s - seat) % n if s.__class__ is int and 0 <= s < n else None

        if name == "phase":
            ph = {p: b0 + i for i, p in enumerate(self.phases)}

            def w(o: dict[str, Any], seat: int, c: list[int], at: list[int], val: list[float]) -> None:
                i = ph.get(o["phase"])
                if i is None:
                    raise ValueError(f"{self.game_id}: phase {o['phase']!r} is not in its PHASES "
                                     f"{self.phases}")
                c.append(i)
            return len(ph), w
        if name == "cards":
            table = self._plane(b0)

            def w(o: dict[str, Any], seat: int, c: list[int], at: list[int], val: list[float]) -> None:
                cards_into(o.get(key), table, c)
            return nd, w
        if name == "card":
            col = self.col

            def w(o: dict[str, Any], seat: int, c: list[int], at: list[int], val: list[float]) -> None:
                j = _column(col, o.get(key))
                c.append(b0 + (nd if j is None else j))
            return nd + 1, w
        if name in ("seat_cards", "seat_piles"):
            piles = int(arg) if name == "seat_piles" else 1
            tables = [self._plane(b0 + k * nd) for k in range(n * piles)]

            def w(o: dict[str, Any], seat: int, c: list[int], at: list[int], val: list[float]) -> None:
                value = o.get(key)
                if piles == 1 and value.__class__ is list and len(value) <= n:
                    start = len(c)
                    try:  # one card list per seat, every element a token: one C-level pass each
                        for s, v in enumerate(value):
                            if v.__class__ is not list:
                                raise TypeError
                            c.extend(map(tables[(s - seat) % n].__getitem__, v))
                        return
                    except (KeyError, TypeError):
                        del c[start:]
                for s, v in _per_seat(value, n):
                    r = (s - seat) % n
                    if piles == 1:
                        cards_into(v, tables[r], c)
                    else:
                        for p, pile in enumerate(_seq(v)[:piles]):
                            cards_into(pile, tables[r * piles + p], c)
            return n * piles * nd, w
        if name == "piles":
            count = int(arg)
            tables = [self._plane(b0 + p * nd) for p in range(count)]

            def w(o: dict[str, Any], seat: int, c: list[int], at: list[int], val: list[float]) -> None:
                for p, pile in enumerate(_seq(o.get(key))[:count]):
                    cards_into(pile, tables[p], c)
            return count * nd, w
        if name == "seat_lists":
            p_s, _, b_s = arg.partition(":")
            count, bound = int(p_s), float(b_s)

            def w(o: dict[str, Any], seat: int, c: list[int], at: list[int], val: list[float]) -> None:
                for s, v in enumerate(_seq(o.get(key))[:n]):
                    r = (s - seat) % n
                    for p, x in enumerate(_seq(v)[:count]):
                        y = _number(x)
                        if y:
                            at.append(b0 + r * count + p)
                            val.append(_clip(y / bound))
            return n * count, w
        if name == "seat_suit":
            def w(o: dict[str, Any], seat: int, c: list[int], at: list[int], val: list[float]) -> None:
                v = _seq(o.get(key))
                r = rel(v[0], seat) if len(v) == 2 else None
                c.append(b0 + (n if r is None else r))
                s = v[1] if len(v) == 2 else None
                c.append(b0 + n + 1 + (SUITS.index(s) if isinstance(s, str) and s in SUITS else 4))
            return n + 6, w
        if name == "by_seat_cards":
            tables = [self._plane(b0 + r * nd) for r in range(n)]

            def w(o: dict[str, Any], seat: int, c: list[int], at: list[int], val: list[float]) -> None:
                for e in _seq(o.get(key)):
                    r = rel(e.get("seat"), seat) if isinstance(e, dict) else None
                    if r is not None:
                        cards = e.get("cards")
                        if cards is None:  # announced, not shown yet: the cards its descriptions name
                            cards = [_described(d) for d in _seq(e.get("melds"))]
                        cards_into(cards, tables[r], c)
            return n * nd, w
        if name == "named_cards":
            table = self._plane(b0)
            named = {f"JK={t}": b0 + nd + j for t, j in self.col.items()}

            jk = table["JK"]

            def w(o: dict[str, Any], seat: int, c: list[int], at: list[int], val: list[float]) -> None:
                v = o.get(key)
                start = len(c)
                cards_into(v, table, c)
                if jk in c[start:]:  # a joker: the cards the laid ones stand for
                    for t in _tokens(v):
                        i = named.get(t)
                        if i is not None:
                            c.append(i)
            return 2 * nd, w
        if name == "seat_suits":
            flags = [{x: b0 + r * 4 + i for i, x in enumerate(SUITS)} for r in range(n)]

            def w(o: dict[str, Any], seat: int, c: list[int], at: list[int], val: list[float]) -> None:
                for s, v in enumerate(_seq(o.get(key))[:n]):
                    if v:
                        flag = flags[(s - seat) % n]
                        for x in _seq(v):
                            if x.__class__ is str and x in flag:
                                c.append(flag[x])
            return 4 * n, w
        if name in ("seat_nums", "seat_bools", "nums"):
            if name == "nums":
                k_s, _, b_s = arg.partition(":")
                size, bound, relative = int(k_s), float(b_s), False
            else:
                size, bound, relative = n, float(arg or 1), True
            true = min(1.0, 1.0 / bound)

            def w(o: dict[str, Any], seat: int, c: list[int], at: list[int], val: list[float]) -> None:
                v = o.get(key)
                if v.__class__ is not list:
                    return
                shift = seat if relative else 0
                for s, x in enumerate(v[:size]):
                    k = x.__class__
                    if k is int or k is float:
                        if x:
                            y = x / bound
                            at.append(b0 + (s - shift) % n if relative else b0 + s)
                            val.append(-1.0 if y < -1.0 else 1.0 if y > 1.0 else y)
                    elif x is True:
                        at.append(b0 + (s - shift) % n if relative else b0 + s)
                        val.append(true)
            return size, w
        if name == "seat":
            def w(o: dict[str, Any], seat: int, c: list[int], at: list[int], val: list[float]) -> None:
                s = o.get(key)
                c.append(b0 + ((s - seat) % n if s.__class__ is int and 0 <= s < n else n))
            return n + 1, w
        if name == "seats":
            def w(o: dict[str, Any], seat: int, c: list[int], at: list[int], val: list[float]) -> None:
                for s in _seq(o.get(key)):
                    r = rel(s, seat)
                    if r is not None:
                        c.append(b0 + r)
            return n, w
        if name in ("num", "bool"):
            bound = float(arg or 1)

            def w(o: dict[str, Any], seat: int, c: list[int], at: list[int], val: list[float]) -> None:
                x = _number(o.get(key))
                if x:
                    at.append(b0)
                    val.append(_clip(x / bound))
            return 1, w
        if name == "choice":
            values = {v: b0 + i for i, v in enumerate(arg.split("|"))}
            other = b0 + len(values)

            def w(o: dict[str, Any], seat: int, c: list[int], at: list[int], val: list[float]) -> None:
                c.append(values.get(str(o.get(key)), other))
            return len(values) + 1, w
        if name == "trick":
            leader_key = arg
            col = self.col

            def w(o: dict[str, Any], seat: int, c: list[int], at: list[int], val: list[float]) -> None:
                lead = o.get(leader_key) if leader_key else None
                for i, e in enumerate(_seq(o.get(key))):
                    if isinstance(e, (list, tuple)) and len(e) == 2:
                        s, t = e
                    elif isinstance(lead, int):
                        s, t = (lead + i) % n, e
                    else:
                        continue
                    r = rel(s, seat)
                    j = _column(col, t)
                    if r is not None and j is not None:
                        c.append(b0 + r * nd + j)
            return n * nd, w
        if name == "tricks":
            tables = [self._plane(b0 + r * nd) for r in range(n)]

            def w(o: dict[str, Any], seat: int, c: list[int], at: list[int], val: list[float]) -> None:
                value = o.get(key)
                if value.__class__ is list:
                    start = len(c)
                    try:  # every trick a dict with a seat and a list of tokens: one C-level pass each
                        for e in value:
                            s, cards = e["winner"], e["cards"]
                            if s.__class__ is not int or not 0 <= s < n or cards.__class__ is not list:
                                raise TypeError
                            c.extend(map(tables[(s - seat) % n].__getitem__, cards))
                        return
                    except (KeyError, TypeError):
                        del c[start:]
                for e in _seq(value):
                    if e.__class__ is not dict:
                        continue
                    s = e.get("winner")
                    if s.__class__ is int and 0 <= s < n:
                        cards = e.get("cards")
                        if cards.__class__ is list:
                            table = tables[(s - seat) % n]
                            for t in cards:
                                i = table.get(t) if t.__class__ is str else None
                                if i is not None:
                                    c.append(i)
            return n * nd, w
        if name == "melds":
            m = int(arg)
            width = 2 * nd + n + 1
            tables = [self._plane(b0 + k * width) for k in range(m)]
            meld_named = [{f"JK={t}": b0 + k * width + nd + j for t, j in self.col.items()} for k in range(m)]
            jks = [table["JK"] for table in tables]

            memo: dict[tuple[int, str, int, bool, int], tuple[int, ...]] = {}

            def row(num: int, cards: Any, owner: Any, run: bool, seat: int, c: list[int]) -> None:
                start = len(c)
                cards_into(cards, tables[num - 1], c)
                if jks[num - 1] in c[start:]:  # a joker: the cards the laid ones stand for
                    jokers = meld_named[num - 1]
                    for t in _tokens(cards):
                        j = jokers.get(t)
                        if j is not None:
                            c.append(j)
                b = b0 + (num - 1) * width + 2 * nd
                r = rel(owner, seat)
                if r is not None:
                    c.append(b + r)
                if run:
                    c.append(b + n)

            def w(o: dict[str, Any], seat: int, c: list[int], at: list[int], val: list[float]) -> None:
                for i, e in enumerate(_seq(o.get(key))):
                    if not isinstance(e, dict):
                        continue
                    num = e["n"] if "n" in e else e.get("number", i + 1)
                    if not isinstance(num, int) or not 1 <= num <= m:
                        continue
                    cards, owner, run = e.get("cards"), e.get("owner"), e.get("kind") == "run"
                    if cards.__class__ is not str:
                        row(num, cards, owner, run, seat, c)
                        continue
                    # a meld given as a string (the rummies' table) changes rarely: its entries are
                    # kept, by everything they depend on
                    k = (num, cards, owner if owner.__class__ is int else -1, run, seat)
                    got = memo.get(k)
                    if got is None:
                        out: list[int] = []
                        row(num, cards, owner, run, seat, out)
                        if len(memo) >= 4096:
                            memo.clear()
                        got = memo[k] = tuple(out)
                    c.extend(got)
            return m * width, w
        raise ValueError(f"{self.game_id}: TENSOR kind {kind!r} of key {key!r} is not in the vocabulary "
                         "(engine/rl/tensors.py)")


def _cards_general(value: Any, table: dict[str, int], counted: list[int]) -> None:
    """A cards plane's entries from any value: a list or tuple (nested ones flattened), or a
    space-separated string; tokens that are not cards of the plane are left out."""
    if isinstance(value, str):
        value = value.split()
    elif not isinstance(value, (list, tuple)):
        return
    for t in value:
        if type(t) is str:
            i = table.get(t)
            if i is not None:
                counted.append(i)
        elif isinstance(t, (list, tuple)):
            _cards_general(t, table, counted)


def _described(text: Any) -> list[str]:
    """The cards a jass meld description names (``run 3 to KS``: KS QS JS; ``carre J``: four jacks)."""
    words = text.split() if isinstance(text, str) else []
    if len(words) == 4 and words[0] == "run" and words[1].isdigit() and len(words[3]) == 2:
        top, suit = RANKS.find(words[3][0]), words[3][1]
        return [RANKS[r] + suit for r in range(top, top - int(words[1]), -1) if r >= 0]
    if len(words) == 2 and words[0] == "carre" and len(words[1]) == 1:
        return [words[1] + s for s in SUITS]
    return []


def _column(col: dict[str, int], v: Any) -> int | None:
    """The domain column of one card token (a laid joker ``JK=6H`` is the joker), None otherwise."""
    if not isinstance(v, str):
        return None
    return col.get("JK" if v.startswith("JK") else v)


def _per_seat(v: Any, n: int) -> list[tuple[int, Any]]:
    """(seat, value) of a per-seat list, or of a dict keyed by the seat as a string."""
    if isinstance(v, dict):
        out = []
        for k, x in v.items():
            if isinstance(k, str) and k.isdigit() and int(k) < n:
                out.append((int(k), x))
        return out
    return list(enumerate(_seq(v)[:n]))


def _clip(x: float) -> float:
    return -1.0 if x < -1.0 else 1.0 if x > 1.0 else x


def _seq(v: Any) -> Sequence[Any]:
    return v if isinstance(v, (list, tuple)) else ()


def _number(v: Any) -> float:
    if isinstance(v, bool):
        return 1.0 if v else 0.0
    if isinstance(v, (int, float)):
        return float(v)
    return 0.0


def _tokens(v: Any) -> list[str]:
    if v is None:
        return []
    if isinstance(v, str):
        return v.split()
    out: list[str] = []
    if isinstance(v, (list, tuple)):
        for x in v:
            out += _tokens(x)
    return out


def observation_encoder(game_id: str, players: int | None = None, **options: Any) -> ObservationEncoder:
    """The :class:`ObservationEncoder` of a game, player count and options (cached)."""
    if not isinstance(game_id, str):
        raise ValueError(f"a game id is a str, got {type(game_id).__name__}")
    try:
        key = tuple(sorted(options.items()))
        hash(key)
    except TypeError:
        return ObservationEncoder(game_id, players, **options)
    return _cached_encoder(game_id, players, key)


@cache
def _cached_encoder(game_id: str, players: int | None,
                    options: tuple[tuple[str, Any], ...]) -> ObservationEncoder:
    return ObservationEncoder(game_id, players, **dict(options))


__all__ = ["COMMON_SKIP", "OBSERVATION_COMMON", "ObservationEncoder", "declared", "observation_encoder",
           "phases_of"]
