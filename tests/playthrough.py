"""Golden playthroughs (OpenSpiel's integration_tests/playthroughs): one seeded random match per
game, every observation, legal list, action and rule event written out, diffed by a test.

    python -m tests.playthrough --write [--game ID]   # (re)generate tests/playthroughs/<id>.txt
    python -m tests.playthrough --game ID             # print it
"""
from __future__ import annotations

import argparse
import json
import random
import sys
from pathlib import Path

from engine import GAMES, load_game

DIR = Path(__file__).parent / "playthroughs"
SEED = 1
DEALS = 1


def render(game_id: str, seed: int = SEED, deals: int = DEALS) -> str:
    game = load_game(game_id)
    state = game.new_match(seed=seed, max_deals=deals)
    rng = random.Random(seed)
    out = [f"# cardarena playthrough: {game!r}, seed {seed}, players {state.players}, max_deals {deals}",
           "# regenerate with: make playthroughs", ""]
    seen = 0

    def events() -> None:
        nonlocal seen
        for ev in state.events[seen:]:
            out.append("  event: " + json.dumps(ev, sort_keys=True))
        seen = len(state.events)

    events()
    while not state.is_over():
        seat = state.current_player
        assert seat is not None
        obs = state.observation(seat)
        legal = obs.pop("legal_actions")
        out.append(f"ply {len(state.history)}  deal {state.deal_no}  seat {seat}  phase {state.phase}")
        out.append("  observation: " + json.dumps(obs, sort_keys=True))
        out.append(f"  legal ({len(legal)}): " + ", ".join(legal))
        action = rng.choice(legal)
        state.apply(action)
        out.append(f"  action: {action}")
        events()
    out += ["", f"score sheet: {json.dumps(state.score_sheet())}", f"scores: {json.dumps(state.scores())}",
            f"ranking: {json.dumps(state.ranking())}", ""]
    return "\n".join(out)


def path_for(game_id: str) -> Path:
    return DIR / f"{game_id}.txt"


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0] if __doc__ else None)
    ap.add_argument("--write", action="store_true", help="write the files instead of printing")
    ap.add_argument("--game", action="append", help="game id (repeatable; default: every game)")
    a = ap.parse_args(argv)
    ids = a.game or GAMES
    for gid in ids:
        if gid not in GAMES:
            print(f"unknown game {gid!r}; known games: {', '.join(GAMES)}", file=sys.stderr)
            return 2
        text = render(gid)
        if a.write:
            DIR.mkdir(exist_ok=True)
            path_for(gid).write_text(text, encoding="utf-8")
            print(f"wrote {path_for(gid)}")
        else:
            sys.stdout.write(text)
    return 0


if __name__ == "__main__":
    sys.exit(main())
