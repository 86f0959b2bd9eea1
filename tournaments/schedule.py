"""The schedule: which matches a tournament plays, deterministic from the spec.

Terms:

- **entrants**: the spec's bots (labels), in spec order.
- **arrangement**: the entrants at one table in seat order.  ``full`` mode takes every combination of
  the game's player count (in spec order); in a partnership game every split into teams as well:
  for entrants ``a b c d`` (spec order) the splits are ``ab|cd``, ``ac|bd``, ``ad|bc``, seated
  ``a c b d``, ``a b c d``, ``a b d c`` (partners opposite: seats 0, 2 against 1, 3).
- **rotation** ``r`` (0 .. n-1): the arrangement's entrant ``i`` sits at seat ``(i + r) mod n``.  Every
  arrangement plays all its rotations, so each of its entrants holds every seat; rotations keep
  partners together.
- **board** ``b`` (0 .. ``matches_per_seating`` - 1): a seeded deal.  Every match of a game on board
  ``b`` gets the same seed, whatever the arrangement and rotation: **duplicate deals**, every bot holds
  every hand and the luck of the deal cancels.
- **match id**: 16 hex digits of SHA-256 over ``(tournament seed, game, arrangement, rotation, board)``;
  the **group id** hashes the same without the rotation (one arrangement on one board).  Ids are
  public and predictable; seeds are not.

**Seeds: the tournament secret.**  Every tournament has a secret of 32 bytes (:func:`new_secret`,
kept beside its manifest: ``tournaments.ledger.write_secret``).  The **deal seed** of a match is
``HMAC-SHA256(secret, "deal|game|board")`` (:func:`deal_seed`): the same for every arrangement and
rotation of a board, which is what makes the deals duplicate.  A seat's **own seed** (the ``seed`` its
``Bot(game, seat, seed)`` gets) is ``HMAC-SHA256(secret, "bot|game|board|match id|seat")``
(:func:`bot_seed`).  Without the secret neither can be computed, and a bot's seed tells nothing of
the deal's (nor of another seat's): a bot cannot deal its match.  The default secret is fresh
(``secrets.token_bytes``), so two tournaments of one spec deal differently; a spec with
``secret = "seed"`` derives it from the spec's ``seed`` (:func:`secret_from_seed`: reproducible
from the spec alone, and as guessable as the seed: for tests and demos, not for competitions).

**Sampled schedules.**  With many entrants the combinations explode (12 bots in a 4-player
partnership game: 495 combinations x 3 splits x 4 rotations per board).  ``mode = "sampled"`` plays
``seatings`` arrangements per game, a subset of the full schedule (same match ids), deterministic
from the seed: greedy tables of the entrants with the fewest appearances so far (ties: the fewest
earlier meetings, then the seeded RNG), a repair where used-up combinations left appearances more
than one apart, then swaps of two entrants between two tables (annealed, then aimed at the most- and
least-met pairs) until every pair meets ``m`` or ``m + 1`` times, or as near as :func:`least_spread`
allows (the appearances can force a pair to meet twice while another never does), or a fixed step
budget runs out; in a partnership game each table then takes the split whose partners have been
partners least.  So appearances differ by at most one, pair meetings by at most one where the
seatings allow, and since every arrangement plays all its rotations, every entrant sits in every
seat equally often.  ``cardarena tournament plan SPEC`` shows the result (tournaments/plan.py).
"""
from __future__ import annotations

import hashlib
import itertools
import math
import random
import secrets
from collections import Counter
from collections.abc import Iterator, Sequence
from dataclasses import dataclass, field
from typing import TypeVar

import numpy as np

from bots.match import derive_seed, derive_seeds
from engine import game_class
from tournaments.spec import GameEntry, Spec, SpecError

T = TypeVar("T")


