"""Hostile bots against the sandbox (issue 11, items 1, 3 and 4), under bubblewrap AND under the
forced unshare fallback (``CARDARENA_SANDBOX=unshare``).

Each bot in ``tests/bots/adversarial/`` makes one attack.  To keep the suite fast, the attacks are
batched: four hostile bots share one toy match (four sandboxes started in parallel), so each also
attacks the other three seats.  Every test asserts that the attack failed from the outside (the
host files not written, the secrets not read, the fault kind and stage the match decides, nothing
left in /tmp, /dev/shm or /var/tmp), not only what the bot says.
"""
from __future__ import annotations

import json
import os
import shutil
import socket
import subprocess
import sys
import tempfile
import time
import uuid
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pyarrow as pa
import pytest

import bots.sandbox.detect as detect_mod
import bots.sandbox.launch as launch_mod
from bots.api import bot_source
from bots.match import MatchResult, play_match, seat_seed
from bots.sandbox import (
    PROJECT_ROOT,
    BotFault,
    Limits,
    Sandbox,
    SandboxPlayer,
    SandboxUnavailable,
    isolation,
    start_players,
)
from bots.text import clean_text
from tests.bots.test_adversarial import _sleepers, sleep_mark
from tests.bots.toygame import toy

HERE = Path(__file__).parent / "adversarial"
FAST = Limits(move_time=2.0, time_bank=1.0, start_time=15.0, memory=512 << 20, group_memory=768 << 20)
WRAPPERS = ("bwrap", "unshare")
PROJECT_FILE = PROJECT_ROOT / "bots" / "api.py"
"""A project file the bot may not read (only the runner and its own files are in its view)."""


@pytest.fixture(params=WRAPPERS)
def wrapper(request: pytest.FixtureRequest, monkeypatch: pytest.MonkeyPatch) -> Iterator[str]:
    """Each test once under bubblewrap, once under the forced fallback."""
    w = str(request.param)
    iso = isolation(w)
    if iso.refusal:
        pytest.skip(f"{w} does not work here: {iso.refusal}")
    monkeypatch.setenv("CARDARENA_SANDBOX", w)
    yield w


def copy_bot(name: str, tmp_path: Path, **replace: str) -> Path:
    text = (HERE / name).read_text()
    for old, new in replace.items():
        assert old in text, old
        text = text.replace(old, new)
    out = tmp_path / name
    out.write_text(text)
    return out


def play_seats(paths: list[Path], seed: int = 3) -> tuple[MatchResult, list[SandboxPlayer]]:
    """One toy match with a sandboxed bot at each of the four seats."""
    boxes = start_players([(bot_source(p), False, 0) for p in paths], "toy",
                          [seat_seed(seed, s) for s in range(4)], FAST)
    try:
        result = play_match(toy(), list(boxes), seed)
    finally:
        for b in boxes:
            b.close()
    for b in boxes:   # nothing of any bot survives the match
        assert b.sandbox.proc is not None and b.sandbox.proc.poll() is not None and b.sandbox._cg is None
    assert result.state.is_over() and len(result.moves) == 20
    return result, boxes


def report(box: SandboxPlayer) -> dict[str, Any]:
    out = box.sandbox.stdout.decode("utf-8", "replace")
    line = next(ln for ln in out.splitlines() if ln.startswith("REPORT "))
    data: dict[str, Any] = json.loads(line[len("REPORT "):])
    return data


# --------------------------------------------------------------------------- probes: /proc, /tmp, sockets
def test_issue11_proc_tmp_and_socket_attacks_fail(wrapper: str, tmp_path: Path,
                                                   monkeypatch: pytest.MonkeyPatch) -> None:
    secret = uuid.uuid4().hex
    monkeypatch.setenv("CARDARENA_PROBE_SECRET", secret)   # in this (the match) process's environ
    name = f"cardarena-fill-{uuid.uuid4().hex[:8]}"
    sock_path = f"/tmp/cardarena-probe-{uuid.uuid4().hex[:8]}.sock"
    abstract = f"cardarena-probe-{uuid.uuid4().hex[:8]}"
    listeners = []
    for addr in (sock_path, b"\0" + abstract.encode()):
        s = socket.socket(socket.AF_UNIX, socket.SOCK_STREAM)
        s.bind(addr)
        s.listen()
        s.setblocking(False)
        listeners.append(s)
    try:
        bots = [HERE / "proc_snoop.py",
                copy_bot("fill_tmp.py", tmp_path, **{'NAME = "cardarena-fill"': f"NAME = {name!r}"}),
                copy_bot("unix_sockets.py", tmp_path,
                 **{"PATHS: list[str] = []": f"PATHS = [{sock_path!r}]",
                    "ABSTRACT: list[str] = []": f"ABSTRACT = [{abstract!r}]"}),
                HERE / "proc_snoop.py"]
        t0 = time.monotonic()
        result, boxes = play_seats(bots)
        assert time.monotonic() - t0 < 30   # no attack stalls the match (10 s was passed at load 25)
        for s in listeners:   # nobody connected to the host's sockets
            with pytest.raises(BlockingIOError):
                s.accept()
    finally:
        for s in listeners:
            s.close()
        Path(sock_path).unlink(missing_ok=True)
    # no seat was harmed: the forged fault lines reached no other seat's pipe
    assert result.outcomes == ["ok"] * 4 and not result.faults
    for seat in (0, 3):
        snoop = report(boxes[seat])
        assert not snoop["forged"], snoop["forged"]
        assert len(snoop["pids"]) <= 2, snoop["pids"]   # only its own sandbox's processes
        everything = json.dumps(snoop)
        assert secret not in everything and "pytest" not in everything and "CARDARENA_PROBE" not in everything
    # 40 MB files: capped in its private tmpfs, and gone with the sandbox
    filled = report(boxes[1])
    assert all(n <= FAST.file_size for n in filled.values()), filled
    for d in ("/tmp", "/dev/shm", "/var/tmp"):
        assert not Path(d, name).exists()
    sockets = report(boxes[2])
    assert sockets and all(v.startswith("failed") for v in sockets.values()), sockets


