"""Golden playthroughs (OpenSpiel's integration_tests/playthroughs): one seeded random match per
game, cut at a ply cap, with every legal list, action and rule event written out, diffed by a test.

A file names its own plan in its header (seed, max_deals, ply cap), so a new game needs no entry in
any list: ``--search`` picks the plan (the smallest prefix of a seeded match that fires the most of
the game's declared rule events within ``TARGET_BYTES``), ``--write`` re-renders a file from the plan
in its header (after a deliberate rule change).  A seat's observation is printed in full the first
time that seat acts, then only the keys that changed since that seat last acted.

    python -m tests.playthrough --write [--game ID]    # re-render from each file's plan (make playthroughs);
                                                       # a game with no file yet gets one from a search
    python -m tests.playthrough --search [--game ID]   # pick a new plan, then write
    python -m tests.playthrough --game ID              # print it
"""
from __future__ import annotations

import argparse
import json
import random
import re
import sys
from collections.abc import Iterator
from dataclasses import dataclass
from pathlib import Path

from engine import GAMES, State, load_game
from engine.replay import replay, start

DIR = Path(__file__).parent / "playthroughs"
TARGET_BYTES = 32 * 1024
"""What ``--search`` aims a file at; the test allows up to ``MAX_FILE_BYTES``."""
MAX_FILE_BYTES = 64 * 1024
MAX_TOTAL_BYTES = 1024 * 1024
MIN_PLIES = 20
"""A playthrough shows at least this many actions (unless the match ends sooner)."""
SEARCH_SEEDS = 300
"""Seeds ``--search`` tries (1..SEARCH_SEEDS), each with every ``SEARCH_DEALS``."""
SEARCH_DEALS: tuple[int | None, ...] = (1, None)

PLAN = re.compile(r"^# plan: seed (\d+), max_deals (\d+|None), ply cap (\d+)$", re.M)


@dataclass(frozen=True)
class Plan:
    seed: int
    max_deals: int | None
    cap: int
    """The number of actions played before the playthrough stops (if the match has not ended)."""

    def line(self) -> str:
        return f"# plan: seed {self.seed}, max_deals {self.max_deals}, ply cap {self.cap}"


def declared_events(game_id: str) -> list[str]:
    """The game's declared rule events, with their game prefix."""
    return [f"{game_id}.{name}" for name in type(load_game(game_id)).rule_events]


def _dumps(value: object) -> str:
    return json.dumps(value, sort_keys=True)


def _plies(game_id: str, seed: int, max_deals: int | None) -> Iterator[tuple[State, list[str]]]:
    """The match played at random from ``seed`` (:func:`engine.replay.replay` with a random chooser):
    first the lines before any action (events of the deal), then one chunk of lines per action; the
    state is the one after those lines."""
    state = start(game_id, seed=seed, max_deals=max_deals)
    rng = random.Random(seed)
    shown: dict[int, dict[str, object]] = {}
    yield state, ["  event: " + _dumps(ev) for ev in state.events]
    lines: list[str] = []

    def choose(state: State) -> str:
        """A random legal action, after writing what the seat to act sees."""
        seat = state.current_player
        assert seat is not None
        obs = state.observation(seat)
        legal = obs.pop("legal_actions")
        assert isinstance(legal, list)
        lines[:] = [f"ply {len(state.history)}  deal {state.deal_no}  seat {seat}  phase {state.phase}"]
        before = shown.get(seat)
        if before is None:
            lines.append("  observation: " + _dumps(obs))
        else:
            changed = {k: v for k, v in obs.items() if k not in before or before[k] != v}
            gone = sorted(k for k in before if k not in obs)
            lines.append("  observation changes: " + _dumps(changed))
            if gone:
                lines.append("  observation drops: " + _dumps(gone))
        shown[seat] = obs
        lines.append(f"  legal ({len(legal)}): " + ", ".join(str(a) for a in legal))
        action: str = rng.choice(legal)
        return action

    for ply in replay(state, choose):
        yield state, [*lines, f"  action: {ply.action}", *("  event: " + _dumps(ev) for ev in ply.events)]


def _header(game_id: str, state: State, plan: Plan) -> list[str]:
    return [f"# cardarena playthrough: {load_game(game_id)!r}, players {state.players}", plan.line(),
            "# re-render after a rule change: make playthroughs; pick a new plan: "
            f"python -m tests.playthrough --search --game {game_id}"]


