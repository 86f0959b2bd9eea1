"""The fast rating layer: openskill Plackett-Luce, one update per committed duplicate group.

The units of a group (the versions, or the teams of a partnership game) are ranked by their summed
placement over the group's rotations (``matches.ranking``, after forfeits): ranks, never score
margins.  Ratings are kept per (game, version); a version's online rating overall is the mean over
the games it has played.

Only openskill's public API is used (``PlackettLuce(...)``, ``model.rating``, ``model.rate`` with
``ranks``), so a version bump cannot break it silently; the version is pinned in pyproject.toml and
written in every row.  Two traps of ``rate()`` are avoided by construction and tested:

* ``rate(..., tau=0)`` silently uses the model's tau (``tau if tau else self.tau``): tau is given to
  the model's constructor only, and never passed to ``rate``;
* ``rate(..., limit_sigma=...)`` sets ``model.limit_sigma`` for every later call: never passed, and
  the model's settings are checked before each update (:class:`ModelDrift`).

The online state is a pure function of the committed log: :func:`replay` rebuilds it from the
groups and their committed matches, in group order (``seq``), and gives the same rows, float for
float, as the ones stored while the ladder ran.
"""
from __future__ import annotations

import math
from collections.abc import Iterable, Sequence
from dataclasses import dataclass, field
from importlib.metadata import version
from typing import Any

OPENSKILL_VERSION = version("openskill")
MODEL = "PlackettLuce"


class ModelDrift(RuntimeError):
    """The openskill model's settings changed under us (another caller passed ``limit_sigma``)."""


@dataclass(frozen=True)
class Params:
    mu: float = 25.0
    sigma: float = 25.0 / 3.0
    beta: float = 25.0 / 6.0
    tau: float = 0.05
    kappa: float = 0.0001
    limit_sigma: bool = False


@dataclass(frozen=True)
class Outcome:
    """A rated group: its units (version labels of each unit) and each unit's rank (1 best, ties
    share)."""

    group_id: str
    game: str
    units: tuple[tuple[str, ...], ...]
    ranks: tuple[int, ...]


def group_outcome(group_id: str, game: str, matches: Sequence[dict[str, Any]]) -> Outcome:
    """Rank the units of a group by their summed placement over its matches (``bots``, ``teams``,
    ``ranking`` of each); partners (one team) are one unit."""
    first = matches[0]
    by_team: dict[int, list[str]] = {}
    for seat, t in enumerate(first["teams"]):
        by_team.setdefault(int(t), []).append(first["bots"][seat])
    units = sorted(tuple(sorted(labels)) for labels in by_team.values())
    unit_of = {lab: i for i, u in enumerate(units) for lab in u}
    total = [0] * len(units)
    for m in matches:
        best: dict[int, int] = {}
        for lab, place in zip(m["bots"], m["ranking"], strict=True):
            u = unit_of[lab]
            best[u] = min(best.get(u, place), int(place))
        for u, p in best.items():
            total[u] += p
    ranks = tuple(1 + sum(1 for o in total if o < t) for t in total)
    return Outcome(group_id, game, tuple(units), ranks)


@dataclass(frozen=True)
class RatingRow:
    """A row of ``ratings_online``: one version's update by one group."""

    group_id: str
    seq: int
    """The update's number (1, 2, ...): the online-rating sequence."""
    game: str
    ref: str
    rank: int
    mu_before: float
    sigma_before: float
    mu_after: float
    sigma_after: float


