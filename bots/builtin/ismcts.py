"""The ISMCTS player: single-observer information-set Monte Carlo tree search (Cowling, Powley and
Whitehouse 2012), over any game whose engine implements ``determinize``.

It never sees the engine's state.  With each observation the match loop hands it ``worlds``:
states the engine built with ``state.determinize(seat, rng)``, in which every card hidden from its
seat has been redealt consistently with what the seat knows (hand sizes, cards seen passed or
taken, shown voids) and the future stock order reshuffled.  Each iteration takes one world in turn
(cloned), walks one tree shared by all worlds (children are the actions legal in that world; UCB
with availability counts; at the root the greedy player's choice gets a progressive bias), expands
one action, plays the rest of the deal with a fast heuristic policy (below), and scores the deal
for every seat: half a pairwise comparison of the score changes (the deal's placement), half the
change against the seats' mean, on the scale of the deals seen so far (so that a doubled stake
counts double).  The move is the root action visited most.

Rollout policy (90% heuristic, 10% random), from the action strings and the trick it tracks itself
from the observation's current trick and the actions played since:

* trick games: duck under the winning card and unload penalty cards (reverse games); win cheaply,
  give points to the partner's trick and throw cheap cards otherwise (point games);
* shedding games: call when greedy would (the searching seat in Genive: whenever it may), discard
  the combination worth the most, take a low visible card;
* anything else: uniform random.

Budget: ``iterations`` per move (default 300, deterministic), optionally capped by ``time_limit``
seconds.  Without worlds (a game without ``determinize``, or a forced move) it plays as ``greedy``.
"""
from __future__ import annotations

import math
import random
from collections.abc import Sequence
from time import perf_counter
from typing import Any

from bots.builtin._common import (
    SHEDDING_FACE,
    SUITS,
    BotOption,
    TrickRules,
    check_options,
    family,
    shed_value,
    teams_of,
    trick_rules,
    trick_view,
)
from bots.builtin._common import suit as suit_of
from bots.builtin.greedy import Bot as GreedyBot

LOWER_IS_BETTER = {"hartenjagen": True, "genive": True, "geneve": True, "manillen": False,
                   "butifarra": False, "manille_parlee": False, "manille_muette": False,
                   "manille_2_7": False}
"""Score direction per game (``scores()`` units); other games: inferred from ``ranking()``."""

EAGER_CALLER = {"genive"}
"""Games where the searching seat's rollouts call whenever the rules allow: a Genive caller scores
his own (low) hand like everybody else, so an early call costs little.  (Measured with
bench/bots.py: in Genive eager self-calls beat greedy's rule; in Geneve, where a failed call adds 30
to the hand, greedy's rule for every seat is better.)"""

_inferred: dict[str, bool] = {}

OPTIONS = (
    BotOption("iterations", int, 1, 100_000, "search iterations per move"),
    BotOption("time_limit", float, 0.001, 3600.0, "seconds of search per move at most"),
)
"""The constructor's options (a spec's ``options = { iterations = 50 }``), checked at spec load."""


class Node:
    __slots__ = ("avail", "children", "player", "total", "visits")

    def __init__(self, player: int) -> None:
        self.player = player
        """The seat whose action leads to this node."""
        self.visits = 0
        self.avail = 1
        self.total = 0.0
        self.children: dict[str, Node] = {}


