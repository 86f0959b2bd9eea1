"""Who is best, and how sure are we: ratings per game and overall from the ``matches`` table.

Each board is in the order of the headline score (:mod:`tournaments.analysis.leaderboard`: the share
of opponents placed below, with its bootstrap interval and ``~``; the numbers every surface shows);
the overall board holds only the entrants ranked over the games each of them played.  Beside it,
for each entrant (the ``bots`` label of a seat) this computes

* **openskill** Plackett-Luce ratings (``mu``, ``sigma``, ``ordinal = mu - 3 sigma``), updated match by
  match in ``match_id`` order (a fixed pseudo-random order, so two runs of one spec agree), with the
  seats of a team (``teams``) rated as one openskill team.  Overall: per-game ratings are combined
  with equal weight per game (mean ``mu``, ``sigma = sqrt(sum sigma^2) / k``).
* **mean placement** (of ``ranking``, after forfeits) and **mean score** (``scores``, the game's own
  units; no overall mean score, as units differ between games), and the **number of matches**.
* a **Plackett-Luce strength** (maximum likelihood, log-strength ``theta`` centred on 0, a team's
  utility is the sum of its members'; ties by Breslow's rule; a weak Gaussian prior keeps an entrant
  that always wins finite) with a **95% interval** ``strength +- 1.96 se`` from a Laplace
  approximation made robust to duplicate groups (``group_id``, the rotations of one seating over one
  board): the sandwich of :func:`strength_cov`, the large-sample form of a bootstrap that resamples
  whole groups, at the cost of one fit (a 200-replicate bootstrap cost 200 fits: 132 s of CPU on
  a real-shaped 68k-match log; :func:`bootstrap_fits` keeps it for the ladder and the benchmark).
  Identical outcomes are counted once (weight = how often).
* a **head-to-head** table: for each pair, the share of matches in which one placed above the other
  (ties half, partners never compared), with its bootstrap 95% interval; a pair whose interval
  contains 0.5 is marked not significant.  In the leaderboard an entrant whose headline score
  difference to the next entrant has an interval containing 0 is marked too (``~``).
"""
from __future__ import annotations

import itertools
import math
import multiprocessing as mp
import os
from collections import defaultdict
from collections.abc import Callable
from concurrent.futures import ProcessPoolExecutor
from dataclasses import dataclass, field
from typing import Any

import numpy as np
import scipy.sparse as sp

from tournaments.analysis.leaderboard import HUMAN_REF
from tournaments.analysis.views import TournamentLog

PRIOR = 0.05
"""Weight of the Gaussian prior on each log-strength (pseudo-observations; keeps estimates finite)."""
BATCH = 50
"""Bootstrap replicates fitted together (vectorised Newton steps)."""


Unit = tuple[tuple[str, ...], int]
"""A competing unit of a match: the entrant labels of one team's seats, and its place."""


@dataclass
class MatchRec:
    game: str
    match_id: str
    group_id: str
    bots: list[str]
    teams: list[int]
    ranking: list[int]
    scores: list[float]
    units: list[Unit] = field(default_factory=list)
    """By place (then label); filled by :func:`make_units`."""

    def __post_init__(self) -> None:
        if not self.units:
            self.units = make_units(self.bots, self.teams, self.ranking)


@dataclass
class Entrant:
    name: str
    matches: int
    mean_place: float
    mean_score: float | None
    mu: float
    sigma: float
    ordinal: float
    strength: float
    lo: float
    hi: float
    tied_with_next: bool = False
    """The headline's ``~``: the score difference to the next entrant is not significant."""
    score: float = math.nan
    """The headline score (:mod:`tournaments.analysis.leaderboard`); the board is in its order."""
    score_lo: float | None = None
    score_hi: float | None = None


@dataclass
class HeadToHead:
    a: str
    b: str
    wins: int
    losses: int
    ties: int
    score: float
    lo: float
    hi: float

    @property
    def significant(self) -> bool:
        return not self.lo <= 0.5 <= self.hi