@dataclass
class OnlineRatings:
    """(game, version) -> (mu, sigma), updated group by group with openskill's public ``rate``."""

    params: Params = field(default_factory=Params)
    ratings: dict[tuple[str, str], tuple[float, float]] = field(default_factory=dict)
    seq: int = 0
    rated: set[str] = field(default_factory=set)

    def __post_init__(self) -> None:
        from openskill.models import PlackettLuce

        p = self.params
        self.model = PlackettLuce(mu=p.mu, sigma=p.sigma, beta=p.beta, kappa=p.kappa, tau=p.tau,
                                  limit_sigma=p.limit_sigma)

    def copy(self) -> OnlineRatings:
        """An independent copy (the same settings; ratings, sequence and rated groups copied)."""
        return OnlineRatings(self.params, dict(self.ratings), self.seq, set(self.rated))

    def get(self, game: str, ref: str) -> tuple[float, float]:
        return self.ratings.get((game, ref), (self.params.mu, self.params.sigma))

    def overall(self, ref: str) -> tuple[float, float]:
        """The mean (mu, sigma) over the games ``ref`` has a rating in (the prior if none)."""
        got = [v for (g, r), v in self.ratings.items() if r == ref]
        if not got:
            return self.params.mu, self.params.sigma
        return (sum(m for m, _ in got) / len(got),
                math.sqrt(sum(s * s for _, s in got)) / len(got))

    def _check_model(self) -> None:
        p, m = self.params, self.model
        if float(m.tau) != p.tau or bool(m.limit_sigma) != p.limit_sigma:
            raise ModelDrift(f"openskill model changed: tau {m.tau} (want {p.tau}), limit_sigma "
                             f"{m.limit_sigma} (want {p.limit_sigma})")

    def _rating(self, game: str, ref: str) -> Any:
        mu, sigma = self.get(game, ref)
        return self.model.rating(mu=mu, sigma=sigma)

    def update(self, o: Outcome) -> list[RatingRow]:
        """Apply one group; the rows of ``ratings_online`` it makes (one per version)."""
        self._check_model()
        teams = [[self._rating(o.game, lab) for lab in unit] for unit in o.units]
        new = self.model.rate(teams, ranks=[float(r) for r in o.ranks])
        self.seq += 1
        self.rated.add(o.group_id)
        rows = []
        for unit, rank, team in zip(o.units, o.ranks, new, strict=True):
            for lab, r in zip(unit, team, strict=True):
                mu0, s0 = self.get(o.game, lab)
                after = (float(r.mu), float(r.sigma))
                self.ratings[(o.game, lab)] = after
                rows.append(RatingRow(o.group_id, self.seq, o.game, lab, rank, mu0, s0, *after))
        return rows

    def model_fields(self) -> dict[str, Any]:
        p = self.params
        return {"model": MODEL, "openskill": OPENSKILL_VERSION, "tau": p.tau, "mu0": p.mu, "sigma0": p.sigma,
                "beta": p.beta, "kappa": p.kappa, "limit_sigma": p.limit_sigma}


def replay(params: Params, outcomes: Iterable[Outcome]) -> tuple[OnlineRatings, list[RatingRow]]:
    """The online state after ``outcomes`` in order, and every row the updates made."""
    state = OnlineRatings(params)
    rows: list[RatingRow] = []
    for o in outcomes:
        rows += state.update(o)
    return state, rows


# ------------------------------------------------------------------------------------------ information
def _phi_cdf(x: float) -> float:
    return 0.5 * math.erfc(-x / math.sqrt(2.0))


def expected_information(units: Sequence[tuple[float, float]], beta: float,
                         weight: Sequence[Sequence[float]] | None = None) -> float:
    """How much one outcome of a table is expected to teach about the pairwise differences of its
    units, given each unit's (mu, variance): summed over pairs, the expected fall of the variance of
    the difference, ``s^4 I / (1 + s^2 I)`` with ``I = p (1 - p) / c^2`` the Fisher information of
    a probit comparison (``c^2 = s^2 + 2 beta^2``); ``weight[i][j]``, if given, weighs pair (i, j)."""
    total = 0.0
    for i in range(len(units)):
        for j in range(i + 1, len(units)):
            (ma, va), (mb, vb) = units[i], units[j]
            s2 = va + vb
            c2 = s2 + 2.0 * beta * beta
            p = _phi_cdf((ma - mb) / math.sqrt(c2))
            info = p * (1.0 - p) / c2
            w = 1.0 if weight is None else weight[i][j]
            total += w * s2 * s2 * info / (1.0 + s2 * info)
    return total