@dataclass(frozen=True, slots=True)
class Match:
    match_id: str
    group_id: str
    game: str
    board: int
    rotation: int
    seats: tuple[str, ...]
    """Entrant label by seat."""
    seed: int
    """The deal seed (:func:`deal_seed`): the same for every match of the board."""
    seat_seeds: tuple[int, ...] = ()
    """Each seat's own seed (:func:`bot_seed`), what its bot is constructed with."""


def _h(*parts: object) -> str:
    return hashlib.sha256("|".join(map(str, parts)).encode()).hexdigest()


def match_id(seed: int, game: str, arrangement: Sequence[str], rotation: int, board: int) -> str:
    return _h("match", seed, game, "/".join(arrangement), rotation, board)[:16]


def group_id(seed: int, game: str, arrangement: Sequence[str], board: int) -> str:
    return _h("group", seed, game, "/".join(arrangement), board)[:16]


SECRET_BYTES = 32
SECRET_MODES = ("fresh", "seed")
"""A spec's ``secret``: ``fresh`` (the default) or ``seed`` (derived from the spec's seed)."""


def new_secret() -> bytes:
    """A fresh tournament secret (32 bytes from the OS's CSPRNG)."""
    return secrets.token_bytes(SECRET_BYTES)


def secret_from_seed(seed: int) -> bytes:
    """The secret of a spec with ``secret = "seed"``: as predictable as ``seed`` itself."""
    return hashlib.sha256(f"cardarena tournament secret|{seed}".encode()).digest()


def spec_secret(spec: Spec) -> bytes:
    """The secret a new tournament of ``spec`` starts with: fresh unless the spec asks for ``seed``."""
    return secret_from_seed(spec.seed) if spec.secret == "seed" else new_secret()


def deal_seed(secret: bytes, game: str, board: int) -> int:
    """The deal seed of every match of ``game`` on ``board`` (63 bits)."""
    return derive_seed(secret, "deal", game, board)


def bot_seed(secret: bytes, game: str, board: int, match: str, seat: int) -> int:
    """The own seed of the bot at ``seat`` in match ``match`` (its id) of ``game`` on ``board``."""
    return derive_seed(secret, "bot", game, board, match, seat)


def match_seat_seeds(secret: bytes, m: Match) -> tuple[int, ...]:
    """``m``'s seat seeds: those it carries, else derived from ``secret`` (:func:`bot_seed` of each
    seat, the HMAC of the match's part hashed once)."""
    if m.seat_seeds or len(secret) < 16:
        return m.seat_seeds
    return tuple(derive_seeds(secret, ("bot", m.game, m.board, m.match_id), range(len(m.seats))))


def rotate(arrangement: Sequence[str], rotation: int) -> tuple[str, ...]:
    """Seats of ``arrangement`` in ``rotation``: entrant ``i`` at seat ``(i + rotation) mod n``.

    >>> rotate(("a", "b", "c", "d"), 1)
    ('d', 'a', 'b', 'c')
    """
    n = len(arrangement)
    return tuple(arrangement[(s - rotation) % n] for s in range(n))


def splits(combo: Sequence[T]) -> list[tuple[T, ...]]:
    """The seatings of a 4-entrant partnership combination, one per split into teams.

    >>> splits(("a", "b", "c", "d"))
    [('a', 'c', 'b', 'd'), ('a', 'b', 'c', 'd'), ('a', 'b', 'd', 'c')]
    """
    a, rest = combo[0], list(combo[1:])
    out: list[tuple[T, ...]] = []
    for partner in rest:
        x, y = [e for e in rest if e != partner]
        out.append((a, x, partner, y))
    return out


def full_arrangements(entrants: Sequence[str], players: int, teams: bool) -> Iterator[tuple[str, ...]]:
    for combo in itertools.combinations(entrants, players):
        if teams:
            yield from splits(combo)
        else:
            yield combo


def count_arrangements(entrants: int, players: int, teams: bool) -> int:
    return math.comb(entrants, players) * (3 if teams else 1)


