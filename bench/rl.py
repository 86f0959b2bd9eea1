"""engine.rl's cost (issue 24, section 8): CPU time of the random-policy loops, one process.

    python bench/rl.py [--seconds 1.5] [--rounds 3] [--games hartenjagen genive klop_rummy loba]

For each game, the baseline is the bare engine loop that also builds the acting seat's observation
each ply (``legal_actions``, ``observation(current)``, ``apply``); against it, in rounds that
alternate the loops: the raw PettingZoo environment's random-policy loop (``last()``, a random id
from the mask, ``step``; the policy views the int8 mask as bool and draws with the bare loop's
``random.Random``), the wrapped ``env()``, and the OpenSpiel loop (``legal_actions``,
``observation_tensor(current)``, ``apply_action``).  Steps are engine actions (a dead agent's
``step(None)`` and OpenSpiel's chance bytes are not counted).  Then each game's cold
``ActionSpace`` and ``ObservationEncoder`` build, and PettingZoo's own ``connect_four_v3`` and
``tictactoe_v3`` when pygame is installed.  Ratios are medians over the rounds.
"""
from __future__ import annotations

import argparse
import os
import platform
import random
import statistics
import sys
import time
from collections.abc import Callable
from pathlib import Path
from typing import Any

import numpy as np

HERE = Path(__file__).resolve().parent
# `python bench/rl.py` puts bench/ first on sys.path, where bench/engine.py would shadow the engine
sys.path[:] = [p for p in sys.path if Path(p or ".").resolve() != HERE]
sys.path.insert(0, str(HERE.parent))

import engine  # noqa: E402
from engine import load_game  # noqa: E402
from engine.rl.actions import ActionSpace  # noqa: E402
from engine.rl.tensors import ObservationEncoder  # noqa: E402

Loop = Callable[[float], int]


def bare(game_id: str) -> Loop:
    game = load_game(game_id)
    rng = random.Random(0)

    def run(seconds: float) -> int:
        steps, seed = 0, 0
        end = time.process_time() + seconds
        while time.process_time() < end:
            st = game.new_match(seed=seed)
            seed += 1
            while not st.is_over():
                legal = st.legal_actions()
                st.observation(st.current_player)
                st.apply(rng.choice(legal))
                steps += 1
        return steps
    return run


def petting(game_id: str, wrapped: bool) -> Loop:
    from engine.rl.pettingzoo import env, raw_env
    return aec_loop(env(game_id) if wrapped else raw_env(game_id))


def aec_loop(e: Any) -> Loop:
    """The random-policy loop of an AEC environment: ``last()``, a random id from the mask, ``step``.
    The policy reads the int8 mask through a bool view (``np.flatnonzero`` on int8 is 5-13x slower:
    see :func:`mask_scan`) and draws with the bare loop's generator."""
    rng = random.Random(0)

    def run(seconds: float) -> int:
        steps, seed = 0, 0
        end = time.process_time() + seconds
        while time.process_time() < end:
            e.reset(seed=seed)
            seed += 1
            for _ in e.agent_iter():
                obs, _, term, trunc, _ = e.last()
                if term or trunc:
                    e.step(None)
                    continue
                legal = np.flatnonzero(obs["action_mask"].view(np.bool_))
                e.step(int(legal[rng.randrange(len(legal))]))
                steps += 1
        return steps
    return run


def spiel(game_id: str) -> Loop:
    from engine.rl.openspiel import load
    game = load(game_id)
    rng = random.Random(0)

    def run(seconds: float) -> int:
        steps = 0
        end = time.process_time() + seconds
        while time.process_time() < end:
            state = game.new_initial_state()
            while not state.is_terminal():
                if state.is_chance_node():
                    state.apply_action(rng.randrange(256))
                    continue
                legal = state.legal_actions()
                state.observation_tensor(state.current_player())
                state.apply_action(rng.choice(legal))
                steps += 1
        return steps
    return run


def pettingzoo_classic(name: str) -> Loop | None:
    try:
        import importlib
        mod = importlib.import_module(f"pettingzoo.classic.{name}")
    except ImportError:  # PettingZoo's classic games need pygame
        return None
    return aec_loop(mod.env())


def mask_scan(game_id: str, repeat: int = 2000) -> tuple[float, float]:
    """Microseconds of ``np.flatnonzero`` over a game's first action mask: int8 as given, and viewed
    as bool."""
    from engine.rl.pettingzoo import raw_env
    e = raw_env(game_id)
    e.reset(seed=0)
    mask = e.observe(e.agent_selection)["action_mask"]
    out = []
    for m in (mask, mask.view(np.bool_)):
        t = time.process_time()
        for _ in range(repeat):
            np.flatnonzero(m)
        out.append((time.process_time() - t) / repeat * 1e6)
    return out[0], out[1]


def cold_builds() -> list[tuple[str, float, float]]:
    out = []
    for g in engine.GAMES:
        load_game(g)
        t = time.process_time()
        ActionSpace(g)
        a = time.process_time() - t
        t = time.process_time()
        ObservationEncoder(g)
        out.append((g, a, time.process_time() - t))
    return out


def main(argv: list[str] | None = None) -> int:
    p = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    p.add_argument("--seconds", type=float, default=1.5)
    p.add_argument("--rounds", type=int, default=3)
    p.add_argument("--games", nargs="+", default=["hartenjagen", "genive", "klop_rummy", "loba"])
    args = p.parse_args(argv)
    print(f"{platform.processor() or platform.machine()}, {os.cpu_count()} cores, "
          f"Python {platform.python_version()}, load average {os.getloadavg()[0]:.2f}")
    print("\n| game | bare loop + observation, steps/s | raw env | wrapped env() | OpenSpiel loop |")
    print("|---|---:|---:|---:|---:|")
    for g in args.games:
        loops = {"bare": bare(g), "raw": petting(g, False), "wrapped": petting(g, True), "spiel": spiel(g)}
        rates: dict[str, list[float]] = {k: [] for k in loops}
        for _ in range(args.rounds):
            for k, run in loops.items():
                t = time.process_time()
                n = run(args.seconds)
                rates[k].append(n / (time.process_time() - t))
        base = rates["bare"]
        ratio = {k: statistics.median(r / b for r, b in zip(rates[k], base, strict=True)) for k in loops}
        med = {k: statistics.median(v) for k, v in rates.items()}
        print(f"| {g} | {med['bare']:,.0f} | {med['raw']:,.0f} ({ratio['raw']:.2f}x) | "
              f"{med['wrapped']:,.0f} ({ratio['wrapped']:.2f}x) | "
              f"{med['spiel']:,.0f} ({ratio['spiel']:.2f}x) |")
    print("\n| game | np.flatnonzero(mask), us | np.flatnonzero(mask.view(bool)), us |")
    print("|---|---:|---:|")
    for g in args.games:
        i8, b = mask_scan(g)
        print(f"| {g} | {i8:.1f} | {b:.1f} |")
    for name in ("connect_four_v3", "tictactoe_v3"):
        classic = pettingzoo_classic(name)
        if classic is None:
            print(f"\nPettingZoo's {name}: not measured (pygame is not installed)")
        else:
            t = time.process_time()
            n = classic(args.seconds)
            print(f"\nPettingZoo's {name}.env(): {n / (time.process_time() - t):,.0f} steps/s")
    print("\n| game | ActionSpace cold build, s CPU | ObservationEncoder, s CPU |")
    print("|---|---:|---:|")
    for g, a, o in cold_builds():
        print(f"| {g} | {a:.3f} | {o:.4f} |")
    print(f"\nload average at the end {os.getloadavg()[0]:.2f}")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
