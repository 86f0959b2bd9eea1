"""From training to the competition (issue 24 §11): train, submit, play, measure.

    python bench/policy.py [--episodes 10000] [--boards 25] [--out DIR] [--install] [--npz FILE]
                           [--wrappers bwrap unshare]

1. Runs the REINFORCE example of docs/rl.md as it is written (a linear softmax policy over the
   Hartenjagen tensor, seat 0 against random seats), with ``EPISODES`` set to ``--episodes``, and
   times it (CPU and wall).  It saves ``policy.npz``.
2. Puts that file beside a copy of ``bots/examples/policy/__init__.py``: the bot a reader submits
   (``OUT/policy``; with ``--out`` it is kept, and ``--install`` copies the npz over the example's).
3. Under each sandbox (``CARDARENA_SANDBOX=bwrap``, ``=unshare``): ``cardarena bots validate``, then
   ``cardarena bots eval --game hartenjagen --vs random --boards N --deals D`` (a tournament on the
   local pool, the bot in the sandbox; every board played in every seating and rotation) and ``--vs
   random,greedy``, printing each command and its headline line.  The untrained example (all-zero
   weights: it plays the lowest legal id) is evaluated against random as the baseline.
4. Under each sandbox: ``cardarena bots submit`` into a registry in ``OUT/data`` and a tournament
   (``cardarena tournament run``, a spec naming the submitted ``policy`` beside random, greedy and
   random again) with the leaderboard's rows.
"""
from __future__ import annotations

import argparse
import json
import os
import re
import resource
import shutil
import subprocess
import sys
import tempfile
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
DOC = ROOT / "docs" / "rl.md"
EXAMPLE = ROOT / "bots" / "examples" / "policy"
CLI = [sys.executable, "-m", "dashboards"]


def reinforce_code(episodes: int) -> str:
    code = next(c for c in re.findall(r"```python\n(.*?)```", DOC.read_text(), re.S) if "np.savez" in c)
    return re.sub(r"^EPISODES = \d+$", f"EPISODES = {episodes}", code, flags=re.M)


def train(work: Path, episodes: int) -> tuple[float, float]:
    """(CPU seconds, wall seconds) of the docs' example run for ``episodes`` episodes in ``work``."""
    (work / "train.py").write_text(reinforce_code(episodes))
    before = resource.getrusage(resource.RUSAGE_CHILDREN)
    t = time.perf_counter()
    subprocess.run([sys.executable, "train.py"], cwd=work, check=True)
    wall = time.perf_counter() - t
    after = resource.getrusage(resource.RUSAGE_CHILDREN)
    return after.ru_utime + after.ru_stime - before.ru_utime - before.ru_stime, wall


def bot_with(npz: Path, folder: Path) -> Path:
    folder.mkdir(parents=True, exist_ok=True)
    shutil.copyfile(EXAMPLE / "__init__.py", folder / "__init__.py")
    shutil.copyfile(npz, folder / "policy.npz")
    return folder


def cardarena(args: list[str], wrapper: str) -> tuple[int, str]:
    env = {**os.environ, "CARDARENA_SANDBOX": wrapper}
    shown = f"CARDARENA_SANDBOX={wrapper} cardarena {' '.join(args)}"
    print(f"$ {shown}", flush=True)
    done = subprocess.run([*CLI, *args], cwd=ROOT, env=env, capture_output=True, text=True)
    return done.returncode, done.stdout if done.returncode == 0 else done.stderr


def evaluate(bot: Path, wrapper: str, vs: str, boards: int, seed: int, deals: int) -> dict[str, object]:
    code, out = cardarena(["bots", "eval", str(bot), "--game", "hartenjagen", "--vs", vs,
                           "--boards", str(boards), "--deals", str(deals), "--seed", str(seed), "--json"],
                          wrapper)
    if code != 0:
        raise SystemExit(f"bots eval failed ({code}): {out.strip()[-400:]}")
    rep: dict[str, object] = json.loads(out)
    lo, hi = (f"{x:.3f}" if isinstance(x, float) else "-" for x in (rep["lo"], rep["hi"]))
    print(f"  score {rep['score']:.3f} (95% {lo}..{hi}), mean place {rep['mean_place']:.2f}, "
          f"{rep['wins']} wins in {rep['matches']} matches, {rep['faults']} faults", flush=True)
    return rep


