"""``cardarena bots validate | submit | list`` (through typer's CliRunner on ``bots.cli.app``)."""
from __future__ import annotations

import json
import os
import stat
from pathlib import Path

import pytest
from typer.testing import CliRunner, Result

import bots.validate
from bots.cli import app
from bots.match import play
from bots.registry import Registry
from bots.sandbox import Limits
from engine import GAMES

EXAMPLE = Path(__file__).resolve().parents[2] / "bots" / "examples" / "first_legal.py"
ADV = Path(__file__).parent / "adversarial"
GAME = "hartenjagen" if "hartenjagen" in GAMES else GAMES[0]


def run(*args: str) -> Result:
    return CliRunner().invoke(app, list(args))


def one_line_error(r: Result, code: int, needle: str) -> None:
    assert r.exit_code == code, (r.exit_code, r.stdout, r.stderr)
    lines = r.stderr.strip().splitlines()
    assert len(lines) == 1 and needle in lines[0], r.stderr
    assert "Traceback" not in r.stdout + r.stderr


def write(tmp_path: Path, name: str, text: str) -> Path:
    p = tmp_path / name
    p.write_text(text)
    return p


# --------------------------------------------------------------------------- validate
def test_validate_example_bot_is_ok() -> None:
    r = run("validate", str(EXAMPLE), "--games", GAME)
    assert r.exit_code == 0, r.stdout + r.stderr
    assert r.stdout.splitlines()[0].startswith(f"{GAME}: ok (")
    assert "ok: 1/1 games" in r.stdout


def test_validate_every_game_by_default_and_json() -> None:
    r = run("validate", str(EXAMPLE), "--json")
    assert r.exit_code == 0, r.stderr
    data = json.loads(r.stdout)
    assert data["ok"] and sorted(data["games"]) == sorted(GAMES)
    assert all(g["ok"] and g["moves"] > 0 for g in data["games"].values())


def test_validate_reports_the_failing_move_and_exits_1() -> None:
    r = run("validate", str(ADV / "illegal_action.py"), "--games", GAME)
    assert r.exit_code == 1
    first = r.stdout.splitlines()[0]
    assert first.startswith(f"{GAME}: FAILED at deal 1, its move 1 (ply ")
    assert "it played 'play " in first and "illegal:" in first and "not legal" in first


def test_validate_crash_shows_traceback_excerpt() -> None:
    r = run("validate", str(ADV / "mid_match_error.py"), "--games", GAME)
    assert r.exit_code == 1
    assert "crash: ValueError: exploding on move 3 on purpose" in r.stdout
    assert "in explode" in r.stdout


def test_validate_missing_file_is_bad_input() -> None:
    one_line_error(run("validate", "/no/such/bot.py"), 2, "is missing")


def test_validate_file_that_will_not_import(tmp_path: Path) -> None:
    bad = write(tmp_path, "broken.py", "def act(observation)\n    return 'x'\n")
    one_line_error(run("validate", str(bad)), 2, "will not import: SyntaxError")
    one_line_error(run("validate", str(ADV / "import_error.py")), 2,
                   "will not import: RuntimeError: this bot breaks at import")


def test_validate_file_with_neither_act_nor_bot() -> None:
    one_line_error(run("validate", str(ADV / "no_entry.py")), 2,
                   "defines neither act(observation) nor a class Bot")


def test_validate_not_a_python_file_and_folder_without_init(tmp_path: Path) -> None:
    one_line_error(run("validate", str(write(tmp_path, "bot.txt", "x"))), 2, "not a .py file")
    (tmp_path / "pkg").mkdir()
    one_line_error(run("validate", str(tmp_path / "pkg")), 2, "has no __init__.py")


def test_validate_unknown_game_and_bad_games_list(tmp_path: Path) -> None:
    one_line_error(run("validate", str(EXAMPLE), "--games", "nosuchgame"), 2, "unknown game 'nosuchgame'")
    bad = write(tmp_path, "g.py", "GAMES = ['chess']\n\ndef act(o):\n    return o['legal_actions'][0]\n")
    one_line_error(run("validate", str(bad)), 2, "not a game id")