@dataclass
class Board:
    scope: str
    """A game id, or ``overall``."""
    matches: int
    entrants: list[Entrant]
    h2h: list[HeadToHead] = field(default_factory=list)
    games: list[str] = field(default_factory=list)
    """The games the board ranks over (overall: those every ranked entrant played)."""
    apart: list[dict[str, Any]] = field(default_factory=list)
    """Overall: the entrants not ranked (``bot``, their per-game scores ``games``)."""
    lower_score_wins: bool | None = None
    """A game's board: the direction of the game's own score sheet (``mean_score``)."""
    note: str = ""
    """What the board compares, in one line (:meth:`Headline.note`)."""
    champions: list[dict[str, Any]] = field(default_factory=list)
    """Overall: each game's first place (:func:`tournaments.analysis.leaderboard.champions`)."""
    specialised: bool = False
    """Overall: some entrant is left apart, so the per-game boards and ``champions`` are the headline."""

    def to_json(self) -> dict[str, Any]:
        return {"scope": self.scope, "matches": self.matches, "games": self.games,
                "lower_score_wins": self.lower_score_wins, "apart": self.apart, "note": self.note,
                "champions": self.champions, "specialised": self.specialised,
                "entrants": [vars(e) for e in self.entrants],
                "head_to_head": [dict(vars(h), significant=h.significant) for h in self.h2h]}


# ------------------------------------------------------------------------------------------ loading
def load_matches(log: TournamentLog, game: str | None = None) -> list[MatchRec]:
    con = log.connect()
    try:
        # a match a person played (HUMAN_REF in bot_refs) is never ranked (leaderboard.ranked_match)
        q = ("SELECT game, match_id, group_id, bots, teams, ranking, scores FROM matches "
             "WHERE NOT list_contains(bot_refs, ?)")
        params: list[Any] = [HUMAN_REF]
        if game is not None:
            q += " AND game = ?"
            params.append(game)
        table = con.execute(q + " ORDER BY game, match_id", params).arrow()
    finally:
        con.close()
    if hasattr(table, "read_all"):  # duckdb >= 1.4 returns a RecordBatchReader
        table = table.read_all()
    cols = {c: _lists(table.column(c)) if c in ("bots", "teams", "ranking", "scores")
            else table.column(c).to_numpy(zero_copy_only=False).tolist() for c in table.column_names}
    return [MatchRec(*row) for row in zip(cols["game"], cols["match_id"], cols["group_id"], cols["bots"],
                                          cols["teams"], cols["ranking"], cols["scores"], strict=True)]


def _lists(col: Any) -> list[list[Any]]:
    """A list column as Python lists (flattened through numpy: much faster than ``to_pylist``)."""
    import pyarrow as pa
    arr = col.combine_chunks() if isinstance(col, pa.ChunkedArray) else col
    flat = arr.flatten().to_numpy(zero_copy_only=False).tolist()
    offs = arr.offsets.to_numpy().tolist()
    base = offs[0] if offs else 0
    return [flat[a - base:b - base] for a, b in itertools.pairwise(offs)]


def make_units(bots: list[str], teams: list[int], ranking: list[int]) -> list[Unit]:
    """The competing units of a match: (labels of the seats of one team, its place), by place."""
    out: list[Unit]
    if len(set(teams)) == len(teams):  # no partnerships: one unit per seat
        out = [((b,), r) for b, r in zip(bots, ranking, strict=True)]
    else:
        by_team: dict[int, list[int]] = defaultdict(list)
        for seat, t in enumerate(teams):
            by_team[t].append(seat)
        out = [(tuple(bots[s] for s in seats), min(ranking[s] for s in seats)) for seats in by_team.values()]
    out.sort(key=_unit_key)
    return out


def _unit_key(u: Unit) -> tuple[int, tuple[str, ...]]:
    return u[1], u[0]


