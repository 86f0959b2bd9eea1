"""Limits and inputs (issue 11, item 6): every number a user gives is finite and bounded, every path
and id is checked; a bad one is one line on stderr and exit status 2, never a traceback, never a hang.

Most cases run the real entry point (``dashboards.app.main``) in this process, which is fast; the
ones whose failure would be a hang (a FIFO, ``fuzz --minutes inf``) run it as a subprocess with a
timeout.  None of them starts a tournament: every input here is refused before one would start.
"""
from __future__ import annotations

import io
import json
import math
import os
import sqlite3
import subprocess
import sys
import time
from contextlib import redirect_stderr, redirect_stdout
from pathlib import Path
from typing import Any

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from tests.tournaments.conftest import FOUR, fastest_game, raw_spec, toml_of
from tournaments.spec import (
    MAX_BANK_S,
    MAX_DEALS,
    MAX_MOVE_S,
    Spec,
    SpecError,
    load_spec,
    parse_spec,
)


def run_cli(*args: str, env: dict[str, str] | None = None) -> tuple[int, str, str]:
    """``cardarena ARGS`` through ``dashboards.app.main``: (exit status, stdout, stderr)."""
    from dashboards.app import main

    out, err = io.StringIO(), io.StringIO()
    old_argv, old_env = sys.argv, dict(os.environ)
    sys.argv = ["cardarena", *args]
    os.environ.update(env or {})
    try:
        with redirect_stdout(out), redirect_stderr(err):
            try:
                main()
                code: int = 0
            except SystemExit as e:
                code = e.code if isinstance(e.code, int) else (0 if e.code is None else 1)
    finally:
        sys.argv = old_argv
        os.environ.clear()
        os.environ.update(old_env)
    return code, out.getvalue(), err.getvalue()


def run_proc(*args: str, timeout: float = 30) -> subprocess.CompletedProcess[str]:
    return subprocess.run([sys.executable, "-m", "dashboards.app", *args], capture_output=True, text=True,
                          timeout=timeout)


def one_line(code: int, err: str, *needles: str) -> str:
    assert code == 2, (code, err)
    assert "Traceback" not in err and len(err.strip().splitlines()) == 1, err
    for n in needles:
        assert n in err, err
    return err.strip()


def spec_file(tmp_path: Path, text: str = "", **over: Any) -> Path:
    p = tmp_path / "spec.toml"
    p.write_text(toml_of(raw_spec(tmp_path, **over)) + text)
    return p


# ------------------------------------------------------------------------------------------ [limits]
BAD_NUMBERS = ["nan", "inf", "-inf", "-1.0", "1e300", "0", '"fast"']


@pytest.mark.parametrize("key", ["move_s", "bank_s", "memory_mb"])
@pytest.mark.parametrize("value", BAD_NUMBERS)
def test_limits_nan_inf_negative_huge_refused_at_spec_load_naming_key_and_range(tmp_path: Path, key: str,
                                                                              value: str) -> None:
    if key == "memory_mb" and value == "0":
        value = "15"
    spec = spec_file(tmp_path, f"\n[limits]\n{key} = {value}\n")
    code, _, err = run_cli("tournament", "run", str(spec), "--inline", "--no-progress")
    msg = one_line(code, err, f"limits.{key}:")
    assert ".." in msg, "the line gives the accepted range"
    assert not (tmp_path / "out").exists(), "nothing is written for a refused spec"


def test_limits_bounds_are_inclusive_and_finite(tmp_path: Path) -> None:
    ok = parse_spec(raw_spec(tmp_path, limits={"move_s": MAX_MOVE_S, "bank_s": MAX_BANK_S}))
    assert (ok.limits.move_s, ok.limits.bank_s) == (MAX_MOVE_S, MAX_BANK_S)
    with pytest.raises(SpecError, match=r"limits\.move_s: .* out of range 0\.001\.\.600"):
        parse_spec(raw_spec(tmp_path, limits={"move_s": math.nextafter(MAX_MOVE_S, math.inf)}))