def test_validate_skips_games_outside_its_games_list(tmp_path: Path) -> None:
    only = write(tmp_path, "only.py",
                 f"GAMES = [{GAME!r}]\n\ndef act(o):\n    return o['legal_actions'][0]\n")
    other = next((g for g in GAMES if g != GAME), None)
    if other is None:
        pytest.skip("one game only")
    r = run("validate", str(only), "--games", f"{GAME},{other}")
    assert r.exit_code == 0
    assert f"{other}: skipped (the bot's GAMES leaves it out)" in r.stdout


def test_validate_package_bot(tmp_path: Path) -> None:
    pkg = tmp_path / "mybot"
    pkg.mkdir()
    (pkg / "__init__.py").write_text("from .brain import choose\n\nclass Bot:\n"
                                     "    def __init__(self, game, seat, seed):\n        pass\n"
                                     "    def act(self, obs):\n        return choose(obs)\n")
    (pkg / "brain.py").write_text("def choose(obs):\n    return obs['legal_actions'][-1]\n")
    r = run("validate", str(pkg), "--games", GAME)
    assert r.exit_code == 0, r.stdout + r.stderr


def test_validate_never_hangs_on_a_bot_stuck_at_import(tmp_path: Path,
                                                       monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(bots.validate, "VALIDATE_LIMITS", Limits(start_time=1.0, match_time=5.0))
    stuck = write(tmp_path, "stuck.py", "while True:\n    pass\n")
    one_line_error(run("validate", str(stuck)), 2, "not ready within 1 s")


def test_validate_match_deadline(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(bots.validate, "VALIDATE_LIMITS", Limits(move_time=0.5, match_time=0.3))
    slow = write(tmp_path, "slow.py", "import time\n\ndef act(o):\n    time.sleep(0.2)\n"
                                      "    return o['legal_actions'][0]\n")
    r = run("validate", str(slow), "--games", GAME)
    assert r.exit_code == 1 and "the match limit of 0.3 s is spent" in r.stdout


# --------------------------------------------------------------------------- submit and list
def test_submit_list_and_versions(tmp_path: Path) -> None:
    data = str(tmp_path / "data")
    bot = write(tmp_path, "mine.py", "def act(o):\n    return o['legal_actions'][0]\n")
    r = run("submit", str(bot), "--name", "mine", "--games", GAME, "--data-dir", data)
    assert r.exit_code == 0, r.stdout + r.stderr
    assert "submitted mine@1" in r.stdout
    bot.write_text("def act(o):\n    return o['legal_actions'][-1]\n")
    r2 = run("submit", str(bot), "--name", "mine", "--games", GAME, "--data-dir", data, "--json")
    e2 = json.loads(r2.stdout)
    assert e2["version"] == 2 and e2["games"] == [GAME] and e2["validation"]["ok"] and e2["new_version"]
    rows = json.loads(run("list", "--json", "--data-dir", data).stdout)
    assert [(x["name"], x["version"]) for x in rows] == [("mine", 1), ("mine", 2)]
    assert rows[0]["hash"] != rows[1]["hash"]
    assert all(x["submitted"].endswith("+00:00") and x["validation"]["games"] == {GAME: "ok"} for x in rows)
    table = run("list", "--data-dir", data).stdout
    assert "mine@2" in table and rows[1]["hash"][:12] in table
    # the stored copy is immutable (read-only) and resolved by NAME and NAME@VERSION
    reg = Registry(data)
    latest, first = reg.resolve("mine"), reg.resolve("mine@1")
    assert latest.version == 2 and first.version == 1 and first.path.read_text().endswith("[0]\n")
    assert not first.path.stat().st_mode & (stat.S_IWUSR | stat.S_IWGRP | stat.S_IWOTH)
    with pytest.raises(LookupError, match=r"versions 1\.\.2, not 9"):
        reg.resolve("mine@9")
    with pytest.raises(LookupError, match="no submitted bot named 'yours'"):
        reg.resolve("yours")


def test_submit_of_identical_content_makes_no_new_version_and_names_it(tmp_path: Path) -> None:
    data = str(tmp_path / "data")
    first = "def act(o):\n    return o['legal_actions'][0]\n"
    bot = write(tmp_path, "mine.py", first)
    assert run("submit", str(bot), "--name", "mine", "--games", GAME, "--data-dir", data).exit_code == 0
    again = run("submit", str(bot), "--name", "mine", "--games", GAME, "--data-dir", data)
    assert again.exit_code == 0, again.stdout + again.stderr
    assert "the same content as mine@1" in again.stdout and "no new version" in again.stdout
    bot.write_text("def act(o):\n    return o['legal_actions'][-1]\n")
    assert run("submit", str(bot), "--name", "mine", "--games", GAME, "--data-dir", data).exit_code == 0
    (tmp_path / "elsewhere").mkdir()
    other = write(tmp_path / "elsewhere", "mine.py", first)   # the same file from another folder
    j = json.loads(run("submit", str(other), "--name", "mine", "--data-dir", data, "--json").stdout)
    assert (j["same_as"], j["new_version"], j["version"]) == ("mine@1", False, 1)
    back = run("submit", str(other), "--name", "mine", "--data-dir", data)
    assert "same content as mine@1" in back.stdout and "mine alone names mine@2, the latest" in back.stdout
    assert [e.version for e in Registry(data).entries("mine")] == [1, 2]
    # another name may hold the same content as its own first version
    assert "submitted theirs@1" in run("submit", str(other), "--name", "theirs", "--games", GAME,
                                       "--data-dir", data).stdout


def test_a_modified_stored_copy_is_refused(tmp_path: Path) -> None:
    data = str(tmp_path / "data")
    bot = write(tmp_path, "mine.py", "def act(o):\n    return o['legal_actions'][0]\n")
    assert run("submit", str(bot), "--name", "mine", "--games", GAME, "--data-dir", data).exit_code == 0
    path = Registry(data).resolve("mine").path
    os.chmod(path, 0o644)
    path.write_text("def act(o):\n    return 'cheat'\n")
    with pytest.raises(LookupError, match="modified"):
        Registry(data).resolve("mine@1")


def test_submitted_bot_plays_by_name(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    data = tmp_path / "data"
    monkeypatch.setenv("CARDARENA_DATA", str(data))
    bot = write(tmp_path, "mine.py", "def act(o):\n    return o['legal_actions'][0]\n")
    assert run("submit", str(bot), "--name", "mine", "--games", GAME).exit_code == 0
    from engine import game_class
    n = game_class(GAME).default_players
    result = play(GAME, ["mine@1"] + ["random"] * (n - 1), seed=5, max_deals=1)
    assert result.ok and result.outcomes == ["ok"] * n
    with pytest.raises(ValueError, match="unknown bot 'theirs'"):
        play(GAME, ["theirs"] + ["random"] * (n - 1), seed=5, max_deals=1)


def test_submit_refuses_a_failing_bot_and_bad_names(tmp_path: Path) -> None:
    data = str(tmp_path / "data")
    r = run("submit", str(ADV / "illegal_action.py"), "--name", "bad", "--games", GAME, "--data-dir", data)
    assert r.exit_code == 1 and "not submitted" in r.stderr
    assert Registry(data).entries() == []
    one_line_error(run("submit", str(EXAMPLE), "--name", "Bad Name!", "--data-dir", data), 2, "bad bot name")
    one_line_error(run("submit", str(EXAMPLE), "--name", "random", "--data-dir", data), 2,
                   "taken by a built-in")
    one_line_error(run("submit", "/no/bot.py", "--name", "x", "--data-dir", data), 2, "is missing")


def test_list_empty_and_unknown_name(tmp_path: Path) -> None:
    data = str(tmp_path / "empty")
    r = run("list", "--data-dir", data)
    assert r.exit_code == 0 and "no bots submitted yet" in r.stdout
    assert json.loads(run("list", "--json", "--data-dir", data).stdout) == []
    one_line_error(run("list", "ghost", "--data-dir", data), 2, "no submitted bot named 'ghost'")
