"""Random whole matches of the ``_rummy`` games per second, against OpenSpiel's gin_rummy (issue 15 item 2).

    python bench/rummies.py [--rounds 10] [--matches 3] [--baseline DIR] [--games jokeren_nl,...]
    python bench/rummies.py --games wildcard_rummy,cincinnati_rummy --matches 30 --baseline DIR

``--games`` may also name the knock rummies with the one going-out search (:data:`KNOCK_GAMES`).

A *match* is ``game.new_match(seed=s)`` played to its end with
``state.apply(rng.choice(state.legal_actions()))`` and ``rng = random.Random(s)``: the actions
``tests.conformance.random_playout`` plays (``bench/random_matches.py``), without its invariant checks.

Each engine build runs in a child process of its own, every child pinned to the same core: the
current source (``CARDARENA_COMPILED=0``), ``--baseline DIR`` (a directory holding an older
``engine/`` package, e.g. ``git archive 514561f engine``; when DIR is a whole tree with a fresh
compiled build of its own, ``before_c`` runs that build too), and the compiled build
(``CARDARENA_COMPILED=require``) when it is fresh (``python build_compiled.py``).  In every round,
for every game, each child plays the same ``--matches`` seeded matches (CPU time,
``time.process_time``), then at once OpenSpiel ``gin_rummy`` episodes for the same CPU time with its
fair loop (``rng.choice(state.legal_actions())`` at every node, chance nodes included).  So each
child measures (ours / gin_rummy) under the load of that moment, and the ratio of two builds is
the median over rounds of (ours / gin_rummy in build A) / (ours / gin_rummy in build B): the load
cancels.  The children take turns going first.

Figures: bench/README.md ("rummies.py").
"""
from __future__ import annotations

import argparse
import json
import os
import random
import statistics
import subprocess
import sys
import time
from dataclasses import dataclass
from pathlib import Path
from typing import Any

HERE = Path(__file__).resolve().parent
# `python bench/rummies.py` puts bench/ first on sys.path; the engine comes from the project root,
# or, for ``--serve --root DIR``, from DIR (an export of an older commit).
sys.path[:] = [p for p in sys.path if Path(p or ".").resolve() != HERE]
_ROOT = sys.argv[sys.argv.index("--root") + 1] if "--root" in sys.argv[:-1] else str(HERE.parent)
sys.path.insert(0, _ROOT)

GAMES = ("jokeren_nl", "amerikaans_jokeren", "jokeren_drift", "ramino_drift", "loba")
"""The games built on ``engine/games/rummy/_rummy.py`` (the default)."""
KNOCK_GAMES = ("wildcard_rummy", "cincinnati_rummy", "ramino_klop")
"""The games of ``engine/games/rummy/_knock.py`` whose going-out offer is one search over the hand
(``Solver.outs1``; Ramino Klop's knock: ``Solver.knock_discards``); measured only when ``--games``
names them."""


@dataclass
class Rate:
    matches: int
    actions: int
    seconds: float

    @property
    def per_s(self) -> float:
        return self.matches / self.seconds


def ours(game_id: str, first_seed: int, matches: int) -> Rate:
    """``matches`` random whole matches of ``game_id``, seeds from ``first_seed``; CPU time."""
    from engine import load_game
    game = load_game(game_id)
    clock = time.process_time
    actions = 0
    start = clock()
    for seed in range(first_seed, first_seed + matches):
        state = game.new_match(seed=seed)
        rng = random.Random(seed)
        choice, legal, apply, over = rng.choice, state.legal_actions, state.apply, state.is_over
        while not over():
            apply(choice(legal()))
            actions += 1
    return Rate(matches, actions, clock() - start)


def gin_rummy(game: Any, seconds: float, rng: random.Random) -> Rate:
    """OpenSpiel gin_rummy episodes for at least ``seconds`` of CPU, fair loop (chance nodes too)."""
    clock = time.process_time
    episodes = actions = 0
    start = clock()
    end = start + seconds
    choice = rng.choice
    while True:
        state = game.new_initial_state()
        apply, legal, terminal = state.apply_action, state.legal_actions, state.is_terminal
        while not terminal():
            apply(choice(legal()))
            actions += 1
        episodes += 1
        now = clock()
        if now >= end:
            return Rate(episodes, actions, now - start)


def serve() -> int:
    """A child: requests ``GAME SEED MATCHES`` on stdin; answers one JSON line per request:
    ``[ours matches, actions, seconds, gin episodes, actions, seconds]``."""
    import pyspiel

    try:
        from engine import _compiled
    except ImportError as e:  # CARDARENA_COMPILED=require and no fresh build (CompiledBuildError)
        print(json.dumps({"compiled": False, "error": str(e).splitlines()[0]}), flush=True)
        return 0
    gin = pyspiel.load_game("gin_rummy")
    rng = random.Random(0)
    print(json.dumps({"compiled": _compiled.ACTIVE is not None if hasattr(_compiled, "ACTIVE") else False}),
          flush=True)
    for req in sys.stdin:
        game_id, seed, matches = req.split()
        a = ours(game_id, int(seed), int(matches))
        b = gin_rummy(gin, a.seconds, rng)
        print(json.dumps([a.matches, a.actions, a.seconds, b.matches, b.actions, b.seconds]), flush=True)
    return 0


