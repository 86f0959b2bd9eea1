"""A digest of whole random matches of the games that use the going-out search (issue 15 item 2).

    python bench/outs_digest.py [--seeds 30] [--root DIR] [--games ramino_klop,...]

For each of ``wildcard_rummy`` and ``cincinnati_rummy`` (or the games ``--games`` names; default
options; the default number of players, then 7 players when the game allows them -- Wildcard and
Cincinnati Rummy then play with two packs) and each seed
``0..--seeds-1``: the match ``game.new_match(seed=s)`` played to its end with
``rng.choice(state.legal_actions())``, ``rng = random.Random(s)``; the SHA-256 of the seat to act
and the legal list at every ply, then the history, the events and the score sheet.  One line per
game: the digest over all seeds.  ``--root DIR`` runs the ``engine/`` package found in DIR (an
export of an older commit) instead of this checkout's; ``CARDARENA_COMPILED`` chooses the build.
Two engines that print the same lines play the same matches to the byte.
"""
from __future__ import annotations

import argparse
import hashlib
import random
import sys
from pathlib import Path

HERE = Path(__file__).resolve().parent
sys.path[:] = [p for p in sys.path if Path(p or ".").resolve() != HERE]
_ROOT = sys.argv[sys.argv.index("--root") + 1] if "--root" in sys.argv[:-1] else str(HERE.parent)
sys.path.insert(0, _ROOT)

GAMES = ("wildcard_rummy", "cincinnati_rummy")


def digest(game_id: str, seeds: int, players: int | None) -> str:
    from engine import load_game
    game = load_game(game_id)
    total = hashlib.sha256()
    for seed in range(seeds):
        rng = random.Random(seed)
        state = game.new_match(seed=seed, players=players)
        h = hashlib.sha256()
        while not state.is_over():
            legal = state.legal_actions()
            h.update(repr((state.current_player, legal)).encode())
            state.apply(rng.choice(legal))
        h.update(repr((state.history, state.events, state.score_sheet())).encode())
        total.update(h.digest())
    return total.hexdigest()


def main() -> int:
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--seeds", type=int, default=30)
    ap.add_argument("--root", help="a directory holding the engine/ package to run")
    ap.add_argument("--games", default=",".join(GAMES), help="comma-separated game ids")
    a = ap.parse_args()
    import engine.core
    from engine import _compiled
    build = "compiled" if _compiled.is_compiled(engine.core) else "source"
    from engine import load_game
    for g in a.games.split(","):
        for players in (None, 7):
            if players is not None and players > load_game(g).max_players:
                continue
            who = "default players" if players is None else f"{players} players (two packs)"
            print(f"{g} {build} {who} seeds 0-{a.seeds - 1}: {digest(g, a.seeds, players)}", flush=True)
    return 0


if __name__ == "__main__":
    sys.exit(main())
