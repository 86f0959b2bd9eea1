"""Helpers shared by the conformance suite and the per-game tests."""
from __future__ import annotations

import json
import random
import re
import sys
from collections import Counter
from typing import Any

from engine import State
from engine.cards import JOKER_TOKEN, TOKENS, cards_of, is_token

MAX_ACTIONS = 200_000
"""A random match taking more actions than this counts as not finishing."""


def fingerprint(state: State) -> str:
    """Everything observable about a state, as one string (to check it did not change)."""
    return json.dumps({
        "history": state.history,
        "events": state.events,
        "current": state.current_player,
        "legal": state.legal_actions(),
        "over": state.is_over(),
        "scores": state.scores(),
        "sheet": state.score_sheet(),
        "obs": [state.observation(s) for s in range(state.players)],
    }, sort_keys=True)


def random_playout(state: State, rng: random.Random, check_every_action: bool = False,
                   max_actions: int = MAX_ACTIONS) -> list[str]:
    """Play ``state`` to the end with uniform random choices; return the actions.

    Asserts the legal list is never empty before the end, and the conformance invariants at each
    deal boundary (or after every action).
    """
    actions: list[str] = []
    deal = state.deal_no
    while not state.is_over():
        legal = state.legal_actions()
        assert legal, f"{state.game.id}: empty legal list before the end at {state!r}"
        assert state.current_player is not None
        a = rng.choice(legal)
        state.apply(a)
        actions.append(a)
        if check_every_action or state.deal_no != deal or state.is_over():
            deal = state.deal_no
            bad = state.invariant_violations()
            assert not bad, f"{state.game.id} seed {state.seed} after {actions[-5:]}: {bad}"
        assert len(actions) <= max_actions, f"{state.game.id} seed {state.seed} did not finish"
    assert state.current_player is None and state.legal_actions() == []
    return actions


def observed_tokens(obs: Any) -> Counter[str]:
    """Card tokens shown anywhere in an observation (its ``legal_actions`` excepted).

    A joker that names a card (``JK=6H``) shows a joker, not the card it stands for.
    """
    out: Counter[str] = Counter()

    def walk(x: Any, key: str = "") -> None:
        if key == "legal_actions":
            return
        if isinstance(x, str):
            for piece in x.split():
                tok = piece.split("=", 1)[0] if piece.startswith(JOKER_TOKEN + "=") else piece
                if is_token(tok):
                    out[tok] += 1
        elif isinstance(x, dict):
            for k, v in x.items():
                walk(v, str(k))
        elif isinstance(x, (list, tuple)):
            for v in x:
                walk(v, key)

    walk(obs)
    return out


def leaked_cards(state: State, seat: int) -> list[str]:
    """Tokens the observation of ``seat`` shows although every copy of them is hidden from it."""
    hidden = Counter(TOKENS[c] for c in cards_of(state.hidden_cards(seat)))
    copies = Counter(TOKENS[c] for c in cards_of(state.deck_mask))
    shown = observed_tokens(state.observation(seat))
    return sorted(t for t in shown if hidden[t] and hidden[t] >= copies[t])


# ----------------------------------------------------------------------------- clone isolation
FUTURE_PLIES = 100
"""Plies of the original's future compared with a reference after its copies were played."""
COPY_PLIES = (1, 8, 300)
"""Upper bounds of the random action sequences played on the copies (short ones stay in the
trick or turn the copy was made in, the long one crosses deals)."""


PLY_COPY_PLIES = 8
"""Upper bound of the random plies played on the copies made at every ply of the walk."""


def pick(rng: random.Random, legal: list[str]) -> str:
    """A random legal action, its verb drawn first (uniformly among the verbs listed), then the
    action among that verb's: rare actions (a declaration among eight cards to play, a meld, a
    take-back) come up as often as the common ones."""
    verbs = sorted({a.split(" ", 1)[0] for a in legal})
    verb = verbs[rng.randrange(len(verbs))] if len(verbs) > 1 else verbs[0]
    of_verb = [a for a in legal if a.split(" ", 1)[0] == verb]
    return of_verb[rng.randrange(len(of_verb))]


_CONTAINERS = (list, dict, set, bytearray)
_SHARED_BY_DESIGN = frozenset(("game",))
"""Fields a clone shares with its original on purpose (the game and its rules objects)."""