# ------------------------------------------------------------------------------------------ other fields
@pytest.mark.parametrize("text, field", [
    ("\n[run]\nbatch_s = nan\n", "run.batch_s"),
    ("\n[run]\nbatch_s = inf\n", "run.batch_s"),
    ("\n[run]\nbatch_s = -inf\n", "run.batch_s"),
    ("\n[run]\nbatch_s = 1e9\n", "run.batch_s"),
    ("\n[run]\nnum_cpus = -1\n", "run.num_cpus"),
    ("\n[run]\nnum_cpus = 99999999\n", "run.num_cpus"),
    ("\n[schedule]\nmode = \"sampled\"\nseatings = 9223372036854775807\n", "schedule.seatings"),
    ("\n[schedule]\nmode = \"sampled\"\nseatings = nan\n", "schedule.seatings"),
])
def test_run_and_schedule_numbers_refused_at_spec_load(tmp_path: Path, text: str, field: str) -> None:
    code, _, err = run_cli("tournament", "run", str(spec_file(tmp_path, text)), "--inline")
    one_line(code, err, f"{field}:")


@pytest.mark.parametrize("over, field", [
    ({"seed": -1}, "seed:"), ({"seed": 2**63}, "seed:"), ({"seed": 1.5}, "seed:"),
    ({"matches_per_seating": 10**9}, "matches_per_seating:"),
    ({"max_deals": MAX_DEALS + 1}, "max_deals:"), ({"max_deals": 0}, "max_deals:"),
    ({"max_deals": float("inf")}, "max_deals:"),
    ({"games": [{"id": "hartenjagen", "max_deals": 10**12}]}, "games[0].max_deals:"),
    ({"games": [{"id": "hartenjagen", "players": 10**9}]}, "games[0].players:"),
    ({"output": "a\0b"}, "output:"), ({"output": "x" * 5000}, "output:"),
    ({"address": "h\n:1"}, "address:"),
    ({"bots": [*FOUR[:3], "x@99999999999999"]}, "bots[3]:"),
])
def test_every_numeric_and_path_spec_field_is_bounded(tmp_path: Path, over: dict[str, Any],
                                                      field: str) -> None:
    with pytest.raises(SpecError) as e:
        parse_spec(raw_spec(tmp_path, **over))
    msg = str(e.value)
    assert msg.startswith(field) and len(msg.splitlines()) == 1 and len(msg) < 400, msg


# ------------------------------------------------------------------------------------------ ids
BAD_IDS = ["../../evil", "a/b", "..", ".", ".hidden", "/abs", "x" * 65, "", "a\nb", "a\0b", "é", "-x"]


@pytest.mark.parametrize("tid", BAD_IDS)
def test_tournament_id_unsafe_refused_and_nothing_written(tmp_path: Path, tid: str) -> None:
    out = tmp_path / "deep" / "out"
    spec = spec_file(tmp_path, output=str(out))
    before = sorted(tmp_path.rglob("*"))
    code, _, err = run_cli("tournament", "run", str(spec), "--inline", "--tournament-id", tid)
    one_line(code, err, "--tournament-id")
    assert sorted(tmp_path.rglob("*")) == before, "a refused id writes nothing, anywhere"
    code, _, err = run_cli("tournament", "leaderboard", str(tmp_path), "--tournament", tid)
    one_line(code, err, "--tournament")


@pytest.mark.parametrize("tid", ["../evil", "a/b", ".x", "a\nb"])
def test_tournament_id_checked_again_where_files_are_named(tmp_path: Path, tid: str) -> None:
    """Defence in depth: ``prepare`` (what every runner calls) refuses an unsafe id too."""
    from tournaments.runners import TournamentError, prepare

    spec = parse_spec(raw_spec(tmp_path))
    with pytest.raises(TournamentError, match="not a valid tournament id"):
        prepare(spec, tid)
    assert not (tmp_path / "out").exists() and not (tmp_path / "evil").exists()


def test_spec_name_is_a_safe_slug(tmp_path: Path) -> None:
    for name in ("../x", "a/b", ".x", "a\n", "x" * 65):
        with pytest.raises(SpecError, match=r"^name: .* not a valid tournament id"):
            parse_spec(raw_spec(tmp_path, name=name))