# ------------------------------------------------------------------------------------------ openskill
def _openskill(fast: bool = True) -> tuple[Callable[..., Any], Callable[..., Any]]:
    """openskill's default Plackett-Luce as (``rating(name=...)``, ``rate(teams, ranks=...)``).

    ``fast``: openskill's ``rate`` deep-copies its input (a new UUID per rating, about 85% of its
    time); this applies what ``rate`` does with the default model (sigma widened by ``tau``, then
    ``_compute``) to the ratings it owns, without the copies.  The results are the same (pinned by
    ``test_fast_openskill_equals_rate``); without ``_compute`` (another openskill) it uses ``rate``.
    """
    from openskill.models import PlackettLuce
    model = PlackettLuce()
    rate: Callable[..., Any] = model.rate
    compute = getattr(model, "_compute", None)
    if fast and compute is not None and not model.limit_sigma:
        tau2 = model.tau ** 2

        def rate(teams: list[list[Any]], ranks: list[float]) -> Any:
            for team in teams:
                for r in team:
                    r.sigma = math.sqrt(r.sigma * r.sigma + tau2)
            return compute(teams, ranks=ranks)
    return model.rating, rate


def _rate_match(ratings: dict[str, Any], units: list[Unit], rating: Callable[..., Any],
                rate: Callable[..., Any]) -> None:
    """One match's openskill update of ``ratings`` (entrant -> rating), partners as one team."""
    teams = []
    for labels, _ in units:
        team = []
        for lab in labels:
            r = ratings.get(lab)
            if r is None:
                r = ratings[lab] = rating(name=lab)
            team.append(r)
        teams.append(team)
    new = rate(teams, ranks=[float(p) for _, p in units])
    for (labels, _), team in zip(units, new, strict=True):
        for lab, r in zip(labels, team, strict=True):
            ratings[lab] = r


def openskill_ratings(matches: list[MatchRec], fast: bool = True) -> dict[str, tuple[float, float]]:
    """openskill Plackett-Luce (mu, sigma) per entrant after all ``matches`` in order (``fast``: see
    :func:`_openskill`)."""
    rating, rate = _openskill(fast)
    ratings: dict[str, Any] = {}
    for m in matches:
        _rate_match(ratings, m.units, rating, rate)
    return {k: (float(r.mu), float(r.sigma)) for k, r in ratings.items()}


Series = list[tuple[int, float, float]]
"""``(k, mu, sigma)`` after each rated match."""


def openskill_histories(matches: list[MatchRec]) -> dict[str, dict[str, Series]]:
    """How the openskill ratings converged: per scope (each game, and ``overall``) and entrant,
    ``(k, mu, sigma)`` after the k-th match of that scope in which the entrant played.

    The same updates as :func:`rank`'s: per game in ``match_id`` order; overall, each entrant's
    per-game ratings combined with equal weight (mean mu, sqrt(sum sigma^2) / k) after every match, in
    ``match_id`` order across games.  So each series ends at the leaderboard's rating.  One pass."""
    rating, rate = _openskill()
    per_game: dict[str, dict[str, Any]] = defaultdict(dict)
    hist: dict[str, dict[str, Series]] = defaultdict(lambda: defaultdict(list))
    done: dict[str, int] = defaultdict(int)
    for k, m in enumerate(sorted(matches, key=lambda m: m.match_id), 1):
        ratings = per_game[m.game]
        done[m.game] += 1
        _rate_match(ratings, m.units, rating, rate)
        for lab in dict.fromkeys(m.bots):
            r = ratings[lab]
            hist[m.game][lab].append((done[m.game], float(r.mu), float(r.sigma)))
            vals = [(float(g[lab].mu), float(g[lab].sigma)) for g in per_game.values() if lab in g]
            mu = sum(v[0] for v in vals) / len(vals)
            sigma = math.sqrt(sum(v[1] ** 2 for v in vals)) / len(vals)
            hist[OVERALL][lab].append((k, mu, sigma))
    return {scope: dict(h) for scope, h in hist.items()}


