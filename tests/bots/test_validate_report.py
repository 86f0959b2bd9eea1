"""``cardarena bots validate`` tells the author about the bot's output, its clock and its standing:
the start of its stdout/stderr, a warning for every move that drew on the time bank, and how it placed
against the random bots per game and overall (through typer's CliRunner on ``bots.cli.app``)."""
from __future__ import annotations

import json
from pathlib import Path

import pytest
from typer.testing import CliRunner, Result

import bots.validate
from bots.cli import app
from bots.match import play
from bots.sandbox import Limits

GAME = "hartenjagen"


def run(*args: str) -> Result:
    return CliRunner().invoke(app, list(args))


def write(tmp_path: Path, name: str, text: str) -> Path:
    p = tmp_path / name
    p.write_text(text)
    return p


def test_validate_shows_the_start_of_the_bots_stdout_and_stderr(tmp_path: Path) -> None:
    bot = write(tmp_path, "chatty.py", "import sys\nn = [0]\n\ndef act(o):\n    n[0] += 1\n"
                                       "    print('considering', len(o['legal_actions']), 'actions')\n"
                                       "    print('warning number', n[0], file=sys.stderr)\n"
                                       "    return o['legal_actions'][0]\n")
    r = run("validate", str(bot), "--games", GAME, "--seed", "9")
    assert r.exit_code == 0, r.stdout + r.stderr
    lines = r.stdout.splitlines()
    at = lines.index(f"{GAME}: the bot's output (start):")
    assert lines[at + 1].startswith("    [stdout] considering ") and lines[at + 1].endswith(" actions")
    assert "    [stderr] warning number 1" in lines
    assert any(ln.startswith("    ... (") and "more lines of stdout; --json has them" in ln for ln in lines)
    data = json.loads(run("validate", str(bot), "--games", GAME, "--seed", "9", "--json").stdout)
    out = data["games"][GAME]["output"]
    assert out.startswith("[stdout] considering ") and "[stderr] warning number 1\nwarning number 2" in out


def test_validate_warns_when_a_move_draws_on_the_time_bank(tmp_path: Path,
                                                          monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(bots.validate, "VALIDATE_LIMITS", Limits(move_time=0.05, time_bank=2.0,
                                                                 match_time=30.0))
    bot = write(tmp_path, "slow2.py", "import time\nn = [0]\n\ndef act(o):\n    n[0] += 1\n"
                                      "    if n[0] in (2, 4):\n        time.sleep(0.15)\n"
                                      "    return o['legal_actions'][0]\n")
    r = run("validate", str(bot), "--games", GAME, "--seed", "4")
    assert r.exit_code == 0, r.stdout + r.stderr
    warning = next(ln for ln in r.stdout.splitlines() if ln.startswith(f"{GAME}: warning: "))
    assert "2 move(s) took longer than the move limit of 0.05 s" in warning
    assert "of the 2 s time bank" in warning
    data = json.loads(run("validate", str(bot), "--games", GAME, "--seed", "4", "--json").stdout)
    slow = data["games"][GAME]["slow_moves"]
    assert [m["move"] for m in slow] == [2, 4] and all(0.05 < m["bank_s"] < 1.0 for m in slow)
    fast = write(tmp_path, "fast.py", "def act(o):\n    return o['legal_actions'][0]\n")
    assert "warning" not in run("validate", str(fast), "--games", GAME, "--seed", "4").stdout


@pytest.mark.parametrize("seed", [3, 8])
def test_validate_says_how_the_bot_placed_against_the_random_bots(tmp_path: Path, seed: int) -> None:
    bot = write(tmp_path, "first.py", "def act(o):\n    return o['legal_actions'][0]\n")
    r = run("validate", str(bot), "--games", f"{GAME},manillen", "--seed", str(seed), "--json")
    assert r.exit_code == 0, r.stdout + r.stderr
    data = json.loads(r.stdout)
    places = {}
    for g in (GAME, "manillen"):
        c = data["games"][g]
        again = play(g, [str(bot)] + ["random"] * (c["players"] - 1), seed, max_deals=1)   # the same match
        assert c["place"] == again.placement[0]
        places[g] = (c["place"], c["players"])
    st = data["against_random"]
    assert st["games"] == 2 and st["first"] == sum(p == 1 for p, _ in places.values())
    assert st["last"] == sum(p == n for p, n in places.values())
    assert st["beat"] == pytest.approx(sum((n - p) / (n - 1) for p, n in places.values()) / 2, abs=1e-4)
    text = run("validate", str(bot), "--games", f"{GAME},manillen", "--seed", str(seed)).stdout
    p, n = places[GAME]
    assert f"placed {p} of {n} against random bots)" in text
    assert f"against the random bots: first in {st['first']} of 2 games, last in {st['last']}" in text


def test_validate_places_a_faulting_bot_last(tmp_path: Path) -> None:
    bot = write(tmp_path, "boom.py", "def act(o):\n    raise RuntimeError('no')\n")
    r = run("validate", str(bot), "--games", GAME, "--json")
    assert r.exit_code == 1
    c = json.loads(r.stdout)["games"][GAME]
    assert c["place"] == c["players"] == 4 and json.loads(r.stdout)["against_random"]["last"] == 1


def test_validate_tries_the_bot_even_when_the_whole_match_ends_before_its_seat_moves() -> None:
    """Klop Rummy, seed 6737104995852075990: seat 1 and then seat 2 knock at once, deal after deal, and
    the match ends before seat 0 (the dealer) moves; the bot then takes the seat that acts first."""
    from bots.api import bot_source
    seed = 6737104995852075990
    check = bots.validate.smoke_match(bot_source(Path(bots.validate.__file__).parent / "examples" /
                                                 "first_legal.py"), "klop_rummy", seed)
    assert check.ok and check.moves > 0 and check.seed == seed


def test_validate_points_to_bots_eval_for_a_measured_score_whatever_deals(
        tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    import shlex

    from tests.test_bad_paths import run as run_cli
    bot = write(tmp_path, "first.py", "def act(o):\n    return o['legal_actions'][0]\n")
    for deals in ("1", "3"):
        code, text, err = run_cli(capsys, ["bots", "validate", str(bot), "--games", GAME, "--seed", "3",
                                           "--deals", deals])
        assert code == 0, err
        assert "--deals N for more" not in text   # more deals are still one match
        hint = f"cardarena bots eval {shlex.quote(str(bot))} --game {GAME}"
        assert f"`{hint}` measures it on duplicate boards" in text
    code, text, err = run_cli(capsys, [*shlex.split(hint)[1:], "--boards", "1", "--deals", "1", "--json"])
    assert code == 0 and json.loads(text)["matches"] == 4, err   # the command it names runs
