"""``cardarena bots eval BOT --game G [--vs ...] [--boards N] [--json]`` (through ``dashboards.app.main``):
a tournament built in code and run on the local pool, the bot in every seat of every board, the
headline score with its interval as the leaderboard computes it, and the bot's faults."""
from __future__ import annotations

import json
from collections import Counter
from pathlib import Path

import pyarrow.parquet as pq
import pytest

from tournaments.tournament_cli import leaderboard_rows

from ..test_bad_paths import run

CRASHY = '''
class Bot:
    """Crashes on its third move when it sits in seat 0; else plays the last legal action."""
    def __init__(self, game, seat, seed):
        self.n = 0
    def act(self, observation):
        self.n += 1
        if self.n == 3 and observation["seat"] == 0:
            raise KeyError("boom")
        return observation["legal_actions"][-1]
'''


@pytest.fixture(scope="module")
def bot(tmp_path_factory: pytest.TempPathFactory) -> Path:
    f = tmp_path_factory.mktemp("eval") / "crashy.py"
    f.write_text(CRASHY)
    return f


def test_bots_eval_plays_every_seat_of_every_board_and_prints_the_headline_score(
        bot: Path, tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    out = tmp_path / "ev"
    code, text, err = run(capsys, ["bots", "eval", str(bot), "--game", "hartenjagen", "--boards", "2",
                                   "--deals", "1", "--out", str(out), "--json"])
    assert code == 0, err
    rep = json.loads(text)
    matches = pq.read_table(out / "matches").to_pylist()
    assert rep["matches"] == len(matches) == 2 * 4   # 2 boards x 4 rotations (copies of greedy: one seating)
    seats = Counter((m["board"], m["bots"].index("crashy")) for m in matches)
    assert seats == {(b, s): 1 for b in range(2) for s in range(4)}   # every seat of every board
    assert all(r.startswith("crashy@") or r == "greedy" for m in matches for r in m["bot_refs"])
    tid = matches[0]["tournament"]
    mine = next(r for r in leaderboard_rows(out, tid) if r["bot"] == "crashy")
    assert (rep["score"], rep["lo"], rep["hi"]) == (mine["score"], mine["lo"], mine["hi"])
    logged = sum(1 for m in matches for f in m["faults"] if m["bots"][f["seat"]] == "crashy")
    assert rep["faults"] == logged == 2 and rep["fault_groups"][0]["kind"] == "crash"
    code, text, err = run(capsys, ["bots", "eval", str(bot), "--game", "hartenjagen", "--boards", "2",
                                   "--deals", "1"])
    assert code == 0, err
    assert "eval: 8 of 8 matches" in text   # the progress line
    assert (f"crashy in hartenjagen against greedy: score {rep['score']:.3f} (95% interval "
            f"{rep['lo']:.2f}..{rep['hi']:.2f}) over 8 matches") in text
    assert "fault 1. crash x2: KeyError" in text


def test_bots_eval_against_several_opponents_plays_every_seating(bot: Path, tmp_path: Path,
                                                                 capsys: pytest.CaptureFixture[str]) -> None:
    out = tmp_path / "ev"
    code, text, err = run(capsys, ["bots", "eval", str(bot), "--game", "hartenjagen", "--vs", "greedy,random",
                                   "--boards", "1", "--deals", "1", "--out", str(out), "--json"])
    assert code == 0, err
    rep = json.loads(text)
    matches = pq.read_table(out / "matches").to_pylist()
    assert {e["bot"] for e in rep["entrants"]} == {"crashy", "greedy", "random", "greedy-2"}
    # every table of 4 of the 4 entrants (one) in its 4 rotations: the bot in every seat
    assert len({tuple(m["bots"]) for m in matches}) == len(matches) == rep["matches"] == 4
    assert {m["bots"].index("crashy") for m in matches} == {0, 1, 2, 3}
    code, text, err = run(capsys, ["bots", "eval", str(bot), "--game", "klop_bela", "--vs", "greedy,random",
                                   "--boards", "1", "--deals", "1", "--json"])
    assert code == 0, err
    rep = json.loads(text)   # 2 seats, 3 entrants: every pair in both seats (the opponents too)
    assert rep["players"] == 2 and rep["matches"] == 3 * 2 and rep["directory"] is None


def test_bots_eval_bad_input_is_one_line_exit_2(bot: Path, tmp_path: Path,
                                                 capsys: pytest.CaptureFixture[str]) -> None:
    for args in ([str(bot), "--game", "nosuchgame"], [str(tmp_path / "missing.py"), "--game", "hartenjagen"],
                 [str(bot), "--game", "hartenjagen", "--vs", "nosuchbot"],
                 [str(bot), "--game", "hartenjagen", "--boards", "0"]):
        code, _, err = run(capsys, ["bots", "eval", *args])
        assert code == 2 and len(err.strip().splitlines()) == 1 and "Traceback" not in err, (args, err)