def sampled_arrangements(entrants: Sequence[str], players: int, teams: bool, count: int,
                         rng: random.Random) -> list[tuple[str, ...]]:
    """``count`` distinct arrangements of the full schedule, balancing appearances, meetings and
    partnerships (module doc)."""
    total = count_arrangements(len(entrants), players, teams)
    if count > total:
        raise ValueError(f"{count} seatings asked but only {total} distinct ones exist")
    n = len(entrants)
    copies = 3 if teams else 1   # how often one combination may be a table: once per split
    tables = _balanced_tables(n, players, count, copies, rng)
    arrs = _split_tables(tables, rng) if teams else [tuple(t) for t in tables]
    return [tuple(entrants[i] for i in a) for a in arrs]


def _balanced_tables(n: int, k: int, count: int, copies: int, rng: random.Random) -> list[list[int]]:
    """``count`` tables (sorted index lists) of ``k`` of ``n`` entrants, each combination at most
    ``copies`` times: greedy on appearances, then swaps between tables to even out the meetings.

    A seat goes to the entrant of least ``(appearances + noise * u1, meetings with the table so far,
    u2)``, the first such in entrant order, where every entrant not yet at the table draws ``u1``
    then ``u2`` from ``rng`` in entrant order.  The draws and the comparisons are vectorised
    (:class:`_Draws`: numpy's MT19937 continues ``rng``'s own stream, so the doubles are
    ``rng.random()``'s), which makes 1,000 entrants cheap; the tables are those of the plain loop."""
    appear = np.zeros(n, dtype=np.int64)
    meet_np = np.zeros((n, n), dtype=np.int64)
    used: Counter[tuple[int, ...]] = Counter()
    tables: list[list[int]] = []
    draws = _Draws(rng)

    def pick(noise: float) -> tuple[int, ...]:
        chosen: list[int] = []
        free = np.ones(n, dtype=bool)
        met = np.zeros(n, dtype=np.int64)        # each entrant's meetings with the chosen so far
        for _ in range(k):
            cand = np.flatnonzero(free)
            u = draws.take(2 * len(cand)).reshape(len(cand), 2)
            first = appear[cand] + noise * u[:, 0]
            best = np.flatnonzero(first == first.min())
            if len(best) > 1:
                second = met[cand[best]]
                best = best[second == second.min()]
                if len(best) > 1:
                    third = u[best, 1]
                    best = best[third == third.min()]
            e = int(cand[best[0]])
            chosen.append(e)
            free[e] = False
            met += meet_np[e]
        return tuple(sorted(chosen))

    while len(tables) < count:
        combo: tuple[int, ...] | None = None
        for attempt in range(200):
            c = pick(noise=attempt / 20)
            if used[c] < copies:
                combo = c
                break
        if combo is None:  # nearly exhausted: the first combination not yet used up
            combo = next(c for c in itertools.combinations(range(n), k) if used[c] < copies)
        used[combo] += 1
        tables.append(list(combo))
        idx = np.array(combo)
        appear[idx] += 1
        meet_np[np.ix_(idx, idx)] += 1
        meet_np[idx, idx] -= 1
    draws.close()
    meet: list[list[int]] = meet_np.tolist()
    appear_list: list[int] = appear.tolist()
    _even_appearances(tables, appear_list, meet, used, copies)
    _even_meetings(tables, meet, used, n, copies, rng)
    return [sorted(t) for t in tables]


class _Draws:
    """``rng.random()``'s doubles, many at a time: a numpy MT19937 (the legacy ``RandomState``,
    whose ``random_sample`` forms a double from two 32-bit outputs exactly as CPython's
    ``random()`` does) started from ``rng``'s state; :meth:`close` hands the state back, so ``rng``
    goes on as if it had drawn every double itself."""

    def __init__(self, rng: random.Random) -> None:
        version, internal, self._gauss = rng.getstate()
        self._rng = rng
        self._version = version
        self._mt = np.random.RandomState()
        self._mt.set_state(("MT19937", np.array(internal[:-1], dtype=np.uint32), int(internal[-1]), 0, 0.0))

    def take(self, size: int) -> np.ndarray:
        return self._mt.random_sample(size)

    def close(self) -> None:
        _, key, pos, _, _ = self._mt.get_state(legacy=True)
        self._rng.setstate((self._version, (*(int(x) for x in key), int(pos)), self._gauss))