# ------------------------------------------------------------------------------------------ spec path
def test_tournament_run_on_a_fifo_is_refused_without_hanging(tmp_path: Path) -> None:
    fifo = tmp_path / "spec.toml"
    os.mkfifo(fifo)
    t0 = time.monotonic()
    proc = run_proc("tournament", "run", str(fifo), "--inline", timeout=60)
    one_line(proc.returncode, proc.stderr, "FIFO", "not a regular file")
    assert time.monotonic() - t0 < 30


@pytest.mark.parametrize("path, needle", [("/dev/zero", "device"), ("/dev/null", "device"),
                                          (".", "directory")])
def test_spec_path_not_a_regular_file_is_refused(path: str, needle: str) -> None:
    with pytest.raises(SpecError, match=needle):
        load_spec(path)


def test_spec_file_too_large_or_not_utf8_is_refused(tmp_path: Path) -> None:
    big = tmp_path / "big.toml"
    big.write_text("# " + "x" * (1 << 20) + "\n")
    with pytest.raises(SpecError, match="at most"):
        load_spec(big)
    bad = tmp_path / "bad.toml"
    bad.write_bytes(b"name = \"\xff\"\n")
    with pytest.raises(SpecError, match="not UTF-8"):
        load_spec(bad)


# ------------------------------------------------------------------------------------------ CLI options
@pytest.mark.parametrize("minutes", ["inf", "1e9"])
def test_fuzz_minutes_infinite_or_huge_refused_without_hanging(minutes: str) -> None:
    proc = run_proc("fuzz", fastest_game(), "--minutes", minutes, timeout=30)
    one_line(proc.returncode, proc.stderr, "--minutes", "finite")


@pytest.mark.parametrize("minutes", ["nan", "-1", "0", "-inf", "-0"])
def test_fuzz_minutes_nan_negative_zero_refused(minutes: str) -> None:
    code, _, err = run_cli("fuzz", fastest_game(), "--minutes", minutes)
    one_line(code, err, "--minutes", "finite")


def test_rank_bootstrap_bounded(tmp_path: Path) -> None:
    code, _, err = run_cli("rank", str(tmp_path), "--bootstrap", "1000000000")
    one_line(code, err, "--bootstrap", "100000")


NUMERIC_OPTIONS = [
    ("play", "hartenjagen", "--seed", "-1"), ("play", "hartenjagen", "--seed", str(2**63)),
    ("play", "hartenjagen", "--deals", "0"), ("play", "hartenjagen", "--deals", "1000000000000"),
    ("play", "hartenjagen", "--players", "1000000000"), ("play", "hartenjagen", "--players", "-3"),
    ("play", "hartenjagen", "--seed", "nan"),
    ("demo", "--seed", "-1"),
    ("tournament", "run", "--bots", "random", "--matches", "0"),
    ("tournament", "run", "--bots", "random", "--matches", "1000000000"),
    ("tournament", "run", "--bots", "random", "--seed", "-5"),
    ("tournament", "run", "--bots", "random", "--max-deals", "99999999999"),
    ("query", "DIR", "select 1", "--limit", "-1"),
    ("rank", "DIR", "--bootstrap", "-1"), ("rank", "DIR", "--seed", "-1"),
    ("verify", "DIR", "--workers", "0"), ("verify", "DIR", "--workers", "100000"),
    ("verify", "DIR", "--show", "-1"),
    ("fuzz", "hartenjagen", "--seed", "-1"),
    ("bots", "validate", "BOT", "--deals", "0"), ("bots", "validate", "BOT", "--deals", "1000000"),
    ("bots", "validate", "BOT", "--seed", "-1"),
    ("bots", "submit", "BOT", "--name", "abc", "--deals", "0"),
    ("dashboard", "DIR", "--sample", "-2"), ("dashboard", "DIR", "--sample", "1000000000000"),
]


