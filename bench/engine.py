"""Random-play speed of every registered game, one process on one core.

    python bench/engine.py [--seconds S] [--games hartenjagen,genive,...]
    python bench/engine.py --builds [--seconds S] [--baseline DIR]
    python bench/engine.py --ab DIR_A DIR_B ... [--mode require|0] [--seconds S]
    python bench/engine.py --builds --every --baseline DIR [--clones] [--games ...]

A *deal* is ``game.new_match(seed=i, max_deals=1)`` played to its end with
``state.apply(rng.choice(state.legal_actions()))``.  For each game it prints deals/s, actions/s
and microseconds per action.  For Hartenjagen it also drives OpenSpiel's ``hearts``
(pip ``open-spiel``), configured to our decisions, through the same loop (chance nodes sampled
with the same ``rng.choice(legal_actions())``), alternating short rounds of each so that both see
the same machine load, and prints the ratio ours / OpenSpiel (the median of the per-round
ratios); a second OpenSpiel line samples chance nodes from ``chance_outcomes()`` instead, the
usual OpenSpiel idiom, and a last pair plays both without passing (OpenSpiel skips the pass in
a quarter of its deals, its pass direction being a chance outcome; ours passes in deal 1).

``--builds`` (issue 15 item 1): Hartenjagen on the pure source and on the compiled build
(build_compiled.py), and with ``--baseline DIR`` on an older ``engine/``, each in its own process,
against OpenSpiel hearts (in a process of its own too) with the fair loop and with an index into
``chance_outcomes()``, all pinned to one core, in interleaved rounds.  Rounds are measured in CPU time.

``--ab``: paired A/B of Hartenjagen on the ``engine/`` (and ``build/``) of each directory, one process
each, pinned to one core, interleaved CPU-time rounds; ratios to the first directory.

Figures and the machine they were measured on: bench/README.md.
"""
from __future__ import annotations

import argparse
import json
import os
import platform
import random
import statistics
import subprocess
import sys
import time
from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path
from typing import Any

HERE = Path(__file__).resolve().parent
# `python bench/engine.py` puts bench/ first on sys.path, where this file would shadow the
# `engine` package: look in the project root instead (``--serve --root DIR``: DIR's engine, e.g.
# an export of an older commit, for the before/after comparison of --builds).
sys.path[:] = [p for p in sys.path if Path(p or ".").resolve() != HERE]
_ROOT = sys.argv[sys.argv.index("--root") + 1] if "--root" in sys.argv[:-1] else str(HERE.parent)
sys.path.insert(0, _ROOT)

from engine import GAMES, load_game  # noqa: E402

ROUND = 0.25
"""Seconds per measuring round; a game's rate is the median over its rounds."""


@dataclass
class Rate:
    deals: int
    actions: int
    seconds: float

    @property
    def deals_per_s(self) -> float:
        return self.deals / self.seconds

    @property
    def actions_per_s(self) -> float:
        return self.actions / self.seconds

    @property
    def us_per_action(self) -> float:
        return 1e6 * self.seconds / self.actions


def ours_round(game_id: str, first_seed: int, seconds: float, rng: random.Random,
               **options: Any) -> Rate:
    """Random deals of ``game_id`` for about ``seconds``, seeds from ``first_seed``."""
    game = load_game(game_id, **options)
    deals = actions = 0
    clock = time.process_time
    start = clock()
    end = start + seconds
    choice = rng.choice
    seed = first_seed
    while True:
        state = game.new_match(seed=seed, max_deals=1)
        apply, legal, over = state.apply, state.legal_actions, state.is_over
        while not over():
            apply(choice(legal()))
            actions += 1
        deals += 1
        seed += 1
        now = clock()
        if now >= end:
            return Rate(deals, actions, now - start)


