"""The public board: the order-free batch fit, so neither short memory nor the order of games moves a
place.

Per game and overall, the Plackett-Luce maximum a-posteriori log-strengths of
:mod:`tournaments.analysis.ratings` (``build_patterns`` + ``fit_pl``: a team's utility is the sum of
its members', ties by Breslow) over every committed, rated group's matches, with a group bootstrap
(whole duplicate groups resampled with replacement): each version's 95% interval (``lo95``..``hi95``)
and its 95% rank interval (``rank_lo``..``rank_hi``, the 2.5% and 97.5% points of its rank over the
replicates).  :func:`prob_ahead` is the bootstrap's P(a > b), the settlement's stop rule.
"""
from __future__ import annotations

import math
from collections.abc import Sequence
from dataclasses import dataclass

import numpy as np

from tournaments.analysis.ratings import MatchRec, bootstrap_fits, build_patterns, fit_pl


@dataclass
class Fit:
    names: list[str]
    theta: np.ndarray
    boots: np.ndarray
    """(B, N) bootstrap replicates (B may be 0)."""

    def index(self, name: str) -> int:
        return self.names.index(name)

    def order(self) -> list[int]:
        return sorted(range(len(self.names)), key=lambda i: (-self.theta[i], self.names[i]))

    def rows(self) -> list[dict[str, float | int | str]]:
        """By strength: ``ref``, ``strength``, ``lo95``, ``hi95``, ``rank``, ``rank_lo``, ``rank_hi``."""
        order = self.order()
        n = len(self.names)
        if len(self.boots):
            lo, hi = np.percentile(self.boots, [2.5, 97.5], axis=0)
            ranks = (-self.boots).argsort(axis=1).argsort(axis=1) + 1   # (B, N): each replicate's ranks
            rlo, rhi = np.percentile(ranks, [2.5, 97.5], axis=0)
        else:
            lo, hi = self.theta, self.theta
            rlo = rhi = np.arange(1, n + 1, dtype=float)[np.argsort(order)]
        out: list[dict[str, float | int | str]] = []
        for place, i in enumerate(order, 1):
            out.append({"ref": self.names[i], "strength": float(self.theta[i]), "lo95": float(lo[i]),
                        "hi95": float(hi[i]), "rank": place, "rank_lo": math.floor(rlo[i]),
                        "rank_hi": math.ceil(rhi[i])})
        return out


def fit(records: Sequence[MatchRec], bootstrap: int, seed: int = 0) -> Fit:
    """The batch fit of ``records`` (matches; ``group_id`` groups them for the bootstrap)."""
    pt = build_patterns(list(records))
    theta = fit_pl(pt, pt.counts)
    n = len(pt.names)
    boots = np.empty((0, n))
    if bootstrap and n > 1:
        boots = bootstrap_fits(pt, theta, bootstrap, seed)
    return Fit(pt.names, theta, boots)


def prob_ahead(f: Fit, a: str, b: str) -> float:
    """The bootstrap's P(strength of ``a`` > strength of ``b``) (the point estimate's order when the
    fit has no replicates)."""
    i, j = f.index(a), f.index(b)
    if not len(f.boots):
        return 1.0 if f.theta[i] > f.theta[j] else 0.0
    return float(np.mean(f.boots[:, i] > f.boots[:, j]))


def shared_places(f: Fit, confidence: float) -> list[tuple[str, int]]:
    """(name, place) by strength: a version's place is 1 + the number of versions ahead of it with
    bootstrap P >= ``confidence``, so versions whose order the fit does not give share a place
    (1, 1, 3) while a clearly weaker one never shares the first place through a chain of neighbours."""
    order = f.order()
    out = []
    for i in order:
        ahead = sum(1 for j in order if j != i and prob_ahead(f, f.names[j], f.names[i]) >= confidence)
        out.append((f.names[i], 1 + ahead))
    return sorted(out, key=lambda x: (x[1], order.index(f.names.index(x[0]))))
