"""A coverage-guided rule fuzzer: look for the rule edge cases that tournaments miss.

Only the engine's public API is used (``load_game``, ``new_match`` with ``deal=``, ``legal_actions``,
``apply``, ``clone``, ``events``, ``scores``, ``ranking``, ``observation``, ``invariant_violations``).

Each run starts a match, either fresh (random options from each option's spec, a random number of
seats, sometimes a small ``max_deals``, sometimes a *chaos deal*: the first deal's cards regrouped by
rank or suit and injected with ``deal=``) or from a saved *corpus* state that fired one of the rarest
events.  Then it plays, choosing each action by one of

* **random**: uniform over the legal actions;
* **chaos**: the first, the last or the longest legal action, or one with the rarest verb;
* **steered**: a one-step look-ahead on clones of up to ``LOOKAHEAD`` legal actions, picking the one
  whose new rule events have fired least so far (events never seen weigh most).

and, now and then, it **probes** with an illegal or malformed action, which must raise
``IllegalAction`` and leave the state unchanged.  After every action it checks the conformance
invariants, that the legal list is never empty before the end, and that nothing crashes; at the end,
that scores and ranking have one entry per seat and places are 1..players.

A failure is **shrunk** (:func:`shrink`) over the choice sequence (each action as its index in the
legal list): cut the tail, drop chunks, lower indices, reset options to their defaults and drop the
injected deal and the look-aheads, keeping each change that still fails the same way.  The minimal
:class:`Case` (game, options, seed, players, max_deals, deal, actions, probe, lookahead) is saved as
JSON and printed with the command that replays it: ``cardarena fuzz GAME --replay FILE``.  The
replay redoes the steered choices' look-ahead clones (:attr:`Case.lookahead`), so a failure that a
clone caused in its original reproduces.  Events emitted by ``new_match`` (ply 0) count like the
others.
"""
from __future__ import annotations

import hashlib
import inspect
import json
import random
import re
import sys
import time
from collections import Counter
from collections.abc import Callable
from dataclasses import asdict, dataclass, field, replace
from pathlib import Path
from typing import Any

from engine import IllegalAction, game_class, load_game
from engine.cards import RANKS, SUITS
from engine.core import Option, State
from tournaments.analysis.coverage import card_events

LOOKAHEAD = 8
"""Legal actions tried on clones by a steered choice."""
MAX_ACTIONS = 20_000
"""A run stops (and restarts) after this many actions."""
SHRINK_SECONDS = 30.0

NOTES: dict[str, str] = {
    "manillen.match_extended_to_121": "M3: both teams can reach 101 together only when both score in one "
                                      "deal; under the seed's scoring (only the team above 30 scores) it is "
                                      "unreachable; the option both_teams_score=True makes it reachable",
    "hartenjagen.moon_shot": "one seat must take all 13 hearts and the queen of spades in one deal",
}
"""Why some events are hard or impossible to reach, for the report."""


# ------------------------------------------------------------------------------------------ cases
@dataclass
class Case:
    """A reproducible match prefix: replaying ``actions`` (then ``probe``) shows the failure."""

    game: str
    options: dict[str, Any]
    seed: int
    players: int
    max_deals: int | None = None
    deal: dict[str, Any] | None = None
    actions: list[str] = field(default_factory=list)
    probe: str | None = None
    """An illegal action tried after ``actions``: it must raise IllegalAction and change nothing."""
    lookahead: list[list[Any]] = field(default_factory=list)
    """The steered choices' look-aheads: ``[ply, [action, ...]]``, each action applied to a fresh
    clone of the state before ``actions[ply]``, in order (a clone that shares state with its
    original changes it: the replay redoes them so that such a failure reproduces)."""

    def lookahead_before(self, n: int) -> list[list[Any]]:
        """The look-aheads made before the first ``n`` actions."""
        return [[p, list(a)] for p, a in self.lookahead if p < n]


