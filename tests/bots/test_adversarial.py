"""Adversarial bots against the sandbox (issue 4, deliverable 6).

Each bot in ``tests/bots/adversarial/`` misbehaves in one way.  For each: the fault is contained
(the test process and the other seats are unharmed, nothing of the bot survives the match),
attributed (to its seat, with the right outcome and a reason), and the match completes for the
other seats, with the faulting seat placed last and the others keeping their order.

The match is the toy game of ``toygame.py`` (four seats, five tricks); the bot sits at seat 1 and
in-process random bots at the others.
"""
from __future__ import annotations

import os
import random
import shutil
import socket
import time
from dataclasses import replace
from pathlib import Path
from typing import Any

import pytest

from bots.api import bot_source
from bots.builtin.random import Bot as RandomBot
from bots.match import MatchResult, play_match, seat_seed
from bots.sandbox import Limits, SandboxPlayer, isolation, start_players
from tests.bots.toygame import ToyState, toy

HERE = Path(__file__).parent / "adversarial"
FAST = Limits(move_time=0.3, time_bank=0.2, start_time=15.0, memory=512 << 20, group_memory=768 << 20)
SEAT = 1
BWRAP = isolation().wrapper == "bwrap"
PRIVATE_ROOT = isolation().wrapper in ("bwrap", "unshare")
"""bubblewrap, or the unshare fallback: a private read-only root with a private /tmp."""
CGROUP = isolation().cgroup != "none"


def run_bot(path: Path, limits: Limits = FAST, seed: int = 3) -> tuple[MatchResult, SandboxPlayer]:
    box = start_players([(bot_source(path), False, 0)], "toy", [seat_seed(seed, SEAT)], limits, [SEAT])[0]
    players: list[Any] = [RandomBot("toy", s, seat_seed(seed, s)) for s in range(4)]
    players[SEAT] = box
    try:
        result = play_match(toy(), players, seed)
    finally:
        box.close()
    return result, box


def assert_contained(result: MatchResult, box: SandboxPlayer, outcome: str) -> None:
    state = result.state
    assert state.is_over() and len(result.moves) == 20
    assert result.outcomes[SEAT] == outcome
    others = [s for s in range(4) if s != SEAT]
    assert all(result.outcomes[s] == "ok" for s in others)
    rank = state.ranking()
    if outcome == "ok":
        assert not result.faults and result.placement == rank
    else:
        assert [f.seat for f in result.faults] == [SEAT] and result.faults[0].reason
        assert result.placement[SEAT] == 4
        # the others keep their engine order among themselves
        for a in others:
            for b in others:
                assert (rank[a] < rank[b]) == (result.placement[a] < result.placement[b])
        assert result.fallback_moves[SEAT] >= 1
    # nothing of the bot survives
    proc = box.sandbox.proc
    assert proc is not None and proc.poll() is not None
    assert box.sandbox._cg is None


def copy_bot(name: str, tmp_path: Path, **replace: str) -> Path:
    text = (HERE / name).read_text()
    for old, new in replace.items():
        assert old in text
        text = text.replace(old, new)
    out = tmp_path / name
    out.write_text(text)
    return out


def test_infinite_loop_times_out() -> None:
    t0 = time.monotonic()
    result, box = run_bot(HERE / "infinite_loop.py")
    assert_contained(result, box, "timeout")
    f = result.faults[0]
    assert f.move == 2 and "no answer within" in f.reason
    assert time.monotonic() - t0 < 10


def test_slow_sleep_times_out_on_wall_clock() -> None:
    result, box = run_bot(HERE / "slow_sleep.py")
    assert_contained(result, box, "timeout")
    assert result.faults[0].move == 1
    assert result.think_time[SEAT] < FAST.move_time + FAST.time_bank + 1