def clone_round(game_id: str, first_seed: int, seconds: float, rng: random.Random) -> Rate:
    """``clone()`` and ``determinize(seat)`` (what information-set search does per iteration) of
    positions from a random deal of ``game_id`` (seed ``first_seed``) for about ``seconds``: a
    "deal" of the rate is one clone plus one determinize."""
    state = load_game(game_id).new_match(seed=first_seed, max_deals=1)
    positions: list[Any] = []
    while not state.is_over() and len(positions) < 60:
        positions.append(state.clone())
        state.apply(rng.choice(state.legal_actions()))
    draw = random.Random(first_seed)
    copies = 0
    clock = time.process_time
    start = clock()
    end = start + seconds
    while True:
        for p in positions:
            p.clone()
            p.determinize(p.current_player or 0, draw)
        copies += len(positions)
        now = clock()
        if now >= end:
            return Rate(copies, copies, now - start)


def openspiel_hearts(pass_cards: bool = True) -> Any:
    """OpenSpiel's hearts with its flags set to RULES.md 2.3 (H1-H5), or None if not installed."""
    try:
        import pyspiel
    except ImportError:
        return None
    return pyspiel.load_game("hearts", {
        "pass_cards": pass_cards, "no_pts_on_first_trick": True, "must_break_hearts": True,
        "qs_breaks_hearts": True, "can_lead_any_club": False, "can_lead_hearts_instead_of_qs": False,
        "jd_bonus": False, "avoid_all_tricks_bonus": False})


def openspiel_round(game: Any, seconds: float, rng: random.Random) -> Rate:
    """Random OpenSpiel deals for about ``seconds`` with our loop: its chance outcomes are
    uniform, so the same ``rng.choice(legal_actions())`` samples them."""
    deals = actions = 0
    clock = time.process_time
    start = clock()
    end = start + seconds
    choice = rng.choice
    while True:
        state = game.new_initial_state()
        apply, legal, terminal = state.apply_action, state.legal_actions, state.is_terminal
        while not terminal():
            apply(choice(legal()))
            actions += 1
        deals += 1
        now = clock()
        if now >= end:
            return Rate(deals, actions, now - start)


def openspiel_outcomes_round(game: Any, seconds: float, rng: random.Random) -> Rate:
    """The same, but chance nodes sampled the usual OpenSpiel way, from ``chance_outcomes()``."""
    deals = actions = 0
    clock = time.process_time
    start = clock()
    end = start + seconds
    choice = rng.choice
    while True:
        state = game.new_initial_state()
        while not state.is_terminal():
            if state.is_chance_node():
                state.apply_action(choice(state.chance_outcomes())[0])
            else:
                state.apply_action(choice(state.legal_actions()))
            actions += 1
        deals += 1
        now = clock()
        if now >= end:
            return Rate(deals, actions, now - start)


def openspiel_index_round(game: Any, seconds: float, rng: random.Random) -> Rate:
    """Chance nodes by a uniform index into ``chance_outcomes()`` (issue 15's first loop), player
    nodes by ``rng.choice(legal_actions())``."""
    deals = actions = 0
    clock = time.process_time
    start = clock()
    end = start + seconds
    choice, randrange = rng.choice, rng.randrange
    while True:
        state = game.new_initial_state()
        while not state.is_terminal():
            if state.is_chance_node():
                outs = state.chance_outcomes()
                state.apply_action(outs[randrange(len(outs))][0])
            else:
                state.apply_action(choice(state.legal_actions()))
            actions += 1
        deals += 1
        now = clock()
        if now >= end:
            return Rate(deals, actions, now - start)