@pytest.mark.parametrize("args", NUMERIC_OPTIONS, ids=lambda a: " ".join(a))
def test_every_numeric_cli_option_is_bounded(tmp_path: Path, args: tuple[str, ...]) -> None:
    bot = tmp_path / "bot.py"
    bot.write_text("def act(obs):\n    return obs['legal_actions'][0]\n")
    argv = [str(tmp_path) if a == "DIR" else str(bot) if a == "BOT" else a for a in args]
    if argv[:2] == ["tournament", "run"]:
        argv += ["--out", str(tmp_path / "out"), "--inline"]
    code, _, err = run_cli(*argv)
    flag = next(a for a in args if a.startswith("--") and a not in ("--bots", "--name"))
    one_line(code, err, flag)
    assert not (tmp_path / "out").exists()


@pytest.mark.parametrize("value", ["NaN", "Infinity", "-Infinity", "1e999"])
def test_play_game_option_not_finite_is_one_line(value: str) -> None:
    code, _, err = run_cli("play", "hartenjagen", "-o", f"target={value}")
    one_line(code, err, "target", "finite")


def test_play_engine_value_error_on_an_option_is_one_line() -> None:
    code, _, err = run_cli("play", "hartenjagen", "-o", "target=\"abc\"")
    one_line(code, err, "target")


def test_output_and_case_paths_that_are_fifos_are_refused(tmp_path: Path) -> None:
    fifo = tmp_path / "f"
    os.mkfifo(fifo)
    proc = run_proc("fuzz", "hartenjagen", "--replay", str(fifo), timeout=30)
    one_line(proc.returncode, proc.stderr, "--replay", "FIFO")
    from tournaments.analysis.cli import file_path

    with pytest.raises(SystemExit) as e:
        file_path(fifo, "--out", must_exist=False)
    assert e.value.code == 2


UNUSABLE_PATHS = ["a\0b", "x" * 5000, "d/" + "n" * 300 + "/e"]
PATH_COMMANDS = [
    ["query", "P", "select 1"], ["rank", "P"], ["verify", "P"], ["coverage", "P"], ["dashboard", "P"],
    ["dashboard", "DIR", "--output", "P"], ["query", "DIR", "select 1", "--out", "P"],
    ["tournament", "status", "P"], ["tournament", "leaderboard", "P"], ["tournament", "run", "P"],
    ["tournament", "run", "--bots", "random,r2=random,r3=random,r4=random", "--games", "hartenjagen",
     "--out", "P", "--inline"],
    ["bots", "list", "--data-dir", "P"], ["bots", "validate", "P"], ["fuzz", "hartenjagen", "--replay", "P"],
]


@pytest.mark.parametrize("path", UNUSABLE_PATHS, ids=["nul", "long", "long-name"])
@pytest.mark.parametrize("argv", PATH_COMMANDS, ids=lambda a: " ".join(a[:3]))
def test_unusable_paths_are_one_line_for_every_command(tmp_path: Path, argv: list[str], path: str) -> None:
    args = [path if a == "P" else str(tmp_path) if a == "DIR" else a for a in argv]
    code, _, err = run_cli(*args)
    one_line(code, err)
    assert not (tmp_path / "out").exists()


# ------------------------------------------------------------------------------------------ bot options
@pytest.mark.parametrize("options, needle", [
    ('{ iterations = -5 }', "iterations"), ('{ iterations = "many" }', "iterations"),
    ('{ iterations = 0 }', "iterations"), ('{ iterations = 1000000000 }', "iterations"),
    ('{ iterations = 2.5 }', "iterations"), ('{ iterations = true }', "iterations"),
    ('{ time_limit = nan }', "time_limit"), ('{ time_limit = inf }', "time_limit"),
    ('{ time_limit = -1.0 }', "time_limit"), ('{ time_limit = "x" }', "time_limit"),
    ('{ iteratons = 5 }', "ismcts accepts iterations, time_limit"),
])
def test_ismcts_options_refused_at_spec_load(tmp_path: Path, options: str, needle: str) -> None:
    p = tmp_path / "spec.toml"
    p.write_text(f'name = "t"\ngames = ["{fastest_game()}"]\noutput = "{tmp_path / "out"}"\n'
                 f'bots = ["random", "greedy", {{ name = "r2", bot = "random" }}, '
                 f'{{ name = "i", bot = "ismcts", options = {options} }}]\n')
    code, _, err = run_cli("tournament", "run", str(p), "--inline")
    one_line(code, err, "bots[3].options.", needle)
    assert not (tmp_path / "out").exists()