# ------------------------------------------------------------------------------------------ PL model
@dataclass
class Block:
    """The patterns with ``k`` units, as dense arrays (units sorted by place)."""

    members: np.ndarray   # (P, k, N) seats of each entrant in each unit (a team's utility is the sum)
    start: np.ndarray     # (P, k) index of the first unit tied with this one (its risk set starts there)
    end: np.ndarray       # (P, k) index of the last unit tied with this one
    pattern: np.ndarray   # (P,) the patterns' global numbers
    start_flat: np.ndarray = field(init=False)  # start and end as indices into the (P*k) flattening
    end_flat: np.ndarray = field(init=False)

    def __post_init__(self) -> None:
        base = np.arange(self.start.shape[0])[:, None] * self.start.shape[1]
        self.start_flat = (base + self.start).ravel()
        self.end_flat = (base + self.end).ravel()


@dataclass
class Patterns:
    """Distinct match outcomes, with how often each occurred and the likelihood's design."""

    names: list[str]
    counts: np.ndarray          # (P,) matches per pattern
    group_counts: sp.csr_matrix  # (G, P) matches per duplicate group and pattern
    blocks: list[Block]
    pair_wins: sp.csr_matrix    # (P, N*N) a placed above b
    pair_ties: sp.csr_matrix    # (P, N*N)


def build_patterns(matches: list[MatchRec]) -> Patterns:
    names = sorted({b for m in matches for b in m.bots})
    idx = {n: i for i, n in enumerate(names)}
    n = len(names)
    pat_id: dict[tuple[tuple[tuple[str, ...], int], ...], int] = {}
    group_id: dict[str, int] = {}
    g_rows: list[int] = []
    g_cols: list[int] = []
    for m in matches:
        key = tuple(m.units)
        p = pat_id.setdefault(key, len(pat_id))
        g = group_id.setdefault(f"{m.game}/{m.group_id}", len(group_id))
        g_rows.append(g)
        g_cols.append(p)
    npat = len(pat_id)
    gc = sp.csr_matrix((np.ones(len(g_rows)), (g_rows, g_cols)), shape=(len(group_id), npat))
    counts = np.asarray(gc.sum(axis=0)).ravel()
    by_k: dict[int, list[tuple[int, tuple[tuple[tuple[str, ...], int], ...]]]] = defaultdict(list)
    w_r: list[int] = []
    w_c: list[int] = []
    t_r: list[int] = []
    t_c: list[int] = []
    for key, p in pat_id.items():
        by_k[len(key)].append((p, key))
        for j, (la, pa) in enumerate(key):
            for k, (lb, pb) in enumerate(key):
                if j == k or pa > pb:
                    continue
                for a in la:
                    for b in lb:
                        if a == b:
                            continue
                        if pa < pb:
                            w_r.append(p)
                            w_c.append(idx[a] * n + idx[b])
                        else:
                            t_r.append(p)
                            t_c.append(idx[a] * n + idx[b])
    blocks = []
    for k, pats in sorted(by_k.items()):
        mem = np.zeros((len(pats), k, n))
        start = np.zeros((len(pats), k), dtype=np.int64)
        end = np.zeros((len(pats), k), dtype=np.int64)
        for r, (_, key) in enumerate(pats):
            places = [pl for _, pl in key]
            for j, (labels, pl) in enumerate(key):
                for lab in labels:
                    mem[r, j, idx[lab]] += 1.0
                start[r, j] = places.index(pl)
                end[r, j] = len(places) - 1 - places[::-1].index(pl)
        blocks.append(Block(mem, start, end, np.array([p for p, _ in pats], dtype=np.int64)))
    return Patterns(
        names=names, counts=counts, group_counts=gc, blocks=blocks,
        pair_wins=sp.csr_matrix((np.ones(len(w_r)), (w_r, w_c)), shape=(npat, n * n)),
        pair_ties=sp.csr_matrix((np.ones(len(t_r)), (t_r, t_c)), shape=(npat, n * n)),
    )


