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
kept beside its manifest: ``tournaments.log.write_secret``).  The **deal seed** of a match is
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
``seatings`` arrangements per game, a subset of the full schedule (same match ids), chosen greedily and
deterministically from the seed: each next table takes the entrants with the fewest appearances so
far, ties broken by the fewest earlier meetings with the entrants already chosen, then by the seeded
RNG; in a partnership game the split whose partners have met as partners least.  So appearances
differ by at most one between entrants (while the unused combinations allow it), meetings and
partnerships spread evenly, and since every arrangement plays all its rotations, every entrant sits
in every seat equally often.
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

from bots.match import derive_seed
from engine import game_class
from tournaments.spec import GameEntry, Spec, SpecError


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


def rotate(arrangement: Sequence[str], rotation: int) -> tuple[str, ...]:
    """Seats of ``arrangement`` in ``rotation``: entrant ``i`` at seat ``(i + rotation) mod n``.

    >>> rotate(("a", "b", "c", "d"), 1)
    ('d', 'a', 'b', 'c')
    """
    n = len(arrangement)
    return tuple(arrangement[(s - rotation) % n] for s in range(n))


def splits(combo: Sequence[str]) -> list[tuple[str, ...]]:
    """The seatings of a 4-entrant partnership combination, one per split into teams.

    >>> splits(("a", "b", "c", "d"))
    [('a', 'c', 'b', 'd'), ('a', 'b', 'c', 'd'), ('a', 'b', 'd', 'c')]
    """
    a, rest = combo[0], list(combo[1:])
    out: list[tuple[str, ...]] = []
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
    """``count`` distinct arrangements of the full schedule, balancing appearances (module doc)."""
    total = count_arrangements(len(entrants), players, teams)
    if count > total:
        raise ValueError(f"{count} seatings asked but only {total} distinct ones exist")
    order = {e: i for i, e in enumerate(entrants)}
    appear: Counter[str] = Counter()
    meet: Counter[tuple[str, str]] = Counter()
    partners: Counter[tuple[str, str]] = Counter()
    used: set[tuple[str, ...]] = set()
    out: list[tuple[str, ...]] = []

    def pair(a: str, b: str) -> tuple[str, str]:
        return (a, b) if order[a] < order[b] else (b, a)

    def pick_combo(noise: float) -> tuple[str, ...]:
        chosen: list[str] = []
        for _ in range(players):
            best = min((e for e in entrants if e not in chosen),
                       key=lambda e: (appear[e] + noise * rng.random(),
                                      sum(meet[pair(e, c)] for c in chosen), rng.random()))
            chosen.append(best)
        return tuple(sorted(chosen, key=order.__getitem__))

    def candidates(combo: tuple[str, ...]) -> list[tuple[str, ...]]:
        arrs = splits(combo) if teams else [combo]
        free = [a for a in arrs if a not in used]
        return sorted(free, key=lambda a: partners[pair(a[0], a[2])] + partners[pair(a[1], a[3])]
                      if teams else 0)

    while len(out) < count:
        arr: tuple[str, ...] | None = None
        for attempt in range(200):
            free = candidates(pick_combo(noise=attempt / 20))
            if free:
                arr = free[0]
                break
        if arr is None:  # nearly exhausted: the first unused arrangement of the full schedule
            arr = next(a for a in full_arrangements(entrants, players, teams) if a not in used)
        used.add(arr)
        out.append(arr)
        for e in arr:
            appear[e] += 1
        for a, b in itertools.combinations(arr, 2):
            meet[pair(a, b)] += 1
        if teams:
            partners[pair(arr[0], arr[2])] += 1
            partners[pair(arr[1], arr[3])] += 1
    return out


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

    def matches(self) -> Iterator[Match]:
        """Board by board; the rotations of an arrangement one after the other."""
        g, n = self.game.id, self.game.players
        if len(self.secret) < 16:
            raise ValueError("a game plan needs the tournament secret (at least 16 bytes)")
        for b in range(self.boards):
            seed = deal_seed(self.secret, g, b)
            for arr in self.arrangements:
                gid = group_id(self.seed, g, arr, b)
                for r in range(n):
                    mid = match_id(self.seed, g, arr, r, b)
                    yield Match(mid, gid, g, b, r, rotate(arr, r), seed,
                                tuple(bot_seed(self.secret, g, b, mid, s) for s in range(n)))


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