@pytest.mark.parametrize("bot", ["random", "greedy"])
def test_builtins_without_options_refuse_any(tmp_path: Path, bot: str) -> None:
    with pytest.raises(SpecError, match=rf"bots\[3\]\.options\.depth: {bot} accepts no options"):
        parse_spec(raw_spec(tmp_path, bots=[*FOUR[:3], {"name": "x", "bot": bot, "options": {"depth": 2}}]))


def test_ismcts_constructor_checks_its_options() -> None:
    from bots.builtin.ismcts import Bot

    for kw in ({"iterations": -5}, {"iterations": "many"}, {"time_limit": float("nan")}):
        with pytest.raises(ValueError, match=next(iter(kw))):
            Bot(fastest_game(), 0, 1, **kw)
    assert Bot(fastest_game(), 0, 1, iterations=7, time_limit=0.5).iterations == 7


# ------------------------------------------------------------------------------------------ registry
def test_corrupt_bot_registry_is_one_line_naming_the_file(tmp_path: Path) -> None:
    db = tmp_path / "bots" / "registry.sqlite"
    db.parent.mkdir()
    db.write_bytes(os.urandom(4096))
    code, _, err = run_cli("bots", "list", "--data-dir", str(tmp_path))
    one_line(code, err, str(db), "corrupt")
    p = tmp_path / "spec.toml"
    p.write_text(toml_of(raw_spec(tmp_path, bots=[*FOUR[:3], "mybot"])))
    code, _, err = run_cli("tournament", "run", str(p), "--inline", env={"CARDARENA_DATA": str(tmp_path)})
    one_line(code, err, str(db), "bots[3]")


@pytest.mark.parametrize("column, value", [("games", "not json"), ("validation", "[1"),
                                           ("entry", "../../../etc/passwd"), ("hash", "../x"),
                                           ("kind", "other")])
def test_corrupt_registry_row_is_one_line_naming_the_file(tmp_path: Path, column: str, value: str) -> None:
    from bots.api import BotSource
    from bots.registry import Registry

    src = tmp_path / "mine.py"
    src.write_text("def act(obs):\n    return obs['legal_actions'][0]\n")
    reg = Registry(tmp_path / "data")
    reg.add(BotSource(src, False), "mine", ["hartenjagen"], {"ok": True})
    con = sqlite3.connect(reg.db_path)
    con.execute(f"UPDATE bots SET {column} = ?", (value,))
    con.commit()
    con.close()
    # the listing skips the row with a one-line warning naming the file (issue 27: one bad row must not
    # break `bots list` for everybody); asking for that bot alone is one line and exit 2
    code, _, err = run_cli("bots", "list", "--data-dir", str(tmp_path / "data"))
    assert code == 0 and "Traceback" not in err and len(err.strip().splitlines()) == 1, (code, err)
    assert str(reg.db_path) in err and "corrupt" in err and "warning" in err
    code, _, err = run_cli("bots", "list", "mine", "--data-dir", str(tmp_path / "data"))
    one_line(code, err, str(reg.db_path), "corrupt")


def _manifest_dir(tmp_path: Path) -> tuple[Path, Path, Spec]:
    p = spec_file(tmp_path)
    spec = load_spec(p)
    (tmp_path / "out" / "_tournaments").mkdir(parents=True)
    return p, tmp_path / "out" / "_tournaments" / "t.json", spec


@pytest.mark.parametrize("kind", ["junk", "list", "missing_fields", "wrong_types"])
def test_corrupt_manifest_is_one_line_naming_the_file(tmp_path: Path, kind: str) -> None:
    p, manifest, spec = _manifest_dir(tmp_path)
    text = {"junk": "{garbage", "list": "[1, 2]",
            "missing_fields": json.dumps({"spec_hash": spec.spec_hash()}),
            "wrong_types": json.dumps({"spec_hash": spec.spec_hash(), "games": 3, "entrants": [],
                                       "bots": 1})}[kind]
    manifest.write_text(text)
    code, _, err = run_cli("tournament", "run", str(p), "--inline", "--resume", "--no-progress")
    one_line(code, err, str(manifest))
    if kind in ("junk", "list"):
        code, _, err = run_cli("tournament", "status", str(tmp_path / "out"))
        one_line(code, err, "t.json")


