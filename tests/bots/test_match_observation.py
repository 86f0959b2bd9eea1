"""Issue 14 item 3: a bot learns the rule variant (`options`) and its clock (`clock`), through the
match loop, in the sandbox and in process."""
from __future__ import annotations

import json
from pathlib import Path
from typing import Any

from bots.match import MATCH_OBSERVATION, UNTIMED, make_players, play_match
from bots.sandbox import Limits
from engine import load_game

CLOCK_BOT = '''
import json

GAMES = ["hartenjagen"]


class Bot:
    def __init__(self, game, seat, seed):
        self.banks = []

    def act(self, obs):
        opts, clock = obs["options"], obs["clock"]
        if opts != {OPTS}:
            raise AssertionError("options " + json.dumps(opts))
        if set(clock) != {"move_s", "bank_s", "match_s"} or clock["move_s"] != 0.01:
            raise AssertionError("clock " + json.dumps(clock))
        if self.banks and clock["bank_s"] > self.banks[-1]:
            raise AssertionError("the bank grew: " + json.dumps(self.banks + [clock["bank_s"]]))
        self.banks.append(clock["bank_s"])
        if len(self.banks) == 6:
            if not self.banks[-1] < self.banks[0]:
                raise AssertionError("the bank never decreased: " + json.dumps(self.banks))
            print("BANKS " + json.dumps(self.banks))
        json.dumps(obs)   # the observation is JSON as received
        time.sleep(0.03)  # 0.02 s over the move limit: drawn from the bank
        return obs["legal_actions"][-1]


import time
'''


def test_sandboxed_bot_receives_options_and_a_decreasing_bank(tmp_path: Path) -> None:
    game = load_game("hartenjagen", target=50, must_break_hearts=False)
    bot = tmp_path / "clocked.py"
    bot.write_text(CLOCK_BOT.replace("{OPTS}", repr(game.options)))
    limits = Limits(move_time=0.01, time_bank=3.0, start_time=15.0)
    names = [str(bot), "random", "random", "random"]
    players = make_players(game, names, 5, limits=limits)
    try:
        result = play_match(game, players, 5, max_deals=1)
        out = players[0].output  # type: ignore[attr-defined]
    finally:
        for p in players:
            getattr(p, "close", lambda: None)()
    assert result.faults == [], [f.line() + "\n" + f.traceback for f in result.faults]
    banks = json.loads(out.split("BANKS ", 1)[1].splitlines()[0])
    assert banks[0] <= 3.0 and banks[-1] < banks[0] - 0.05


def test_in_process_player_receives_options_and_an_untimed_clock() -> None:
    game = load_game("manillen", target=61, club_rounds=True)
    seen: list[dict[str, Any]] = []

    class Recorder:
        def act(self, obs: dict[str, Any]) -> str:
            seen.append(obs)
            return str(obs["legal_actions"][0])

    play_match(game, [Recorder() for _ in range(4)], 3, max_deals=1)
    assert seen
    for obs in seen:
        assert set(MATCH_OBSERVATION) <= set(obs)
        assert obs["options"] == game.options and obs["options"] is not game.options
        assert obs["clock"] == UNTIMED
        json.dumps(obs)
    seen[0]["options"]["target"] = 5   # a player's change to its copy does not reach the game
    assert game.options["target"] == 61
