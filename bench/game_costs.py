"""Measure what one deal of each game costs in a tournament's match loop and write the table that
``cardarena tournament plan`` estimates from (``tournaments/costs.py``; a test checks every game has
an entry, so a new game needs ``python bench/game_costs.py GAME``, or ``make regen``, which runs
``--missing``: the games without an entry).

Per game, at its default player count with the seeded random bots (``bots.match.play``, the loop a
tournament batch runs, without the Parquet logging, which ``plan`` adds per move from bench/README.md):
CPU seconds per deal (the mean over one-deal matches played for ``--seconds``), actions per deal, and
the deals a whole match lasts (``--whole`` whole matches; a rummy deal rarely ends early); then the
thinking built-ins' CPU per move of theirs beyond a random move's: greedy, and ismcts at 2 and 10
iterations, read as a fixed part plus a part per iteration (one seat of a one-deal match, the others
random).

    .venv/bin/python bench/game_costs.py [--seconds 1.0] [--whole 3] [--missing] [GAME ...]
"""
from __future__ import annotations

import argparse
import statistics
import sys
import time
from datetime import UTC, datetime
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))

from bots.match import play
from engine import GAMES, game_class

OUT = Path(__file__).resolve().parent.parent / "tournaments" / "costs.py"


def measure(gid: str, seconds: float, whole: int) -> dict[str, float]:
    n = game_class(gid).default_players
    bots = ["random"] * n
    rounds: list[float] = []
    actions = deals = 0
    seed = 0
    end = time.process_time() + seconds
    while time.process_time() < end or len(rounds) < 3:
        t = time.process_time()
        r = play(gid, bots, seed, max_deals=1)
        rounds.append(time.process_time() - t)
        actions += len(r.moves)
        deals += 1
        seed += 1
    per_match = []
    for s in range(whole):
        r = play(gid, bots, 10_000 + s)
        per_match.append(r.state.deal_no)
    out = {"seconds_per_deal": round(statistics.fmean(rounds), 6),
           "actions_per_deal": round(actions / deals, 1),
           "deals_per_match": round(statistics.mean(per_match), 2)}
    out.update(thinking(gid, n, out["seconds_per_deal"] / max(out["actions_per_deal"], 1.0), seconds))
    return out


CPU_KEYS = ("seconds_per_deal", "greedy_s_per_move", "ismcts_s_per_move", "ismcts_s_per_iteration")
"""The CPU figures of an entry (``--calibrate`` scales them)."""


def load_factor(previous: dict[str, dict[str, float]], now: dict[str, dict[str, float]]) -> float:
    """How much slower this run's random play is than the previous table's: the median over games in
    both (actions per deal within 10%) of the ratio of seconds per action; 1.0 when none compares."""
    ratios = [(n["seconds_per_deal"] / n["actions_per_deal"])
              / (previous[g]["seconds_per_deal"] / previous[g]["actions_per_deal"])
              for g, n in now.items() if g in previous
              and abs(n["actions_per_deal"] / previous[g]["actions_per_deal"] - 1) < 0.1]
    return statistics.median(ratios) if ratios else 1.0


ISMCTS_LOW, ISMCTS_HIGH = 2, 10
"""The two ismcts budgets whose per-move costs give its fixed and per-iteration parts."""


def _extra_per_move(gid: str, n: int, bot: str, random_per_action: float, seconds: float
                    ) -> tuple[float, float]:
    """CPU per move of ``bot`` beyond a random move: one-deal matches with ``bot`` in one seat (it
    rotates) and random bots in the others; the match's CPU less the random cost of all its moves,
    over the bot's moves; and the actions such a deal lasts."""
    cpu = 0.0
    own = deals = actions = 0
    seed = 50_000
    end = time.process_time() + seconds
    while time.process_time() < end or deals < 1:
        seat = deals % n
        t = time.process_time()
        r = play(gid, [bot if s == seat else "random" for s in range(n)], seed, max_deals=1)
        cpu += time.process_time() - t - len(r.moves) * random_per_action
        own += sum(1 for s, _ in r.moves if s == seat)
        actions += len(r.moves)
        deals += 1
        seed += 1
    return max(0.0, cpu / max(own, 1)), actions / deals


