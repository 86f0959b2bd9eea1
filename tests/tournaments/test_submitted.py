"""Submitted bots in a tournament: resolved to NAME@VERSION and frozen, run in the bots sandbox
under the spec's per-move limits, their faults logged and placed last, their GAMES respected."""
from __future__ import annotations

from pathlib import Path
from typing import Any

import pyarrow.parquet as pq
import pytest

from bots.api import bot_source
from bots.registry import Registry
from engine import GAMES, game_class
from tests.tournaments.conftest import raw_spec
from tournaments.runners import prepare, run_tournament
from tournaments.spec import SpecError, parse_spec

GAME = next(g for g in GAMES if game_class(g).default_players == 4)

FIRST = '''
def act(observation):
    return observation["legal_actions"][0]
'''
SLEEPER = '''
import time
def act(observation):
    time.sleep(30)
    return observation["legal_actions"][0]
'''
EXPLODER = '''
class Bot:
    def __init__(self, game, seat, seed):
        self.n = 0
    def act(self, observation):
        self.n += 1
        if self.n == 2:
            raise ValueError("exploding on purpose")
        return observation["legal_actions"][-1]
'''


@pytest.fixture
def registry(tmp_path: Path) -> Path:
    data = tmp_path / "data"
    reg = Registry(data)
    for name, code in (("first", FIRST), ("sleeper", SLEEPER), ("exploder", EXPLODER)):
        f = tmp_path / "src" / f"{name}.py"
        f.parent.mkdir(exist_ok=True)
        f.write_text(code)
        reg.add(bot_source(f), name, [GAME], {})
    return data


def randoms(n: int) -> list[Any]:
    return ["random", *({"name": f"r{i}", "bot": "random"} for i in range(2, n + 1))]


def run(tmp_path: Path, registry: Path, bots: list[Any], **over: Any) -> list[dict[str, Any]]:
    spec = parse_spec(raw_spec(tmp_path, games=[GAME], bots=bots, limits={"move_s": 0.3, "bank_s": 0.2},
                               **over))
    s = run_tournament(spec, executor="inline", progress=False, bots_data=str(registry))
    assert s.complete
    return pq.read_table(tmp_path / "out" / "matches").to_pylist()


def test_a_submitted_bot_plays_sandboxed_as_name_at_version(tmp_path: Path, registry: Path) -> None:
    matches = run(tmp_path, registry, [*randoms(3), "first"])
    assert len(matches) == 4
    for m in matches:
        seat = m["bots"].index("first")
        assert m["bot_refs"][seat] == "first@1" and m["status"] == "ok"
    moves = pq.read_table(tmp_path / "out" / "moves").to_pylist()
    assert {x["status"] for x in moves if x["bot"] == "first"} == {"ok"}


def test_faults_of_submitted_bots_are_logged_and_placed_last(tmp_path: Path, registry: Path) -> None:
    matches = run(tmp_path, registry, [*randoms(2), "sleeper", "exploder"])
    for m in matches:
        kinds = {f["seat"]: f["kind"] for f in m["faults"]}
        s_seat, e_seat = m["bots"].index("sleeper"), m["bots"].index("exploder")
        assert kinds == {s_seat: "timeout", e_seat: "crash"}
        assert any("exploding on purpose" in f["reason"] for f in m["faults"])
        others = [r for s, r in enumerate(m["ranking"]) if s not in kinds]
        assert min(m["ranking"][s_seat], m["ranking"][e_seat]) > max(others)


def test_name_resolves_to_the_latest_version_and_stays_frozen(tmp_path: Path, registry: Path) -> None:
    spec = parse_spec(raw_spec(tmp_path, games=[GAME], bots=[*randoms(3), "first"]))
    p = prepare(spec, bots_data=str(registry))
    p.release()
    assert p.refs["first"] == "first@1"
    f = tmp_path / "src" / "first.py"
    f.write_text(FIRST + "\n# version 2\n")
    Registry(registry).add(bot_source(f), "first", [GAME], {})
    again = prepare(spec, bots_data=str(registry))   # the same tournament: still version 1
    again.release()
    assert again.refs["first"] == "first@1"
    new = prepare(parse_spec(raw_spec(tmp_path, games=[GAME], bots=[*randoms(3), "first"],
                                      output=str(tmp_path / "other"))), bots_data=str(registry))
    new.release()
    assert new.refs["first"] == "first@2"


def test_a_bot_enters_only_its_games(tmp_path: Path, registry: Path) -> None:
    other = next((g for g in GAMES if g != GAME and game_class(g).default_players == 4), None)
    if other is None:
        pytest.skip("needs two 4-player games")
    spec = parse_spec(raw_spec(tmp_path, games=[GAME, other], bots=[*randoms(4), "first"]))
    p = prepare(spec, bots_data=str(registry))
    p.release()
    by_game = {gp.game.id: {e for arr in gp.arrangements for e in arr} for gp in p.plans}
    assert "first" in by_game[GAME] and "first" not in by_game[other]


def test_unknown_submitted_bot_and_version(tmp_path: Path, registry: Path) -> None:
    for bot, needle in (("nobody", "no submitted bot named 'nobody'"),
                        ("first@9", "first has versions 1..1")):
        spec = parse_spec(raw_spec(tmp_path, games=[GAME], bots=[*randoms(3), bot]))
        with pytest.raises(SpecError, match=rf"bots\[3\]: unknown bot '{bot}'.*{needle}"):
            prepare(spec, bots_data=str(registry))
