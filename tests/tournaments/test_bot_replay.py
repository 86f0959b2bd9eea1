"""``cardarena bots replay DIR MATCH_ID [--bot NEW] [--seat S]`` on a real tournament (through
``dashboards.app.main``): the tournament's deal and seat seeds play the match again move for move,
every ``bot_refs`` form loads back (a submitted ``NAME@V``, a built-in with options), each fault's
observation is written as JSON, and a fixed version is told apart from the faulting one."""
from __future__ import annotations

import json
from pathlib import Path

import pyarrow.parquet as pq
import pytest

from bots.api import bot_source
from bots.match import parse_ref, play
from bots.registry import Registry
from tests.tournaments.conftest import raw_spec
from tournaments.analysis.replay import logged_match
from tournaments.runners import run_tournament
from tournaments.spec import parse_spec

from ..test_bad_paths import run

GAME = "hartenjagen"
FLAKY = '''
class Bot:
    """Crashes on its move 2, 3 or 4, by its seed (so only the tournament's seat seed replays it)."""
    def __init__(self, game, seat, seed):
        self.n, self.crash_at = 0, 2 + seed % 3
    def act(self, observation):
        self.n += 1
        if self.n == self.crash_at:
            raise KeyError(f"card {observation['legal_actions'][0]} at move {self.n}")
        return observation["legal_actions"][0]
'''
FIXED = '''
def act(observation):
    return observation["legal_actions"][0]
'''


@pytest.fixture(scope="module")
def tournament(tmp_path_factory: pytest.TempPathFactory) -> tuple[Path, Path, Path]:
    base = tmp_path_factory.mktemp("botreplay")
    data = base / "data"
    src = base / "src"
    src.mkdir()
    (src / "flaky.py").write_text(FLAKY)
    (src / "fixed.py").write_text(FIXED)
    Registry(data).add(bot_source(src / "flaky.py"), "flaky", [GAME], {})
    bots = ["random", {"name": "mc", "bot": "ismcts", "options": {"iterations": 4}}, "flaky", "greedy"]
    spec = parse_spec(raw_spec(base, games=[GAME], bots=bots, schedule={"mode": "sampled", "seatings": 1}))
    assert run_tournament(spec, executor="inline", progress=False, bots_data=str(data)).complete
    return base / "out", data, src / "fixed.py"


def _faulted(out: Path) -> dict[str, object]:
    rows = [m for m in pq.read_table(out / "matches").to_pylist() if m["faults"]]
    assert rows, "the flaky bot must fault"
    return rows[0]


def test_every_bot_refs_form_the_log_writes_loads_back(tournament: tuple[Path, Path, Path]) -> None:
    out, data, _ = tournament
    refs = {r for m in pq.read_table(out / "matches").to_pylist() for r in m["bot_refs"]}
    assert {"ismcts(iterations=4)", "flaky@1", "random", "greedy"} <= refs
    assert parse_ref("ismcts(iterations=4)") == ("ismcts", {"iterations": 4})
    assert parse_ref("ismcts(iterations=4,time_limit=0.5)") == ("ismcts",
                                                                {"iterations": 4, "time_limit": 0.5})
    with pytest.raises(ValueError, match="iterations"):
        parse_ref("ismcts(iterations=0)")
    # the documented Python route: logged_match gives bots.match.play what replays the match
    m = logged_match(out, str(_faulted(out)["match_id"]))
    r = play(m.game, m.bot_refs, m.seed, m.max_deals, seeds=m.seat_seeds, data_dir=data, **m.options)
    assert [(s, a) for s, a in r.moves] == m.actions
    assert [(f.seat, f.ply) for f in r.faults] == [(f["seat"], f["ply"]) for f in m.faults]


def test_bots_replay_plays_the_logged_match_again_and_writes_each_faults_observation(
        tournament: tuple[Path, Path, Path], tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    out, data, _ = tournament
    row = _faulted(out)
    mid = str(row["match_id"])
    code, text, err = run(capsys, ["bots", "replay", str(out), mid, "--bots-data", str(data),
                                   "--out", str(tmp_path), "--json"])
    assert code == 0, err
    rep = json.loads(text)
    assert rep["same_moves"] == rep["logged_moves"] == rep["moves"] == row["moves"]
    assert all(f["faults_again"] for f in rep["logged_faults"]) and rep["logged_faults"]
    f = row["faults"][0]   # type: ignore[index]
    obs_file = tmp_path / f"fault-{mid}-{f['ply']}.json"
    saved = json.loads(obs_file.read_text())
    assert saved["seat"] == f["seat"] and saved["bot"] == "flaky@1"
    assert saved["observation"]["legal_actions"] and "hand" in json.dumps(saved["observation"])
    code, text, err = run(capsys, ["bots", "replay", str(out), mid, "--bots-data", str(data),
                                   "--out", str(tmp_path)])
    assert code == 0, err
    assert f"logged fault: seat {f['seat']} ply {f['ply']} crash: faults again (crash)" in text
    assert f"observation: {obs_file}" in text


def test_bots_replay_with_a_fixed_version_says_it_no_longer_faults_there(
        tournament: tuple[Path, Path, Path], tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    out, data, fixed = tournament
    row = _faulted(out)
    mid = str(row["match_id"])
    code, text, err = run(capsys, ["bots", "replay", str(out), mid, "--bot", str(fixed), "--bots-data",
                                   str(data), "--out", str(tmp_path)])
    assert code == 0, err
    seat = row["faults"][0]["seat"]   # type: ignore[index]
    assert f"seat {seat} ply" in text and "the new bot does not fault there" in text
    assert "no fault in the replay" in text and not list(tmp_path.glob("fault-*.json"))
    # the flaky bot itself at that seat, as --bot: it still faults there
    code, text, err = run(capsys, ["bots", "replay", str(out), mid, "--bot", "flaky@1", "--seat", str(seat),
                                   "--bots-data", str(data), "--out", str(tmp_path)])
    assert code == 0, err
    assert "the new bot still faults there (crash)" in text


def test_bots_replay_bad_input_is_one_line_exit_2(tournament: tuple[Path, Path, Path], tmp_path: Path,
                                                  capsys: pytest.CaptureFixture[str]) -> None:
    out, data, fixed = tournament
    mid = str(_faulted(out)["match_id"])
    for args in (["nosuchmatch"], [mid, "--seat", "1"], [mid, "--bot", "nosuchbot", "--seat", "0"],
                 [mid, "--bot", str(fixed), "--seat", "9"]):
        code, _, err = run(capsys, ["bots", "replay", str(out), *args, "--bots-data", str(data),
                                       "--out", str(tmp_path)])
        assert code == 2 and len(err.strip().splitlines()) == 1 and "Traceback" not in err, (args, err)
    code, _, err = run(capsys, ["bots", "replay", str(tmp_path / "nothing"), mid])
    assert code == 2 and len(err.strip().splitlines()) == 1


def test_verify_match_says_it_checks_the_engine_not_the_bot(tournament: tuple[Path, Path, Path],
                                                           capsys: pytest.CaptureFixture[str]) -> None:
    out, _, _ = tournament
    mid = str(_faulted(out)["match_id"])
    code, text, err = run(capsys, ["verify", str(out), "--match", mid])
    assert code == 0, err
    assert "the engine" in text and "no bot" in text and f"bots replay {out} {mid}" in text
