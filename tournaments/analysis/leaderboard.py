"""The headline ranking: one computation for every surface (``tournament run``, ``tournament
leaderboard``, ``rank`` and the dashboard print these numbers and no other headline).

**Score.** A seat's score in a match is the share of its opponents (the seats not on its team) that
it placed above, a tie counting half: 1 = it beat everyone, 0 = last, 0.5 = as good as the field.
In a partnership game that is 1 for a win, 0.5 for a tie, 0 for a loss.  An entrant's score in a
game is the mean over its seats in that game; its **overall** score is the mean of its per-game
scores (every game weighs the same, however many seats or matches it has).  A faulting seat is
placed last by the engine's forfeit rule, so it scores 0 against everyone.

Why this metric: it reads without a model (a share of opponents beaten), it is on one scale in
every game whatever the seat count or the score sheet's units and direction, and it is exactly what
the head-to-head shares add up to.  The Plackett-Luce strength and openskill of
:mod:`tournaments.analysis.ratings` stay beside it as models of the same placements (``rank``).

**95% interval.** A percentile bootstrap over duplicate groups (``group_id``: the rotations of one
seating over one board move together), resampled within each game, ``BOOTSTRAP`` replicates from
``SEED``: the same defaults everywhere, so every surface prints the same interval.  ``tied`` marks an
entrant whose bootstrap 95% interval of the score difference to the next one holds 0 (JSON); the
tables show :func:`rank_labels`, a rank interval, which unlike a chain of ties never puts entrants
with disjoint intervals on one rank.

**Where entrants met.** A per-game board ranks everyone who played that game.  The overall board
ranks entrants over one set of games that each of them played: of the candidate sets (each
entrant's own games, and the games every entrant played) the one covering the most (entrant, game)
cells, then the most games (a set that ranks at least two entrants first).  Entrants that did not
play every game of that set are listed apart with the games they played (``entered only:
hartenjagen``), never ranked against the others.

**When entrants specialise** (the overall board leaves some entrant apart: organisers who run one
tournament per game into one directory, specialists entering only their games), the per-game boards
are the headline: :func:`champions` names each game's first place (every entrant whose rank
interval holds first), and every surface shows that view before the boards.  When no two entrants
played one set of games there is no overall board, and the surfaces say so (:data:`NO_OVERALL`).
"""
from __future__ import annotations

import itertools
from collections import defaultdict
from collections.abc import Iterable, Sequence
from dataclasses import dataclass, field
from typing import Any

import numpy as np

BOOTSTRAP = 200
"""Bootstrap replicates of the 95% intervals (every surface's default)."""
SEED = 0
"""Seed of the bootstrap (every surface's default)."""
OVERALL = "overall"
METRIC = ("score: share of opponents placed below (ties half; partnership: 1 win, 0 loss), a faulting "
          "seat placed last; 95% interval: bootstrap over duplicate boards")
"""The one-line legend every text surface prints under its board."""
HUMAN_REF = "human@local"
"""``matches.bot_refs`` of a seat a person played (``cardarena play GAME --human SEAT --out DIR``).  A
match with a human seat is logged like any other and never ranked: :func:`ranked_match` leaves it out
of every board (``rank``, ``tournament leaderboard``, the report)."""


def ranked_match(bot_refs: Sequence[str] | None) -> bool:
    """Whether a logged match counts on the boards: not when a person played one of its seats.

    >>> ranked_match(["greedy", "random"]), ranked_match(["human@local", "greedy"])
    (True, False)
    """
    return HUMAN_REF not in (bot_refs or ())


@dataclass(frozen=True)
class Result:
    """One match as the headline needs it."""

    game: str
    group_id: str
    bots: Sequence[str]
    teams: Sequence[int]
    ranking: Sequence[int]


@dataclass
class Standing:
    bot: str
    matches: int
    score: float
    lo: float | None
    hi: float | None
    """The 95% interval; None where it cannot be estimated (a game of the board with one duplicate
    group, or no bootstrap)."""
    mean_place: float
    games: dict[str, float]
    """The entrant's score in each game of the board."""
    tied: bool = False
    """Not significantly ahead of the next entrant (the difference's 95% interval holds 0)."""


@dataclass
class Apart:
    """An entrant of the tournament left out of the overall ranking: it did not play all its games."""

    bot: str
    games: dict[str, float]
    """Its score in each game it played."""