@dataclass
class Failure:
    kind: str
    """``invariant``, ``crash``, ``no_legal_actions``, ``legal_action_rejected``, ``illegal_accepted``,
    ``illegal_changed_state``, ``bad_result``."""
    message: str
    ply: int

    def signature(self) -> str:
        return self.kind + ":" + re.sub(r"\d+|0x[0-9a-f]+", "#", self.message)[:80]


def load_case(path: str | Path) -> Case:
    data = json.loads(Path(path).read_text())
    if not isinstance(data, dict) or "case" not in data:
        raise ValueError("not a fuzz case file (no 'case' key)")
    case = Case(**data["case"])
    if not all(isinstance(e, list) and len(e) == 2 and isinstance(e[0], int) and isinstance(e[1], list)
               for e in case.lookahead):
        raise ValueError("not a fuzz case file ('lookahead' must be [ply, [action, ...]] pairs)")
    return case


def look_ahead(state: State, actions: list[str]) -> None:
    """What a steered choice does to ``state``: apply each of ``actions`` to a fresh clone, in
    order, stopping at the first that raises (the action is then judged for real)."""
    for a in actions:
        c = state.clone()
        try:
            c.apply(a)
        except Exception:  # judged for real when the action is applied, as in Fuzzer._choose
            return


def new_state(case: Case) -> State:
    game = load_game(case.game, **case.options)
    return game.new_match(seed=case.seed, players=case.players, max_deals=case.max_deals, deal=case.deal)


def check_state(state: State, ply: int) -> Failure | None:
    """The per-action checks: invariants, a non-empty legal list, sane results at the end."""
    bad = state.invariant_violations()
    if bad:
        return Failure("invariant", "; ".join(bad), ply)
    if state.is_over():
        sc, rk = state.scores(), state.ranking()
        n = state.players
        if len(sc) != n or len(rk) != n or any(not 1 <= r <= n for r in rk):
            return Failure("bad_result", f"scores {sc}, ranking {rk} for {n} seats", ply)
    elif not state.legal_actions():
        return Failure("no_legal_actions", f"no legal action in phase {state.phase!r} for seat "
                                           f"{state.current_player}", ply)
    return None


def _fingerprint(state: State) -> tuple[Any, ...]:
    seat = state.current_player
    obs = json.dumps(state.observation(seat), sort_keys=True) if seat is not None else ""
    return (len(state.history), len(state.events), seat, tuple(state.legal_actions()), tuple(state.scores()),
            state.phase, state.deal_no, obs)


def probe(state: State, action: str, ply: int) -> Failure | None:
    """``action`` is not legal now: it must raise IllegalAction and leave ``state`` unchanged."""
    before = _fingerprint(state)
    try:
        state.apply(action)
    except IllegalAction:
        after = _fingerprint(state)
        if after != before:
            return Failure("illegal_changed_state", f"rejected {action!r} but the state changed", ply)
        return None
    except Exception as e:  # a crash on bad input is the finding
        return Failure("crash", f"{action!r} (illegal) raised {type(e).__name__}: {e}", ply)
    return Failure("illegal_accepted", f"{action!r} is not in the legal list but apply() accepted it", ply)


def apply_checked(state: State, action: str, ply: int) -> Failure | None:
    try:
        state.apply(action)
    except IllegalAction as e:
        return Failure("legal_action_rejected", f"{action!r} was listed as legal but raised: {e}", ply)
    except Exception as e:  # an engine crash is the finding
        return Failure("crash", f"{action!r} raised {type(e).__name__}: {e}", ply)
    try:
        return check_state(state, ply)
    except Exception as e:  # as above
        return Failure("crash", f"after {action!r}: {type(e).__name__}: {e}", ply)