def _even_appearances(tables: list[list[int]], appear: list[int], meet: list[list[int]],
                      used: Counter[tuple[int, ...]], copies: int) -> None:
    """While appearances differ by more than one (the greedy can leave that when the combinations
    it wants are used up), give a seat of a most-appearing entrant to a least-appearing one, in the
    table where that adds the fewest meetings."""
    while max(appear) - min(appear) > 1:
        hi, lo = max(appear), min(appear)
        best: tuple[int, int, int, int, tuple[int, ...]] | None = None
        for i, t in enumerate(tables):
            for x in t:
                if appear[x] != hi:
                    continue
                for y in range(len(appear)):
                    if appear[y] != lo or y in t:
                        continue
                    c = tuple(sorted(y if e == x else e for e in t))
                    if used[c] >= copies:
                        continue
                    cost = sum(meet[y][a] - meet[x][a] for a in t if a != x)
                    if best is None or cost < best[0]:
                        best = (cost, i, x, y, c)
        if best is None:
            return
        _, i, x, y, c = best
        used[tuple(tables[i])] -= 1
        used[c] += 1
        for a in tables[i]:
            if a != x:
                meet[x][a] -= 1
                meet[a][x] -= 1
                meet[y][a] += 1
                meet[a][y] += 1
        appear[x] -= 1
        appear[y] += 1
        tables[i] = list(c)