# ------------------------------------------------------------------------------------------ query
@pytest.fixture(scope="module")
def small_log(tmp_path_factory: pytest.TempPathFactory) -> Path:
    from tournaments.analysis.synth import write_log

    root = tmp_path_factory.mktemp("log") / "t"
    write_log(root, [fastest_game()], ["random-a", "random-b", "first", "last"], boards=1, seed=5,
              max_deals=1, batch_size=4)
    return root


@pytest.mark.parametrize("sql", ["select * frm matches", "select nosuch from matches",
                                 "select 1 +", "select * from no_such_table"])
def test_query_bad_sql_is_duckdbs_first_line_only(small_log: Path, sql: str) -> None:
    code, _, err = run_cli("query", str(small_log), sql)
    msg = one_line(code, err, "SQL error:")
    assert "^" not in msg and "LINE 1" not in msg


def test_query_out_to_a_missing_directory_is_one_line(small_log: Path, tmp_path: Path) -> None:
    code, _, err = run_cli("query", str(small_log), "select 1 as x", "-f", "csv", "--out",
                           str(tmp_path / "no" / "such" / "x.csv"))
    one_line(code, err, "no such folder")


# ------------------------------------------------------------------------------------------ property test
ODD_NUMBERS = st.one_of(
    st.floats(allow_nan=True, allow_infinity=True).map(repr),
    st.integers(min_value=-(2**70), max_value=2**70).map(str),
    st.sampled_from(["nan", "inf", "-inf", "1e999", "-0", "0x10", "", " ", "many", "1_000", "٣"]),
)
ODD_PATHS = st.one_of(
    st.sampled_from(["..", "../../evil", "/", "/dev/null", "/dev/zero", "", ".", "a\0b", "x" * 5000,
                     "/proc/self/mem", "~", "-", "--help-me", "FIFO", "\x1e", "a\nb", "\x1b[2J", "x\u2028y",
                     "\r", "\x85"]),
    st.text(min_size=0, max_size=40),
)


def _command(which: int, num: str, path: str, tmp: Path) -> list[str]:
    """Cheap commands only: each refuses or fails on its missing directory before doing any work."""
    nothing = str(tmp / "nothing-here")
    return [
        ["rank", nothing, "--bootstrap", num],
        ["rank", path, "--seed", num],
        ["verify", nothing, "--workers", num, "--show", num],
        ["query", path, "select 1", "--limit", num],
        ["fuzz", "hartenjagen", "--minutes", num, "--replay", path],
        ["fuzz", "no-such-game", "--seed", num],
        ["play", "no-such-game", "--seed", num, "--deals", num, "--players", num],
        ["play", "hartenjagen", "-o", f"target={num}", "--deals", "0"],
        ["bots", "validate", path, "--deals", num, "--seed", num],
        ["dashboard", nothing, "--sample", num, "--output", path],
        ["tournament", "run", "--bots", "random", "--games", "no-such-game", "--matches", num,
         "--seed", num, "--max-deals", num, "--out", str(tmp / "out"), "--inline", "--tournament-id", path],
        ["tournament", "run", path, "--inline", "--out", str(tmp / "out")],
        ["tournament", "leaderboard", path, "--tournament", path],
    ][which]


@settings(max_examples=30, deadline=None, database=None,
          suppress_health_check=[HealthCheck.function_scoped_fixture])
@given(which=st.integers(0, 12), num=ODD_NUMBERS, path=ODD_PATHS)
def test_property_cli_numbers_and_paths_exit_0_or_2_with_one_line(tmp_path: Path, which: int, num: str,
                                                                   path: str) -> None:
    if path == "FIFO":
        fifo = tmp_path / "fifo"
        if not fifo.exists():
            os.mkfifo(fifo)
        path = str(fifo)
    argv = _command(which, num, path, tmp_path)
    t0 = time.monotonic()
    code, out, err = run_cli(*argv)
    assert time.monotonic() - t0 < 5, argv
    assert code in (0, 2), (argv, code, err)
    assert "Traceback" not in out + err, argv
    if code == 2:
        assert len(err.strip().splitlines()) <= 1, (argv, err)
    assert not (tmp_path / "out").exists(), argv


