"""``cardarena bots faults DIR NAME``: every fault of one bot in a real tournament, grouped by kind and
normalised reason, with a command that replays each (through ``dashboards.app.main``)."""
from __future__ import annotations

import json
from pathlib import Path

import pyarrow.parquet as pq
import pytest

from bots.api import bot_source
from bots.faults import normalise_reason
from bots.registry import Registry
from tests.tournaments.conftest import raw_spec
from tournaments.runners import run_tournament
from tournaments.spec import parse_spec

from ..test_bad_paths import run

GAME = "hartenjagen"
FLAKY = '''
class Bot:
    """Crashes on move 2 or 3 (by its seed), and gives an illegal action on move 5 when it got that far."""
    def __init__(self, game, seat, seed):
        self.n, self.crash_at = 0, 2 + seed % 2
    def act(self, observation):
        self.n += 1
        if self.n == self.crash_at and seat_ok(self):
            raise KeyError(f"card {observation['legal_actions'][0]} at move {self.n}")
        return observation["legal_actions"][0]

def seat_ok(bot):
    return True
'''
ILLEGAL = '''
def act(observation):
    return "play " + ("QS" if "play QS" not in observation["legal_actions"] else "2C") + " please"
'''


@pytest.fixture(scope="module")
def tournament(tmp_path_factory: pytest.TempPathFactory) -> Path:
    base = tmp_path_factory.mktemp("botfaults")
    data = base / "data"
    reg = Registry(data)
    for name, code in (("flaky", FLAKY), ("wrong", ILLEGAL)):
        f = base / "src" / f"{name}.py"
        f.parent.mkdir(exist_ok=True)
        f.write_text(code)
        reg.add(bot_source(f), name, [GAME], {})
    bots = ["random", {"name": "r2", "bot": "random"}, "flaky", "wrong"]
    spec = parse_spec(raw_spec(base, games=[GAME], bots=bots))
    assert run_tournament(spec, executor="inline", progress=False, bots_data=str(data)).complete
    return base / "out"


def test_bot_faults_groups_every_fault_of_the_bot_by_kind_and_normalised_reason(tournament: Path,
        capsys: pytest.CaptureFixture[str]) -> None:
    matches = pq.read_table(tournament / "matches").to_pylist()
    want = [(m["match_id"], f["seat"], f["kind"], f["reason"]) for m in matches for f in m["faults"]
            if m["bots"][f["seat"]] == "flaky"]
    assert want, "the flaky bot must fault in this tournament"
    code, out, err = run(capsys, ["bots", "faults", str(tournament), "flaky", "--json"])
    assert code == 0, err
    rep = json.loads(out)
    assert rep["entrants"] == [{"entrant": "flaky", "ref": "flaky@1"}] and rep["faults"] == len(want)
    got = [(f["match_id"], f["seat"], g["kind"], f["reason"]) for g in rep["groups"] for f in g["faults"]]
    assert sorted(got) == sorted(want)   # every fault of that bot, and none of another
    shapes = {(k, normalise_reason(r)) for _, _, k, r in want}
    assert {(g["kind"], g["reason"]) for g in rep["groups"]} == shapes and len(rep["groups"]) == len(shapes)
    assert all(g["count"] == len(g["faults"]) for g in rep["groups"])
    for g in rep["groups"]:
        for f in g["faults"]:
            assert f["replay"] == {"show": f"cardarena show {tournament} {f['match_id']}",
                                   "verify": f"cardarena verify {tournament} --match {f['match_id']}",
                                   "bot": f"cardarena bots replay {tournament} {f['match_id']}"}
    mid = rep["groups"][0]["faults"][0]["match_id"]
    code, text, err = run(capsys, ["bots", "faults", str(tournament), "flaky@1"])
    assert code == 0, err
    assert f"flaky (flaky@1): {len(want)} fault(s) in {len(shapes)} group(s)" in text
    assert f"replay: cardarena bots replay {tournament} {mid}   (viewer: cardarena show {tournament} {mid})" \
        in text


def test_bot_faults_text_shows_the_end_of_each_groups_first_traceback(tournament: Path,
        capsys: pytest.CaptureFixture[str]) -> None:
    code, out, err = run(capsys, ["bots", "faults", str(tournament), "flaky", "--json"])
    assert code == 0, err
    groups = json.loads(out)["groups"]
    code, text, err = run(capsys, ["bots", "faults", str(tournament), "flaky"])
    assert code == 0, err
    crash = next(g for g in groups if g["kind"] == "crash")
    frames = [ln for ln in crash["faults"][0]["reason"].splitlines()[1:] if ln.strip()]
    assert any("KeyError" in ln for ln in frames) and any("line " in ln for ln in frames)
    assert "   traceback (its end):" in text
    for ln in frames[-6:]:   # the last frames, each on its own line, in text mode
        assert f"   | {ln.rstrip()}" in text
    assert text.count("traceback (its end):") == sum(
        1 for g in groups if len(g["faults"][0]["reason"].strip().splitlines()) > 1)


def test_bot_faults_replay_command_checks_the_match_it_names(tournament: Path,
        capsys: pytest.CaptureFixture[str]) -> None:
    code, out, err = run(capsys, ["bots", "faults", str(tournament), "wrong", "--json"])
    assert code == 0, err
    fault = json.loads(out)["groups"][0]["faults"][0]
    argv = fault["replay"]["verify"].split()[1:]
    code, out, err = run(capsys, [*argv, "--json"])
    assert code == 0, err
    checked = json.loads(out)
    assert checked["ok"] and checked["matches"] == 1   # that one match, replayed and checked


def test_bot_faults_of_a_clean_bot_and_of_an_unknown_name(tournament: Path,
        capsys: pytest.CaptureFixture[str]) -> None:
    code, out, err = run(capsys, ["bots", "faults", str(tournament), "r2"])
    assert code == 0 and out.strip() == f"r2 (random): no fault in {tournament}", err
    code, out, err = run(capsys, ["bots", "faults", str(tournament), "nobody"])
    assert code == 2 and len(err.strip().splitlines()) == 1 and "no entrant named 'nobody'" in err
    assert "flaky@1" in err and "Traceback" not in err
    code, out, err = run(capsys, ["bots", "faults", str(tournament / "missing"), "flaky"])
    assert code == 2 and len(err.strip().splitlines()) == 1 and "Traceback" not in err