def least_spread(n: int, k: int, appear: Sequence[int]) -> int:
    """A lower bound of max - min pair meetings among ``n`` entrants at tables of ``k`` with these
    appearances: 0 when every pair can meet equally often, 1 when some ``m`` lets every pair meet
    ``m`` or ``m + 1`` times, else 2.  Entrant ``i`` has ``d_i = (k - 1) * appear_i`` meetings, so it
    needs ``e_i = d_i - (n - 1) * m`` pairs at ``m + 1`` (``0 <= e_i <= n - 1``), and those pairs form
    a graph with these degrees (Erdős–Gallai).  A schedule meeting the bound need not exist (no 8
    tables of 4 among 11 entrants let every pair meet at most once); the search then lowers the sum
    of squared meetings as far as its budget goes.

    >>> least_spread(12, 4, [3] * 12), least_spread(12, 4, [4] * 8 + [3] * 4)
    (1, 2)
    """
    degree = [(k - 1) * a for a in appear]
    if n < 2:
        return 0
    best = 2
    for m in range(min(degree) // (n - 1), max(degree) // (n - 1) + 1):
        e = [d - (n - 1) * m for d in degree]
        if all(0 <= x <= n - 1 for x in e) and _graphic(e):
            best = min(best, 0 if not any(e) or all(x == n - 1 for x in e) else 1)
    return best


def _graphic(degrees: Sequence[int]) -> bool:
    """Erdős–Gallai: a simple graph has these degrees.  With ``d`` sorted descending, for every
    ``r`` the ``r`` largest sum to at most ``r (r - 1) + sum(min(d_i, r) for i >= r)``; the tail sum
    is ``r`` for each ``i`` in ``r .. c - 1`` (``c``: how many ``d_i >= r``) and ``d_i`` beyond, so
    every ``r`` is checked at once from prefix sums (linear after the sort, not quadratic)."""
    d = np.sort(np.asarray(degrees, dtype=np.int64))[::-1]
    if int(d.sum()) % 2:
        return False
    n = len(d)
    r = np.arange(1, n + 1, dtype=np.int64)
    suffix = np.zeros(n + 1, dtype=np.int64)
    suffix[:n] = np.cumsum(d[::-1])[::-1]                 # suffix[i] = sum(d[i:])
    c = n - np.searchsorted(d[::-1], r, side="left")      # how many d_i >= r
    rhs = r * (r - 1) + r * np.maximum(0, c - r) + suffix[np.maximum(r, c)]
    return bool(np.all(np.cumsum(d) <= rhs))


def _even_meetings(tables: list[list[int]], meet: list[list[int]], used: Counter[tuple[int, ...]],
                   n: int, copies: int, rng: random.Random) -> None:
    """Even out the pair meetings of ``tables`` in place by swapping entrant ``x`` of table ``A``
    with entrant ``y`` of table ``B`` (appearances unchanged).  The sum of squared meetings, the total
    being fixed, is least when every pair meets ``m`` or ``m + 1`` times: anneal on it with random
    swaps, then descend with aimed ones (every swap that moves an entrant of a most-met pair out of
    a table they share, or an entrant of a least-met pair into the other's table), until the
    meetings differ by at most one or the step budget (a function of the sizes alone, so the result
    is deterministic from ``rng``) is spent."""
    k = len(tables[0]) if tables else 0
    nt = len(tables)
    if nt < 2 or n <= k or k < 2:
        return
    hist = _pair_histogram(meet, n)

    def delta(ta: list[int], tb: list[int], x: int, y: int) -> int:
        mx, my = meet[x], meet[y]
        d = 0
        for a in ta:   # pairs (x, a) lose one, (y, a) gain one; a member of both tables cancels out
            if a != x and a not in tb:
                d += 2 * (my[a] - mx[a]) + 2
        for b in tb:
            if b != y and b not in ta:
                d += 2 * (mx[b] - my[b]) + 2
        return d

    def swap(ia: int, ib: int, x: int, y: int) -> bool:
        ta, tb = tables[ia], tables[ib]
        na = tuple(sorted(y if e == x else e for e in ta))
        nb = tuple(sorted(x if e == y else e for e in tb))
        if used[na] + 1 + (na == nb) > copies or used[nb] + 1 > copies:
            return False
        used[tuple(ta)] -= 1
        used[tuple(tb)] -= 1
        used[na] += 1
        used[nb] += 1
        for a in ta:
            if a != x and a not in tb:
                _bump(meet, hist, x, a, -1)
                _bump(meet, hist, y, a, 1)
        for b in tb:
            if b != y and b not in ta:
                _bump(meet, hist, y, b, -1)
                _bump(meet, hist, x, b, 1)
        tables[ia], tables[ib] = list(na), list(nb)
        return True

    def aimed() -> None:
        """One aimed swap of least delta (<= 0), ties broken by ``rng``."""
        hi, lo = max(hist), min(hist)
        pairs = [(a, b) for a in range(n) for b in range(a + 1, n) if meet[a][b] in (hi, lo)]
        a, b = pairs[rng.randrange(len(pairs))]
        moves: list[tuple[int, float, int, int, int, int]] = []
        if meet[a][b] == hi:   # take a (or b) out of a table they share
            for ia in (i for i, t in enumerate(tables) if a in t and b in t):
                for x in (a, b):
                    for ib, tb in enumerate(tables):
                        if x not in tb:
                            for y in tb:
                                if y not in tables[ia]:
                                    moves.append((delta(tables[ia], tb, x, y), rng.random(), ia, ib, x, y))
        else:                  # bring a into a table of b (or b into one of a)
            for u, v in ((a, b), (b, a)):
                for ib, tb in enumerate(tables):
                    if v in tb and u not in tb:
                        for y in tb:
                            if y != v:
                                for ia, ta in enumerate(tables):
                                    if u in ta and y not in ta:
                                        moves.append((delta(ta, tb, u, y), rng.random(), ia, ib, u, y))
        for d, _, ia, ib, x, y in sorted(moves):
            if d > 0 or swap(ia, ib, x, y):
                return

    steps = min(10_000 + 200 * nt, 200_000)
    cool = steps // 2
    aim = max(30, min(300, 3_000 // nt))
    for step in range(steps + aim):
        if step % 32 == 0 and max(hist) - min(hist) <= 1:
            return
        if step >= steps:
            aimed()
            continue
        ia, ib = rng.randrange(nt), rng.randrange(nt)
        if ia == ib:
            continue
        ta, tb = tables[ia], tables[ib]
        x, y = ta[rng.randrange(k)], tb[rng.randrange(k)]
        if y in ta or x in tb:
            continue
        d = delta(ta, tb, x, y)
        if d > 0 and (step >= cool or rng.random() >= math.exp(-d * (1 + 3 * step / cool) / 2)):
            continue
        swap(ia, ib, x, y)


def _pair_histogram(meet: list[list[int]], n: int) -> Counter[int]:
    """How many pairs ``a < b`` meet how often (``Counter(meet[a][b] for a < b)``, in numpy)."""
    upper = np.asarray(meet, dtype=np.int64)[np.triu_indices(n, 1)]
    values, counts = np.unique(upper, return_counts=True)
    return Counter({int(v): int(c) for v, c in zip(values, counts, strict=True)})


def _bump(meet: list[list[int]], hist: Counter[int], a: int, b: int, d: int) -> None:
    c = meet[a][b]
    hist[c] -= 1
    if not hist[c]:
        del hist[c]
    hist[c + d] += 1
    meet[a][b] = meet[b][a] = c + d


def _split_tables(tables: list[list[int]], rng: random.Random) -> list[tuple[int, ...]]:
    """The split into teams of each partnership table: the copies of one combination take distinct
    splits, and the splits even out how often two entrants are partners (greedy, then single changes
    while the sum of squared partnerships falls)."""
    partners: Counter[tuple[int, int]] = Counter()
    choice: list[int] = []
    taken: dict[tuple[int, ...], set[int]] = {}

    def pairs(t: Sequence[int], s: int) -> tuple[tuple[int, int], tuple[int, int]]:
        a = splits(t)[s]
        return (min(a[0], a[2]), max(a[0], a[2])), (min(a[1], a[3]), max(a[1], a[3]))

    def cost(t: Sequence[int], s: int) -> int:
        p, q = pairs(t, s)
        return partners[p] + partners[q]

    for t in tables:
        free = [s for s in range(3) if s not in taken.setdefault(tuple(t), set())]
        s = min(free, key=lambda s: (cost(t, s), rng.random()))
        taken[tuple(t)].add(s)
        choice.append(s)
        for p in pairs(t, s):
            partners[p] += 1
    improved = True
    while improved:
        improved = False
        for i, t in enumerate(tables):
            s = choice[i]
            for p in pairs(t, s):
                partners[p] -= 1
            free = [u for u in range(3) if u == s or u not in taken[tuple(t)]]
            best = min(free, key=lambda u: (cost(t, u), u != s))
            if best != s and cost(t, best) < cost(t, s):
                taken[tuple(t)].discard(s)
                taken[tuple(t)].add(best)
                choice[i], s, improved = best, best, True
            for p in pairs(t, s):
                partners[p] += 1
    return [splits(t)[s] for t, s in zip(tables, choice, strict=True)]


@dataclass(frozen=True)
class GamePlan:
    """The schedule of one game: its arrangements, played on every board in every rotation."""

    game: GameEntry
    arrangements: tuple[tuple[str, ...], ...]
    boards: int
    seed: int
    """The spec's seed: match ids (and a sampled schedule) derive from it."""
    secret: bytes = field(default=b"", repr=False)
    """The tournament secret: every seed derives from it."""

    @property
    def total(self) -> int:
        return len(self.arrangements) * self.game.players * self.boards

    def match_ids(self) -> Iterator[str]:
        """The ids of :meth:`matches`, in its order, without the rest of each match (the set a run
        checks its log against, without a Match object, group id or rotation each)."""
        g, n = self.game.id, self.game.players
        for b in range(self.boards):
            for arr in self.arrangements:
                for r in range(n):
                    yield match_id(self.seed, g, arr, r, b)

    def matches(self, seat_seeds: bool = True, start: int = 0, stop: int | None = None) -> Iterator[Match]:
        """Board by board; the rotations of an arrangement one after the other.  ``seat_seeds=False``:
        without the seats' own seeds (an HMAC per seat; the runner's workers derive them from the
        batch's secret, :func:`match_seat_seeds`, so the driver does not).  ``start``/``stop``: only
        the matches of those indices in this order (a worker's slice of the schedule,
        ``tournaments.runner.PlanSlice``): match ``i`` is board ``i // (A * n)``, arrangement
        ``i // n % A``, rotation ``i % n`` (``A`` arrangements of ``n`` seats)."""
        g, n = self.game.id, self.game.players
        if len(self.secret) < 16:
            raise ValueError("a game plan needs the tournament secret (at least 16 bytes)")
        per_board = len(self.arrangements) * n
        end = self.total if stop is None else min(stop, self.total)
        i = max(0, start)
        while i < end:
            b, rest = divmod(i, per_board)
            a0, r0 = divmod(rest, n)
            seed = deal_seed(self.secret, g, b)
            for arr in self.arrangements[a0:]:
                gid = group_id(self.seed, g, arr, b)
                for r in range(r0, n):
                    if i >= end:
                        return
                    mid = match_id(self.seed, g, arr, r, b)
                    yield Match(mid, gid, g, b, r, rotate(arr, r), seed,
                                tuple(bot_seed(self.secret, g, b, mid, s) for s in range(n))
                                if seat_seeds else ())
                    i += 1
                r0 = 0


def plan(spec: Spec, entrants_by_game: dict[str, list[str]] | None = None,
         secret: bytes | None = None) -> list[GamePlan]:
    """The schedule of every game of ``spec``.  ``entrants_by_game`` restricts the entrants of a game
    (bots with a ``GAMES`` list); default: every entrant enters every game.  ``secret``: the
    tournament's (the driver passes the one kept in its directory); default :func:`spec_secret`,
    a fresh one unless the spec says ``secret = "seed"``."""
    if secret is None:
        secret = spec_secret(spec)
    labels = [e.label for e in spec.bots]
    plans = []
    for g in spec.games:
        ents = (entrants_by_game or {}).get(g.id, labels)
        if len(ents) < g.players:
            raise SpecError(f"games ({g.id}): {g.id} seats {g.players} players but only {len(ents)} "
                            f"entrants play it ({', '.join(ents) or 'none'})")
        teams = game_class(g.id).teams
        if spec.schedule == "sampled":
            assert spec.seatings is not None
            total = count_arrangements(len(ents), g.players, teams)
            if spec.seatings > total:
                raise SpecError(f"schedule.seatings: {spec.seatings} exceeds the {total} distinct seatings "
                                f"of {g.id} with {len(ents)} entrants; lower it or use mode = \"full\"")
            rng = random.Random(int(_h("sample", spec.seed, g.id)[:16], 16))
            arrs = tuple(sampled_arrangements(ents, g.players, teams, spec.seatings, rng))
        else:
            arrs = tuple(full_arrangements(ents, g.players, teams))
        plans.append(GamePlan(g, arrs, spec.matches_per_seating, spec.seed, secret))
    return plans


def schedule(spec: Spec, entrants_by_game: dict[str, list[str]] | None = None,
             secret: bytes | None = None) -> Iterator[Match]:
    """Every match of the tournament, game by game (ids deterministic from the spec, seeds from
    ``secret``, as :func:`plan`)."""
    for p in plan(spec, entrants_by_game, secret):
        yield from p.matches()