SPEC_VALUES = st.one_of(
    st.floats(allow_nan=True, allow_infinity=True), st.integers(min_value=-(2**80), max_value=2**80),
    st.text(max_size=20), st.booleans(), st.none(), st.lists(st.integers(), max_size=2),
    st.dictionaries(st.text(max_size=5), st.integers(), max_size=2),
)
SPEC_FIELDS = st.sampled_from([
    ("seed",), ("matches_per_seating",), ("max_deals",), ("name",), ("output",), ("address",),
    ("limits", "move_s"), ("limits", "bank_s"), ("limits", "memory_mb"), ("limits", "sandbox_builtins"),
    ("run", "batch_s"), ("run", "num_cpus"), ("schedule", "seatings"),
    ("bots", 3, "options", "iterations"), ("bots", 3, "options", "time_limit"),
])


@settings(max_examples=60, deadline=None, database=None,
          suppress_health_check=[HealthCheck.function_scoped_fixture])
@given(fields=st.lists(st.tuples(SPEC_FIELDS, SPEC_VALUES), min_size=1, max_size=3))
def test_property_spec_numbers_finite_and_bounded_or_one_line_error(
        tmp_path: Path, fields: list[tuple[tuple[Any, ...], Any]]) -> None:
    raw = raw_spec(tmp_path, bots=[*FOUR[:3], {"name": "i", "bot": "ismcts", "options": {}}],
                   schedule={"mode": "sampled", "seatings": 2}, limits={}, run={})
    for path, value in fields:
        d: Any = raw
        for k in path[:-1]:
            d = d[k]
        d[path[-1]] = value
    try:
        spec = parse_spec(raw)
    except SpecError as e:
        msg = str(e)
        assert len(msg.splitlines()) == 1 and len(msg) < 600, msg
        return
    numbers = [spec.seed, spec.matches_per_seating, spec.limits.move_s, spec.limits.bank_s,
               spec.limits.memory_mb, spec.batch_s, spec.num_cpus, spec.seatings or 1, spec.max_deals or 1,
               *[v for e in spec.bots for v in e.options.values()]]
    assert all(math.isfinite(x) and 0 <= x < 2**63 for x in numbers), spec
    assert "/" not in spec.name and not spec.name.startswith(".")
    assert spec.limits.move_s <= MAX_MOVE_S and spec.limits.bank_s <= MAX_BANK_S


def test_schedule_too_large_to_plan_is_refused_at_spec_load(tmp_path: Path) -> None:
    many = [{"name": f"r{i}", "bot": "random"} for i in range(60)]
    with pytest.raises(SpecError, match=r"^schedule: .* more than 1,000,000 matches.*sampled"):
        parse_spec(raw_spec(tmp_path, bots=many, matches_per_seating=100))
    sampled = parse_spec(raw_spec(tmp_path, bots=many, schedule={"mode": "sampled", "seatings": 30}))
    assert len(sampled.bots) == 60
    with pytest.raises(SpecError, match=r"^bots: 1001 entrants; at most 1000"):
        parse_spec(raw_spec(tmp_path, bots=[{"name": f"r{i}", "bot": "random"} for i in range(1001)],
                            schedule={"mode": "sampled", "seatings": 1}))


def test_bot_file_that_is_a_fifo_is_refused_at_once(tmp_path: Path) -> None:
    fifo = tmp_path / "bot.py"
    os.mkfifo(fifo)
    (tmp_path / "link.py").symlink_to(fifo)
    for p in (fifo, tmp_path / "link.py"):
        t0 = time.monotonic()
        code, _, err = run_cli("bots", "validate", str(p))
        one_line(code, err, "not a regular file")
        assert time.monotonic() - t0 < 2
