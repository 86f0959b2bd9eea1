"""The ladder spec: TOML, validated with one-line errors that name the field (as tournament specs).

```toml
name = "club"                      # the ladder's id (a safe slug; its tournament id in the log)
seed = 0                           # match and group ids derive from it (the deals from the secret)
max_deals = 2                      # optional: default deal limit of every game
games = ["hartenjagen", { id = "klaverjassen", players = 4, max_deals = 1 }]   # tournament form
reference = ["random", "greedy", { name = "ismcts-20", bot = "ismcts", options = { iterations = 20 } }]

[limits]                           # as in tournament specs: move_s, bank_s, memory_mb, sandbox_builtins
[quotas]
per_day = 5                        # new versions per author in any 24 hours
active = 2                         # versions per author in the pool (validating, placement, active)
[matchmaking]
epsilon = 0.2                      # share of uniform random tables
candidates = 24                    # candidate tables scored per group
recent = 5                         # m: no table identical to one of the last m groups
lru_share = 0.1                    # share of seeds that are the least recently played version
starvation_s = 600                 # a version waiting longer than this is served first
top_k = 8                          # the top of the board the matchmaker spends more on (0: none)
top_weight = 3.0                   # seeding weight (1 + top_weight * P(in the top k)) / (groups + 1)
top_pairs = 3.0                    # a pair's information weighs 1 + top_pairs * P(both in the top k)
top_share = 0.0                    # share of top groups: seeded and seated among the first top_k + top_margin
top_margin = 4
placement_groups = 2               # placement groups against the reference bots
[rating]
tau = 0.05                         # openskill's dynamics (0 only in settlement)
mu = 25.0
sigma = 8.333333333333334
beta = 4.166666666666667
min_groups = 5                     # fewer groups: the board marks the version provisional
bootstrap = 200                    # group-bootstrap replicates of the board's batch fit
board_every_s = 120                # seconds between board snapshots while `ladder run` runs
fault_threshold = 0.5              # a version faulting in more than this share of its groups ...
fault_min_groups = 4               # ... after this many goes to probation
[settlement]
stage1_groups = 4                  # stage 1: groups per frozen version and game (balanced schedule)
top_k = 4                          # stage 2: full arrangements of the top K
budget = 200                       # settlement groups at most (stage 1 and 2)
confidence = 0.95                  # the stop rule's P(first > second)
[run]
num_cpus = 0                       # workers of the local pool (0: every CPU)
```

The reference bots are built-ins (with options), listed in the tournament spec's ``bots`` form: they
stay in the pool unchanged, anchor the scale, and appear with the author ``reference``.
"""
from __future__ import annotations

import hashlib
import json
import math
import tomllib
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from tournaments.spec import (
    GameEntry,
    Limits,
    SpecError,
    _bots,
    _games,
    _int,
    _key,
    _limits,
    _num,
    _opt_int,
    _read_spec_file,
    _short,
    check_tournament_id,
)

MAX_DEALS = 10_000
_TOP = {"name", "seed", "max_deals", "games", "reference", "limits", "quotas", "matchmaking", "rating",
        "settlement", "run"}


@dataclass(frozen=True)
class Quotas:
    per_day: int = 5
    active: int = 2


@dataclass(frozen=True)
class Matchmaking:
    epsilon: float = 0.2
    candidates: int = 24
    recent: int = 5
    lru_share: float = 0.1
    starvation_s: float = 600.0
    placement_groups: int = 2
    top_k: int = 8
    top_weight: float = 3.0
    top_pairs: float = 3.0
    top_share: float = 0.0
    top_margin: int = 4


@dataclass(frozen=True)
class Rating:
    tau: float = 0.05
    mu: float = 25.0
    sigma: float = 25.0 / 3.0
    beta: float = 25.0 / 6.0
    min_groups: int = 5
    bootstrap: int = 200
    board_every_s: float = 120.0
    fault_threshold: float = 0.5
    fault_min_groups: int = 4


@dataclass(frozen=True)
class Settlement:
    stage1_groups: int = 4
    top_k: int = 4
    budget: int = 200
    confidence: float = 0.95


@dataclass(frozen=True)
class Reference:
    label: str
    bot: str
    options: dict[str, Any] = field(default_factory=dict)


@dataclass(frozen=True)
class LadderSpec:
    name: str
    seed: int
    games: tuple[GameEntry, ...]
    reference: tuple[Reference, ...]
    limits: Limits = field(default_factory=Limits)
    quotas: Quotas = field(default_factory=Quotas)
    matchmaking: Matchmaking = field(default_factory=Matchmaking)
    rating: Rating = field(default_factory=Rating)
    settlement: Settlement = field(default_factory=Settlement)
    num_cpus: int = 0
    raw: dict[str, Any] = field(default_factory=dict, compare=False)

    def game(self, gid: str) -> GameEntry:
        return next(g for g in self.games if g.id == gid)

    def to_json(self) -> dict[str, Any]:
        """The normalised spec (what the ladder's manifest keeps)."""
        return {
            "name": self.name, "seed": self.seed,
            "games": [{"id": g.id, "options": g.options, "players": g.players, "max_deals": g.max_deals}
                      for g in self.games],
            "reference": [{"name": r.label, "bot": r.bot, **({"options": r.options} if r.options else {})}
                          for r in self.reference],
            "limits": vars(self.limits), "quotas": vars(self.quotas),
            "matchmaking": vars(self.matchmaking), "rating": vars(self.rating),
            "settlement": vars(self.settlement), "run": {"num_cpus": self.num_cpus}}

    def spec_hash(self) -> str:
        blob = json.dumps(self.to_json(), sort_keys=True, separators=(",", ":"))
        return hashlib.sha256(blob.encode()).hexdigest()[:16]