def _risk_sets(theta: np.ndarray, b: Block) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """For a batch of ``theta`` (B, N) and one block of patterns (P of k units): each unit's utility
    less its pattern's largest ``u`` (B, P, k), ``e = exp(u)``, and each term's risk-set sum ``d``
    (the sum of ``e`` over the units placed at or below the term's place; Breslow ties)."""
    nb = theta.shape[0]
    npat, k = b.start.shape
    u = (theta @ b.members.reshape(npat * k, -1).T).reshape(nb, npat, k)
    u -= u.max(axis=2, keepdims=True)
    e = np.exp(u)
    tail = np.cumsum(e[:, :, ::-1], axis=2)[:, :, ::-1]             # sum of e over units >= l
    d = tail.reshape(nb, -1)[:, b.start_flat].reshape(nb, npat, k)  # each term's risk-set sum
    return u, e, d


def _newton_terms(theta: np.ndarray, pt: Patterns, weights: np.ndarray
                  ) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """For a batch of ``theta`` (B, N) and pattern ``weights`` (B, P): the log-likelihoods (B,), their
    gradients (B, N) and minus their Hessians (B, N, N).  Breslow ties; a team's utility is the sum."""
    nb, n = theta.shape
    ll, grad, info = np.zeros(nb), np.zeros((nb, n)), np.zeros((nb, n, n))
    for b in pt.blocks:
        npat, k = b.start.shape
        w = weights[:, b.pattern]                                       # (B, P)
        a2 = b.members.reshape(npat * k, n)                             # (P*k, N)
        u, e, d = _risk_sets(theta, b)
        ll += np.einsum("bp,bp->b", w, (u - np.log(d)).sum(axis=2))
        c = np.cumsum(1.0 / d, axis=2).reshape(nb, -1)[:, b.end_flat]    # sum of 1/D over terms, l at risk
        ec = w.repeat(k, axis=1) * e.reshape(nb, -1) * c                # (B, P*k)
        grad += (w.repeat(k, axis=1) - ec) @ a2
        ea = e.reshape(nb, -1)[:, :, None] * a2                         # (B, P*k, N)
        tail_a = np.cumsum(ea.reshape(nb, npat, k, n)[:, :, ::-1], axis=2)[:, :, ::-1].reshape(nb, -1, n)
        q = tail_a[:, b.start_flat] / d.reshape(nb, -1)[:, :, None]     # (B, P*k, N)
        info += np.matmul((ec[:, :, None] * a2).transpose(0, 2, 1), a2)
        info -= np.matmul((w.repeat(k, axis=1)[:, :, None] * q).transpose(0, 2, 1), q)
    return ll, grad, info


def fit_pl(pt: Patterns, weights: np.ndarray, start: np.ndarray | None = None) -> np.ndarray:
    """Maximum a-posteriori Plackett-Luce log-strengths, centred, by Newton's method.

    ``weights`` is one weight per pattern (P,), or a batch (B, P) fitted together (then (B, N) out).
    """
    single = weights.ndim == 1
    wb = weights[None] if single else weights
    n = len(pt.names)
    theta = np.zeros((len(wb), n)) if start is None else np.broadcast_to(start, (len(wb), n)).copy()
    eye = PRIOR * np.eye(n)
    for _ in range(100):
        ll, grad, info = _newton_terms(theta, pt, wb)
        step = np.linalg.solve(info + eye, (grad - PRIOR * theta)[:, :, None])[:, :, 0]
        # Damped: a row whose full step lowers its log-posterior halves it until it does not.  An
        # undamped step overshoots on a bootstrap sample that nearly separates the entrants (a few
        # boards of a game where one entrant won them all): it swung by hundreds and ended in NaN.
        obj = ll - 0.5 * PRIOR * (theta * theta).sum(axis=1)
        t = np.ones(len(wb))
        for _ in range(60):
            cand = theta + t[:, None] * step
            got = _log_posterior(cand, pt, wb)
            bad = ~(got >= obj - 1e-9 * (1.0 + np.abs(obj)))
            if not bad.any():
                break
            t = np.where(bad, t * 0.5, t)
        moved = t[:, None] * step
        theta += moved
        if np.abs(moved).max() < 1e-9:
            break
    out: np.ndarray = theta - theta.mean(axis=1, keepdims=True)
    return out[0] if single else out


