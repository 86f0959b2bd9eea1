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

* ``real matches``: whole one-deal Hartenjagen matches through ``bots.match.play_match`` with four
  sandboxed (bubblewrap) seeded random bots, against the same bots in this process: the per-move
  overhead of the sandbox in a real match (the match loop's ``options`` and ``clock`` included),
  start-up excluded.  Measured with each codec in turn in the same run (``msgspec`` at both ends,
  the standard library's ``json`` at both ends), pinned (the match process on one CPU, its bots
  inherit it: what a local tournament worker does) and not; rounds interleaved, medians reported.
  The target: <= 50 µs per move.

* ``hardening`` (issue 27, ``--hardening-rounds``): the sandbox as it is (uid 65534 through setpriv,
  a fresh session keyring and the seccomp filter installed by the runner) against the same sandbox
  without them (the bot as the host's uid 0 with no capabilities, no filter: the sandbox before issue
  27), rounds interleaved in one run: the start of a sandbox (spawn, import, construct), the round trip
  of a real Hartenjagen observation, and whole one-deal matches of four sandboxed random bots (the
  match loop's and the bots' CPU per move, and wall clock, over the same bots in-process).
"""
from __future__ import annotations

import argparse
import json
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
from bots.sandbox import Limits, Sandbox, codec_dir, isolation
from engine import GAMES, load_game

_CODEC_DIR = codec_dir

BOT = "def act(observation):\n    return observation['legal_actions'][0]\n"
RANDOM_BOT = ("import random\n\nclass Bot:\n    def __init__(self, game, seat, seed):\n"
              "        self.rng = random.Random(seed)\n\n    def act(self, observation):\n"
              "        return self.rng.choice(observation['legal_actions'])\n")


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


class Codec:
    """Switch both ends of the sandbox's channel to ``msgspec`` or ``json`` (bench only)."""

    def __init__(self) -> None:
        import bots.sandbox.codec as sb
        self.sb = sb
        self.saved = sb.encode_message, sb.decode_message

    def use(self, name: str) -> None:
        _CODEC_DIR.cache_clear()
        ends: tuple[Any, Any, Any] = ((self.sb._json_encode, json.loads, _none) if name == "json"
                                      else (*self.saved, _CODEC_DIR))
        for attr, value in zip(("encode_message", "decode_message", "codec_dir"), ends, strict=True):
            setattr(self.sb, attr, value)


def _none() -> None:
    return None


def bots_cpu_ns(players: list[Any]) -> int:
    """CPU time (ns, ``/proc/PID/schedstat``) of every process in the sandboxes' cgroups."""
    total = 0
    for p in players:
        cg = p.sandbox._cg
        for pid in cg.pids() if cg is not None else []:
            try:
                total += int(Path(f"/proc/{pid}/schedstat").read_text().split()[0])
            except (OSError, ValueError, IndexError):   # the process ended
                continue
    return total


def real_matches(path: Path, matches: int, pinned: bool, in_process: bool) -> dict[str, Any]:
    """``matches`` one-deal Hartenjagen matches with four random bots (``path``), sandboxed or in this
    process: seconds of ``play_match`` (wall), this process's CPU in it, the bots' CPU in it (from
    their cgroups; 0 without cgroups), the moves and the runner's codec."""
    from bots.match import play_match, seat_seeds
    from bots.sandbox import start_players

    game = load_game("hartenjagen")
    allowed = sorted(os.sched_getaffinity(0))
    if pinned:
        os.sched_setaffinity(0, {allowed[-1]})
    ns: dict[str, Any] = {}
    exec(path.read_text(), ns)
    out: dict[str, Any] = {"wall": 0.0, "cpu": 0.0, "bots_cpu": 0.0, "moves": 0, "codec": ""}
    try:
        for seed in range(matches):
            seeds = seat_seeds(seed, 4)
            if in_process:
                players: list[Any] = [ns["Bot"]("hartenjagen", s, seeds[s]) for s in range(4)]
            else:
                src = bot_source(path)
                players = start_players([(src, False, 0)] * 4, "hartenjagen", seeds)
                out["codec"] = players[0].sandbox.codec
            try:
                b0 = 0 if in_process else bots_cpu_ns(players)
                c, t = time.thread_time(), time.perf_counter()
                r = play_match(game, players, seed, 1, seeds=seeds)
                out["wall"] += time.perf_counter() - t
                out["cpu"] += time.thread_time() - c
                out["bots_cpu"] += 0 if in_process else (bots_cpu_ns(players) - b0) / 1e9
            finally:
                for p in players:
                    if hasattr(p, "close"):
                        p.close()
            assert r.ok, [f.line() for f in r.faults]
            out["moves"] += len(r.moves)
    finally:
        os.sched_setaffinity(0, set(allowed))
    return out


class Hardening:
    """Switch the issue-27 hardening (uid 65534, keyring, seccomp filter) off and on (bench only)."""

    def __init__(self) -> None:
        import bots.sandbox.launch as sb
        self.sb = sb
        self.saved = sb._identity, sb._confinement

    def use(self, on: bool) -> None:
        if on:
            self.sb._identity, self.sb._confinement = self.saved
        else:
            self.sb._identity = lambda: (["--cap-drop", "ALL"], [])
            self.sb._confinement = lambda: []


def hardening(src_path: Path, rand_path: Path, real: list[dict[str, Any]], rounds: int, matches: int) -> None:
    """The issue-27 hardening against the sandbox without it, interleaved rounds in this run."""
    hard = Hardening()
    cells: dict[tuple[bool, str], list[float]] = {}
    src = bot_source(src_path)
    for _ in range(rounds):
        for on in (False, True):
            hard.use(on)
            starts = []
            for _ in range(5):
                t = time.perf_counter()
                box = Sandbox(src, Limits())
                box.start()
                box.new_match("bench", 0, 0)
                starts.append(time.perf_counter() - t)
                box.close()
            cells.setdefault((on, "start"), []).append(statistics.median(starts))
            box = Sandbox(src, Limits())
            box.start()
            box.new_match("bench", 0, 0)
            timed(box, real[:200])
            cells.setdefault((on, "trip"), []).append(statistics.median(timed(box, real)))
            box.close()
            if matches:
                base = real_matches(rand_path, matches, True, True)
                r = real_matches(rand_path, matches, True, False)
                n = r["moves"]
                cells.setdefault((on, "cpu"), []).append((r["cpu"] + r["bots_cpu"] - base["cpu"]) / n)
                cells.setdefault((on, "wall"), []).append((r["wall"] - base["wall"]) / n)
    hard.use(True)
    print(f"hardening (issue 27): {rounds} interleaved rounds; after = uid 65534 + keyring + seccomp filter, "
          "before = without them (medians of the rounds)")
    for kind, label, scale, unit in (("start", "start (spawn, import, construct)", 1e3, "ms"),
                                     ("trip", "round trip, real obs, any CPU", 1e6, "µs"),
                                     ("cpu", f"{matches} real matches, pinned: CPU per move", 1e6, "µs"),
                                     ("wall", f"{matches} real matches, pinned: wall per move", 1e6, "µs")):
        if (True, kind) not in cells:
            continue
        before, after = statistics.median(cells[(False, kind)]), statistics.median(cells[(True, kind)])
        print(f"  {label:44} before {before * scale:7.2f} {unit}   after {after * scale:7.2f} {unit}   "
              f"after/before {after / before:.2f}x")


def us(xs: list[float]) -> str:
    xs = sorted(xs)
    return (f"median {statistics.median(xs) * 1e6:7.1f} µs   p90 {xs[int(len(xs) * 0.9)] * 1e6:7.1f} µs")


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--moves", type=int, default=5000)
    ap.add_argument("--matches", type=int, default=20, help="real matches per round (0: skip)")
    ap.add_argument("--rounds", type=int, default=5)
    ap.add_argument("--hardening-rounds", type=int, default=5, help="issue 27's before/after (0: skip)")
    ap.add_argument("--only-hardening", action="store_true", help="measure only the hardening's cost")
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
        if args.hardening_rounds:
            rb = Path(d) / "rand.py"
            rb.write_text(RANDOM_BOT)
            hardening(path, rb, real[:2000], args.hardening_rounds, args.matches)
        if args.only_hardening:
            return
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
        if args.matches:
            rb = Path(d) / "rand.py"
            rb.write_text(RANDOM_BOT)
            codec = Codec()
            cells: dict[tuple[str, bool, str], list[float]] = {}
            seen: dict[str, str] = {}
            for _ in range(args.rounds):
                for pinned in (True, False):
                    base = real_matches(rb, args.matches, pinned, True)
                    n = base["moves"]
                    for name in ("msgspec", "json"):
                        codec.use(name)
                        r = real_matches(rb, args.matches, pinned, False)
                        assert r["moves"] == n
                        seen[name] = r["codec"]
                        cells.setdefault((name, pinned, "wall"), []).append((r["wall"] - base["wall"]) / n)
                        cells.setdefault((name, pinned, "cpu"), []).append(
                            (r["cpu"] + r["bots_cpu"] - base["cpu"]) / n)
            codec.use("msgspec")
            print(f"real matches: {args.rounds} rounds of {args.matches} one-deal Hartenjagen matches, "
                  "4 sandboxed random bots; cost per move over the same bots in-process (median of rounds):")
            print("  CPU = this process's extra CPU + the bots' CPU (cgroup schedstat); wall = play_match's")
            for pinned in (True, False):
                for kind in ("cpu", "wall"):
                    ms = statistics.median(cells[("msgspec", pinned, kind)])
                    js = statistics.median(cells[("json", pinned, kind)])
                    where = "pinned to one CPU" if pinned else "any CPU"
                    print(f"  {where:18} {kind:4}  msgspec (runner: {seen['msgspec']}) {ms * 1e6:6.1f} µs   "
                          f"json (runner: {seen['json']}) {js * 1e6:6.1f} µs   json/msgspec {js / ms:.2f}x")

if __name__ == "__main__":
    main()
