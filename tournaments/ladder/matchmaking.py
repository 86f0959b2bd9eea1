"""Who plays next: seeding and matchmaking (pure: no I/O; the loop and bench/ladder.py share it).

**Seeding.**  Versions in placement first (their placement groups, each against reference bots
only).  Then: a version starved for longer than ``starvation_s`` (since its last scheduled group) is
served first, the longest-waiting one; else with probability ``lru_share`` the least recently played
version; else a version drawn with weight ``(1 + top_weight * r) / (groups + 1)``: its need, raised
where the top of the board is uncertain.  ``r`` (:func:`top_relevance`) is the chance, under the
version's online rating, that it is above the boundary of the board's top ``top_k``: about 1 for a
version surely in the top, 0 for one surely out of it, between for one whose interval reaches the
boundary.  The top's order is what a competition is judged on, so its versions get up to
``1 + top_weight`` times the groups of the rest (the Gini bound of docs/ladder.md holds), and the
need keeps serving everyone.  Never by sigma alone: a crashing bot's sigma grows, and it would take
most of the games (its mu falls far below the boundary, so ``r`` stays near 0).  Reference bots seed
only while no submitted version is active.

**Matchmaking.**  ``candidates`` tables are drawn for the seed, in the game it has played least.  Hard
constraints: at most one version per author at a table (the reference bots' author excepted: they are
the organiser's anchors), so no two versions of one author are partners or opponents; no table
identical to one of the last ``recent`` groups; every rotation is played (a group is whole).  Each
candidate is scored by the expected information about the pairwise differences of its units
(:func:`tournaments.ladder.online.expected_information`), a pair weighted ``1 + top_pairs * r_a * r_b``
(so the order within the top counts more); the best is taken with probability
1 - ``epsilon`` and a uniformly drawn candidate with probability ``epsilon`` (reason ``explore``).
The probability that the table was chosen (given the candidates) is logged with it.

``mode``: ``info`` (the above), ``window`` (a baseline: the opponents nearest the seed's online mu)
or ``uniform`` (a baseline: a random feasible table).
"""
from __future__ import annotations

import math
import random
from collections.abc import Callable, Sequence
from dataclasses import dataclass, field

from tournaments.ladder.online import expected_information
from tournaments.schedule import splits

REFERENCE = "reference"


@dataclass
class Entry:
    """A schedulable version as the matchmaker sees it."""

    ref: str
    author: str
    games: tuple[str, ...]
    state: str
    groups: int = 0
    """Groups scheduled for it so far (committed or in flight)."""
    last: float = -math.inf
    """When its last group was scheduled (seconds, the caller's clock)."""
    per_game: dict[str, int] = field(default_factory=dict)
    placement_left: int = 0

    @property
    def reference(self) -> bool:
        return self.author == REFERENCE


@dataclass(frozen=True)
class Table:
    game: str
    arrangement: tuple[str, ...]
    """Versions in seat order (rotation 0); partners opposite in a partnership game."""
    reason: str
    probability: float


@dataclass(frozen=True)
class Params:
    epsilon: float = 0.2
    candidates: int = 24
    recent: int = 5
    lru_share: float = 0.1
    starvation_s: float = 600.0
    mode: str = "info"
    top_k: int = 8
    top_weight: float = 3.0
    top_pairs: float = 3.0
    top_share: float = 0.0
    top_margin: int = 4


def table_key(game: str, arrangement: Sequence[str], teams: bool) -> tuple[str, frozenset[frozenset[str]]]:
    """What makes two tables identical: the game and its units (a team's members, or one version)."""
    if teams:
        units = frozenset({frozenset({arrangement[0], arrangement[2]}),
                           frozenset({arrangement[1], arrangement[3]})})
    else:
        units = frozenset(frozenset({a}) for a in arrangement)
    return game, units