def _log_posterior(theta: np.ndarray, pt: Patterns, weights: np.ndarray) -> np.ndarray:
    """Each row's log-likelihood plus the Gaussian prior's log-density (up to a constant); -inf
    where a far step underflows a risk-set sum (such a step is then halved, never taken)."""
    ll = np.zeros(theta.shape[0])
    with np.errstate(divide="ignore", invalid="ignore", over="ignore"):
        for b in pt.blocks:
            u, _, d = _risk_sets(theta, b)
            ll += np.einsum("bp,bp->b", weights[:, b.pattern], (u - np.log(d)).sum(axis=2))
    out: np.ndarray = np.where(np.isfinite(ll), ll - 0.5 * PRIOR * (theta * theta).sum(axis=1), -np.inf)
    return out


def h2h_scores(pt: Patterns, weights: np.ndarray) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """(wins, ties, share) matrices for pattern ``weights``; share = (wins + ties/2) / games."""
    n = len(pt.names)
    wins = (pt.pair_wins.T @ weights).reshape(n, n)
    ties = (pt.pair_ties.T @ weights).reshape(n, n)
    games = wins + wins.T + ties
    with np.errstate(invalid="ignore", divide="ignore"):
        share = np.where(games > 0, (wins + 0.5 * ties) / games, np.nan)
    return wins, ties, share


Z95 = 1.959963984540054
"""The standard normal's 97.5% quantile (the strength's 95% interval is ``theta +- Z95 * se``)."""


def strength_cov(pt: Patterns, theta: np.ndarray) -> np.ndarray:
    """The covariance of the centred log-strengths ``theta`` (the fit of ``pt.counts``): a Laplace
    approximation at the fit, made robust to the duplicate groups (a sandwich).

    ``A`` is minus the Hessian of the log-posterior at ``theta`` (the Newton fit's own information
    matrix plus the prior).  Each duplicate group ``g`` adds up the score (the log-likelihood's
    gradient) of its matches, ``s_g``; the spread of those sums, ``M = G/(G-1) sum (s_g - mean)(s_g -
    mean)^T``, is what a bootstrap over whole groups resamples, so correlated rotations count as one
    draw.  ``A^-1 M A^-1`` is then the asymptotic covariance of the group bootstrap's refits, at the
    cost of one fit instead of one per replicate; it is centred as ``theta`` is.  One group: zeros
    (resampling one group says nothing, as the bootstrap's replicates were all the same)."""
    n = len(pt.names)
    per_pattern = np.zeros((len(pt.counts), n))
    t = theta[None]
    for b in pt.blocks:
        npat, k = b.start.shape
        _, e, d = _risk_sets(t, b)
        c = np.cumsum(1.0 / d, axis=2).reshape(1, -1)[:, b.end_flat].reshape(npat, k)
        per_pattern[b.pattern] = np.einsum("pk,pkn->pn", 1.0 - e[0] * c, b.members)
    groups = np.asarray(pt.group_counts @ per_pattern)             # (G, N) each group's score
    ng = groups.shape[0]
    if ng < 2:
        return np.zeros((n, n))
    groups -= groups.mean(axis=0)
    meat = groups.T @ groups * (ng / (ng - 1))
    _, _, info = _newton_terms(t, pt, pt.counts[None])
    bread = np.linalg.inv(info[0] + PRIOR * np.eye(n))
    centre = np.eye(n) - 1.0 / n
    cov: np.ndarray = centre @ bread @ meat @ bread @ centre
    return cov


def group_weights(pt: Patterns, replicates: int, seed: int) -> np.ndarray:
    """Pattern weights (replicates, P) of a bootstrap over whole duplicate groups (each replicate
    draws the groups with replacement)."""
    rng = np.random.default_rng(seed)
    ng = pt.group_counts.shape[0]
    gw = rng.multinomial(ng, np.full(ng, 1.0 / ng), size=replicates).astype(float)
    return np.asarray((pt.group_counts.T @ gw.T).T).reshape(replicates, len(pt.counts))


