"""``cardarena play`` with a submitted bot that faults: every fault is shown where it happens (seat,
move, kind, reason, traceback excerpt), ``--json`` has a ``faults`` list and the bots' output, and the
exit status is 3 (the real entry point, in a subprocess)."""
from __future__ import annotations

import json
import random
import subprocess
import sys
from pathlib import Path

import pytest

from engine import game_class

FAULT_EXIT = 3


def cardarena(*args: str) -> subprocess.CompletedProcess[str]:
    return subprocess.run([sys.executable, "-m", "dashboards.app", *args], capture_output=True,
                          text=True, timeout=120, env={"COLUMNS": "200", "PATH": "/usr/bin:/bin"})


def crashing_bot(tmp_path: Path, on_move: int, kind: str) -> Path:
    """A bot that prints to stdout and stderr, plays the first legal action, and on its ``on_move``-th
    move raises (``crash``) or returns an action that is not legal (``illegal``)."""
    bad = ("raise LookupError(f'gave up at move {self.n}')" if kind == "crash"
           else "return 'not an action at all'")
    p = tmp_path / f"bot_{kind}_{on_move}.py"
    p.write_text(f"""import sys
class Bot:
    def __init__(self, game, seat, seed):
        self.n = 0
        print('bot says hello from seat', seat)
    def act(self, observation):
        self.n += 1
        print('thinking about move', self.n, file=sys.stderr)
        if self.n == {on_move}:
            {bad}
        return observation['legal_actions'][0]
""")
    return p


CASES = [("hartenjagen", 0), ("butifarra", 2), ("klop_bela", 1)]


@pytest.mark.parametrize(("game", "seat"), CASES)
def test_play_shows_a_submitted_bots_fault_where_it_happens_and_exits_3(tmp_path: Path, game: str,
                                                                        seat: int) -> None:
    rng = random.Random(f"{game}{seat}")
    on_move, seed = rng.randint(2, 6), rng.randrange(2**32)
    bot = crashing_bot(tmp_path, on_move, "crash")
    names = ["random"] * game_class(game).default_players
    names[seat] = str(bot)
    args = ("play", game, "--bots", ",".join(names), "--seed", str(seed), "--deals", "1")
    proc = cardarena(*args, "--json")
    assert proc.returncode == FAULT_EXIT, proc.stderr
    data = json.loads(proc.stdout)
    (fault,) = data["faults"]
    assert (fault["seat"], fault["move"], fault["outcome"]) == (seat, on_move, "crash")
    assert fault["bot"] == str(bot)
    assert fault["reason"] == f"LookupError: gave up at move {on_move}"
    assert "in act" in fault["traceback"] and fault["fallback_moves"] >= 0
    # the fault's ply is the seat's own on_move-th move in the logged moves
    own = [m["ply"] for m in data["moves"] if m["seat"] == seat]
    assert own[on_move - 1] == fault["ply"]
    assert data["placement"][seat] == max(data["placement"])
    out = data["outputs"][str(seat)]
    assert "[stdout] bot says hello from seat" in out and "[stderr] thinking about move 1" in out
    text = cardarena(*args)
    assert text.returncode == FAULT_EXIT, text.stderr
    assert "Traceback" not in text.stderr
    assert f"[FAULT seat {seat}: crash; random plays on]" in text.stdout
    assert (f"FAULT seat {seat} ({bot}): crash at deal 1, its move {on_move} (ply {fault['ply']}): "
            f"LookupError: gave up at move {on_move}") in text.stdout
    assert "in act" in text.stdout and f"output of seat {seat}" in text.stdout
    assert "thinking about move 1" in text.stdout


def test_json_traceback_holds_the_traceback_not_the_bots_output(tmp_path: Path) -> None:
    """``faults[].traceback`` is the traceback alone: the bot's stdout and stderr are in ``outputs``."""
    bot = crashing_bot(tmp_path, 2, "crash")
    proc = cardarena("play", "hartenjagen", "--bots", f"{bot},random,random,random", "--seed", "3",
                     "--deals", "1", "--json")
    assert proc.returncode == FAULT_EXIT, proc.stderr
    data = json.loads(proc.stdout)
    (fault,) = data["faults"]
    assert "in act" in fault["traceback"]
    assert "bot says hello" not in fault["traceback"] and "thinking about" not in fault["traceback"]
    assert "bot says hello" in data["outputs"]["0"]


@pytest.mark.parametrize("seat", [0, 1, 2, 3])
def test_a_fault_in_a_partnership_game_places_the_partners_together(tmp_path: Path, seat: int) -> None:
    """kruisjassen: a faulting seat forfeits for its side; both partners share the last place, and the
    sheet's place row is that placement (one place per seat in the whole output)."""
    bot = crashing_bot(tmp_path, 2, "illegal")
    names = ["greedy"] * 4
    names[seat] = str(bot)
    args = ("play", "kruisjassen", "--bots", ",".join(names), "--seed", "5", "--deals", "2")
    data = json.loads(cardarena(*args, "--json").stdout)
    placement = data["placement"]
    partner = (seat + 2) % 4
    assert placement[seat] == placement[partner] == 3, placement
    assert placement[(seat + 1) % 4] == placement[(seat + 3) % 4] == 1, placement
    text = cardarena(*args).stdout
    place_row = next(ln for ln in text.splitlines() if ln.startswith("│ place"))
    assert [int(c) for c in place_row.strip("│ ").split("│")[1:]] == placement
    assert "places (" not in text   # no second, different list of places


def test_play_names_the_illegal_action_a_bot_gave(tmp_path: Path) -> None:
    bot = crashing_bot(tmp_path, 3, "illegal")
    proc = cardarena("play", "hartenjagen", "--bots", f"random,{bot},random,random", "--seed", "11",
                     "--deals", "1", "--json")
    assert proc.returncode == FAULT_EXIT, proc.stderr
    (fault,) = json.loads(proc.stdout)["faults"]
    assert (fault["seat"], fault["move"], fault["outcome"], fault["action"]) == (
        1, 3, "illegal", "not an action at all")


def test_play_without_a_fault_exits_0_with_an_empty_faults_list() -> None:
    proc = cardarena("play", "hartenjagen", "--seed", "5", "--deals", "1", "--json")
    assert proc.returncode == 0, proc.stderr
    data = json.loads(proc.stdout)
    assert data["faults"] == [] and data["outputs"] == {} and len(data["placement"]) == 4


@pytest.mark.slow
def test_play_shows_a_looping_bots_timeout_and_exits_3() -> None:
    """A bot that spins on its second move times out after the move limit and the whole time bank (6 s)."""
    loop = Path(__file__).parent / "bots" / "adversarial" / "infinite_loop.py"
    proc = cardarena("play", "hartenjagen", "--bots", f"random,random,{loop},random", "--seed", "2",
                     "--deals", "1", "--json")
    assert proc.returncode == FAULT_EXIT, proc.stderr
    (fault,) = json.loads(proc.stdout)["faults"]
    assert (fault["seat"], fault["outcome"], fault["move"]) == (2, "timeout", 2)
    assert "no answer within" in fault["reason"]