def thinking(gid: str, n: int, random_per_action: float, seconds: float) -> dict[str, float]:
    """What the thinking built-ins add per move of theirs: ``greedy_s_per_move``, and ismcts as
    ``ismcts_s_per_move + iterations x ismcts_s_per_iteration`` (a line through two budgets)."""
    greedy, skilled = _extra_per_move(gid, n, "greedy", random_per_action, seconds / 2)
    low, _ = _extra_per_move(gid, n, f"ismcts(iterations={ISMCTS_LOW})", random_per_action, seconds / 2)
    high, _ = _extra_per_move(gid, n, f"ismcts(iterations={ISMCTS_HIGH})", random_per_action, seconds)
    per_it = max(0.0, (high - low) / (ISMCTS_HIGH - ISMCTS_LOW))
    fixed = max(0.0, low - ISMCTS_LOW * per_it)
    return {"greedy_s_per_move": round(greedy, 7), "ismcts_s_per_move": round(fixed, 7),
            "ismcts_s_per_iteration": round(per_it, 8), "skilled_actions_per_deal": round(skilled, 1)}


def write(table: dict[str, dict[str, float]]) -> None:
    stamp = datetime.now(UTC).strftime("%Y-%m-%d %H:%M UTC")
    lines = ['"""What a deal of each game costs: generated by ``bench/game_costs.py`` (do not edit by hand).',
             "",
             "Per game, at its default player count with the seeded random bots, in the tournament's match",
             "loop without logging: CPU ``seconds_per_deal`` (mean), ``actions_per_deal``, and",
             "``deals_per_match`` of a whole match; and what the thinking built-ins add per move of theirs",
             "(one seat of one-deal matches, the others random, less the random moves' cost): greedy",
             "``greedy_s_per_move``, ismcts ``ismcts_s_per_move + iterations x ismcts_s_per_iteration``;",
             "and ``skilled_actions_per_deal``, the actions a deal lasts with greedy in one seat (a",
             "player that goes out sets a deal's length: random rummy play takes far longer).",
             "``cardarena tournament plan`` estimates from it.",
             '"""', "from __future__ import annotations", "",
             f'MEASURED = "{stamp}"', "",
             "COSTS: dict[str, dict[str, float]] = {"]
    for gid in sorted(table):
        c = table[gid]
        lines.append(f'    "{gid}": {{')
        lines.append(f'        "seconds_per_deal": {c["seconds_per_deal"]}, "actions_per_deal": '
                     f'{c["actions_per_deal"]}, "deals_per_match": {c["deals_per_match"]},')
        lines.append(f'        "greedy_s_per_move": {c["greedy_s_per_move"]}, '
                     f'"ismcts_s_per_move": {c["ismcts_s_per_move"]},')
        lines.append(f'        "ismcts_s_per_iteration": {c["ismcts_s_per_iteration"]}, '
                     f'"skilled_actions_per_deal": {c["skilled_actions_per_deal"]},')
        lines.append("    },")
    lines.append("}")
    OUT.write_text("\n".join(lines) + "\n")


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("games", nargs="*", help="game ids (default: every registered game); others keep "
                    "their entries")
    ap.add_argument("--seconds", type=float, default=1.0, help="CPU seconds of one-deal matches per game")
    ap.add_argument("--whole", type=int, default=3, help="whole matches per game, for deals per match")
    ap.add_argument("--missing", action="store_true", help="only the games the table lacks (and drop the "
                    "entries of games no longer registered); nothing written when there are none")
    ap.add_argument("--calibrate", action="store_true", help="on a loaded machine: scale this run's CPU "
                    "figures to the previous table's speed (the median ratio of random-play cost per action, "
                    "over the games whose actions per deal agree within 10%%)")
    a = ap.parse_args()
    table: dict[str, dict[str, float]] = {}
    if (a.games or a.missing) and OUT.exists():
        from tournaments.costs import COSTS
        table.update(COSTS)
    games = a.games or GAMES
    if a.missing:
        gone = sorted(set(table) - set(GAMES))
        games = [g for g in GAMES if g not in table]
        for g in gone:
            del table[g]
        if not games and not gone:
            print(f"{OUT}: every game has an entry")
            return
    previous = dict(table)
    if a.calibrate and not previous and OUT.exists():
        from tournaments.costs import COSTS
        previous = dict(COSTS)
    for gid in games:
        table[gid] = measure(gid, a.seconds, a.whole)
        c = table[gid]
        print(f"{gid:20s} {c['seconds_per_deal'] * 1000:9.2f} ms/deal {c['actions_per_deal']:8.1f} "
              f"actions/deal {c['deals_per_match']:6.2f} deals/match", flush=True)
    if a.calibrate:
        factor = load_factor(previous, {g: table[g] for g in games})
        for gid in games:
            for k in CPU_KEYS:
                table[gid][k] = round(table[gid][k] / factor, 8)
        print(f"--calibrate: this run's CPU figures divided by {factor:.3f}, the median ratio of its "
              "random-play cost per action to the previous table's (games whose actions per deal agree "
              "within 10%)")
    write(table)
    print(f"wrote {OUT}")


if __name__ == "__main__":
    main()