def bootstrap_fits(pt: Patterns, theta: np.ndarray, replicates: int, seed: int) -> np.ndarray:
    """The fits (replicates, N) of a bootstrap over whole duplicate groups, warm-started at ``theta``,
    ``BATCH`` replicates at a time.  Its cost follows replicates x patterns x entrants^2 (``rank``
    shows :func:`strength_cov`'s interval instead; the ladder's placement needs the replicates)."""
    wb = group_weights(pt, replicates, seed)
    boots = np.empty((replicates, len(pt.names)))
    for a in range(0, replicates, BATCH):
        boots[a:a + BATCH] = fit_pl(pt, wb[a:a + BATCH], start=theta)
    return boots


# ------------------------------------------------------------------------------------------ boards
def board(scope: str, matches: list[MatchRec], bootstrap: int = 200, seed: int = 0,
          openskill: dict[str, tuple[float, float]] | None = None, with_scores: bool = True) -> Board:
    """The leaderboard of ``matches`` (one game, or several for ``overall``)."""
    if not matches:
        return Board(scope, 0, [])
    pt = build_patterns(matches)
    names = pt.names
    n = len(names)
    theta = fit_pl(pt, pt.counts)
    cov = strength_cov(pt, theta)
    half = Z95 * np.sqrt(np.diag(cov))
    lo, hi = theta - half, theta + half
    wb = group_weights(pt, bootstrap, seed)
    wins_b = np.asarray((pt.pair_wins.T @ wb.T).T).reshape(bootstrap, n, n)
    ties_b = np.asarray((pt.pair_ties.T @ wb.T).T).reshape(bootstrap, n, n)
    games_b = wins_b + wins_b.transpose(0, 2, 1) + ties_b
    with np.errstate(invalid="ignore", divide="ignore"):
        shares = np.where(games_b > 0, (wins_b + 0.5 * ties_b) / games_b, np.nan)
    os_r = openskill if openskill is not None else openskill_ratings(matches)
    place_sum: dict[str, float] = defaultdict(float)
    score_sum: dict[str, float] = defaultdict(float)
    seats: dict[str, int] = defaultdict(int)
    played: dict[str, int] = defaultdict(int)
    for m in matches:
        bots = m.bots
        for lab, r, sc in zip(bots, m.ranking, m.scores, strict=True):
            place_sum[lab] += r
            score_sum[lab] += sc
            seats[lab] += 1
        for lab in (bots if len(set(bots)) == len(bots) else set(bots)):
            played[lab] += 1
    entrants = []
    for i, nm in enumerate(names):
        mu, sigma = os_r.get(nm, (math.nan, math.nan))
        entrants.append(Entrant(nm, played[nm], place_sum[nm] / seats[nm],
                                score_sum[nm] / seats[nm] if with_scores else None,
                                mu, sigma, mu - 3 * sigma, float(theta[i]), float(lo[i]), float(hi[i])))
    order = sorted(range(n), key=lambda i: -theta[i])
    entrants = [entrants[i] for i in order]
    for a, b in itertools.pairwise(order):
        gap = Z95 * math.sqrt(max(cov[a, a] + cov[b, b] - 2 * cov[a, b], 0.0))
        entrants[order.index(a)].tied_with_next = bool(theta[a] - theta[b] <= gap)
    wins, ties, share = h2h_scores(pt, pt.counts)
    h2h = []
    for x, i in enumerate(order):
        for j in order[x + 1:]:
            g = wins[i, j] + wins[j, i] + ties[i, j]
            if g == 0:
                continue
            col = shares[:, i, j]
            col = col[~np.isnan(col)]
            slo, shi = (np.percentile(col, [2.5, 97.5]) if col.size else (0.0, 1.0))
            h2h.append(HeadToHead(names[i], names[j], int(wins[i, j]), int(wins[j, i]), int(ties[i, j]),
                                  float(share[i, j]), float(slo), float(shi)))
    return Board(scope, len(matches), entrants, h2h)


_WORK: dict[str, list[MatchRec]] = {}
"""The matches of each scope, set before forking the workers of :func:`rank` (inherited, not pickled)."""