# --------------------------------------------------------------------------- probes: host files, cgroups
def test_issue11_host_writes_secret_reads_and_cgroup_escape_fail(wrapper: str, tmp_path: Path) -> None:
    mark = uuid.uuid4().hex[:8]
    venv_site = Path(sys.prefix) / "lib" / f"python{sys.version_info[0]}.{sys.version_info[1]}"
    venv_site /= "site-packages"
    registry = tmp_path / "data" / "bots"
    registry.mkdir(parents=True)
    victim = registry / "victim.py"
    victim.write_text("SECRET_STRATEGY = 42\n")
    targets = [PROJECT_ROOT / f"cardarena-escape-{mark}", PROJECT_ROOT / "bots" / f"escape_{mark}.py",
               venv_site / f"cardarena-escape-{mark}.pth", registry / f"escape-{mark}.py", victim,
               PROJECT_ROOT / "data" / f"escape-{mark}"]
    write_host = copy_bot("write_host.py", tmp_path, **{
        'WRITE: list[str] = ["/etc/cardarena-escape"]': f"WRITE = {[str(p) for p in targets]!r}",
        'READ: list[str] = ["/etc/shadow"]': f"READ = {['/etc/shadow', str(victim), str(PROJECT_FILE)]!r}"})
    try:
        sleep = sleep_mark()
        escape = copy_bot("cgroup_escape.py", tmp_path, **{'MARK = "876543"': f"MARK = {sleep!r}"})
        result, boxes = play_seats([write_host, escape, HERE / "proc_snoop.py", HERE / "proc_snoop.py"])
    finally:
        planted = [p for p in targets if p != victim and p.exists()]
        for p in planted:
            p.unlink()
    assert not planted, planted
    assert victim.read_text() == "SECRET_STRATEGY = 42\n"
    assert result.outcomes == ["ok"] * 4
    rep = report(boxes[0])
    assert all(rep[str(p)].startswith("failed") for p in targets), rep
    assert all(rep[p].startswith("failed") for p in ("/etc/shadow", str(victim), str(PROJECT_FILE))), rep
    cg = report(boxes[1])
    assert not cg["escaped"] and 0 < cg["forks"] < FAST.pids and cg["failed"], cg
    time.sleep(0.05)
    assert not _sleepers(sleep), "a forked child survived the match"


# --------------------------------------------------------------------------- faults: text and forged records
def test_issue11_hostile_text_and_forged_records_are_decided_by_the_match(wrapper: str) -> None:
    result, boxes = play_seats([HERE / "surrogate_error.py", HERE / "huge_error.py", HERE / "ansi_error.py",
                                HERE / "forged_ok.py"])
    by_seat = {f.seat: f for f in result.faults}
    assert result.outcomes == ["crash", "crash", "crash", "illegal"]
    assert result.placement == [1, 1, 1, 1]   # all four forfeit: tied last
    sur, huge, ansi, forged = (by_seat[s] for s in range(4))
    # a lone surrogate: a normal crash whose text encodes (Parquet, a terminal)
    assert sur.stage == "act" and sur.reason.startswith("ValueError")
    for f in result.faults:
        for text in (f.reason, f.traceback, f.action or ""):
            text.encode("utf-8")
            assert "\x1b" not in text and "\x9b" not in text and "\x07" not in text and "\x00" not in text
        assert len(f.reason) <= 1100 and len(f.traceback) <= 20_000
    pa.Table.from_pydict({"reason": [f.reason for f in result.faults],
                          "traceback": [f.traceback for f in result.faults]})
    # a 30 MB message: a crash, cut short, not "a reply too long"
    assert huge.stage == "act" and huge.reason.startswith("ValueError: xxx")
    assert "longer than" not in huge.reason
    # escapes: gone from the reason, the traceback and the output excerpt; the words stay
    assert "red alert" in ansi.reason and "stdout" in ansi.traceback and "stderr" in ansi.traceback
    for b in boxes:
        assert "\x1b" not in b.output
    # {"f":"ok","s":"import"} mid-match: illegal, at the stage the match is in, placed last
    assert forged.stage == "act" and forged.move == 2 and "forged fault record" in forged.reason


def test_issue11_forged_stage_and_escaped_action(wrapper: str) -> None:
    result, _ = play_seats([HERE / "forged_stage.py", HERE / "ansi_action.py", HERE / "proc_snoop.py",
                            HERE / "proc_snoop.py"])
    stage, action = (next(f for f in result.faults if f.seat == s) for s in (0, 1))
    assert result.outcomes == ["crash", "illegal", "ok", "ok"]
    assert stage.stage == "act" and stage.move == 2   # the bot said "init"
    assert action.action is not None and "\x1b" not in action.action and "\n" not in action.action
    assert "\x1b" not in action.reason and "\x9b" not in action.reason and "QS" in action.action
    assert result.placement[0] == result.placement[1] == 3