def median_rate(rates: list[Rate]) -> Rate:
    """The round with the median deals/s (rounds differ with the machine's load)."""
    return sorted(rates, key=lambda r: r.deals_per_s)[len(rates) // 2]


def line(name: str, r: Rate, note: str = "") -> str:
    return (f"{name:<24} {r.deals_per_s:>10,.0f} {r.actions_per_s:>12,.0f} {r.us_per_action:>10.2f} "
            f"{r.actions / r.deals:>10.1f}  {note}").rstrip()


def machine() -> str:
    cpu = platform.processor() or ""
    try:
        with open("/proc/cpuinfo", encoding="utf-8") as f:
            cpu = next((ln.split(":", 1)[1].strip() for ln in f if ln.startswith("model name")), cpu)
    except OSError:
        pass
    load = " ".join(f"{x:.2f}" for x in os.getloadavg()) if hasattr(os, "getloadavg") else "?"
    return (f"{platform.system()} {platform.machine()}, {cpu}, {os.cpu_count()} cores, "
            f"Python {platform.python_version()}, load average {load}")


def bench_game(game_id: str, seconds: float, out: Callable[[str], None]) -> None:
    rounds = max(1, round(seconds / ROUND))
    rng = random.Random(0)
    rates = [ours_round(game_id, 1_000_000 * k, seconds / rounds, rng) for k in range(rounds)]
    out(line(game_id, median_rate(rates)))


def bench_hartenjagen(seconds: float, out: Callable[[str], None]) -> None:
    os_game = openspiel_hearts()
    if os_game is None:
        bench_game("hartenjagen", seconds, out)
        out("  (OpenSpiel not installed: pip install open-spiel, or make test's set-up)")
        return
    os_no_pass = openspiel_hearts(pass_cards=False)
    rounds = max(1, round(seconds / ROUND))
    rng = random.Random(0)
    t = seconds / rounds
    runs: dict[str, list[Rate]] = {k: [] for k in ("ours", "os", "usual", "ours_np", "os_np")}
    for k in range(rounds):  # alternate, so that all see the same machine load
        runs["ours"].append(ours_round("hartenjagen", 1_000_000 * k, t, rng))
        runs["os"].append(openspiel_round(os_game, t, rng))
        runs["usual"].append(openspiel_outcomes_round(os_game, t / 2, rng))
        runs["ours_np"].append(ours_round("hartenjagen", 1_000_000 * k, t / 2, rng, pass_cards=False))
        runs["os_np"].append(openspiel_round(os_no_pass, t / 2, rng))
    out(line("hartenjagen", median_rate(runs["ours"])))
    out(line("  OpenSpiel hearts", median_rate(runs["os"]), "same loop; 53 of its actions are chance"))
    out(line("  OpenSpiel, usual chance", median_rate(runs["usual"]), "chance from chance_outcomes()"))
    out(line("  ours, no passing", median_rate(runs["ours_np"]), "pass_cards off"))
    out(line("  OpenSpiel, no passing", median_rate(runs["os_np"]), "pass_cards off"))
    for name, a, b in (("ours/OpenSpiel", "ours", "os"), ("ours/OpenSpiel usual chance", "ours", "usual"),
                       ("ours/OpenSpiel, no passing", "ours_np", "os_np")):
        ratios = [x.deals_per_s / y.deals_per_s for x, y in zip(runs[a], runs[b], strict=True)]
        out(f"  ratio {name}: {statistics.median(ratios):.2f}x deals/s "
            f"(median of {rounds} paired rounds; range {min(ratios):.2f}-{max(ratios):.2f})")


# ------------------------------------------------------------------ --builds: pure vs compiled
def serve() -> int:
    """A child of :func:`bench_builds`: one line per request on stdin (``ours SEED SECONDS`` or
    ``openspiel SECONDS``), one JSON rate per line on stdout; the build is the environment's."""
    from engine import _compiled
    os_game = openspiel_hearts()
    rng = random.Random(0)
    print(json.dumps({"compiled": _compiled.ACTIVE is not None if hasattr(_compiled, "ACTIVE") else False,
                      "openspiel": os_game is not None}), flush=True)
    for req in sys.stdin:
        what, *args = req.split()
        if what == "ours":
            r = ours_round("hartenjagen", int(args[0]), float(args[1]), rng)
        elif what == "game":
            r = ours_round(args[0], int(args[1]), float(args[2]), rng)
        elif what == "clones":
            r = clone_round(args[0], int(args[1]), float(args[2]), rng)
        elif what == "openspiel":
            r = openspiel_round(os_game, float(args[0]), rng)
        else:
            r = openspiel_index_round(os_game, float(args[0]), rng)
        print(json.dumps([r.deals, r.actions, r.seconds]), flush=True)
    return 0


class Child:
    """A :func:`serve` process on the given engine build, pinned to ``cpu``."""

    def __init__(self, mode: str, cpu: int, root: str | None = None) -> None:
        env = dict(os.environ, CARDARENA_COMPILED=mode)
        cmd = [sys.executable, str(Path(__file__).resolve()), "--serve"]
        if root:
            cmd += ["--root", root]
        self.p = subprocess.Popen(cmd, env=env, text=True, stdin=subprocess.PIPE, stdout=subprocess.PIPE,
                                  preexec_fn=lambda: os.sched_setaffinity(0, {cpu}))
        assert self.p.stdout is not None
        hello = self.p.stdout.readline()
        if not hello:
            raise RuntimeError(f"bench child ({mode}) did not start")
        self.info = json.loads(hello)

    def ask(self, req: str) -> Rate:
        assert self.p.stdin is not None and self.p.stdout is not None
        self.p.stdin.write(req + "\n")
        self.p.stdin.flush()
        deals, actions, seconds = json.loads(self.p.stdout.readline())
        return Rate(deals, actions, seconds)

    def close(self) -> None:
        assert self.p.stdin is not None
        self.p.stdin.close()
        self.p.wait(timeout=30)


def bench_builds(seconds: float, baseline: str | None, out: Callable[[str], None]) -> int:
    """Hartenjagen random play on the pure source, on the compiled build (and on ``baseline``, a
    directory holding an older ``engine/``), and OpenSpiel hearts with the fair loop, each in its
    own process, all pinned to one core, in interleaved rounds; CPU time; ratios per round."""
    cpu = min(os.sched_getaffinity(0))
    kids = {"pure": Child("0", cpu), "compiled": Child("require", cpu)}
    if baseline:
        kids["before"] = Child("0", cpu, baseline)
    # OpenSpiel in a process of its own too: a child that also ran OpenSpiel's rounds measured
    # its own engine up to 15% slower than a child that did not (pure/before 0.84x for the same code)
    rival = Child("0", cpu)
    if not kids["compiled"].info["compiled"]:
        out("compiled build not active in its child (python build_compiled.py)")
        return 1
    if not rival.info["openspiel"]:
        out("OpenSpiel not installed: pip install open-spiel")
        return 1
    rounds = max(1, round(seconds / ROUND))
    t = seconds / rounds
    runs: dict[str, list[Rate]] = {k: [] for k in (*kids, "openspiel", "openspiel_index")}
    names = list(kids)
    for k in range(rounds):  # interleaved: every engine sees the same load in each round
        for name in names[k % len(names):] + names[:k % len(names)]:  # each goes first in turn
            runs[name].append(kids[name].ask(f"ours {1_000_000 * k} {t}"))
        runs["openspiel"].append(rival.ask(f"openspiel {t}"))
        runs["openspiel_index"].append(rival.ask(f"openspiel_index {t}"))
    for kid in (*kids.values(), rival):
        kid.close()
    out(f"# {rounds} interleaved rounds of {t:g} s CPU each, one core (cpu {cpu}), one process per build")
    titles = {"openspiel": "OpenSpiel, fair loop", "openspiel_index": "OpenSpiel, index chance"}
    for name in runs:
        out(line(titles.get(name, f"hartenjagen {name}"), median_rate(runs[name])))
    pairs = [("compiled", "openspiel"), ("pure", "openspiel"), ("compiled", "pure"),
             ("compiled", "openspiel_index"), ("pure", "openspiel_index")]
    if baseline:
        pairs += [("pure", "before"), ("before", "openspiel")]
    for a, b in pairs:
        ratios = [x.deals_per_s / y.deals_per_s for x, y in zip(runs[a], runs[b], strict=True)]
        out(f"  ratio {a}/{b}: {statistics.median(ratios):.2f}x deals/s "
            f"(median of {rounds} rounds; range {min(ratios):.2f}-{max(ratios):.2f})")
    return 0


def bench_every(seconds: float, baseline: str, games: list[str], out: Callable[[str], None],
                what: str = "game") -> int:
    """Every game on ``baseline``'s ``engine/``, on the pure source and on the compiled build (when
    fresh), one process each, pinned to one core, interleaved rounds of CPU time per game; ratios to
    the baseline are medians of per-round ratios ("every other game no slower", issue 15).
    ``what="clones"``: copies (a clone plus a determinize) per second instead of deals."""
    cpu = min(os.sched_getaffinity(0))
    kids = {"before": Child("0", cpu, baseline), "pure": Child("0", cpu)}
    compiled = Child("require", cpu) if _build_fresh() else None
    if compiled is not None:
        kids["compiled"] = compiled
    else:
        out("# no fresh compiled build (python build_compiled.py): the pure source only")
    rounds = max(1, round(seconds / ROUND))
    t = seconds / rounds
    names = list(kids)
    unit = "copies/s (clone + determinize)" if what == "clones" else "deals/s"
    out(f"# {rounds} interleaved rounds of {t:g} s CPU per game and build, one core (cpu {cpu}); {unit}")
    out("# a game whose play changed since the baseline (other actions a deal: a rules fix) is also")
    out("# compared by actions/s: the last column, with the actions a deal on the source and the baseline")
    head = f"{'game':<20} " + " ".join(f"{n:>9}" for n in names) + "   pure/before"
    out(head + ("   compiled/before" if compiled is not None else "") + "   pure/before actions/s")
    for g in games:
        runs: dict[str, list[Rate]] = {n: [] for n in names}
        for k in range(rounds):
            for name in names[k % len(names):] + names[:k % len(names)]:
                runs[name].append(kids[name].ask(f"{what} {g} {1_000_000 * k} {t}"))
        rates = " ".join(f"{median_rate(runs[n]).deals_per_s:9.1f}" for n in names)
        cells = []
        for n in names[1:]:
            ratios = [x.deals_per_s / y.deals_per_s for x, y in zip(runs[n], runs["before"], strict=True)]
            cells.append(f"{statistics.median(ratios):6.2f}x ({min(ratios):.2f}-{max(ratios):.2f})")
        before, pure = runs["before"], runs["pure"]
        per_action = [a.actions_per_s / b.actions_per_s for a, b in zip(pure, before, strict=True)]
        cells.append(f"{statistics.median(per_action):6.2f}x "
                     f"({sum(a.actions for a in pure) / sum(a.deals for a in pure):.1f} vs "
                     f"{sum(b.actions for b in before) / sum(b.deals for b in before):.1f} actions a deal)")
        out(f"{g:<20} {rates}   " + "   ".join(cells))
    for kid in kids.values():
        kid.close()
    return 0


def _build_fresh() -> bool:
    from engine import _compiled
    return bool(_compiled.check_build()[0])


def bench_ab(roots: list[str], mode: str, seconds: float, out: Callable[[str], None]) -> int:
    """Paired A/B: Hartenjagen on the ``engine/`` of each directory in ``roots`` (the build of
    ``CARDARENA_COMPILED=mode``), one process each, pinned to one core, interleaved rounds of CPU
    time; each ratio is the median of the per-round ratios of a root to the first."""
    cpu = min(os.sched_getaffinity(0))
    kids = [Child(mode, cpu, root) for root in roots]
    if mode == "require" and not all(k.info["compiled"] for k in kids):
        out("a compiled build is not active in some child (python build_compiled.py in its root)")
        return 1
    rounds = max(1, round(seconds / ROUND))
    t = seconds / rounds
    runs: list[list[Rate]] = [[] for _ in kids]
    for k in range(rounds):
        order = list(range(len(kids)))
        order = order[k % len(order):] + order[:k % len(order)]  # each goes first in turn
        for i in order:
            runs[i].append(kids[i].ask(f"ours {1_000_000 * k} {t}"))
    for kid in kids:
        kid.close()
    out(f"# {rounds} interleaved rounds of {t:g} s CPU each, one core (cpu {cpu}), CARDARENA_COMPILED={mode}")
    for root, rates in zip(roots, runs, strict=True):
        out(line(Path(root).name[:24], median_rate(rates)))
    for root, rates in zip(roots[1:], runs[1:], strict=True):
        ratios = [x.deals_per_s / y.deals_per_s for x, y in zip(rates, runs[0], strict=True)]
        out(f"  ratio {Path(root).name}/{Path(roots[0]).name}: {statistics.median(ratios):.3f}x deals/s "
            f"(median of {rounds} rounds; range {min(ratios):.2f}-{max(ratios):.2f})")
    return 0


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description="Random-play deals per second of every registered game.")
    ap.add_argument("--seconds", type=float, default=2.0,
                    help="measuring time per game (Hartenjagen: per engine), default 2")
    ap.add_argument("--games", help="comma-separated game ids (default: every registered game)")
    ap.add_argument("--builds", action="store_true",
                    help="Hartenjagen on the pure source and the compiled build vs OpenSpiel's fair loop")
    ap.add_argument("--baseline", help="with --builds: also a directory holding an older engine/ package")
    ap.add_argument("--ab", nargs="+", metavar="DIR",
                    help="paired A/B of Hartenjagen on the engine/ of each DIR (ratios to the first)")
    ap.add_argument("--mode", default="require", choices=("require", "0"),
                    help="with --ab: CARDARENA_COMPILED for every child (require: the compiled build)")
    ap.add_argument("--every", action="store_true",
                    help="with --baseline: every game (or --games) on the baseline, the source and the build")
    ap.add_argument("--clones", action="store_true",
                    help="with --every: clone() + determinize() per second (ISMCTS's copies), not deals")
    ap.add_argument("--serve", action="store_true", help=argparse.SUPPRESS)
    ap.add_argument("--root", help=argparse.SUPPRESS)
    a = ap.parse_args(argv)
    if a.serve:
        return serve()
    if a.seconds <= 0:
        ap.error("--seconds must be positive")
    if a.ab:
        print(f"# {machine()}")
        return bench_ab(a.ab, a.mode, a.seconds, print)
    if a.every:
        if not a.baseline:
            ap.error("--every needs --baseline DIR (a directory holding an older engine/)")
        print(f"# {machine()}")
        ids = a.games.split(",") if a.games else list(GAMES)
        return bench_every(a.seconds, a.baseline, ids, print, "clones" if a.clones else "game")
    if a.builds:
        print(f"# {machine()}")
        print(f"{'engine':<24} {'deals/s':>10} {'actions/s':>12} {'us/action':>10} {'act/deal':>10}")
        return bench_builds(a.seconds, a.baseline, print)
    ids = a.games.split(",") if a.games else list(GAMES)
    unknown = [g for g in ids if g not in GAMES]
    if unknown:
        ap.error(f"unknown game(s) {', '.join(unknown)}; registered: {', '.join(GAMES)}")
    print(f"# {machine()}")
    print(f"# {a.seconds:g} s per game in {ROUND:g} s rounds; the median round is shown")
    print(f"{'game':<24} {'deals/s':>10} {'actions/s':>12} {'us/action':>10} {'act/deal':>10}")
    failed = []
    for gid in ids:
        try:
            if gid == "hartenjagen":
                bench_hartenjagen(a.seconds, print)
            else:
                bench_game(gid, a.seconds, print)
        except Exception as e:  # report the game and go on to the next; the exit code says it failed
            print(f"{gid:<24} FAILED: {type(e).__name__}: {e}")
            failed.append(gid)
        sys.stdout.flush()
    return 1 if failed else 0


if __name__ == "__main__":
    sys.exit(main())