def run_case(case: Case) -> Failure | None:
    """Replay ``case``; the first failure, or None.  An action that is not legal at its point makes
    the case invalid: ``Failure('invalid', ...)``."""
    try:
        state = new_state(case)
    except ValueError as e:
        return Failure("invalid", f"cannot start: {e}", -1)
    except Exception as e:  # a crash while dealing is a finding
        return Failure("crash", f"new_match raised {type(e).__name__}: {e}", -1)
    try:
        f = check_state(state, -1)
    except Exception as e:  # as above
        return Failure("crash", f"{type(e).__name__}: {e}", -1)
    if f:
        return f
    ahead = {p: acts for p, acts in case.lookahead}
    for ply, a in enumerate(case.actions):
        try:
            legal = state.legal_actions()  # listed before the look-ahead, as in Fuzzer.run_once
            look_ahead(state, ahead.get(ply, []))
        except Exception as e:  # as above
            return Failure("crash", f"legal_actions() raised {type(e).__name__}: {e}", ply)
        if a not in legal:
            return Failure("invalid", f"ply {ply}: {a!r} is not legal", ply)
        f = apply_checked(state, a, ply)
        if f:
            return f
    if case.probe is not None:
        return probe(state, case.probe, len(case.actions))
    return None


# ------------------------------------------------------------------------------------------ shrinking
def _choices(case: Case) -> list[int] | None:
    """``case.actions`` as indices into the legal lists (up to where the engine fails, if it does)."""
    out: list[int] = []
    ahead = {p: acts for p, acts in case.lookahead}
    try:
        state = new_state(case)
        for ply, a in enumerate(case.actions):
            legal = state.legal_actions()
            look_ahead(state, ahead.get(ply, []))
            out.append(legal.index(a))
            state.apply(a)
    except Exception:  # the failure being shrunk may be this very crash; the choices so far stand
        return out
    return out


def _from_choices(base: Case, choices: list[int], probe_action: str | None, extend: int = 0) -> Case | None:
    """The case that takes ``choices`` (indices, modulo the legal list) from ``base``'s start, then up to
    ``extend`` more first-legal actions (so that a changed prefix may still run into the failure)."""
    try:
        state = new_state(base)
    except ValueError:
        return None
    actions: list[str] = []
    ahead = {p: acts for p, acts in base.lookahead}
    for c in [*choices, *([0] * extend)]:
        if state.is_over():
            break
        try:
            legal = state.legal_actions()
            look_ahead(state, ahead.get(len(actions), []))
        except Exception:  # as below
            break
        if not legal:
            break
        a = legal[c % len(legal)]
        actions.append(a)
        try:
            state.apply(a)
        except Exception:  # the failure itself may be a crash here; run_case judges it
            break
    return Case(base.game, dict(base.options), base.seed, base.players, base.max_deals, base.deal, actions,
                probe_action, base.lookahead_before(len(actions)))