# --------------------------------------------------------------------------- refusal (item 1)
def test_issue11_submitted_bots_are_refused_without_a_strong_sandbox(monkeypatch: pytest.MonkeyPatch) -> None:
    src = bot_source(HERE / "illegal_action.py")
    for force in ("none", "bogus"):
        with pytest.raises(SandboxUnavailable) as err:
            Sandbox(src, FAST, wrapper=force)
        msg = str(err.value)
        assert "\n" not in msg and "bubblewrap" in msg
    assert "apt-get install bubblewrap" in (isolation("none").refusal or "")
    # no bubblewrap and nothing forced: refused, saying how to install it and how to accept the fallback
    # (the suite may itself run with the fallback forced: this part is about a user who did not force it)
    monkeypatch.delenv("CARDARENA_SANDBOX", raising=False)
    monkeypatch.setattr(detect_mod, "_bwrap_ok", lambda: False)
    detect_mod._isolation.cache_clear()
    try:
        iso = isolation(None)
        assert iso.wrapper in ("unshare", "none") and iso.refusal is not None
        assert "apt-get install bubblewrap" in iso.refusal and "CARDARENA_SANDBOX=unshare" in iso.refusal
        with pytest.raises(SandboxUnavailable):
            start_players([(src, False, 0)], "toy", [1], FAST)
        assert "submitted bots are refused" in iso.describe()
    finally:
        detect_mod._isolation.cache_clear()
    # trusted built-ins still run without bubblewrap
    builtin = bot_source(PROJECT_ROOT / "bots" / "builtin" / "random.py")
    box = Sandbox(builtin, FAST, trusted=True, wrapper="none")
    try:
        assert box.start() is None
    finally:
        box.close()


def _cli(argv: list[str], capsys: pytest.CaptureFixture[str], monkeypatch: pytest.MonkeyPatch
         ) -> tuple[int, str, str]:
    from dashboards.app import main
    monkeypatch.setattr(sys, "argv", ["cardarena", *argv])
    with pytest.raises(SystemExit) as e:
        main()
    out = capsys.readouterr()
    code = e.value.code
    return code if isinstance(code, int) else 1, out.err, out.out


def test_issue11_refusal_is_one_line_exit_2_in_every_command(
        tmp_path: Path, capsys: pytest.CaptureFixture[str], monkeypatch: pytest.MonkeyPatch) -> None:
    from bots.registry import Registry
    bot = str(PROJECT_ROOT / "bots" / "examples" / "first_legal.py")
    monkeypatch.setenv("CARDARENA_DATA", str(tmp_path / "data"))
    Registry().add(bot_source(bot), "first", ["hartenjagen"], {"ok": True})
    monkeypatch.setenv("CARDARENA_SANDBOX", "none")
    for argv in (["bots", "validate", bot],
                 ["play", "hartenjagen", "--bots", f"{bot},random,random,random", "--deals", "1"],
                 ["tournament", "run", "--inline", "--no-progress", "--bots", "first,random,greedy,r2=random",
                  "--games", "hartenjagen", "--out", str(tmp_path / "t")]):
        code, err, _ = _cli(argv, capsys, monkeypatch)
        lines = err.strip().splitlines()
        assert code == 2 and len(lines) == 1, (argv, code, err)
        assert "apt-get install bubblewrap" in lines[0] and "CARDARENA_SANDBOX=unshare" in lines[0]
        assert "Traceback" not in err
    assert not (tmp_path / "t").exists() or not any((tmp_path / "t").rglob("*.parquet"))


def test_issue11_validate_prints_a_surrogate_crash_cleanly(wrapper: str, capsys: pytest.CaptureFixture[str],
                                                           monkeypatch: pytest.MonkeyPatch) -> None:
    code, err, out = _cli(["bots", "validate", str(HERE / "surrogate_error.py"), "--games", "hartenjagen"],
                          capsys, monkeypatch)
    assert code == 1 and err == "", err   # the command did not fail; the bot's own traceback is its excerpt
    assert "    Traceback (most recent call last):" in out
    assert "hartenjagen: FAILED at deal 1, its move 1" in out and "crash: ValueError" in out, out
    (out + err).encode("utf-8")


def test_issue11_clean_text_removes_what_a_terminal_or_parquet_cannot_take() -> None:
    raw = "a\ud800b\x1b[2J\x1b]0;title\x07c\x9b31md\x00e\u202ef\r\ng" + "x" * 5000
    one = clean_text(raw, 100)
    assert one.startswith("abcdef g") and "more characters" in one and len(one) < 140
    assert clean_text("tb line 1\ntb line 2", multiline=True) == "tb line 1\ntb line 2"
    one.encode("utf-8")


def test_issue11_in_process_player_text_is_cleaned_too() -> None:
    class Hostile:
        def act(self, observation: dict[str, Any]) -> str:
            raise ValueError("\ud800\x1b[2J\x1b]0;t\x07boom" + "y" * 3_000_000)

    class Escaped:
        def act(self, observation: dict[str, Any]) -> str:
            return "play \x1b[31mQS\ud800"

    from bots.builtin.random import Bot as RandomBot
    players: list[Any] = [Hostile(), Escaped(), RandomBot("toy", 2, 2), RandomBot("toy", 3, 3)]
    result = play_match(toy(), players, 3)
    crash, illegal = (next(f for f in result.faults if f.seat == s) for s in (0, 1))
    assert crash.outcome == "crash" and crash.reason.startswith("ValueError: boomyyy")
    assert len(crash.reason) < 400
    assert illegal.outcome == "illegal" and illegal.action == "play QS"
    for f in result.faults:
        for text in (f.reason, f.traceback, f.action or ""):
            text.encode("utf-8")
            assert "\x1b" not in text and "\x07" not in text
        assert len(f.traceback) <= 9000


