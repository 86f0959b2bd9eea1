"""Cost of the sandbox: start-up and the per-move pipe round trip.

    python bench/sandbox.py [--moves 5000]

* ``start``: spawn the sandbox (bwrap, cgroup, runner), import the bot and construct it;
* ``round trip, tiny``: one move of a bot that answers at once, with a two-action observation;
  this is the pipe round trip the issue asks about (target <= 50 µs median);
* ``round trip, real``: the same with real Hartenjagen observations (JSON encoding included), and
  the same bot called in-process, whose difference is the per-move overhead of the sandbox.

Each is measured with the match process and the bot free to run on any CPU, and with both pinned
to one CPU (``Limits.affinity`` and ``os.sched_setaffinity``), with and without the idle-priority
switch between moves (``Limits.idle_between_moves``).
"""
from __future__ import annotations

import argparse
import os
import random
import statistics
import sys
import tempfile
import time
from pathlib import Path
from typing import Any

sys.path.insert(0, os.path.dirname(os.path.dirname(os.path.abspath(__file__))))

from bots.api import bot_source
from bots.sandbox import Limits, Sandbox, isolation
from engine import GAMES, load_game

BOT = "def act(observation):\n    return observation['legal_actions'][0]\n"


def observations(n: int) -> list[dict[str, Any]]:
    """Real observations of the acting seat, from seeded random Hartenjagen (or the first game)."""
    gid = "hartenjagen" if "hartenjagen" in GAMES else GAMES[0]
    game = load_game(gid)
    out: list[dict[str, Any]] = []
    seed = 0
    while len(out) < n:
        state = game.new_match(seed=seed, max_deals=1)
        rng = random.Random(seed)
        while not state.is_over() and len(out) < n:
            seat = state.current_player
            assert seat is not None
            obs = state.observation(seat)
            out.append(obs)
            state.apply(rng.choice(obs["legal_actions"]))
        seed += 1
    return out


def timed(box: Sandbox, obs: list[dict[str, Any]]) -> list[float]:
    ts = []
    act = box.act
    for o in obs:
        t = time.perf_counter()
        act(o)
        ts.append(time.perf_counter() - t)
    return ts


def in_process(obs: list[dict[str, Any]]) -> list[float]:
    ns: dict[str, Any] = {}
    exec(BOT, ns)
    act = ns["act"]
    ts = []
    for o in obs:
        t = time.perf_counter()
        act(o)
        ts.append(time.perf_counter() - t)
    return ts


def us(xs: list[float]) -> str:
    xs = sorted(xs)
    return (f"median {statistics.median(xs) * 1e6:7.1f} µs   p90 {xs[int(len(xs) * 0.9)] * 1e6:7.1f} µs")


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--moves", type=int, default=5000)
    args = ap.parse_args()
    print(isolation().describe())
    print(f"python {sys.version.split()[0]}, {os.cpu_count()} CPUs, load {os.getloadavg()[0]:.2f}")
    with tempfile.TemporaryDirectory() as d:
        path = Path(d) / "echo.py"
        path.write_text(BOT)
        src = bot_source(path)
        tiny = [{"legal_actions": ["play QS", "play 2C"]}] * args.moves
        real = observations(args.moves)
        allowed = sorted(os.sched_getaffinity(0))
        starts = []
        for _ in range(10):
            t = time.perf_counter()
            box = Sandbox(src, Limits())
            box.start()
            box.new_match("bench", 0, 0)
            starts.append(time.perf_counter() - t)
            box.close()
        print(f"{'start (spawn, import, construct)':48} median {statistics.median(starts) * 1e3:7.1f} ms")
        for pinned in (False, True):
            for idle in (True, False):
                cpu = (allowed[-1],) if pinned else None
                if pinned:
                    os.sched_setaffinity(0, set(cpu or ()))
                box = Sandbox(src, Limits(affinity=cpu, idle_between_moves=idle))
                box.start()
                box.new_match("bench", 0, 0)
                timed(box, tiny[:200])
                label = (f"{'pinned' if pinned else 'any CPU'}, "
                         f"{'idle switch' if idle else 'no idle switch'}")
                print(f"{'round trip, tiny obs, ' + label:48} {us(timed(box, tiny))}")
                print(f"{'round trip, real obs, ' + label:48} {us(timed(box, real))}")
                box.close()
                os.sched_setaffinity(0, set(allowed))
        print(f"{'same bot in-process, real obs':48} {us(in_process(real))}")


if __name__ == "__main__":
    main()