def test_time_bank_is_drawn_on_before_a_timeout(tmp_path: Path) -> None:
    bot = tmp_path / "slowish.py"
    bot.write_text("import time\n\ndef act(obs):\n    time.sleep(1.0)\n    return obs['legal_actions'][0]\n")
    # each move takes 1 s: 0.5 s free + 0.5 s from a 1.25 s bank -> the third move faults (the margin,
    # 0.125 s of overhead a move, holds on a loaded machine: 0.4/0.3/0.25 s faulted at move 2 at load 25)
    result, box = run_bot(bot, Limits(move_time=0.5, time_bank=1.25, start_time=15.0))
    assert_contained(result, box, "timeout")
    assert result.faults[0].move == 3


def test_exception_at_import_is_a_crash_at_import() -> None:
    result, box = run_bot(HERE / "import_error.py")
    assert_contained(result, box, "crash")
    f = result.faults[0]
    assert f.stage == "import" and "RuntimeError: this bot breaks at import" in f.reason
    assert "import_error.py" in f.traceback
    assert 'raise RuntimeError("this bot breaks at import")' in f.traceback


def test_exception_mid_match_keeps_reason_and_traceback() -> None:
    result, box = run_bot(HERE / "mid_match_error.py")
    assert_contained(result, box, "crash")
    f = result.faults[0]
    assert f.stage == "act" and f.move == 3 and f.reason == "ValueError: exploding on move 3 on purpose"
    assert "in explode" in f.traceback and "_runner.py" not in f.traceback
    # before the fault the bot's moves were its own: the first legal action each time
    ref_state = toy().new_match(seed=3)
    own = 0
    for seat, action in result.moves:
        if seat == SEAT and own < 2:
            assert action == ref_state.legal_actions()[0]
            own += 1
        ref_state.apply(action)


def test_illegal_action_is_illegal_with_the_engines_reason() -> None:
    result, box = run_bot(HERE / "illegal_action.py")
    assert_contained(result, box, "illegal")
    f = result.faults[0]
    assert f.move == 1 and f.action == "play 2C" and "not legal" in f.reason


@pytest.mark.parametrize("bot, needle", [("malformed_action.py", "'10H'"), ("not_a_string.py", "int")])
def test_malformed_action_is_illegal(bot: str, needle: str) -> None:
    result, box = run_bot(HERE / bot)
    assert_contained(result, box, "illegal")
    assert needle in result.faults[0].reason


def test_ten_million_characters_of_output_are_capped() -> None:
    # the move that writes 2 x 10 MB gets 5 s (the 0.5 s of FAST timed out at load 25): the cap is tested
    result, box = run_bot(HERE / "big_output.py", replace(FAST, move_time=5.0))
    assert_contained(result, box, "ok")
    sb = box.sandbox
    assert len(sb.stdout) == FAST.output and len(sb.stderr) == FAST.output
    assert sb.dropped[0] == 10**7 - FAST.output and sb.dropped[1] == 10**7 - FAST.output
    assert "more bytes" in box.output


def test_allocating_4_gib_is_a_memory_fault() -> None:
    result, box = run_bot(HERE / "alloc_4g.py")
    assert_contained(result, box, "memory")
    assert result.faults[0].move == 1 and "MemoryError" in result.faults[0].reason


@pytest.mark.skipif(not CGROUP, reason="no writable cgroup here: forks are not capped (docs/bots.md)")
def test_forking_children_is_capped_and_nothing_survives(tmp_path: Path) -> None:
    mark = sleep_mark()
    bot = copy_bot("fork_children.py", tmp_path, **{'MARK = "987654"': f"MARK = {mark!r}"})
    result, box = run_bot(bot, Limits(move_time=10.0, start_time=15.0))
    assert_contained(result, box, "ok")
    out = box.sandbox.stdout.decode()
    forked = int(out.split("forked ")[1].split(";")[0])
    assert 0 < forked < FAST.pids and "BlockingIOError" in out
    time.sleep(0.05)
    assert not _sleepers(mark), "a forked child survived the match"


def sleep_mark() -> str:
    """The seconds of the ``sleep`` a fork-bomb bot's children run, new for each test: survivors are
    looked for machine-wide by that command line, and a fixed one finds another test's children
    (the same bot in another xdist worker, or another checkout's run on this machine), alive in its
    own match (test_hostile's two wrappers ran at once: "a forked child survived the match")."""
    return str(10**8 + random.SystemRandom().randrange(9 * 10**8))