SHARED_CACHES = (
    re.compile(r"^(melds|turn_laid|snap\[1\])\[\d+\]\.acc\[1\]$"),
    re.compile(r"^moves_of\[\d+\]\[[01]\](\[1\])?$"),
    re.compile(r"^pending\[\d+\]\[1\]$"),
)
"""Paths of containers that a clone may share because nobody mutates them after they are made
(the property checks that they stay unchanged while the copies and the original play on): the
drift rummies' lay-off strings of a meld (``Meld.acc``, replaced when the meld changes), Loba's
move strings per meld (``moves_of``, keyed by that object), Ramino Drift's held event data
(``pending``, emitted as a copy at the turn's end)."""


def state_fields(state: State) -> dict[str, Any]:
    """Every field of ``state`` by name: the compiled classes' native fields (``__mypyc_attrs__``),
    slots and the instance ``__dict__`` (on the source, the ``__dict__`` alone)."""
    names: set[str] = set()
    for c in type(state).__mro__:
        names.update(vars(c).get("__mypyc_attrs__", ()))
        slots = vars(c).get("__slots__", ())
        names.update((slots,) if isinstance(slots, str) else slots)
    names.update(getattr(state, "__dict__", {}))
    names -= {"__dict__", "__weakref__"}
    out: dict[str, Any] = {}
    for k in sorted(names):
        try:
            out[k] = getattr(state, k)
        except AttributeError:  # declared, not set in this state
            continue
    return out


def _mutables(v: Any, path: str, out: dict[int, tuple[str, Any]], depth: int = 0) -> None:
    """Record (id -> (path, object)) every mutable container reachable from ``v`` through
    containers, tuples and objects that clone themselves (a ``clone`` method: a clone must copy
    them too)."""
    if depth > 8 or isinstance(v, (str, bytes, int, float, bool, type(None), type, random.Random)):
        return
    if isinstance(v, _CONTAINERS):
        out.setdefault(id(v), (path, v))
    if isinstance(v, dict):
        for k, x in v.items():
            _mutables(x, f"{path}[{k!r}]", out, depth + 1)
    elif isinstance(v, (list, tuple, set, frozenset)):
        for i, x in enumerate(v):
            _mutables(x, f"{path}[{i}]", out, depth + 1)
    elif callable(getattr(v, "clone", None)) and not isinstance(v, State):
        for k, x in (getattr(v, "__dict__", None) or {}).items():
            _mutables(x, f"{path}.{k}", out, depth + 1)
        for c in type(v).__mro__:
            for k in vars(c).get("__mypyc_attrs__", ()):
                if k not in ("__dict__", "__weakref__") and hasattr(v, k):
                    _mutables(getattr(v, k), f"{path}.{k}", out, depth + 1)


def _constant_tables() -> set[int]:
    """Ids of the containers that engine modules and their classes keep as constant tables (a
    state may point at one, e.g. Hartenjagen's ``_info``: shared by every match, not only clones)."""
    out: set[int] = set()
    for name, mod in list(sys.modules.items()):
        if name != "engine" and not name.startswith("engine."):
            continue
        for v in list(vars(mod).values()):
            if isinstance(v, _CONTAINERS):
                out.add(id(v))
            elif isinstance(v, type):
                out.update(id(x) for x in vars(v).values() if isinstance(x, _CONTAINERS))
    return out


def shared_mutables(state: State, copy: State) -> dict[str, Any]:
    """The mutable containers (lists, dicts, sets, also inside tuples and inside objects with a
    ``clone`` method) that ``copy`` shares with ``state``: path ("decls[0][1]") -> the object.  The
    game and its rules objects are shared by design, and so are the entries of ``events``
    (appended, never mutated: engine.core) and the engine's constant tables."""
    mine: dict[int, tuple[str, Any]] = {}
    theirs: dict[int, tuple[str, Any]] = {}
    for fields, acc in ((state_fields(state), mine), (state_fields(copy), theirs)):
        for k, v in fields.items():
            if k in _SHARED_BY_DESIGN:
                continue
            if k == "events":
                acc.setdefault(id(v), (k, v))
                continue
            _mutables(v, k, acc)
    both = mine.keys() & theirs.keys() - _constant_tables()
    return dict(sorted(mine[i] for i in both))


def render_value(v: Any, depth: int = 0) -> str:
    """``v`` as text, through containers and objects that clone themselves (their fields)."""
    if depth > 8:
        return "..."
    if isinstance(v, dict):
        return "{" + ", ".join(f"{k!r}: {render_value(x, depth + 1)}" for k, x in v.items()) + "}"
    if isinstance(v, (list, tuple)):
        return ("[" if isinstance(v, list) else "(") + ", ".join(render_value(x, depth + 1) for x in v) + "]"
    if isinstance(v, (set, frozenset)):
        return "{" + ", ".join(sorted(render_value(x, depth + 1) for x in v)) + "}"
    if isinstance(v, random.Random):
        return f"Random({hash(v.getstate())})"
    if callable(getattr(v, "clone", None)) and not isinstance(v, (State, type)):
        fields = dict(getattr(v, "__dict__", None) or {})
        for c in type(v).__mro__:
            for k in vars(c).get("__mypyc_attrs__", ()):
                if k not in ("__dict__", "__weakref__") and hasattr(v, k):
                    fields[k] = getattr(v, k)
        return type(v).__name__ + render_value(fields, depth + 1)
    return repr(v)