@pytest.mark.parametrize("msg, outcome", [
    ({"f": "ok", "s": "import"}, "illegal"), ({"f": "timeout", "s": "act"}, "illegal"),
    ({"f": "crash", "s": "init", "r": "x"}, "crash"), ({"f": "memory", "s": "start"}, "memory"),
    ({"f": "illegal", "s": "act"}, "illegal"), ({"f": "load", "s": "import"}, "crash"),
    ({"f": 3}, "illegal"), ({"f": "crash", "extra": 1}, "illegal"), ({"ready": True}, "illegal")])
def test_issue11_only_the_parent_decides_outcome_and_stage(msg: dict[str, Any], outcome: str) -> None:
    box = Sandbox(bot_source(HERE / "illegal_action.py"), FAST)   # never started: only the decision
    with pytest.raises(BotFault) as err:
        box._protocol_fault(msg, "act")
    assert err.value.outcome == outcome and err.value.stage == "act"


def test_issue11_a_surrogate_crash_is_logged_in_parquet_by_a_tournament(wrapper: str, tmp_path: Path) -> None:
    """The issue's failure: the batch died in BatchLog (UnicodeEncodeError) and no match was logged."""
    import pyarrow.parquet as pq

    from bots.registry import Registry
    from tests.tournaments.conftest import raw_spec
    from tournaments.runners import run_tournament
    from tournaments.spec import parse_spec

    data = tmp_path / "data"
    reg = Registry(data)
    for name in ("surrogate_error", "ansi_error"):
        reg.add(bot_source(HERE / f"{name}.py"), name.replace("_", "-"), ["hartenjagen"], {})
    spec = parse_spec(raw_spec(tmp_path, games=["hartenjagen"], limits={"move_s": 1.0, "bank_s": 0.5},
                               bots=["random", "greedy", "surrogate-error", "ansi-error"]))
    s = run_tournament(spec, executor="inline", progress=False, bots_data=str(data))
    assert s.complete
    matches = pq.read_table(tmp_path / "out" / "matches").to_pylist()
    assert len(matches) == s.total > 0
    for m in matches:
        kinds = {m["bots"][f["seat"]]: f["kind"] for f in m["faults"]}
        assert kinds == {"surrogate-error": "crash", "ansi-error": "crash"}
        assert all("\x1b" not in f["reason"] for f in m["faults"])


# --------------------------------------------------------------------------- issue 27: never the host's root
ORGANISERS = ("root", "nobody")


def _as_nobody(argv_code: str, env: dict[str, str]) -> subprocess.CompletedProcess[str]:
    """Run Python code as the organiser ``nobody`` (Debian's /usr/bin/python3: the venv's interpreter
    lives under /root, which nobody cannot enter), with the project and the venv's site-packages on
    its path."""
    import msgspec
    site = os.path.dirname(os.path.dirname(msgspec.__file__))
    code = f"import sys; sys.path[:0] = [{str(PROJECT_ROOT)!r}, {site!r}]\n" + argv_code
    return subprocess.run(["setpriv", "--reuid=nobody", "--regid=nogroup", "--clear-groups",
                           "/usr/bin/python3", "-I", "-c", code],
                          capture_output=True, text=True, timeout=120, cwd="/tmp",
                          env={"PATH": "/usr/bin:/bin", "HOME": "/tmp", "LANG": "C.UTF-8", **env})


def organiser_probe(organiser: str, wrapper: str, bot: Path,
                    observation: dict[str, Any] | None = None) -> dict[str, Any]:
    """Start ``bot`` in a sandbox (``wrapper``) from an organiser running as root (this process) or as
    ``nobody`` (its own process) and ask for one move (``observation``): tests/bots/organiser.py's
    answer."""
    if organiser == "root":
        from tests.bots.organiser import probe
        return probe(str(bot), wrapper, observation)
    if os.geteuid() != 0 or not shutil.which("setpriv") or not os.path.exists("/usr/bin/python3"):
        pytest.skip("running an organiser as nobody needs root, setpriv and /usr/bin/python3")
    done = _as_nobody("import json\nfrom tests.bots.organiser import probe\n"
                      f"print(json.dumps(probe({str(bot)!r}, {wrapper!r}, {observation!r})))", {})
    assert done.returncode == 0, done.stderr[-3000:]
    out: dict[str, Any] = json.loads(done.stdout.strip().splitlines()[-1])
    return out


def _host_uids(status: dict[str, str], key: str = "Uid") -> list[int]:
    return [int(x) for x in status[key].split()]