def _sleepers(mark: str) -> list[int]:
    """The processes on this machine running ``sleep <mark>``."""
    out = []
    for pid in filter(str.isdigit, os.listdir("/proc")):
        try:
            cmd = Path(f"/proc/{pid}/cmdline").read_bytes()
        except OSError:
            continue
        if cmd == b"sleep\0" + mark.encode() + b"\0":
            out.append(int(pid))
    return out


@pytest.mark.skipif(not BWRAP and isolation().wrapper != "unshare", reason="no network namespace here")
def test_opening_a_socket_fails(tmp_path: Path) -> None:
    server = socket.socket()
    server.bind(("127.0.0.1", 0))
    server.listen()
    server.setblocking(False)
    port = server.getsockname()[1]
    try:
        result, box = run_bot(copy_bot("open_socket.py", tmp_path, **{"PORT = 0": f"PORT = {port}"}))
        assert_contained(result, box, "ok")
        with pytest.raises(BlockingIOError):
            server.accept()
    finally:
        server.close()
    out = box.sandbox.stdout.decode()
    assert f"no connection to ('127.0.0.1', {port})" in out and "no connection to ('example.com', 80)" in out
    assert "connected" not in out.replace("no connection", "")


@pytest.mark.skipif(not PRIVATE_ROOT, reason="filesystem isolation needs bubblewrap (docs/bots.md)")
def test_writing_outside_its_directory_fails(tmp_path: Path) -> None:
    host_tmp = Path("/tmp") / f"cardarena-escape-{random.getrandbits(32)}"
    watched = [tmp_path / "escaped.txt", Path(__file__).parent / "escaped.txt", host_tmp]
    bot = copy_bot("write_outside.py", tmp_path,
                   **{"EXTRA: list[str] = []": f"EXTRA: list[str] = {[str(p) for p in watched]!r}"})
    result, box = run_bot(bot)
    assert_contained(result, box, "ok")
    assert not any(p.exists() for p in watched)
    assert not Path("/cardarena-escape").exists() and not Path("/etc/cardarena-escape").exists()
    out = box.sandbox.stdout.decode()
    # everything outside /tmp fails; its /tmp is private, so the host's /tmp is untouched
    for path in ["/etc/cardarena-escape", "/usr/cardarena-escape", "/cardarena-escape",
                 "/bot/cardarena-escape", *map(str, watched[:2])]:
        assert f"could not write {path}" in out
    assert f"wrote {host_tmp}" in out
    assert "wrote own-file.txt in /tmp" in out


def test_spy_sees_no_other_hands() -> None:
    result, box = run_bot(HERE / "spy.py")
    assert_contained(result, box, "ok")


def test_spy_would_find_the_state_in_process() -> None:
    """The spy's search has teeth: in this process, next to a live engine state, it finds it."""
    import importlib.util
    spec = importlib.util.spec_from_file_location("spy_probe", HERE / "spy.py")
    assert spec is not None and spec.loader is not None
    spy = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(spy)
    state = toy().new_match(seed=3)
    assert isinstance(state, ToyState)
    found = spy.find_secrets(state.observation(0))
    assert "imported engine" in found and any("ToyState" in f for f in found)


def test_bot_defining_neither_act_nor_bot_is_a_load_fault() -> None:
    result, box = run_bot(HERE / "no_entry.py")
    assert_contained(result, box, "crash")
    assert result.faults[0].stage == "import" and "neither act" in result.faults[0].reason


def test_bot_that_does_not_enter_the_game_forfeits(tmp_path: Path) -> None:
    bot = tmp_path / "hearts_only.py"
    bot.write_text("GAMES = ['hartenjagen']\n\ndef act(obs):\n    return obs['legal_actions'][0]\n")
    result, box = run_bot(bot)
    assert_contained(result, box, "crash")
    assert "does not enter toy" in result.faults[0].reason