@dataclass
class Headline:
    scope: str
    """A game id, or ``overall``."""
    games: list[str]
    """The games the board ranks over."""
    matches: int
    standings: list[Standing]
    apart: list[Apart] = field(default_factory=list)
    lower_score_wins: bool | None = None
    """A game's board: its score sheet's direction (the game's declaration); None: overall or unknown."""

    def to_json(self) -> dict[str, Any]:
        return {"scope": self.scope, "games": self.games, "matches": self.matches,
                "lower_score_wins": self.lower_score_wins,
                "standings": [vars(s) for s in self.standings], "apart": [vars(a) for a in self.apart]}

    def by_bot(self, bot: str) -> Standing:
        return next(s for s in self.standings if s.bot == bot)

    def note(self) -> str:
        """What the board compares, in one line."""
        if self.scope != OVERALL:
            d = self.lower_score_wins
            return ("" if d is None else
                    f"{self.scope}'s score sheet: {'lower' if d else 'higher'} is better")
        out = (f"overall: the mean of the per-game scores over the {len(self.games)} game(s) every ranked "
               "entrant played")
        if self.apart:
            out += "; not ranked overall (they did not play all of those games): " + "; ".join(
                f"{a.bot} (entered only: {', '.join(sorted(a.games))})" for a in self.apart)
        return out


@dataclass(frozen=True)
class Champion:
    """One game's first place, as the per-game champions view shows it."""

    game: str
    leaders: list[str]
    """The entrants whose rank interval holds first place (:func:`rank_labels`), best score first:
    one when first place is settled, several when their intervals overlap the leader's."""
    score: float
    """The best score of the game's board."""
    lo: float | None
    hi: float | None
    entrants: int
    """How many entrants the game's board ranks."""
    matches: int

    def to_json(self) -> dict[str, Any]:
        return vars(self).copy()


def champions(boards: dict[str, Headline]) -> list[Champion]:
    """Each game's first place (the per-game champions view): the headline when entrants specialise,
    i.e. when the overall board leaves some entrant apart (:func:`specialised`).  Games in the order
    of ``boards``' keys, ``overall`` skipped."""
    out = []
    for g, b in boards.items():
        if g == OVERALL or not b.standings:
            continue
        labels = rank_labels([(s.lo, s.hi) for s in b.standings])
        leaders = [s.bot for s, lab in zip(b.standings, labels, strict=True) if lab.split("-")[0] == "1"]
        top = b.standings[0]
        out.append(Champion(g, leaders, top.score, top.lo, top.hi, len(b.standings), b.matches))
    return out


def specialised(boards: dict[str, Headline]) -> bool:
    """Entrants specialise: the overall board leaves some entrant apart (it did not play every game
    of the board), so the per-game boards and :func:`champions` are the headline."""
    ov = boards.get(OVERALL)
    return ov is not None and bool(ov.apart)


NO_OVERALL = ("no overall board: the entrants did not meet over a common set of games (two entrants or "
              "more, over two games or more), so no overall score compares them; the per-game boards and "
              "their champions are the result")
"""What every surface says in place of an overall board that would compare nobody (:func:`no_overall`)."""


def no_overall(games: Sequence[str], ranked: int, apart: int) -> bool:
    """No overall board is shown: it would rank fewer than two entrants, or, with entrants left apart,
    over a single game (it would only repeat that game's board)."""
    return ranked < 2 or (apart > 0 and len(games) < 2)


def no_overall_text(note: str) -> str:
    """:data:`NO_OVERALL`, then the board's note (who entered only which games)."""
    rest = note.split("; not ranked overall", 1)
    return NO_OVERALL + (" (" + rest[1].split(": ", 1)[1] + ")" if len(rest) == 2 else "")


RANK_LEGEND = ("#: the ranks the score's 95% interval allows (1-2: first or second; entrants share a rank "
               "only when their intervals overlap)")
"""How every surface explains :func:`rank_labels`."""