Rating = Callable[[str, str], tuple[float, float]]
"""(game, ref) -> (mu, sigma)."""
Overall = Callable[[str], tuple[float, float]]
"""ref -> (mu, sigma) over its games."""


def top_relevance(pool: Sequence[Entry], overall: Overall, k: int) -> dict[str, float]:
    """Each version's probability (online mu and sigma, a normal belief) of being above the boundary
    of the board's top ``k``: the midpoint of the k-th and (k+1)-th online mu.  A version surely in
    the top or surely out of it scores 1 or 0, one whose interval reaches the boundary in between."""
    if k <= 0 or len(pool) <= k:
        return {e.ref: 1.0 for e in pool}
    rs = {e.ref: overall(e.ref) for e in pool}
    mus = sorted((m for m, _ in rs.values()), reverse=True)
    edge = 0.5 * (mus[k - 1] + mus[k])
    return {ref: _phi((m - edge) / s) if s > 0 else float(m > edge) for ref, (m, s) in rs.items()}


def focus(pool: Sequence[Entry], overall: Overall, p: Params, rng: random.Random) -> set[str] | None:
    """With probability ``top_share``, the versions of a **top group**: the first ``top_k +
    top_margin`` active versions by online mu.  A top group is seeded and seated among them, so that
    its table compares versions of the top with each other (a table drawn from the whole pool seldom
    holds more than one of them).  None: a group of the whole pool (always when ``top_share`` or
    ``top_k`` is 0)."""
    if p.top_share <= 0.0 or p.top_k <= 0 or rng.random() >= p.top_share:
        return None
    active = [e for e in pool if e.state == "active"]
    rs = {e.ref: overall(e.ref)[0] for e in active}
    return {e.ref for e in sorted(active, key=lambda e: (-rs[e.ref], e.ref))[:p.top_k + p.top_margin]}


def _phi(x: float) -> float:
    return 0.5 * math.erfc(-x / math.sqrt(2.0))


def pick_seed(pool: Sequence[Entry], now: float, p: Params, rng: random.Random,
              relevance: dict[str, float] | None = None, among: set[str] | None = None) -> Entry | None:
    """The version the next group is built around (see the module doc); ``among``: a top group's
    versions (:func:`focus`), from which the seed is drawn by need unless a version is starved."""
    submitted = [e for e in pool if not e.reference and e.state == "active"]
    seeds = submitted or [e for e in pool if e.state == "active"]
    if not seeds:
        return None
    starved = [e for e in seeds if now - e.last > p.starvation_s and e.last > -math.inf]
    if starved:
        return min(starved, key=lambda e: (e.last, e.ref))
    top = [e for e in seeds if among is not None and e.ref in among]
    if top:
        return rng.choices(top, weights=[1.0 / (e.groups + 1) for e in top])[0]
    if rng.random() < p.lru_share:
        return min(seeds, key=lambda e: (e.last, e.ref))
    rel = relevance or {}
    weights = [(1.0 + p.top_weight * rel.get(e.ref, 0.0)) / (e.groups + 1) for e in seeds]
    return rng.choices(seeds, weights=weights)[0]


def _game_for(seed: Entry, games: Sequence[str]) -> list[str]:
    """The seed's games, least played first (ties in the ladder's order)."""
    mine = [g for g in games if g in seed.games]
    return sorted(mine, key=lambda g: seed.per_game.get(g, 0))


def _draw(seed: Entry, others: list[Entry], k: int, rng: random.Random) -> list[Entry] | None:
    """``k`` others, at most one per author (reference exempt), none of the seed's author."""
    order = others[:]
    rng.shuffle(order)
    chosen: list[Entry] = []
    authors = {seed.author} if not seed.reference else set()
    for e in order:
        if not e.reference and e.author in authors:
            continue
        chosen.append(e)
        if not e.reference:
            authors.add(e.author)
        if len(chosen) == k:
            return chosen
    return None