@pytest.mark.parametrize("organiser", ORGANISERS)
def test_issue27_s1_the_bot_is_never_the_hosts_root_and_writes_no_kernel_setting(
        wrapper: str, organiser: str) -> None:
    """Neither as the bot sees itself nor as the host sees its process is the bot uid 0; no file under
    its /proc/sys passes access(W_OK) or opens for writing; /proc/sysrq-trigger is not writable and
    the kernel keyrings in /proc/keys are hidden.  The organiser runs as root and as nobody (the
    unshare fallback needs root: for nobody it refuses, in one line)."""
    out = organiser_probe(organiser, wrapper, HERE / "kernel_settings.py")
    if "refused" in out:
        assert organiser == "nobody" and wrapper == "unshare", out
        assert "\n" not in out["refused"] and "needs root" in out["refused"]
        return
    rep, host = out["report"], out["host"]
    assert out["organiser_uid"] == (os.geteuid() if organiser == "root" else 65534)   # "root": this process
    assert out["action"] == "play QS"
    assert rep["uid"] != 0 and rep["euid"] != 0
    assert 0 not in _host_uids(rep["status"]) and 0 not in _host_uids(rep["status"], "Gid")
    assert 0 not in _host_uids(host) and 0 not in _host_uids(host, "Gid"), host["Uid"]
    assert int(host["CapEff"], 16) == int(host["CapPrm"], 16) == int(host["CapBnd"], 16) == 0
    assert host["NoNewPrivs"] == "1"
    assert rep["seen"] > 100, rep["seen"]   # the walk of /proc/sys did run
    assert rep["access"] == [] and rep["opened"] == [], (rep["access"][:5], rep["opened"][:5])
    assert rep["sysrq"] is False
    assert rep["keys"] == "" or rep["keys"].startswith("failed")


# --------------------------------------------------------------------------- issue 27: seccomp, memory
def test_issue27_s2_the_filter_is_on_in_both_sandboxes_and_for_both_organisers(wrapper: str) -> None:
    """Seccomp: 2 in the bot's status, as the host sees its process (section 1's test checks the
    rest of the status with the organiser as nobody)."""
    for organiser in ORGANISERS:
        out = organiser_probe(organiser, wrapper, HERE / "kernel_settings.py")
        if "refused" in out:
            continue
        assert out["host"]["Seccomp"] == "2" and out["report"]["status"]["Seccomp"] == "2", organiser


def test_issue27_s2_the_policy_refuses_the_dangerous_calls_with_eperm() -> None:
    from bots import seccomp
    for name in ("add_key", "keyctl", "request_key", "flock", "ptrace", "perf_event_open", "bpf",
                 "userfaultfd", "mount", "umount2", "unshare", "setns", "pivot_root", "process_vm_readv",
                 "process_vm_writev", "kexec_load", "init_module", "finit_module", "inotify_init1",
                 "shmget", "msgget", "semget", "mq_open", "mincore", "preadv2", "setuid", "clone3", "fcntl",
                 "socket", "clone"):
        assert name not in seccomp.ALLOWED, name
    for cmd in (5, 6, 7, 36, 37, 38, 1024, 1025, 1026):   # the lock, lease and notify commands of fcntl
        assert cmd not in seccomp.FCNTL_ALLOWED
    assert 3 in seccomp.FCNTL_ALLOWED and 2 in seccomp.FCNTL_ALLOWED   # F_GETFL, F_SETFD: Python needs them
    assert len(seccomp.program()) % 8 == 0 and seccomp.unavailable() is None


def test_issue27_s2_a_fresh_session_keyring_then_no_keyring_call(tmp_path: Path) -> None:
    """The runner's first steps, in a plain process: joining gives a new session keyring; once the
    filter is on, every keyring call fails with EPERM and Python keeps running."""
    from bots import seccomp
    nr = int(seccomp.confine_arg().split("=", 1)[1].split(":")[0])
    code = f"""
import ctypes, errno, sys
sys.path.insert(0, {str(PROJECT_ROOT / 'bots')!r})
import _runner
libc = ctypes.CDLL(None, use_errno=True)
libc.syscall.restype = ctypes.c_long
def session():   # KEYCTL_GET_KEYRING_ID of KEY_SPEC_SESSION_KEYRING
    return libc.syscall({nr}, 0, -3, 0)
before = session()
joined = _runner.join_session_keyring({nr})
after = session()
_runner.install_filter(bytes.fromhex(sys.argv[1]))
refused = libc.syscall({nr}, 0, -3, 0) == -1 and ctypes.get_errno() == errno.EPERM
print(before, joined, after, refused, open('/proc/self/status').read().split('Seccomp:')[1].split()[0])
"""
    done = subprocess.run([sys.executable, "-I", "-c", code, seccomp.program().hex()], capture_output=True,
                          text=True, timeout=60)
    assert done.returncode == 0, done.stderr
    before, joined, after, refused, mode = done.stdout.split()
    assert int(joined) > 0 and joined == after != before and refused == "True" and mode == "2"


def _registry_with(tmp_path: Path, *names: str) -> Path:
    from bots.registry import Registry
    data = tmp_path / "data"
    reg = Registry(data)
    for name in names:
        reg.add(bot_source(HERE / f"{name}.py"), name.replace("_", "-"), ["hartenjagen"], {})
    return data


def test_issue27_s2_remember_carries_nothing_across_a_duplicate_board_on_the_local_pool(
        wrapper: str, tmp_path: Path) -> None:
    """A 4-entrant tournament, one board: the remember bot plays all four rotations of the same deal
    (two at a time on the local pool).  It tries every channel at every start and faults with
    ``LEAK ...`` if it finds a record of another process; it never does."""
    _remember_tournament(tmp_path, "local")