def shrink(case: Case, failure: Failure, seconds: float = SHRINK_SECONDS) -> tuple[Case, Failure]:
    """A smaller case with the same failure signature (greedy, within ``seconds``)."""
    deadline = time.monotonic() + seconds
    sig = failure.signature()
    if case.probe is None and 0 <= failure.ply < len(case.actions) - 1:
        case = Case(case.game, case.options, case.seed, case.players, case.max_deals, case.deal,
                    case.actions[:failure.ply + 1], None, case.lookahead_before(failure.ply + 1))
    best, best_f = case, failure

    def attempt(c: Case | None) -> bool:
        nonlocal best, best_f
        if c is None or time.monotonic() > deadline:
            return False
        f = run_case(c)
        if f is None or f.signature() != sig:
            return False
        # cut the case at the failure
        if f.ply >= 0 and f.ply < len(c.actions) - 1 and c.probe is None:
            c = Case(c.game, c.options, c.seed, c.players, c.max_deals, c.deal, c.actions[:f.ply + 1], None,
                     c.lookahead_before(f.ply + 1))
        if (len(c.actions), _size(c)) < (len(best.actions), _size(best)):
            best, best_f = c, f
            return True
        if len(c.options) < len(best.options) or (c.deal is None and best.deal is not None):
            best, best_f = c, f
            return True
        return False

    # 1. drop the look-aheads (a failure that needs them keeps them), the injected deal, reset
    # options one by one
    if best.lookahead:
        attempt(replace(best, lookahead=[]))
    if best.deal is not None:
        attempt(_rechoose(best, best.options, None))
    defaults = {o.name: o.default for o in game_class(best.game).options_spec}
    for name in list(best.options):
        if best.options[name] != defaults.get(name):
            opts = dict(best.options)
            del opts[name]
            attempt(_rechoose(best, opts, best.deal))
    # 2. the choice sequence: delete chunks, then lower each index
    choices = _choices(best) or []
    chunk = max(1, len(choices) // 2)
    while chunk >= 1 and time.monotonic() < deadline:
        i = 0
        while i < len(choices) and time.monotonic() < deadline:
            cand = choices[:i] + choices[i + chunk:]
            if attempt(_from_choices(best, cand, best.probe, extend=chunk if best.probe is None else 0)):
                choices = _choices(best) or []
            else:
                i += chunk
        chunk //= 2
    i = 0
    while i < len(choices) and time.monotonic() < deadline:
        i += 1
        if choices[i - 1] > 0:
            cand = list(choices)
            cand[i - 1] = 0
            if attempt(_from_choices(best, cand, best.probe)):
                choices = _choices(best) or []
    # 3. the look-aheads one by one
    i = 0
    while i < len(best.lookahead) and time.monotonic() < deadline:
        if not attempt(replace(best, lookahead=best.lookahead[:i] + best.lookahead[i + 1:])):
            i += 1
    return best, best_f


def _rechoose(case: Case, options: dict[str, Any], deal: dict[str, Any] | None) -> Case | None:
    """``case`` with other options or deal, taking the same choices (indices into the legal lists)."""
    c = Case(case.game, options, case.seed, case.players, case.max_deals, deal, [], case.probe,
             case.lookahead)
    choices = _choices(case) or []
    return _from_choices(c, choices, case.probe, extend=len(choices) + 200 if case.probe is None else 0)


def _size(c: Case) -> int:
    return (sum(len(a) for a in c.actions) + (0 if c.deal is None else 1000)
            + sum(len(a) for _, acts in c.lookahead for a in acts))


# ------------------------------------------------------------------------------------------ fuzzing
@dataclass
class Report:
    game: str
    seconds: float
    matches: int = 0
    actions: int = 0
    probes: int = 0
    events: dict[str, int] = field(default_factory=dict)
    first_seen: dict[str, float] = field(default_factory=dict)
    card: list[str] = field(default_factory=list)
    unreached: dict[str, str] = field(default_factory=dict)
    failures: list[dict[str, Any]] = field(default_factory=list)

    def to_json(self) -> dict[str, Any]:
        return asdict(self)


def _random_options(rng: random.Random, spec: tuple[Option, ...], game_id: str) -> dict[str, Any]:
    """Random non-default values: for one option (half the time) or for each option with chance 1/2."""
    opts: dict[str, Any] = {}
    one = rng.choice(spec).name if spec and rng.random() < 0.5 else None
    for o in spec:
        if (o.name != one) if one else rng.random() < 0.5:
            continue
        d = o.default
        if o.choices:
            v: Any = rng.choice(o.choices)
        elif isinstance(d, bool):
            v = not d
        elif isinstance(d, int):
            v = rng.choice([max(1, d // 4), max(1, d // 2), d * 2, d + 1, max(0, d - 1)])
        elif d is None or o.nullable:
            v = None if d is not None else rng.choice([1, 2, 3, 5])
        else:
            continue
        try:
            o.validate(v, game_id)
        except ValueError:
            continue
        opts[o.name] = v
    while opts:  # drop options until the combination is accepted (cross-option checks)
        try:
            load_game(game_id, **opts)
            return opts
        except ValueError:
            del opts[rng.choice(sorted(opts))]
    return opts


def _card_key(tok: str, by: str) -> tuple[int, int]:
    if tok == "JK":
        return (99, 99)
    r, s = RANKS.index(tok[0]), SUITS.index(tok[1])
    return (r, s) if by == "rank" else (s, r)


def chaos_deal(state: State, rng: random.Random) -> dict[str, Any] | None:
    """The first deal's hands, regrouped by rank or suit (groups, runs, one-suit hands), as a deal."""
    try:
        hands = [list(state.observation(s)["hand"]) for s in range(state.players)]
    except (KeyError, TypeError):
        return None
    if not all(isinstance(h, list) for h in hands) or not all(hands):
        return None
    pool = [t for h in hands for t in h]
    by = rng.choice(["rank", "suit"])
    pool.sort(key=lambda t: _card_key(t, by))
    if rng.random() < 0.5:
        pool.reverse()
    sizes = [len(h) for h in hands]
    order = list(range(state.players))
    rng.shuffle(order)
    out: list[list[str]] = [[] for _ in hands]
    i = 0
    for s in order:
        out[s] = pool[i:i + sizes[s]]
        i += sizes[s]
    return {"dealer": rng.randrange(state.players), "hands": out}


class Fuzzer:
    def __init__(self, game_id: str, seed: int, out_dir: Path | None,
                 log: Callable[[str], None] | None = None) -> None:
        self.game_id = game_id
        self.cls = game_class(game_id)
        self.rng = random.Random(seed)
        self.out_dir = out_dir
        self.log = log
        self.counts: Counter[str] = Counter()
        self.verbs: Counter[str] = Counter()
        self.corpus: dict[str, list[tuple[Case, State]]] = {}
        self.seen_failures: set[str] = set()
        self.fresh = False
        """The current run started a new match (not a corpus state)."""
        self.tried: list[str] = []
        """The actions the last steered choice tried on clones."""
        card, _ = card_events(game_id)
        self.card = [f"{game_id}.{e}" for e in card]

    # ---------------------------------------------------------------- starting points
    def _start(self) -> tuple[Case, State] | None:
        rng = self.rng
        self.fresh = False
        if self.corpus and rng.random() < 0.35:
            # the corpus entry of one of the rarest events
            rare = sorted(self.corpus, key=lambda e: (self.counts[e], rng.random()))[:3]
            case, state = rng.choice(self.corpus[rng.choice(rare)])
            return Case(case.game, dict(case.options), case.seed, case.players, case.max_deals, case.deal,
                        list(case.actions), None, case.lookahead_before(len(case.actions))), state.clone()
        self.fresh = True  # a new match: new_match's events are still to count
        cls = self.cls
        opts = _random_options(rng, cls.options_spec, self.game_id) if rng.random() < 0.6 else {}
        players = rng.randint(cls.min_players, cls.max_players) if rng.random() < 0.5 else cls.default_players
        max_deals = rng.choice([1, 2, 3]) if rng.random() < 0.15 else None
        case = Case(self.game_id, opts, rng.getrandbits(48), players, max_deals)
        try:
            state = new_state(case)
        except ValueError:
            case = Case(self.game_id, {}, case.seed, cls.default_players, max_deals)
            state = new_state(case)
        if rng.random() < 0.25:
            deal = chaos_deal(state, rng)
            extras: tuple[dict[str, Any], ...] = ({}, {"stock": [], "upcard": None})
            for extra in extras:
                if deal is None:
                    break
                trial = Case(case.game, case.options, case.seed, case.players, case.max_deals,
                             {**deal, **extra})
                try:
                    state2 = new_state(trial)
                except ValueError:
                    continue
                return trial, state2
        return case, state

    # ---------------------------------------------------------------- choosing
    def _weight(self, names: list[str]) -> float:
        return sum(1.0 / (1 + self.counts[n]) ** 2 for n in names)

    def _choose(self, state: State, legal: list[str], mode: str) -> str:
        """The action to play; the actions a steered choice tried on clones are left in
        ``self.tried`` (a case records them: :attr:`Case.lookahead`)."""
        rng = self.rng
        self.tried = []
        if mode == "random" or len(legal) == 1:
            return rng.choice(legal)
        if mode == "chaos":
            pick = rng.randrange(4)
            if pick == 0:
                return legal[0]
            if pick == 1:
                return legal[-1]
            if pick == 2:
                return max(legal, key=lambda a: (len(a), rng.random()))
            return min(legal, key=lambda a: (self.verbs[a.split(" ", 1)[0]], rng.random()))
        # steered: one-step look-ahead on clones
        sample = legal if len(legal) <= LOOKAHEAD else rng.sample(legal, LOOKAHEAD)
        best, best_w = rng.choice(sample), 0.0
        n0 = len(state.events)
        for a in sample:
            self.tried.append(a)
            c = state.clone()
            try:
                c.apply(a)
            except Exception:  # judged for real when the action is applied
                return a
            w = self._weight([e["event"] for e in c.events[n0:]])
            if w > best_w:
                best, best_w = a, w
        return best

    def _illegal(self, state: State, legal: list[str]) -> str:
        rng = self.rng
        verbs = sorted({a.split(" ", 1)[0] for a in legal})
        tok = rng.choice(RANKS) + rng.choice(SUITS)
        cands = [f"{rng.choice(verbs)} {tok}", "play", "play 10H", "play qs", "", "discard",
                 f"{rng.choice(verbs)} {tok} {tok}", "meld 2C 3C", "trump X", "draw nowhere", "pass pass",
                 rng.choice(legal) + " extra"]
        for _ in range(10):
            a = rng.choice(cands)
            if a not in legal:
                return a
        return "no-such-verb"

    # ---------------------------------------------------------------- one run
    def run_once(self, deadline: float, report: Report) -> Failure | None:
        start = self._start()
        if start is None:
            return None
        case, state = start
        if self.fresh:  # a new match: the events new_match emitted (ply 0) count too
            self._count(case, state, 0, report)
        rng = self.rng
        mode_weights = (("random", 0.55), ("chaos", 0.15), ("steered", 0.30))
        report.matches += 1
        steps = 0
        while not state.is_over() and steps < MAX_ACTIONS:
            if steps % 64 == 0 and time.monotonic() > deadline:
                return None
            legal = state.legal_actions()
            ply = len(case.actions)
            if rng.random() < 0.02:
                report.probes += 1
                bad = self._illegal(state, legal)
                f = probe(state, bad, ply)
                if f:
                    self._failure(Case(case.game, case.options, case.seed, case.players, case.max_deals,
                                       case.deal, list(case.actions), bad, case.lookahead_before(ply)), f,
                                  report)
                    return f
            r = rng.random()
            mode = "random"
            for m, w in mode_weights:
                if r < w:
                    mode = m
                    break
                r -= w
            try:
                action = self._choose(state, legal, mode)
            except Exception as e:  # a crash inside clone() or a look-ahead is a finding too
                f = Failure("crash", f"during look-ahead: {type(e).__name__}: {e}", ply)
                self._failure(case, f, report)
                return f
            if self.tried:
                case.lookahead.append([ply, list(self.tried)])
            n0 = len(state.events)
            f = apply_checked(state, action, ply)
            case.actions.append(action)
            steps += 1
            report.actions += 1
            self.verbs[action.split(" ", 1)[0]] += 1
            if f:
                self._failure(case, f, report)
                return f
            self._count(case, state, n0, report)
        return None

    def _count(self, case: Case, state: State, n0: int, report: Report) -> None:
        """Count the events after the first ``n0`` (keeping corpus states for the rare ones)."""
        if len(state.events) <= n0:
            return
        now = time.monotonic()
        for ev in state.events[n0:]:
            name = ev["event"]
            if self.counts[name] < 3:
                snap = Case(case.game, dict(case.options), case.seed, case.players, case.max_deals,
                            case.deal, list(case.actions), None, case.lookahead_before(len(case.actions)))
                bucket = self.corpus.setdefault(name, [])
                if len(bucket) < 8:
                    bucket.append((snap, state.clone()))
            if name not in report.first_seen:
                report.first_seen[name] = round(now - self._t0, 2)
            self.counts[name] += 1

    def _failure(self, case: Case, f: Failure, report: Report) -> None:
        sig = f.signature()
        if sig in self.seen_failures:
            return
        self.seen_failures.add(sig)
        small, sf = shrink(case, f)
        entry: dict[str, Any] = {"kind": sf.kind, "message": sf.message, "case": asdict(small)}
        if self.out_dir is not None:
            self.out_dir.mkdir(parents=True, exist_ok=True)
            h = hashlib.sha256(json.dumps(entry["case"], sort_keys=True).encode()).hexdigest()[:10]
            path = self.out_dir / f"{self.game_id}-{sf.kind}-{h}.json"
            path.write_text(json.dumps(entry, indent=1) + "\n")
            entry["file"] = str(path)
            entry["replay"] = f"cardarena fuzz {self.game_id} --replay {path}"
        report.failures.append(entry)
        if self.log:
            self.log(f"FAILURE {sf.kind}: {sf.message}\n  minimal case: {len(small.actions)} actions, "
                     f"options {small.options}, seed {small.seed}, players {small.players}"
                     + (f"\n  replay: {entry['replay']}" if "replay" in entry else ""))

    def run(self, seconds: float) -> Report:
        report = Report(self.game_id, seconds, card=self.card)
        self._t0 = time.monotonic()
        deadline = self._t0 + seconds
        while time.monotonic() < deadline:
            self.run_once(deadline, report)
        report.seconds = round(time.monotonic() - self._t0, 1)
        report.events = dict(sorted(self.counts.items()))
        for name in self.card:
            if self.counts[name] == 0:
                report.unreached[name] = self.why(name, report)
        return report

    def why(self, name: str, report: Report) -> str:
        short = name.split(".", 1)[1]
        if not _emitted_in_source(self.cls, short):
            return (f"not emitted by the engine: no _emit({short!r}) in the source of {self.game_id} "
                    "(not implemented yet)")
        note = NOTES.get(name)
        base = (f"emitted by the engine but not reached in {report.matches} runs, {report.actions} actions")
        return f"{base}: {note}" if note else base


def _emitted_in_source(cls: type, short: str) -> bool:
    """Whether ``short`` appears as a string literal in the modules of the game's classes."""
    state_cls = getattr(cls, "state_class", None)
    mods = set()
    for k in [*inspect.getmro(cls), *(inspect.getmro(state_cls) if state_cls else [])]:
        m = sys.modules.get(k.__module__)
        if m is not None and m.__name__.startswith("engine"):
            mods.add(m)
    pat = re.compile(rf"""["']{re.escape(short)}["']""")
    for m in mods:
        try:
            if pat.search(inspect.getsource(m)):
                return True
        except (OSError, TypeError):
            continue
    return False


def fuzz(game_id: str, seconds: float, seed: int = 0, out_dir: Path | None = None,
         log: Callable[[str], None] | None = None) -> Report:
    """Fuzz ``game_id`` for ``seconds``; failures are shrunk and saved under ``out_dir``."""
    return Fuzzer(game_id, seed, out_dir, log).run(seconds)


def print_report(rep: Report, write: Callable[[str], None]) -> None:
    reached = [e for e in rep.card if rep.events.get(e)]
    write(f"{rep.game}: {rep.seconds:.0f} s, {rep.matches} runs, {rep.actions} actions, {rep.probes} illegal "
          f"probes; card events reached {len(reached)}/{len(rep.card)}; failures {len(rep.failures)}")
    for e in rep.card:
        if e in rep.unreached:
            write(f"  NOT REACHED {e}: {rep.unreached[e]}")
        else:
            write(f"  {e}: {rep.events[e]} (first after {rep.first_seen.get(e, 0):.1f} s)")
    for f in rep.failures:
        write(f"  FAILURE {f['kind']}: {f['message']}")
        if "replay" in f:
            write(f"    replay: {f['replay']}")