def _scope_task(args: tuple[str, int, int]) -> tuple[Board, dict[str, tuple[float, float]]]:
    scope, bootstrap, seed = args
    matches = _WORK[scope]
    if scope == OVERALL:
        return board(scope, matches, bootstrap, seed, openskill={}, with_scores=False), {}
    os_r = openskill_ratings(matches)
    return board(scope, matches, bootstrap, seed, os_r), os_r


OVERALL = "overall"
PARALLEL_FROM = 2000
"""Matches from which :func:`rank` spreads the games over worker processes."""


def rank(log: TournamentLog, game: str | None = None, bootstrap: int = 200, seed: int = 0,
         workers: int | None = None) -> list[Board]:
    """Leaderboards: one per game (or only ``game``), then ``overall`` when there are several games.

    Each board is in the order of the headline score (:mod:`tournaments.analysis.leaderboard`, the
    numbers every surface shows, with its interval and ``~``); the Plackett-Luce strength and openskill
    are beside it.  The overall board holds the entrants and games the headline ranks over (every
    ranked entrant played each of those games), the others in ``apart``.
    Games (and the overall board) are computed in ``workers`` forked processes when the log is big."""
    from tournaments.analysis.leaderboard import Result, champions, headlines, specialised
    matches = load_matches(log, game)
    heads = headlines([Result(m.game, m.group_id, m.bots, m.teams, m.ranking) for m in matches],
                      bootstrap=bootstrap, seed=seed)
    by_game: dict[str, list[MatchRec]] = defaultdict(list)
    for m in matches:
        by_game[m.game].append(m)
    scopes = sorted(by_game, key=lambda g: -len(by_game[g]))
    work = dict(by_game)
    if OVERALL in heads:
        common = set(heads[OVERALL].games)
        work[OVERALL] = [m for m in matches if m.game in common]
        scopes.insert(0, OVERALL)
    tasks = [(sc, bootstrap, seed) for sc in scopes]
    n = workers if workers is not None else min(os.cpu_count() or 1, len(tasks))
    _WORK.clear()
    _WORK.update(work)
    try:
        if n > 1 and len(matches) >= PARALLEL_FROM and "fork" in mp.get_all_start_methods():
            with ProcessPoolExecutor(max_workers=n, mp_context=mp.get_context("fork")) as pool:
                results = dict(zip(scopes, pool.map(_scope_task, tasks), strict=True))
        else:
            results = {sc: _scope_task(t) for sc, t in zip(scopes, tasks, strict=True)}
    finally:
        _WORK.clear()
    boards = [results[g][0] for g in sorted(by_game)]
    if OVERALL in results:
        combined: dict[str, list[tuple[float, float]]] = defaultdict(list)
        for g in heads[OVERALL].games:
            for k, v in results[g][1].items():
                combined[k].append(v)
        overall = results[OVERALL][0]
        for e in overall.entrants:
            per_game = combined[e.name]
            e.mu = sum(mu for mu, _ in per_game) / len(per_game)
            e.sigma = math.sqrt(sum(sg * sg for _, sg in per_game)) / len(per_game)
            e.ordinal = e.mu - 3 * e.sigma
        boards.append(overall)
    for b in boards:
        _headline_order(b, heads[b.scope])
    if OVERALL in heads:
        boards[-1].champions = [c.to_json() for c in champions(heads)]
        boards[-1].specialised = specialised(heads)
    return boards


def _headline_order(b: Board, head: Any) -> None:
    """Put board ``b`` in the order of its headline ``head``, with its scores, intervals and ``~``;
    on the overall board only the ranked entrants stay (the others go to ``apart``)."""
    by_name = {e.name: e for e in b.entrants}
    out = []
    for s in head.standings:
        e = by_name[s.bot]
        e.score, e.score_lo, e.score_hi, e.tied_with_next = s.score, s.lo, s.hi, s.tied
        out.append(e)
    b.entrants = out
    b.games, b.lower_score_wins, b.note = list(head.games), head.lower_score_wins, head.note()
    b.apart = [{"bot": a.bot, "games": a.games} for a in head.apart]
    ranked = {e.name for e in out}
    b.h2h = [h for h in b.h2h if h.a in ranked and h.b in ranked]