class Child:
    """A :func:`serve` process on one build, pinned to ``cpu``."""

    def __init__(self, mode: str, cpu: int, root: str | None = None) -> None:
        env = dict(os.environ, CARDARENA_COMPILED=mode)
        cmd = [sys.executable, str(Path(__file__).resolve()), "--serve"]
        if root:
            cmd += ["--root", root]
        self.p = subprocess.Popen(cmd, env=env, text=True, stdin=subprocess.PIPE, stdout=subprocess.PIPE,
                                  preexec_fn=lambda: os.sched_setaffinity(0, {cpu}))
        assert self.p.stdout is not None
        hello = self.p.stdout.readline()
        self.info: dict[str, Any] = json.loads(hello) if hello else {}
        self.ok = bool(hello)

    def ask(self, req: str) -> tuple[Rate, Rate]:
        assert self.p.stdin is not None and self.p.stdout is not None
        self.p.stdin.write(req + "\n")
        self.p.stdin.flush()
        got = self.p.stdout.readline()
        if not got:
            raise RuntimeError(f"bench child died on {req!r}")
        m, a, s, gm, ga, gs = json.loads(got)
        return Rate(m, a, s), Rate(gm, ga, gs)

    def close(self) -> None:
        assert self.p.stdin is not None
        self.p.stdin.close()
        self.p.wait(timeout=60)


def median_ratio(xs: list[float], digits: int = 2) -> str:
    return f"{statistics.median(xs):.{digits}f}x ({min(xs):.{digits}f}-{max(xs):.{digits}f})"


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--rounds", type=int, default=10, help="interleaved rounds (default 10)")
    ap.add_argument("--matches", type=int, default=3, help="matches per game per round per build (default 3)")
    ap.add_argument("--baseline", help="a directory holding an older engine/ package (e.g. 514561f's)")
    ap.add_argument("--games", help=f"comma-separated game ids (default: {','.join(GAMES)}; also "
                    f"{','.join(KNOCK_GAMES)})")
    ap.add_argument("--no-compiled", action="store_true", help="skip the compiled build")
    ap.add_argument("--serve", action="store_true", help=argparse.SUPPRESS)
    ap.add_argument("--root", help=argparse.SUPPRESS)
    a = ap.parse_args(argv)
    if a.serve:
        return serve()
    if a.rounds < 1 or a.matches < 1:
        ap.error("--rounds and --matches must be positive")
    games = a.games.split(",") if a.games else list(GAMES)
    unknown = [g for g in games if g not in GAMES + KNOCK_GAMES]
    if unknown:
        ap.error(f"not a game this bench measures: {', '.join(unknown)} "
                 f"(choose from {', '.join(GAMES + KNOCK_GAMES)})")
    try:
        import pyspiel  # noqa: F401
    except ImportError:
        print("OpenSpiel is not installed (pip install open-spiel)")
        return 1
    if a.baseline and not (Path(a.baseline) / "engine" / "__init__.py").is_file():
        print(f"--baseline {a.baseline}: no engine/ package there")
        return 1
    cpu = min(os.sched_getaffinity(0))
    kids = {"pure": Child("0", cpu)}
    if not kids["pure"].ok:
        print("the bench child on the current source did not start")
        return 1
    if a.baseline:
        kids["before"] = Child("0", cpu, a.baseline)
        if not a.no_compiled and (Path(a.baseline) / "build" / "compiled").is_dir():
            bc = Child("require", cpu, a.baseline)  # the baseline's own compiled build (a whole tree)
            if bc.ok and bc.info.get("compiled"):
                kids["before_c"] = bc
            else:
                bc.close()
                print(f"# the baseline's compiled build skipped: {bc.info.get('error', 'not active')}")
    if not a.no_compiled:
        comp = Child("require", cpu)
        if comp.ok and comp.info.get("compiled"):
            kids["compiled"] = comp
        else:
            comp.close()
            why = comp.info.get("error", "not active")
            print(f"# compiled build skipped: {why}")
    names = list(kids)
    runs: dict[tuple[str, str], list[tuple[Rate, Rate]]] = {(k, g): [] for k in names for g in games}
    for r in range(a.rounds):
        for g in games:
            order = names[r % len(names):] + names[:r % len(names)]
            for k in order:
                runs[k, g].append(kids[k].ask(f"{g} {1000 * r} {a.matches}"))
    for kid in kids.values():
        kid.close()
    print(f"# {a.rounds} rounds x {a.matches} matches per game and build, CPU time, one core (cpu {cpu}), "
          f"load average {' '.join(f'{x:.2f}' for x in os.getloadavg())}")
    print(f"{'game':<20} {'build':<9} {'matches/s':>10} {'act/match':>10} {'gin eps/s':>10} "
          f"{'ours/gin (median, range)':>25}")
    for g in games:
        for k in names:
            rs = runs[k, g]
            mps = sum(x.matches for x, _ in rs) / sum(x.seconds for x, _ in rs)
            apm = sum(x.actions for x, _ in rs) / sum(x.matches for x, _ in rs)
            gps = sum(y.matches for _, y in rs) / sum(y.seconds for _, y in rs)
            rel = [x.per_s / y.per_s for x, y in rs]
            print(f"{g:<20} {k:<9} {mps:>10.2f} {apm:>10.0f} {gps:>10.1f} {median_ratio(rel, 4):>25}")
    pairs = [(x, y) for x, y in (("pure", "before"), ("compiled", "before"), ("compiled", "before_c"),
                                 ("compiled", "pure"))
             if x in kids and y in kids]
    if pairs:
        print(f"\n{'ratio (median of per-round (ours/gin) ratios)':<48}" + "".join(f"{x + '/' + y:>24}"
                                                                              for x, y in pairs))
        for g in games:
            cells = []
            for x, y in pairs:
                rel = [(ax.per_s / ay.per_s) / (bx.per_s / by.per_s)
                       for (ax, ay), (bx, by) in zip(runs[x, g], runs[y, g], strict=True)]
                cells.append(f"{median_ratio(rel):>24}")
            print(f"{g:<48}" + "".join(cells))
    return 0


if __name__ == "__main__":
    sys.exit(main())