def _footer(game_id: str, state: State, fired: set[str]) -> list[str]:
    declared = declared_events(game_id)
    hit = [e for e in declared if e in fired]
    miss = [e.split(".", 1)[1] for e in declared if e not in fired]
    if state.is_over():
        end = [f"match over after {len(state.history)} plies"]
    else:
        end = [f"stopped at the ply cap, {len(state.history)} plies, in deal {state.deal_no} "
               "(the match goes on)"]
    end += [f"score sheet: {json.dumps(state.score_sheet())}", f"scores: {json.dumps(state.scores())}",
            f"ranking: {json.dumps(state.ranking())}",
            f"declared rule events fired: {len(hit)} of {len(declared)}"
            + (f"; not fired: {', '.join(miss)}" if miss else ""), ""]
    return ["", *end]


def render_plan(game_id: str, plan: Plan) -> str:
    body: list[str] = []
    last: State | None = None
    for n, (now, lines) in enumerate(_plies(game_id, plan.seed, plan.max_deals)):
        body += lines
        last = now
        if n >= plan.cap:
            break
    assert last is not None
    state = last
    fired = {str(ev["event"]) for ev in state.events}
    return "\n".join([*_header(game_id, state, plan), "", *body, *_footer(game_id, state, fired)])


def path_for(game_id: str) -> Path:
    return DIR / f"{game_id}.txt"


def plan_of(game_id: str) -> Plan | None:
    """The plan written in the header of the game's golden file (None if it has none)."""
    path = path_for(game_id)
    if not path.exists():
        return None
    m = PLAN.search(path.read_text(encoding="utf-8"))
    if m is None:
        return None
    deals = None if m[2] == "None" else int(m[2])
    return Plan(int(m[1]), deals, int(m[3]))


def render(game_id: str) -> str:
    """The playthrough from the plan in the game's golden file."""
    plan = plan_of(game_id)
    if plan is None:
        raise LookupError(f"{path_for(game_id)} has no '# plan:' line; "
                          f"run: python -m tests.playthrough --search --game {game_id}")
    return render_plan(game_id, plan)


def search(game_id: str, seeds: int = SEARCH_SEEDS, target: int = TARGET_BYTES) -> Plan:
    """The plan whose playthrough fires the most declared events within ``target`` bytes; among
    those, the one with the most kinds of event, then the smallest file.  Each seeded match is
    scored at every prefix of at least ``MIN_PLIES`` actions that fires a new event (and at its
    end), so the cap stops right after the last new event."""
    declared = set(declared_events(game_id))
    best: tuple[int, int, int] | None = None
    chosen: Plan | None = None
    for deals in SEARCH_DEALS:
        for seed in range(1, seeds + 1):
            size = 600  # the header and the footer, about
            kinds: set[str] = set()
            for n, (state, lines) in enumerate(_plies(game_id, seed, deals)):
                size += sum(len(x) + 1 for x in lines)
                if size > target:
                    break
                now = {str(ev["event"]) for ev in state.events}
                grew = len(now) > len(kinds)
                kinds = now
                if (grew and n >= MIN_PLIES) or n == MIN_PLIES or state.is_over():
                    key = (-len(kinds & declared), -len(kinds), size)
                    if best is None or key < best:
                        best, chosen = key, Plan(seed, deals, n)
    assert chosen is not None
    return chosen


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0] if __doc__ else None)
    ap.add_argument("--write", action="store_true", help="write the files from their plans")
    ap.add_argument("--search", action="store_true", help="pick a new plan for each file, then write it")
    ap.add_argument("--game", action="append", help="game id (repeatable; default: every game)")
    a = ap.parse_args(argv)
    ids = a.game or GAMES
    for gid in ids:
        if gid not in GAMES:
            print(f"unknown game {gid!r}; known games: {', '.join(GAMES)}", file=sys.stderr)
            return 2
        plan = plan_of(gid)
        if a.search or (a.write and plan is None):
            plan = search(gid)
        if plan is None:
            print(f"{path_for(gid)} has no plan; run: python -m tests.playthrough --search --game {gid}",
                  file=sys.stderr)
            return 2
        text = render_plan(gid, plan)
        if a.write or a.search:
            DIR.mkdir(exist_ok=True)
            path_for(gid).write_text(text, encoding="utf-8")
            print(f"wrote {path_for(gid)} ({len(text.encode())} bytes, {plan.line()[2:]})")
        else:
            sys.stdout.write(text)
    return 0


if __name__ == "__main__":
    sys.exit(main())