@pytest.mark.slow
@pytest.mark.xdist_group("ray")
def test_issue27_s2_remember_carries_nothing_across_a_duplicate_board_on_ray(wrapper: str,
                                                                              tmp_path: Path) -> None:
    """The same on Ray (embedded, two CPUs)."""
    _remember_tournament(tmp_path, "ray")


def _remember_tournament(tmp_path: Path, executor: str) -> None:
    import pyarrow.parquet as pq

    from tests.tournaments.conftest import raw_spec
    from tournaments.runners import run_tournament
    from tournaments.spec import parse_spec

    data = _registry_with(tmp_path, "remember")
    spec = parse_spec(raw_spec(tmp_path, games=["hartenjagen"], limits={"move_s": 5.0, "bank_s": 5.0},
                               bots=["remember", "random", "greedy", {"name": "r2", "bot": "random"}]))
    s = run_tournament(spec, executor=executor, progress=False, bots_data=str(data))
    assert s.complete
    matches = pq.read_table(tmp_path / "out" / "matches").to_pylist()
    assert len(matches) == 4 and len({m["match_id"] for m in matches}) == 4
    for m in matches:
        assert "remember" in m["bots"]
        assert m["faults"] == [], m["faults"]   # no LEAK fault, and no other
        assert m["status"] == "ok"
    for d in ("/tmp", "/dev/shm", "/var/tmp"):
        assert not Path(d, "cardarena-remember").exists()


def test_issue27_s2_remember_carries_nothing_from_one_validation_to_the_next(
        wrapper: str, capsys: pytest.CaptureFixture[str], monkeypatch: pytest.MonkeyPatch) -> None:
    for _ in range(2):
        code, err, out = _cli(["bots", "validate", str(HERE / "remember.py"), "--games", "hartenjagen"],
                              capsys, monkeypatch)
        assert code == 0 and "LEAK" not in out and "hartenjagen: ok" in out, (err, out)


def test_issue27_s2_remember_finds_its_record_where_nothing_stops_it(tmp_path: Path) -> None:
    """The probe has teeth: in plain processes sharing a session keyring, an IPC namespace and a
    folder, the second finds the first's record through the keyring, the files and SysV IPC."""
    if os.geteuid() != 0 or not shutil.which("unshare"):
        pytest.skip("needs root and unshare (a private IPC namespace for the SysV objects)")
    copy_bot("remember.py", tmp_path)
    from bots import seccomp
    nr = int(seccomp.confine_arg().split("=", 1)[1].split(":")[0])
    head = (f"import json, sys\nsys.path[:0] = [{str(tmp_path)!r}, {str(PROJECT_ROOT / 'bots')!r}]\n"
            f"import remember\nremember.KEYRINGS = {{'session': -3}}\n"
            f"remember.FILES = [{str(tmp_path / 'f')!r}]\n")
    (tmp_path / "store.py").write_text(head + "rec = b'{\"tag\": \"cardarena-remember\", \"token\": \"x\"}'\n"
                                       "remember.write_keyrings(rec); remember.write_files(rec); "
                                       "remember.write_sysv(rec)\n")
    (tmp_path / "recall.py").write_text(head + "found = {**remember.read_keyrings(), "
                                        "**remember.read_files(), **remember.read_sysv()}\n"
                                        "print(json.dumps(sorted(remember.leaks(found))))\n")
    driver = (f"import subprocess, sys\nsys.path.insert(0, {str(PROJECT_ROOT / 'bots')!r})\nimport _runner\n"
              f"_runner.join_session_keyring({nr})\n"   # a session keyring shared by its two children only
              f"for step in ('store.py', 'recall.py'):\n"
              f"    subprocess.run([sys.executable, '-I', {str(tmp_path)!r} + '/' + step], check=True)\n")
    done = subprocess.run(["unshare", "--ipc", sys.executable, "-I", "-c", driver], capture_output=True,
                          text=True, timeout=60)
    assert done.returncode == 0, done.stderr
    leaked = json.loads(done.stdout.strip().splitlines()[-1])
    assert {"key:session", str(tmp_path / "f"), "shm", "msg"} <= set(leaked), leaked


def test_issue27_s3_the_flock_channel_between_bots_is_closed(wrapper: str) -> None:
    """Four lock_signal bots in one match (four sandboxes at once): no lock is taken, nobody sees a
    lock of another, every lock call fails with EPERM."""
    result, boxes = play_seats([HERE / "lock_signal.py"] * 4)
    assert result.outcomes == ["ok"] * 4
    for b in boxes:
        rep = report(b)
        assert rep and all(v == "failed: EPERM" for v in rep.values()), rep


def test_issue27_s3_the_flock_channel_works_where_nothing_stops_it(tmp_path: Path) -> None:
    """The probe has teeth: unsandboxed, the second process sees the first's lock."""
    shared = tmp_path / "shared"
    shared.write_text("x")
    code = (f"import sys; sys.path.insert(0, {str(HERE)!r}); import lock_signal, json, time\n"
            f"print(json.dumps(lock_signal.signal([{str(shared)!r}])), flush=True); time.sleep(3)")
    first = subprocess.Popen([sys.executable, "-I", "-c", code], stdout=subprocess.PIPE, text=True)
    try:
        assert first.stdout is not None
        assert json.loads(first.stdout.readline())[f"flock {shared}"] == "locked"
        second = subprocess.run([sys.executable, "-I", "-c", code.replace("time.sleep(3)", "")],
                                capture_output=True, text=True, timeout=30)
    finally:
        first.kill()
        first.wait()
    got = json.loads(second.stdout.splitlines()[0])
    assert got[f"flock {shared}"] == "busy" and got[f"ofd-getlk {shared}"] == "busy", got