SPEC = """name = "policy-{wrapper}"
seed = {seed}
matches_per_seating = {boards}
max_deals = {deals}
games = ["hartenjagen"]
bots = ["policy", "random", "greedy", {{ name = "random-2", bot = "random" }}]
"""


def tournament(out: Path, wrapper: str, boards: int, seed: int, deals: int) -> None:
    """The submitted bot (``policy`` in the registry ``out/data``) in a tournament spec against
    random (twice) and greedy: ``cardarena tournament run``; every entrant's row."""
    spec = out / f"spec-{wrapper}.toml"
    spec.write_text(SPEC.format(wrapper=wrapper, seed=seed, boards=boards, deals=deals))
    os.environ["CARDARENA_DATA"] = str(out / "data")
    code, text = cardarena(["tournament", "run", str(spec), "--out", str(out / f"t-{wrapper}"), "--json",
                            "--no-progress"], wrapper)
    if code != 0:
        raise SystemExit(f"tournament run failed ({code}): {text.strip()[-400:]}")
    rep = json.loads(text)
    print(f"  {rep['done']} matches, {rep['faults']} faults, {rep['seconds']:.0f} s", flush=True)
    for row in rep["leaderboard"]:
        print(f"  {row['bot']:<10} score {row['score']:.3f}, mean place {row['mean_place']:.2f}, "
              f"{row['wins']} wins, {row['faults']} faults", flush=True)


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--episodes", type=int, default=10000)
    ap.add_argument("--boards", type=int, default=25)
    ap.add_argument("--seed", type=int, default=1)
    ap.add_argument("--tournament-boards", type=int, default=5, help="matches per seating of the tournament")
    ap.add_argument("--deals", type=int, default=1,
                    help="deals per match (the training's episodes are one deal)")
    ap.add_argument("--out", type=Path, default=None, help="keep the trained bot here")
    ap.add_argument("--install", action="store_true",
                    help="copy the trained policy.npz into bots/examples/policy")
    ap.add_argument("--wrappers", nargs="+", default=["bwrap", "unshare"])
    ap.add_argument("--npz", type=Path, default=None, help="evaluate this policy.npz instead of training one")
    ns = ap.parse_args()
    out = ns.out or Path(tempfile.mkdtemp(prefix="cardarena-policy-"))
    work = out / "train"
    work.mkdir(parents=True, exist_ok=True)
    print(f"load average {os.getloadavg()[0]:.1f} on {os.cpu_count()} CPUs", flush=True)
    if ns.npz is None:
        cpu, wall = train(work, ns.episodes)
        print(f"trained: {cpu:.1f} s CPU, {wall:.1f} s wall ({ns.episodes / cpu:.0f} episodes per CPU s)")
    else:
        shutil.copyfile(ns.npz, work / "policy.npz")
    bot = bot_with(work / "policy.npz", out / "policy")
    zero = out / "untrained"
    import numpy as np
    with np.load(work / "policy.npz") as saved:
        w, game = saved["W"], str(saved["game"])
    bot_with(work / "policy.npz", zero)
    np.savez(zero / "policy.npz", W=np.zeros_like(w), game=game)
    print(f"policy.npz: W {w.shape} {w.dtype}, {(work / 'policy.npz').stat().st_size} bytes")
    if ns.install:
        shutil.copyfile(work / "policy.npz", EXAMPLE / "policy.npz")
    for wrapper in ns.wrappers:
        code, text = cardarena(["bots", "validate", str(bot)], wrapper)
        print("  " + (text.strip().splitlines()[-1] if text.strip() else f"exit {code}"), flush=True)
        if code != 0:
            raise SystemExit(f"validate failed under {wrapper}")
        os.environ["CARDARENA_DATA"] = str(out / "data")
        code, text = cardarena(["bots", "submit", str(bot), "--name", "policy"], wrapper)
        print("  " + (text.strip().splitlines()[-1] if text.strip() else f"exit {code}"), flush=True)
        if code != 0:
            raise SystemExit(f"submit failed under {wrapper}")
        tournament(out, wrapper, ns.tournament_boards, ns.seed, ns.deals)
        evaluate(bot, wrapper, "random", ns.boards, ns.seed, ns.deals)
        evaluate(bot, wrapper, "random,greedy", max(1, ns.boards // 5), ns.seed, ns.deals)
        evaluate(zero, wrapper, "random", ns.boards, ns.seed, ns.deals)
    if ns.out is None:
        shutil.rmtree(out, ignore_errors=True)


if __name__ == "__main__":
    main()