def rank_labels(intervals: Sequence[tuple[float | None, float | None]]) -> list[str]:
    """The rank of each entrant of a board (in the board's order, best first) as the interval of
    ranks its score's 95% interval allows: ``best-worst``, or one number when it is settled.

    Best: one more than the entrants whose interval lies wholly above this one's; worst: the board's
    size less the entrants wholly below.  Two entrants share a rank only when their intervals
    overlap, so disjoint intervals never share first place (``0.75-1.00`` and ``0.00-0.25`` rank
    ``1-2`` and ``3-4`` among four, not all ``1~``).  An entrant without an interval (one duplicate
    group) is at its position.

    >>> rank_labels([(0.75, 1.0), (0.7, 0.9), (0.0, 0.25), (0.05, 0.2)])
    ['1-2', '1-2', '3-4', '3-4']
    >>> rank_labels([(0.8, 0.9), (0.5, 0.6), (0.1, 0.2)])
    ['1', '2', '3']
    >>> rank_labels([(None, None), (None, None)])     # one duplicate group: no intervals
    ['1', '2']
    """
    n = len(intervals)
    out = []
    for i, (lo, hi) in enumerate(intervals):
        if lo is None or hi is None:
            out.append(str(i + 1))
            continue
        above = sum(1 for olo, _ in intervals if olo is not None and olo > hi)
        below = sum(1 for _, ohi in intervals if ohi is not None and ohi < lo)
        best, worst = above + 1, n - below
        out.append(str(best) if best == worst else f"{best}-{worst}")
    return out


def seat_scores(bots: Sequence[str], teams: Sequence[int], ranking: Sequence[int]) -> list[float | None]:
    """Each seat's share of opponents placed below (ties half); None for a seat with no opponent."""
    out: list[float | None] = []
    for seat in range(len(bots)):
        opp = [o for o in range(len(bots)) if teams[o] != teams[seat]]
        if not opp:
            out.append(None)
            continue
        r = ranking[seat]
        out.append(sum(1.0 if r < ranking[o] else 0.5 if r == ranking[o] else 0.0 for o in opp) / len(opp))
    return out


def lower_score_wins(game: str) -> bool | None:
    """The game's declared score direction (``Game.lower_score_wins``); None for an unknown game."""
    from engine.core import GAMES, game_class
    return bool(game_class(game).lower_score_wins) if game in GAMES else None


@dataclass
class _Game:
    """One game's sums per (duplicate group, entrant), groups sorted by id."""

    groups: list[str]
    score: np.ndarray  # (G, N) sum of seat scores
    seats: np.ndarray  # (G, N) seats with a score
    place: np.ndarray  # (N,) sum of places
    places: np.ndarray  # (N,) seats
    matches: np.ndarray  # (N,) matches with a seat of the entrant
    count: int


def _collect(results: Iterable[Result], names: list[str]) -> dict[str, _Game]:
    idx = {n: i for i, n in enumerate(names)}
    n = len(names)
    per: dict[str, dict[str, list[tuple[int, float]]]] = defaultdict(lambda: defaultdict(list))
    place: dict[str, np.ndarray] = defaultdict(lambda: np.zeros(n))
    places: dict[str, np.ndarray] = defaultdict(lambda: np.zeros(n))
    matches: dict[str, np.ndarray] = defaultdict(lambda: np.zeros(n))
    count: dict[str, int] = defaultdict(int)
    for r in results:
        cell = per[r.game][r.group_id]
        count[r.game] += 1
        for b, s in zip(r.bots, seat_scores(r.bots, r.teams, r.ranking), strict=True):
            if s is not None:
                cell.append((idx[b], s))
        for b, p in zip(r.bots, r.ranking, strict=True):
            place[r.game][idx[b]] += p
            places[r.game][idx[b]] += 1
        for b in set(r.bots):
            matches[r.game][idx[b]] += 1
    out = {}
    for g, groups in per.items():
        keys = sorted(groups)
        sc, st = np.zeros((len(keys), n)), np.zeros((len(keys), n))
        for k, key in enumerate(keys):
            for i, s in groups[key]:
                sc[k, i] += s
                st[k, i] += 1
        out[g] = _Game(keys, sc, st, place[g], places[g], matches[g], count[g])
    return out


