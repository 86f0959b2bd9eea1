"""CPU seconds of seeded random whole matches per game: what the conformance suite's
``test_random_matches_finish`` costs (it plays seeds 0-199 in ``make test``, 200-999 in ``make test-slow``).

    .venv/bin/python bench/random_matches.py [--matches 200] [GAME ...]
"""
from __future__ import annotations

import argparse
import random
import sys
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))

from engine import GAMES, load_game
from tests.conformance import random_playout


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("games", nargs="*", help="game ids (default: every registered game)")
    ap.add_argument("--matches", type=int, default=200)
    a = ap.parse_args()
    total = 0.0
    for g in a.games or GAMES:
        game = load_game(g)
        t = time.process_time()
        actions = 0
        for seed in range(a.matches):
            actions += len(random_playout(game.new_match(seed=seed), random.Random(seed)))
        dt = time.process_time() - t
        total += dt
        print(f"{g:20s} {dt:7.2f} s CPU for {a.matches} matches, {actions / a.matches:8.0f} actions/match",
              flush=True)
    print(f"{'all':20s} {total:7.2f} s CPU")


if __name__ == "__main__":
    main()