def choose_table(seed: Entry, pool: Sequence[Entry], games: dict[str, tuple[int, bool]],
                 rating: Rating, recent: set[tuple[str, frozenset[frozenset[str]]]], p: Params,
                 beta: float, rng: random.Random, relevance: dict[str, float] | None = None,
                 among: set[str] | None = None) -> Table | None:
    """The next matchmade table for ``seed`` (``games``: id -> (players, partnership)); None when no
    feasible table exists in any of its games.  ``among``: a top group's versions (:func:`focus`):
    the candidates are drawn among them, and from the whole pool where they cannot seat one."""
    if among is not None:
        t = choose_table(seed, [e for e in pool if e.ref in among or e.ref == seed.ref], games, rating,
                         recent, p, beta, rng, relevance)
        if t is not None:
            return t
    for game in _game_for(seed, list(games)):
        players, teams = games[game]
        others = [e for e in pool if e.ref != seed.ref and game in e.games and e.state in ("active",)]
        cands: dict[tuple[str, ...], None] = {}
        for _ in range(p.candidates * 4):
            if len(cands) >= p.candidates:
                break
            drawn = _draw(seed, others, players - 1, rng)
            if drawn is None:
                break
            arr = (seed.ref, *(e.ref for e in drawn))
            if teams:
                arr = rng.choice(splits(arr))
            if table_key(game, arr, teams) in recent:
                continue
            cands.setdefault(arr, None)
        if not cands:
            continue
        tables = list(cands)
        if p.mode == "uniform":
            return Table(game, rng.choice(tables), "matchmade", 1.0 / len(tables))
        if p.mode == "window":
            mu0 = rating(game, seed.ref)[0]
            best = min(tables, key=lambda a: (sum(abs(rating(game, r)[0] - mu0) for r in a), a))
            return Table(game, best, "matchmade", 1.0)
        scores = [_info(game, a, teams, rating, beta, relevance or {}, p.top_pairs) for a in tables]
        top = max(range(len(tables)), key=lambda i: (scores[i], tables[i]))
        if rng.random() < p.epsilon:
            pick = rng.randrange(len(tables))
            prob = p.epsilon / len(tables) + (1.0 - p.epsilon if pick == top else 0.0)
            return Table(game, tables[pick], "explore" if pick != top else "matchmade", prob)
        return Table(game, tables[top], "matchmade", 1.0 - p.epsilon + p.epsilon / len(tables))
    return None


def _info(game: str, arr: Sequence[str], teams: bool, rating: Rating, beta: float,
          relevance: dict[str, float], top_pairs: float) -> float:
    rs = [rating(game, r) for r in arr]
    rel = [relevance.get(r, 0.0) for r in arr]
    if teams:
        units = [(rs[0][0] + rs[2][0], rs[0][1] ** 2 + rs[2][1] ** 2),
                 (rs[1][0] + rs[3][0], rs[1][1] ** 2 + rs[3][1] ** 2)]
        rel = [0.5 * (rel[0] + rel[2]), 0.5 * (rel[1] + rel[3])]
    else:
        units = [(m, s * s) for m, s in rs]
    weight = [[1.0 + top_pairs * rel[i] * rel[j] for j in range(len(units))] for i in range(len(units))]
    return expected_information(units, beta, weight)


def placement_table(version: Entry, references: Sequence[Entry], games: dict[str, tuple[int, bool]],
                    rng: random.Random) -> Table | None:
    """A placement group: ``version`` against reference bots only, in its least-placed game."""
    for game in _game_for(version, list(games)):
        players, teams = games[game]
        refs = [e for e in references if game in e.games]
        if len(refs) < players - 1:
            continue
        drawn = rng.sample(refs, players - 1)
        arr: tuple[str, ...] = (version.ref, *(e.ref for e in drawn))
        prob = 1.0 / math.comb(len(refs), players - 1)
        if teams:
            arr = rng.choice(splits(arr))
            prob /= 3.0
        return Table(game, arr, "placement", prob)
    return None