class Bot:
    worlds = 16
    """Determinized worlds wanted with each observation (the match loop provides them)."""
    iterations = 300
    shed_iterations = 150
    """Shedding games list many discards per turn, so each iteration costs more there."""
    exploration = 0.7
    rollout_cap = 400
    """Plies per rollout at most (then the deal is scored as it stands)."""
    shed_cap = 24
    """Plies per rollout at most in a shedding game; then each seat's hand total stands in for its
    deal score (lower is better), read from the world's ``hand_value`` observation key."""
    rummy_cap = 8
    """The same for a rummy: random play rarely ends a rummy deal (thousands of plies, each building
    melds card by card), so a rollout stops here and the seats' hands (``hand_value``, else the
    number of cards) stand in.  (Jokeren, one deal with ismcts(40): 9 s at 8 plies, 39 s at 24.)"""

    def __init__(self, game: str, seat: int, seed: int, iterations: int | None = None,
                 time_limit: float | None = None) -> None:
        check_options("ismcts", OPTIONS, {k: v for k, v in (("iterations", iterations),
                                                             ("time_limit", time_limit)) if v is not None})
        self.game = game
        self.seat = seat
        self.rng = random.Random(seed)
        self.greedy = GreedyBot(game, seat, seed ^ 0x5A5A5A5A)
        fam = family(game)
        if iterations is not None:
            self.iterations = iterations
        elif fam in ("shedding", "rummy"):
            self.iterations = self.shed_iterations
        self.time_limit = time_limit
        self.lower = LOWER_IS_BETTER.get(game)
        self.kind = ("trick" if fam.startswith("trick") else "shed" if fam == "shedding"
                     else "rummy" if fam == "rummy" else "other")
        self.rules: TrickRules | None = trick_rules(game) if self.kind == "trick" else None
        self.teams = teams_of(game)
        self.face = SHEDDING_FACE.get(game, 10)
        self.eager = game in EAGER_CALLER
        self._values: dict[str, int] = {}
        self._scale: float | None = None
        self._infos: dict[str | None, dict[str, tuple[str, int, int]]] = {}

    def act(self, obs: dict[str, Any]) -> str:
        """Without worlds: play as greedy."""
        return self.greedy.act(obs)

    def act_in_worlds(self, obs: dict[str, Any], worlds: Sequence[Any]) -> str:
        legal: list[str] = obs["legal_actions"]
        if len(legal) == 1:
            return legal[0]
        if not worlds:
            return self.greedy.act(obs)
        hint = self.greedy.act(obs)
        view = trick_view(obs, self.teams) if self.kind == "trick" else None
        trick = [(s, "play " + c) for s, c in view.trick] if view is not None else []
        trump = view.trump if view is not None else None
        return self.search(legal, worlds, hint, trick, trump)

    # ------------------------------------------------------------------ search
    def search(self, legal: list[str], worlds: Sequence[Any], hint: str | None = None,
               root_trick: Sequence[tuple[int, str]] = (), root_trump: str | None = None) -> str:
        rng = self.rng
        policy = self.policy
        bias = 2.0
        root = Node(self.seat)
        nw = len(worlds)
        c = self.exploration
        cap = {"shed": self.shed_cap, "rummy": self.rummy_cap}.get(self.kind, self.rollout_cap)
        stop = perf_counter() + self.time_limit if self.time_limit else None
        log = math.log
        sqrt = math.sqrt
        for it in range(self.iterations):
            if stop is not None and it and perf_counter() > stop:
                break
            w = worlds[it % nw].clone()
            deal0 = w.deal_no
            base = w.scores()
            n = w.players
            trick = list(root_trick)
            trump = [root_trump]
            node = root
            path: list[Node] = []
            while not w.is_over() and w.deal_no == deal0:
                acts = w.legal_actions()
                p = w.current_player
                kids = node.children
                untried = [a for a in acts if a not in kids]
                if untried:
                    a = untried[rng.randrange(len(untried))]
                    for b in acts:
                        ch = kids.get(b)
                        if ch is not None:
                            ch.avail += 1
                    child = kids[a] = Node(p)
                    w.apply(a)
                    _track(a, p, trick, trump, n)
                    path.append(child)
                    break
                best_a, best_v = acts[0], -1.0
                for a in acts:
                    ch = kids[a]
                    ch.avail += 1
                    v = ch.total / ch.visits + c * sqrt(log(ch.avail) / ch.visits)
                    if node is root and a == hint:
                        v += bias / (ch.visits + 1)
                    if v > best_v:
                        best_a, best_v = a, v
                w.apply(best_a)
                _track(best_a, p, trick, trump, n)
                node = kids[best_a]
                path.append(node)
            plies = 0
            while plies < cap and not w.is_over() and w.deal_no == deal0:
                acts = w.legal_actions()
                p = w.current_player
                a = policy(acts, p, trick, trump[0], n, w) if rng.random() < 0.9 else None
                if a is None:
                    a = acts[rng.randrange(len(acts))]
                w.apply(a)
                _track(a, p, trick, trump, n)
                plies += 1
            if plies >= cap and self.kind in ("shed", "rummy") and not w.is_over() and w.deal_no == deal0:
                u = self.hand_utility(w)
            else:
                u = self.utility(w, base)
            for n in path:
                n.visits += 1
                n.total += u[n.player]
        kids = root.children
        options = [a for a in legal if a in kids]
        if not options:
            return self.greedy.act({"legal_actions": legal})
        return max(options, key=lambda a: kids[a].visits)

    # ------------------------------------------------------------------ rollout policy
    def policy(self, acts: list[str], p: int, trick: list[tuple[int, str]], trump: str | None,
               n: int, w: Any = None) -> str | None:
        """A fast heuristic move for seat ``p`` among ``acts`` (None: no opinion, play at random)."""
        if len(acts) == 1:
            return acts[0]
        kind = self.kind
        if kind == "trick":
            return self.trick_move(acts, p, trick, trump, n)
        if kind == "shed":
            return self.shed_move(acts, p, w)
        if "call" in acts:
            return "call"
        if "knock" in acts:
            return "knock"
        return None

    def _info(self, trump: str | None) -> dict[str, tuple[str, int, int]]:
        """``"play XX"`` -> (suit, strength, points) under ``trump`` (cached)."""
        info = self._infos.get(trump)
        if info is None:
            r = self.rules
            assert r is not None
            info = {"play " + t: (suit_of(t), r.strength(t, trump), r.value(t, trump)) for t in r.deck}
            self._infos[trump] = info
        return info

    def trick_move(self, acts: list[str], p: int, trick: list[tuple[int, str]], trump: str | None,
                   n: int) -> str | None:
        r = self.rules
        assert r is not None
        info = self._info(trump)
        if any(a not in info for a in acts):  # talk (declare ...) or another phase: cards only
            acts = [a for a in acts if a in info]
            if not acts:
                return None
        if not trick:
            if r.avoid:  # lead low, hearts last
                return min(acts, key=lambda a: (info[a][0] == "H" or a == "play QS", info[a][1]))
            return min(acts, key=lambda a: (info[a][2], info[a][0] == trump, info[a][1]))
        ws, wa = trick[0]
        led = info[wa][0] if wa in info else ""
        wi = info.get(wa, ("", -1, 0))
        stake = wi[2]
        for s, a in trick[1:]:
            ci = info.get(a)
            if ci is None:
                continue
            stake += ci[2]
            if (ci[0] == wi[0] and ci[1] > wi[1]) or (ci[0] == trump and wi[0] != trump):
                ws, wi = s, ci
        ws_suit, ws_str = wi[0], wi[1]

        def wins(a: str) -> bool:
            ci = info[a]
            if ci[0] == ws_suit:
                return ci[1] > ws_str
            return ci[0] == trump
        last = len(trick) == n - 1
        if r.avoid:
            follow = [a for a in acts if info[a][0] == led]
            if follow:
                under = [a for a in follow if not wins(a)]
                if under:
                    return max(under, key=lambda a: info[a][1])
                if last:
                    return max(follow, key=lambda a: (a != "play QS", info[a][1]))
                return min(follow, key=lambda a: info[a][1])
            return max(acts, key=lambda a: (a == "play QS", info[a][2], info[a][1]))
        if self.teams and n == 4 and ws == (p + 2) % 4:
            under = [a for a in acts if not wins(a)] or acts
            return max(under, key=lambda a: (info[a][2], info[a][0] != trump))
        winners = [a for a in acts if wins(a)]
        if winners and (last or stake > 0 or r.trick_point):
            return min(winners, key=lambda a: (info[a][0] == trump, info[a][1]))
        return min(acts, key=lambda a: (info[a][2], info[a][0] == trump, info[a][1]))

    def shed_move(self, acts: list[str], p: int = 0, w: Any = None) -> str | None:
        if "call" in acts:
            # seats call as greedy would (a call is rarely legal, so reading the seat's view here
            # is cheap); in Genive the searching seat calls whenever it may
            if w is None or (p == self.seat and self.eager):
                return "call"
            o = w.observation(p)
            total = o.get("hand_value")
            if isinstance(total, int) and self.greedy.should_call(o, total):
                return "call"
        vals = self._values
        face = self.face
        best, best_v = None, -1
        for a in acts:
            v = vals.get(a)
            if v is None:
                verb, _, rest = a.partition(" ")
                if verb == "discard":
                    v = 1000 + sum(shed_value(t, face) for t in rest.split()) * 8 + rest.count(" ")
                elif verb == "draw":
                    v = 500 if rest == "stock" else (600 + 10 - shed_value(rest, face)
                                                       if rest.startswith("JK") or shed_value(rest, face) <= 3
                                                       else 0)
                else:
                    v = 0
                vals[a] = v
            if v > best_v:
                best, best_v = a, v
        return best

    def spread(self, g: list[float]) -> list[float]:
        """Utilities in [0, 1] from per-seat gains (higher better): half the pairwise comparison
        with the other seats (the deal's placement), half the gain over the seats' mean on the
        scale of the deals seen so far (so that a doubled stake counts double)."""
        n = len(g)
        lo, hi = min(g), max(g)
        span = hi - lo
        if span > 0:
            self._scale = span if self._scale is None else 0.98 * self._scale + 0.02 * span
        if n < 2:
            return [0.5] * n
        scale = self._scale or 1.0
        mean = sum(g) / n
        tanh = math.tanh
        out = []
        for gi in g:
            pw = sum(1.0 if gi > gj else 0.5 if gi == gj else 0.0 for gj in g) - 0.5
            out.append(0.5 * pw / (n - 1) + 0.25 * (1.0 + tanh((gi - mean) / scale)))
        return out

    def hand_utility(self, w: Any) -> list[float]:
        """A shedding or rummy deal cut short: lower hand totals (or fewer cards) are better."""
        vals = []
        for s in range(w.players):
            o = w.observation(s)
            v = o.get("hand_value")
            vals.append(-float(v) if isinstance(v, (int, float)) else -float(len(o.get("hand") or ())))
        return self.spread(vals)

    def utility(self, w: Any, base: list[float]) -> list[float]:
        """Each seat's result of the deal in [0, 1]."""
        sc = w.scores()
        n = len(sc)
        lower = self.lower
        if lower is None:
            lower = self._infer(w)
        return self.spread([(base[i] - sc[i]) if lower else (sc[i] - base[i]) for i in range(n)])

    def _infer(self, w: Any) -> bool:
        """Lower scores better?  From the world's ranking against its scores (cached per game)."""
        if self.game in _inferred:
            return _inferred[self.game]
        sc, rk = w.scores(), w.ranking()
        best = [i for i in range(len(rk)) if rk[i] == min(rk)]
        if len(set(sc)) > 1 and len(best) < len(rk):
            lower = sc[best[0]] == min(sc)
            _inferred[self.game] = lower
            self.lower = lower
            return lower
        return True


def _track(a: str, p: int | None, trick: list[tuple[int, str]], trump: list[str | None], n: int) -> None:
    """Follow the current trick (and trump) through the actions of a simulation."""
    if a.startswith("play ") and len(a) == 7:
        trick.append((p if p is not None else -1, a))
        if len(trick) >= n:
            trick.clear()
    elif a.startswith("trump "):
        t = a[6:]
        trump[0] = t if t in SUITS else None