# --------------------------------------------------------------------------- issue 27 §6: validation
def test_issue27_s6_validation_observations_are_those_of_a_tournament_match(wrapper: str,
                                                                           tmp_path: Path) -> None:
    """The bot's first observation in ``bots validate``'s smoke match and in a tournament match (the
    default limits): the same keys, value types, options and clock (``match_s`` null in both)."""
    import pyarrow.parquet as pq

    from bots.validate import smoke_match
    from tests.tournaments.conftest import raw_spec
    from tournaments.runners import run_tournament
    from tournaments.spec import parse_spec

    check = smoke_match(bot_source(HERE / "observe_context.py"), "hartenjagen")
    assert check.fault is not None and check.fault.reason.startswith("RuntimeError: OBS ")
    seen_validate = check.fault.reason
    data = _registry_with(tmp_path, "observe_context")
    spec = parse_spec(raw_spec(tmp_path, games=["hartenjagen"],
                               bots=["observe-context", "random", "greedy", {"name": "r2", "bot": "random"}]))
    assert run_tournament(spec, executor="inline", progress=False, bots_data=str(data)).complete
    matches = pq.read_table(tmp_path / "out" / "matches").to_pylist()
    reasons = {f["reason"].splitlines()[0] for m in matches for f in m["faults"]}   # + the traceback
    assert len(matches) == 4 and reasons == {seen_validate}, (reasons, seen_validate)
    clock = json.loads(seen_validate.split("OBS ", 1)[1])["clock"]
    assert clock == {"move_s": 1.0, "bank_s": 5.0, "match_s": None}


def test_issue27_s6_validation_still_caps_a_smoke_match_quietly(tmp_path: Path) -> None:
    """The cap validation keeps (so that it never hangs) is not in the clock, and still ends a bot
    that thinks past it."""
    from bots.validate import VALIDATE_LIMITS, smoke_match
    assert VALIDATE_LIMITS.match_time is None and VALIDATE_LIMITS.quiet_match_time is not None
    slow = tmp_path / "slow.py"
    slow.write_text("import time\n\ndef act(obs):\n    time.sleep(0.3)\n    return obs['legal_actions'][0]\n")
    check = smoke_match(bot_source(slow), "hartenjagen", seed=5,
                        limits=Limits(move_time=1.0, time_bank=1.0, quiet_match_time=0.8, start_time=15.0))
    assert check.fault is not None and check.fault.outcome == "timeout"
    assert "match limit of 0.8 s is spent" in check.fault.reason and check.moves <= 3


BAD_FILE_NAMES = ["-odd name.py", "odd name.py", "-x.py", ".hidden.py", "tab\tname.py", "quote'.py"]


@pytest.mark.parametrize("bad", BAD_FILE_NAMES)
def test_issue27_s6_a_bad_file_name_is_refused_before_storing(
        bad: str, tmp_path: Path, capsys: pytest.CaptureFixture[str],
        monkeypatch: pytest.MonkeyPatch) -> None:
    from bots.registry import Registry
    folder = tmp_path / "in"
    folder.mkdir()
    bot = folder / bad
    bot.write_text("def act(obs):\n    return obs['legal_actions'][0]\n")
    data = tmp_path / "data"
    monkeypatch.setenv("CARDARENA_DATA", str(data))
    code, err, out = _cli(["bots", "submit", str(bot), "--name", "odd", "--games", "hartenjagen"],
                          capsys, monkeypatch)
    assert code == 2 and len(err.strip().splitlines()) == 1 and "bad bot file name" in err, (code, err)
    assert "Traceback" not in err + out
    assert not (data / "bots" / "store").exists()
    with pytest.raises(ValueError, match="bad bot file name"):   # the registry itself refuses it too
        Registry(data).add(bot_source(bot), "odd", ["hartenjagen"], {})
    assert not (data / "bots" / "store").exists() and Registry(data).entries() == []


def test_issue27_s6_bots_list_survives_one_bad_row(
        tmp_path: Path, capsys: pytest.CaptureFixture[str], monkeypatch: pytest.MonkeyPatch) -> None:
    """A row stored before the name check (``-odd name.py``) is skipped with a one-line warning; the
    other bots are listed and the command succeeds, in text and in JSON."""
    import sqlite3

    from bots.registry import Registry
    data = tmp_path / "data"
    monkeypatch.setenv("CARDARENA_DATA", str(data))
    reg = Registry(data)
    good = reg.add(bot_source(PROJECT_ROOT / "bots" / "examples" / "first_legal.py"), "first",
                   ["hartenjagen"], {})
    con = sqlite3.connect(reg.db_path)
    con.execute("INSERT INTO bots VALUES (?, ?, ?, ?, ?, ?, ?, ?)",
                ("odd", 1, good.hash, "file", "-odd name.py", "[]", good.submitted, "{}"))
    con.commit()
    con.close()
    for argv in (["bots", "list"], ["bots", "list", "--json"]):
        code, err, out = _cli(argv, capsys, monkeypatch)
        assert code == 0, (argv, err)
        lines = err.strip().splitlines()
        assert len(lines) == 1 and "warning: skipped a row of the registry" in lines[0]
        assert "'odd'" in lines[0]
        assert "first@1" in out or '"name": "first"' in out
    assert [e.spec for e in reg.entries(skipped=[])] == ["first@1"]