def state_dump(state: State) -> dict[str, str]:
    """Every field of ``state`` as text (:func:`state_fields`, :func:`render_value`): what must not
    change while only copies of it are played."""
    return {k: render_value(v) for k, v in state_fields(state).items()}


def _changed(before: dict[str, str], after: dict[str, str]) -> list[str]:
    return sorted(k for k in before.keys() | after.keys() if before.get(k) != after.get(k))


def sharing_violations(state: State, copy: State) -> tuple[list[str], list[tuple[str, Any, str]]]:
    """What ``copy`` shares with ``state`` against the contract (a mutable container outside
    :data:`SHARED_CACHES`), and the shared caches with their contents now (path, object, repr),
    to check later that nobody mutated them."""
    shared = shared_mutables(state, copy)
    bad = [p for p in shared if not any(c.match(p) for c in SHARED_CACHES)]
    out = [f"shares mutable state with the original: {', '.join(bad[:6])}"] if bad else []
    return out, [(p, v, repr(v)) for p, v in shared.items() if p not in bad]


def future(state: State, seed: int, plies: int = FUTURE_PLIES) -> list[str]:
    """Play ``state`` on for up to ``plies`` plies under ``random.Random(seed)``; return per ply the
    legal list and the action, then the end position's :func:`fingerprint`."""
    rng = random.Random(seed)
    trace: list[str] = []
    for _ in range(plies):
        if state.is_over():
            break
        legal = state.legal_actions()
        a = pick(rng, legal)
        trace.append(json.dumps([state.current_player, legal, a]))
        state.apply(a)
    trace.append(fingerprint(state))
    return trace


def replay(state: State) -> State:
    """A fresh match with ``state``'s game, options, seed, players and max_deals, played through its
    history (no clone is ever made of it)."""
    fresh = state.game.new_match(seed=state.seed, players=state.players, max_deals=state.max_deals)
    for a in state.history:
        fresh.apply(a)
    return fresh


def _play_copy(copy: State, rng: random.Random, limit: int) -> None:
    """Play a random action sequence of 1..``limit`` plies on ``copy``, reading it as a bot would."""
    for _ in range(rng.randint(1, limit)):
        if copy.is_over():
            break
        seat = copy.current_player
        assert seat is not None
        copy.observation(seat)
        legal = copy.legal_actions()
        assert legal, "an empty legal list before the end"
        copy.apply(pick(rng, legal))


def clone_isolation_violations(state: State, rng: random.Random, structural: bool = True) -> list[str]:
    """The ways in which copies of ``state`` are not independent of it (empty when they are).

    ``state`` must come from ``new_match(seed=...)`` without an injected deal, so that
    :func:`replay` rebuilds it.  Copies (``clone()`` and ``determinize()`` for a random seat) are
    played on at random; after each, the original must still show what a replay of its history
    shows (legal actions, every seat's observation, events, scores, sheet: :func:`fingerprint`).
    Then the original plays :data:`FUTURE_PLIES` plies under a fixed RNG, which must equal the
    replay's; and a clone made before that must be unchanged by it and play the same future.
    ``state`` ends advanced by those plies.
    """
    ref = replay(state)
    now = fingerprint(ref)
    fseed = rng.getrandbits(32)
    ref_future = future(ref, fseed)
    where = f"{state.game.id} seed {state.seed} ply {len(state.history)}"
    out: list[str] = []
    if fingerprint(state) != now:
        return [f"{where}: the state differs from a replay of its history before any copy is played"]
    dump = state_dump(state)  # after fingerprint(): the caches that reading fills are filled
    copies: list[tuple[str, State]] = [(f"clone (<= {n} plies)", state.clone()) for n in COPY_PLIES]
    seat = rng.randrange(state.players)
    copies += [(f"determinize({seat}) (<= {n} plies)",
                state.determinize(seat, random.Random(rng.getrandbits(32)))) for n in COPY_PLIES]
    caches: list[tuple[str, Any, str]] = []
    for name, copy in copies[::len(COPY_PLIES)] if structural else ():
        bad, shared = sharing_violations(state, copy)
        out += [f"{where}: a {name.split()[0]} {b}" for b in bad]
        caches += shared
    for (name, copy), limit in zip(copies, COPY_PLIES * 2, strict=True):
        try:
            _play_copy(copy, rng, limit)
        except Exception as e:  # a copy that cannot be played is a finding: reported with its place
            out.append(f"{where}: a {name} failed after {copy.history[len(state.history):]}: "
                       f"{type(e).__name__}: {e}")
            return out
        if fingerprint(state) != now:
            out.append(f"{where}: playing a {name} changed the original")
            return out
        changed = _changed(dump, state_dump(state))
        if changed:
            out.append(f"{where}: playing a {name} changed the original's fields {', '.join(changed[:6])}")
            return out
    before = state.clone()
    fingerprint(before)
    before_dump = state_dump(before)
    if future(state, fseed) != ref_future:
        out.append(f"{where}: after its copies were played, the original's next {FUTURE_PLIES} plies "
                   "differ from a replay's")
    changed = _changed(before_dump, state_dump(before))
    if fingerprint(before) != now or changed:
        out.append(f"{where}: playing the original changed a clone made before "
                   f"(fields {', '.join(changed[:6])})")
    elif future(before, fseed) != ref_future:
        out.append(f"{where}: a clone's next {FUTURE_PLIES} plies differ from a replay's after the "
                   "original played on")
    out += [f"{where}: {p}, shared by the copies as a cache nobody mutates, was mutated"
            for p, v, text in caches if repr(v) != text]
    return out