def load_ladder_spec(path: str | Path) -> LadderSpec:
    """Read and validate a ladder spec file; :class:`~tournaments.spec.SpecError` names the field."""
    p = Path(path)
    text = _read_spec_file(p)
    try:
        raw = tomllib.loads(text)
    except tomllib.TOMLDecodeError as e:
        raise SpecError(f"spec file {str(path)!r} is not valid TOML: {e}") from None
    raw.setdefault("name", p.stem)
    return parse_ladder_spec(raw)


def parse_ladder_spec(raw: dict[str, Any]) -> LadderSpec:
    """Validate a ladder spec given as a dict (TOML's shape)."""
    unknown = sorted(set(raw) - _TOP)
    if unknown:
        raise SpecError(f"{_key(unknown[0])}: unknown field; the fields are {', '.join(sorted(_TOP))}")
    name = check_tournament_id(raw.get("name", "ladder"))
    seed = _int(raw, "seed", 0, lo=0, hi=2**63 - 1)
    max_deals = _opt_int(raw, "max_deals", lo=1, hi=MAX_DEALS)
    if "reference" not in raw:
        raise SpecError("reference: missing; list the reference bots (built-ins), e.g. "
                        "reference = [\"random\", \"greedy\", \"ismcts\"]")
    try:
        entrants = _bots(raw["reference"], set())
    except SpecError as err:
        raise SpecError("reference" + str(err).removeprefix("bots")) from None
    for i, ent in enumerate(entrants):
        if "@" in ent.bot or "@" in ent.label:
            raise SpecError(f"reference[{i}]: a reference bot is a built-in, got {ent.bot!r}")
    refs = tuple(Reference(e.label, e.bot, dict(e.options)) for e in entrants)
    games = _games(raw.get("games", "all"), max_deals, 1_000)
    limits = _limits(raw.get("limits", {}))
    quotas = Quotas(**_table(raw, "quotas", {"per_day": (1, 1000), "active": (1, 100)}, Quotas()))
    mm = Matchmaking(**_table(raw, "matchmaking", {
        "epsilon": (0.0, 1.0), "candidates": (1, 10_000), "recent": (0, 10_000), "lru_share": (0.0, 1.0),
        "starvation_s": (1.0, 1e7), "placement_groups": (1, 1000), "top_k": (0, 10_000),
        "top_weight": (0.0, 1000.0), "top_pairs": (0.0, 1000.0), "top_share": (0.0, 1.0),
        "top_margin": (0, 10_000)}, Matchmaking()))
    rating = Rating(**_table(raw, "rating", {
        "tau": (0.0, 100.0), "mu": (-1e6, 1e6), "sigma": (1e-6, 1e6), "beta": (1e-6, 1e6),
        "min_groups": (0, 100_000), "bootstrap": (0, 10_000), "board_every_s": (1.0, 1e7),
        "fault_threshold": (0.0, 1.0), "fault_min_groups": (1, 100_000)}, Rating()))
    settle = Settlement(**_table(raw, "settlement", {
        "stage1_groups": (1, 10_000), "top_k": (2, 100), "budget": (1, 1_000_000),
        "confidence": (0.5, 0.9999)}, Settlement()))
    run = _table(raw, "run", {"num_cpus": (0, 4096)}, None)
    for g in games:
        if len(refs) < g.players - 1:
            raise SpecError(f"reference: {g.id} seats {g.players}; placement needs at least {g.players - 1} "
                            f"reference bots, got {len(refs)}")
    return LadderSpec(name=name, seed=seed, games=games, reference=refs, limits=limits, quotas=quotas,
                      matchmaking=mm, rating=rating, settlement=settle, num_cpus=int(run.get("num_cpus", 0)),
                      raw=raw)


def _table(raw: dict[str, Any], name: str, ranges: dict[str, tuple[float, float]],
           defaults: Any) -> dict[str, Any]:
    """The fields of table ``[name]``: each an int or a number in its range (ints where the default
    is one), unknown fields refused, naming ``name.field``."""
    value = raw.get(name, {})
    if not isinstance(value, dict):
        raise SpecError(f"{name}: expected a table like [{name}] {next(iter(ranges))} = ...")
    bad = sorted(set(value) - set(ranges))
    if bad:
        raise SpecError(f"{name}.{_key(bad[0])}: unknown field; the fields are {', '.join(sorted(ranges))}")
    out: dict[str, Any] = {}
    for k, (lo, hi) in ranges.items():
        default = getattr(defaults, k) if defaults is not None else 0
        if isinstance(default, int) and not isinstance(default, bool):
            out[k] = _int(value, k, default, lo=int(lo), hi=int(hi), prefix=f"{name}.")
        else:
            v = _num(value, k, float(default), f"{name}.", lo=lo, hi=hi)
            if not math.isfinite(v):   # (refused by _num; kept for the type checker)
                raise SpecError(f"{name}.{k}: {_short(v)} is not finite")
            out[k] = v
    return out