def test_issue27_s1_files_only_root_can_read_are_copied_for_uid_65534(
        wrapper: str, tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    """A bot file and a runner readable only by their owner (mode 0600 in a 0700 folder: a registry
    or checkout under a strict umask) still run, as uid 65534, from world-readable copies."""
    private = tmp_path / "private"
    private.mkdir(mode=0o700)
    bot = private / "first.py"
    bot.write_text("import os\n\ndef act(obs):\n    print('uid', os.getuid(), flush=True)\n"
                   "    return obs['legal_actions'][0]\n")
    bot.chmod(0o600)
    runner = private / "_runner.py"
    runner.write_bytes(launch_mod.RUNNER.read_bytes())
    runner.chmod(0o600)
    monkeypatch.setattr(launch_mod, "RUNNER", runner)
    box = Sandbox(bot_source(bot), FAST)
    try:
        box.start()
        box.new_match("toy", 0, 1)
        assert box.act({"legal_actions": ["play QS"]}) == "play QS"
    finally:
        box.close()
    assert box.stdout.decode().split() == ["uid", "65534"]


# --------------------------------------------------------------------------- issue 24 §11: the libraries
def _tree(root: str) -> list[tuple[str, int, int, int]]:
    """(path, size, mode, mtime in ns) of everything under ``root``, links not followed."""
    out = []
    for d, dirs, files in os.walk(root):
        for p in [d, *(os.path.join(d, x) for x in [*dirs, *files])]:
            st = os.lstat(p)
            out.append((p, st.st_size, st.st_mode, st.st_mtime_ns))
    return sorted(out)


@pytest.mark.parametrize("organiser", ORGANISERS)
def test_issue24_s11_the_offered_libraries_are_read_only_and_nothing_else_of_site_packages_imports(
        wrapper: str, organiser: str) -> None:
    """A bot imports numpy and cardarena_rl and uses them; it cannot write, create, rename, remove,
    chmod or touch anything in /sandbox/lib (numpy, numpy.libs, cardarena_rl and its tables), cannot
    import pyarrow, engine, bots, ray, pytest, ... (only msgspec, the runner's codec, is loaded), the
    host folders the libraries come from are not in its view, and the interpreter's own site-packages
    and the system's dist-packages (bound with /usr and the Python installation) are empty read-only
    folders: nothing imports from them even on its sys.path.  Checked from outside: the host's
    numpy and library folders are unchanged.  The organiser runs as root and as nobody."""
    import numpy

    from bots.sandbox import library as lib_mod
    from engine.rl import observation_encoder

    uid = 0 if organiser == "root" else 65534
    where, libs = lib_mod.numpy_dirs() or ("", None)
    folder = lib_mod.folder_name(uid, lib_mod._digest(numpy.__version__), lib_mod._targets(where, libs))
    cache = os.path.join(tempfile.gettempdir(), folder)
    from bots.sandbox.launch import hidden_site_dirs

    site_dirs = list(hidden_site_dirs())
    if organiser == "root":
        lib_mod.library()
    elif os.geteuid() == 0 and shutil.which("setpriv"):   # the organiser's own library folder, made first
        made = _as_nobody("import json\nfrom bots.sandbox.library import library\n"
                          "from bots.sandbox.launch import hidden_site_dirs\n"
                          "print(json.dumps([library().host_path, hidden_site_dirs()]))", {})
        assert made.returncode == 0, made.stderr[-2000:]
        host_path, site_dirs = json.loads(made.stdout.splitlines()[-1])
        assert host_path == cache
    watched = [where, *([libs] if libs else []), os.path.join(cache, "cardarena_rl")]
    before = [_tree(w) for w in watched if os.path.isdir(w)]
    site = os.path.dirname(where)
    observation = {"legal_actions": ["play QS"], "host_paths": [site, cache, str(PROJECT_ROOT), where],
                   "site_dirs": site_dirs}
    out = organiser_probe(organiser, wrapper, HERE / "library_tamper.py", observation)
    if "refused" in out:
        assert organiser == "nobody" and wrapper == "unshare", out
        return
    rep = out["report"]
    assert rep["tried"] > 60 and rep["writes"] == [], rep["writes"][:5]
    imported = {k for k, v in rep["imports"].items() if v == "ok"}
    assert imported == {"numpy", "cardarena_rl", "msgspec"}, rep["imports"]
    assert rep["lib"] == sorted(["cardarena_rl", "numpy", *(["numpy.libs"] if libs else [])])
    assert rep["numpy"] == [numpy.__version__, "/sandbox/lib/numpy/__init__.py", 6.0]
    assert rep["ids"] == [52, observation_encoder("hartenjagen").shape[0]]
    assert rep["reachable"] == []
    # the interpreter's site-packages and the system's dist-packages: empty, read-only, nothing imports
    assert site_dirs and rep["site"]["listed"] == {d: [] for d in site_dirs}, rep["site"]["listed"]
    assert rep["site"]["made"] == [] and rep["site"]["imported"] == []
    assert [p for p in rep["sys_path"] if "site-packages" in p or p.startswith(str(PROJECT_ROOT))] == []
    assert [_tree(w) for w in watched if os.path.isdir(w)] == before