def _pick_games(played: dict[str, set[str]]) -> tuple[list[str], list[str]]:
    """(games, ranked entrants) of the overall board: see the module's "Where entrants met"."""
    every = set.intersection(*played.values()) if played else set()
    candidates = {frozenset(s) for s in played.values()} | ({frozenset(every)} if every else set())
    best: tuple[int, int, int, list[str]] | None = None
    chosen: frozenset[str] = frozenset()
    for c in sorted(candidates, key=sorted):
        n_ranked = sum(1 for s in played.values() if c <= s)
        # a set that ranks two entrants or more beats one that ranks a lone entrant, however many
        # games the lone one played: a board of one compares nobody
        key = (int(n_ranked >= 2), n_ranked * len(c), len(c), sorted(c))
        if best is None or key[:3] > best[:3]:
            best, chosen = key, c
    ranked = sorted(b for b, s in played.items() if chosen <= s)
    return sorted(chosen), ranked


def headlines(results: Sequence[Result], bootstrap: int = BOOTSTRAP, seed: int = SEED,
              game: str | None = None) -> dict[str, Headline]:
    """The boards of ``results``: one per game (or only ``game``), and ``overall`` when there are
    several games.  The same inputs give the same numbers, whatever order the matches come in."""
    if game is not None:
        results = [r for r in results if r.game == game]
    if not results:
        return {}
    # a canonical order: float sums then do not depend on the order the matches were read in
    results = sorted(results, key=lambda r: (r.game, r.group_id, list(r.bots), list(r.ranking),
                                             list(r.teams)))
    names = sorted({b for r in results for b in r.bots})
    data = _collect(results, names)
    rng = np.random.default_rng(seed)
    # one set of bootstrap weights per game, drawn in game order: every board of a game shares them
    weights = {g: rng.multinomial(len(d.groups), np.full(len(d.groups), 1.0 / len(d.groups)),
                                  size=bootstrap).astype(float) for g, d in sorted(data.items())}
    boards: dict[str, Headline] = {}
    for g in sorted(data):
        who = [i for i in range(len(names)) if data[g].matches[i] > 0]
        boards[g] = _board(g, [g], [names[i] for i in who], who, data, weights, bootstrap)
        boards[g].lower_score_wins = lower_score_wins(g)
    if len(data) > 1:
        played = {names[i]: {g for g, d in data.items() if d.matches[i] > 0} for i in range(len(names))}
        games, ranked = _pick_games(played)
        who = [names.index(b) for b in ranked]
        ov = _board(OVERALL, games, ranked, who, data, weights, bootstrap)
        ov.apart = [Apart(b, {g: boards[g].by_bot(b).score for g in sorted(played[b])})
                    for b in names if b not in ranked]
        boards[OVERALL] = ov
    return boards


def _board(scope: str, games: list[str], bots: list[str], who: list[int], data: dict[str, _Game],
           weights: dict[str, np.ndarray], bootstrap: int) -> Headline:
    per = np.zeros((len(games), len(who)))            # per-game scores
    boot = np.zeros((len(games), bootstrap, len(who)))
    for k, g in enumerate(games):
        d = data[g]
        sc, st = d.score[:, who], d.seats[:, who]
        with np.errstate(invalid="ignore", divide="ignore"):
            per[k] = sc.sum(axis=0) / st.sum(axis=0)
            w = weights[g]
            boot[k] = (w @ sc) / (w @ st)
    score = per.mean(axis=0)
    reps = boot.mean(axis=0)                          # (B, N): nan where a replicate lost an entrant
    if min(len(data[g].groups) for g in games) < 2:   # one group: resampling it says nothing
        reps[:] = np.nan
    standings = []
    for j, i in enumerate(who):
        col = reps[:, j][~np.isnan(reps[:, j])] if bootstrap else np.array([])
        lo, hi = (float(x) for x in np.percentile(col, [2.5, 97.5])) if col.size else (None, None)
        place = sum(data[g].place[i] for g in games) / sum(data[g].places[i] for g in games)
        standings.append(Standing(bots[j], int(sum(data[g].matches[i] for g in games)), float(score[j]),
                                  lo, hi, float(place),
                                  {g: float(per[k, j]) for k, g in enumerate(games)}))
    order = sorted(range(len(who)), key=lambda j: (-score[j], bots[j]))
    for a, b in itertools.pairwise(order):
        diff = reps[:, a] - reps[:, b]
        diff = diff[~np.isnan(diff)]
        if diff.size:
            dlo, dhi = np.percentile(diff, [2.5, 97.5])
            standings[a].tied = bool(dlo <= 0 <= dhi)
        else:
            standings[a].tied = True
    return Headline(scope, games, sum(data[g].count for g in games), [standings[j] for j in order])