def test_two_sandboxed_faulty_bots_both_place_last(tmp_path: Path) -> None:
    srcs = [(bot_source(HERE / name), False, 0) for name in ("illegal_action.py", "mid_match_error.py")]
    boxes = start_players(srcs, "toy", [11, 12], FAST, [0, 2])
    players: list[Any] = [boxes[0], RandomBot("toy", 1, 1), boxes[1], RandomBot("toy", 3, 3)]
    try:
        result = play_match(toy(), players, 5)
    finally:
        for b in boxes:
            b.close()
    assert result.outcomes == ["illegal", "ok", "crash", "ok"]
    assert result.placement[0] == result.placement[2] == 3
    assert sorted(result.placement[1::2]) in ([1, 2], [1, 1])


def test_sandbox_environment_is_stripped_and_private(tmp_path: Path) -> None:
    bot = tmp_path / "env_probe.py"
    bot.write_text("import os, sys\n\ndef act(obs):\n"
                   "    print(sorted(os.environ), os.getcwd(), sys.flags.isolated)\n"
                   "    return obs['legal_actions'][0]\n")
    os.environ["CARDARENA_SECRET_PROBE"] = "x"
    try:
        result, box = run_bot(bot)
    finally:
        del os.environ["CARDARENA_SECRET_PROBE"]
    assert_contained(result, box, "ok")
    line = box.sandbox.stdout.decode().splitlines()[0]
    assert "CARDARENA_SECRET_PROBE" not in line and "PYTHONPATH" not in line
    if PRIVATE_ROOT:
        assert " /tmp 1" in line
    else:
        assert "cardarena-bot-" in line


def test_isolation_reports_what_is_enforced() -> None:
    iso = isolation()
    text = iso.describe()
    if iso.wrapper == "bwrap":
        assert "no network (new net namespace)" in iso.enforced
        assert "NOT enforced" not in text or not CGROUP
    elif iso.wrapper == "unshare":
        assert "no network (new net namespace)" in iso.enforced
        assert {"own mount namespace, own /proc", "unprivileged uid 65534 (never the host's root)",
                "no capabilities", "no_new_privs"} <= set(iso.enforced)
    else:
        assert any("network isolation" in m for m in iso.missing)
        assert iso.refusal
    if shutil.which("bwrap") and not os.environ.get("CARDARENA_SANDBOX"):
        assert iso.wrapper == "bwrap"
    assert (iso.cgroup == "none") == any("process/thread cap" in m for m in iso.missing)


def test_large_observations_pass_and_long_replies_are_refused(tmp_path: Path) -> None:
    from bots.sandbox import BotFault, Sandbox
    echo = tmp_path / "echo.py"
    echo.write_text("def act(obs):\n"
                    "    return obs['pick'] if obs['pick'] != 'long' else 'play ' + 'x' * 70000\n")
    box = Sandbox(bot_source(echo), FAST)
    try:
        box.start()
        box.new_match("toy", 0, 0)
        big = {"legal_actions": ["play QS"], "pick": "play QS", "junk": ["x" * 1000] * 1000}  # ~1 MB
        assert box.act(big) == "play QS"
        with pytest.raises(BotFault, match="act returned a string of 70005 characters") as err:
            box.act({"legal_actions": [], "pick": "long"})
        assert err.value.outcome == "illegal"
    finally:
        box.close()
    assert box.closed and box.proc is not None and box.proc.poll() is not None


@pytest.mark.skipif(not CGROUP, reason="no writable cgroup here")
def test_bot_runs_at_idle_priority_between_moves(tmp_path: Path) -> None:
    from bots.sandbox import Sandbox
    echo = tmp_path / "echo.py"
    echo.write_text("def act(obs):\n    return obs['legal_actions'][0]\n")
    box = Sandbox(bot_source(echo), FAST)
    try:
        box.start()
        box.new_match("toy", 0, 0)
        cg = box._cg
        assert cg is not None
        if cg.idle_file is None:
            pytest.skip("no cpu.idle in this kernel")
        assert cg.idle_file.read_text().strip() == "1"
        assert box.act({"legal_actions": ["play QS"]}) == "play QS"
        assert cg.idle_file.read_text().strip() == "1"
        assert (cg.dirs[0] / "pids.max").read_text().strip() == str(FAST.pids)
    finally:
        box.close()