def clone_isolation_walk(game_id: str, seed: int, checks: int = 3, options: dict[str, Any] | None = None,
                         players: int | None = None, structural: bool = True,
                         late: bool = False) -> list[str]:
    """:func:`clone_isolation_violations` at ``checks`` random positions of one random match (the
    first within its first plies: trick 1, the first turn; the next ones further on), and at every
    ply on the way the cheap part (:func:`copies_leave_the_original`): a clone and a
    ``determinize`` copy share nothing mutable, and playing them on for up to
    :data:`PLY_COPY_PLIES` plies leaves every field of the original as it was.  ``late`` goes on
    to the match's end (at most :data:`LATE_PLIES` more), the cheap part every
    :data:`LATE_EVERY` plies (eliminations, match ends).  ``structural=False`` leaves the sharing
    checks out: what playing the copies and the original shows alone (tests/clone_mutants.py)."""
    from engine import load_game
    state = load_game(game_id, **(options or {})).new_match(seed=seed, players=players)
    rng = random.Random(seed)
    out: list[str] = []
    for i in range(checks):
        for _ in range(rng.randrange(0, 12 if i == 0 else 40)):
            if state.is_over():
                break
            out = copies_leave_the_original(state, rng, structural)
            if out:
                return out
            state.apply(pick(rng, state.legal_actions()))
        if state.is_over():
            break
        out += clone_isolation_violations(state, rng, structural)
        if out:
            return out
    for step in range(LATE_PLIES if late else 0):
        if state.is_over():
            break
        if step % LATE_EVERY == 0:
            out = copies_leave_the_original(state, rng, structural)
            if out:
                return out
        state.apply(pick(rng, state.legal_actions()))
    return out


LATE_PLIES = 4000
"""Plies a ``late`` walk goes on for at most after its checks."""
LATE_EVERY = 5
"""A ``late`` walk checks its copies every this many plies."""


def copies_leave_the_original(state: State, rng: random.Random, structural: bool = True) -> list[str]:
    """The cheap part of the property at one position: a clone and a ``determinize`` copy for a
    random seat share nothing mutable with ``state`` (unless ``structural`` is off), can be played
    on for up to :data:`PLY_COPY_PLIES` plies, and leave every field of ``state`` as it was."""
    where = f"{state.game.id} seed {state.seed} ply {len(state.history)}"
    dump = state_dump(state)
    seat = rng.randrange(state.players)
    for copy in (state.clone(), state.determinize(seat, random.Random(rng.getrandbits(32)))):
        bad, _ = sharing_violations(state, copy) if structural else ([], [])
        if bad:
            return [f"{where}: a copy {b}" for b in bad]
        try:
            _play_copy(copy, rng, PLY_COPY_PLIES)
        except Exception as e:  # a copy that cannot be played is a finding, with its place
            return [f"{where}: a copy failed after {copy.history[len(state.history):]}: "
                    f"{type(e).__name__}: {e}"]
        changed = _changed(dump, state_dump(state))
        if changed:
            return [f"{where}: playing a copy changed the original's fields " + ", ".join(changed[:6])]
    return []
