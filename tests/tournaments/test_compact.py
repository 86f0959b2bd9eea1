"""Compaction (issue 25, section 1): ``cardarena tournament compact`` merges a tournament's batches per
game into few large ones under the tournament's lock, committed by one atomic swap of the game's
matches folder.  A reader sees the old batches or the new ones, never both and never neither; a
SIGKILL at any step leaves a log that a second ``compact`` finishes and that verifies with the same
rows; two compactions at once: one wins, the other is refused in one line; a resume after compaction
plays every remaining match once."""
from __future__ import annotations

import hashlib
import json
import os
import shutil
import subprocess
import sys
import textwrap
import time
from pathlib import Path
from typing import Any

import pyarrow.parquet as pq
import pytest
from typer.testing import CliRunner

import tournaments.compact as compact_mod
from dashboards.app import app
from tests.tournaments.conftest import TIMING, raw_spec, toml_of
from tournaments.analysis import open_log
from tournaments.compact import compact
from tournaments.log import TABLES
from tournaments.paths import committed_parts, digest_path

runner = CliRunner()
ROOT = Path(__file__).resolve().parents[2]


def cli(*args: str) -> tuple[int, str, str]:
    res = runner.invoke(app, list(args))
    assert "Traceback" not in res.output + res.stderr, res.output + res.stderr
    return res.exit_code, res.stdout, res.stderr


@pytest.fixture(scope="module")
def played(tmp_path_factory: pytest.TempPathFactory) -> tuple[Path, Path]:
    """(spec, output) of a finished tournament of 8 Hartenjagen matches in several small batches."""
    base = tmp_path_factory.mktemp("played")
    spec = base / "t.toml"
    spec.write_text(toml_of(raw_spec(base, matches_per_seating=2, run={"batch_s": 0.01})))
    code, _, err = cli("tournament", "run", str(spec), "--inline", "--no-progress", "--no-leaderboard")
    assert code == 0, err
    assert len(committed_parts(base / "out", "t")) >= 2   # the first batch has 2 matches (Sizer)
    return spec, base / "out"


@pytest.fixture
def fresh(played: tuple[Path, Path], tmp_path: Path) -> tuple[Path, Path]:
    spec, src = played
    shutil.copytree(src, tmp_path / "out")
    return spec, tmp_path / "out"


def content(root: Path) -> dict[str, Any]:
    """What a reader sees through the commit record (``open_log``): each table's rows without timing
    columns, in a stable order, with a digest of them, and a few query results."""
    log = open_log(root)
    out: dict[str, Any] = {}
    for t in TABLES:
        drop = ", ".join(sorted(TIMING - {"think_us"}) if t == "matches" else ["think_us"])
        rows = log.rows(f"SELECT * EXCLUDE ({drop}) FROM {t}") if t != "events" else log.rows(
            "SELECT * FROM events")
        rows.sort(key=lambda r: json.dumps(r, sort_keys=True, default=str))
        out[t] = hashlib.sha256(json.dumps(rows, sort_keys=True, default=str).encode()).hexdigest()
        out[t + "_rows"] = len(rows)
    out["per_bot"] = log.rows("SELECT bot, count(*) n, sum(legal_count) l FROM moves GROUP BY bot "
                              "ORDER BY bot")
    out["ids_once"] = log.rows("SELECT count(*) n, count(DISTINCT match_id) d FROM matches")
    return out


def _verifies(out: Path) -> None:
    code, stdout, err = cli("verify", str(out), "--workers", "1")
    assert code == 0 and "0 violation(s)" in stdout, stdout + err


def test_compaction_keeps_every_row_in_one_sorted_batch_per_game(fresh: tuple[Path, Path]) -> None:
    _, out = fresh
    before = content(out)
    n_before = len(committed_parts(out, "t"))
    code, stdout, err = cli("tournament", "compact", str(out), "--json")
    assert code == 0, err
    rec = json.loads(stdout)
    assert rec["matches"] == before["matches_rows"] and next(iter(rec["games"].values())) == {
        "batches_before": n_before, "batches_after": 1}
    parts = committed_parts(out, "t")
    assert len(parts) == 1
    for t in TABLES:   # exactly one file per table left, the old ones gone, no staging left behind
        assert [p.name for p in (out / t).rglob("*.parquet")] == [parts[0].name]
    assert len(list((out / "_digests").rglob("*.json"))) == 1 and not any((out / "_compact").rglob("*"))
    moves = pq.read_table(out / "moves" / parts[0].parent.name / parts[0].name, columns=["match_id", "ply"])
    keys = list(zip(moves.column("match_id").to_pylist(), moves.column("ply").to_pylist(), strict=True))
    assert keys == sorted(keys)                                        # one match reads as one range
    assert content(out) == before
    _verifies(out)
    code, stdout, err = cli("tournament", "compact", str(out))         # again: nothing to do, same rows
    assert code == 0 and "1 batch(es) -> 1" in stdout, err
    assert content(out) == before


def test_compaction_of_a_damaged_log_is_refused_in_one_line(
        fresh: tuple[Path, Path]) -> None:
    _, out = fresh
    code, _, err = cli("tournament", "compact", str(out), "--game", "tonk")
    assert code == 2 and err.count("\n") == 1 and "no committed batch of game 'tonk'" in err
    victim = committed_parts(out, "t")[1]
    (out / "moves" / victim.parent.name / victim.name).unlink()
    code, _, err = cli("tournament", "compact", str(out))
    assert code == 2 and err.count("\n") == 1 and "repair" in err   # (object stores: test_s3_compact.py)


def _child(out: Path, body: str) -> subprocess.Popen[str]:
    """A compaction in another process, ``_step`` replaced by ``body`` (gets ``what``, ``n``)."""
    inner = textwrap.indent(textwrap.dedent(body).strip(), "    ")
    code = ("import os, signal, sys, time\nfrom pathlib import Path\nimport tournaments.compact as c\n"
            "n = 0\ndef step(what):\n    global n\n    n += 1\n" + inner + "\n"
            f"c._step = step\nc.compact(Path({str(out)!r}), 't', fsync=False)\nprint('done', n)\n")
    return subprocess.Popen([sys.executable, "-c", code], cwd=ROOT, text=True, stdout=subprocess.PIPE,
                            stderr=subprocess.PIPE)


def _steps(out: Path) -> list[str]:
    seen: list[str] = []
    orig = compact_mod._step
    compact_mod._step = seen.append
    try:
        compact(out, "t", fsync=False)
    finally:
        compact_mod._step = orig
    return seen


def _sigkill_at(fresh: tuple[Path, Path], tmp_path: Path, at: int) -> None:
    _, out = fresh
    before = content(out)
    child = _child(out, f"""
        if n == {at}:
            os.kill(os.getpid(), signal.SIGKILL)""")
    _, err = child.communicate(timeout=120)
    assert child.returncode == -9, err
    assert content(out) == before                 # as before the swap, or as after it: the same rows
    code, _, err = cli("tournament", "compact", str(out))
    assert code == 0, err
    assert len(committed_parts(out, "t")) == 1
    for t in TABLES:                              # the leftovers of the killed one are gone
        assert len(list((out / t).rglob("*.parquet"))) == 1
    assert not any((out / "_compact").rglob("*")) and not list(out.rglob(".*.tmp"))
    assert content(out) == before
    _verifies(out)


def test_a_compaction_killed_around_its_commit_is_finished_by_the_next(played: tuple[Path, Path],
                                                                       tmp_path: Path) -> None:
    spec, src = played
    probe = tmp_path / "probe"
    shutil.copytree(src, probe)
    steps = _steps(probe)
    assert steps.index("staged") + 1 == steps.index("exchanged")
    for at in (steps.index("staged") + 1, steps.index("exchanged") + 1):   # just before, just after the swap
        out = tmp_path / f"k{at}"
        shutil.copytree(src, out)
        _sigkill_at((spec, out), tmp_path, at)


@pytest.mark.slow
def test_sigkill_at_every_step_of_a_compaction(played: tuple[Path, Path], tmp_path: Path) -> None:
    spec, src = played
    probe = tmp_path / "probe"
    shutil.copytree(src, probe)
    steps = _steps(probe)
    assert len(steps) >= 8
    for at in range(1, len(steps) + 1):
        out = tmp_path / f"k{at}"
        shutil.copytree(src, out)
        _sigkill_at((spec, out), tmp_path, at)


def test_two_compactions_at_once_one_wins_the_other_is_refused_in_one_line(fresh: tuple[Path, Path],
                                                                          tmp_path: Path) -> None:
    _, out = fresh
    before = content(out)
    gate = tmp_path / "gate"
    child = _child(out, f"""
        if what == "locked":
            Path({str(gate)!r} + ".held").touch()
            while not Path({str(gate)!r}).exists():
                time.sleep(0.02)""")
    deadline = time.monotonic() + 60
    while not Path(f"{gate}.held").exists():
        assert child.poll() is None and time.monotonic() < deadline, child.communicate()
        time.sleep(0.02)
    code, _, err = cli("tournament", "compact", str(out))
    assert code == 2 and err.count("\n") == 1 and "being run by another process" in err, err
    gate.touch()
    stdout, err = child.communicate(timeout=120)
    assert child.returncode == 0 and stdout.startswith("done"), err
    assert len(committed_parts(out, "t")) == 1 and content(out) == before


def test_a_resume_after_compaction_plays_every_remaining_match_once(fresh: tuple[Path, Path]) -> None:
    """A paused tournament (here: a batch's files removed, as if never played) is compacted, then
    resumed: the resume plays exactly the missing matches, each once, and the log verifies."""
    spec, out = fresh
    ids = set(pq.read_table(out / "matches", columns=["match_id"]).column("match_id").to_pylist())
    for victim in committed_parts(out, "t")[:1]:
        for t in TABLES:
            (out / t / victim.parent.name / victim.name).unlink()
        digest_path(victim).unlink()
    assert cli("tournament", "compact", str(out))[0] == 0
    compacted = committed_parts(out, "t")
    assert len(compacted) == 1
    code, stdout, err = cli("tournament", "run", str(spec), "--resume", "--out", str(out), "--inline",
                            "--no-progress", "--no-leaderboard", "--compact")
    assert code == 0 and f"{len(ids)} of {len(ids)} matches (complete)" in stdout, stdout + err
    logged = pq.read_table(out / "matches", columns=["match_id"]).column("match_id").to_pylist()
    assert sorted(logged) == sorted(ids)                               # every match once
    assert len(committed_parts(out, "t")) == 1                         # --compact merged the new ones in
    _verifies(out)
    assert os.listdir(out / "_compact") == [] or not any((out / "_compact").rglob("*"))


def _events_by_match(root: Path) -> dict[str, list[tuple[int, str, Any]]]:
    """Each match's events in the order its parts hold them (parts in name order)."""
    out: dict[str, list[tuple[int, str, Any]]] = {}
    for p in sorted((root / "events").rglob("*.parquet")):
        for r in pq.ParquetFile(p).read(columns=["match_id", "ply", "event", "seat"]).to_pylist():
            out.setdefault(r["match_id"], []).append((r["ply"], r["event"], r["seat"]))
    return out


def test_compaction_keeps_each_matchs_events_in_the_order_they_were_logged(tmp_path: Path) -> None:
    """Manillen logs a trick's end events with the ply of the card they are about, after the events of
    later plies (emission order is not ply order); ``verify`` compares that sequence, so a compacted
    part sorts events by match only, keeping their logged order (it sorted by ply: 3 violations)."""
    spec = tmp_path / "t.toml"
    spec.write_text(toml_of(raw_spec(tmp_path, games=["manillen"], secret="seed", matches_per_seating=2,
                                     run={"batch_s": 0.01})))
    code, _, err = cli("tournament", "run", str(spec), "--inline", "--no-progress", "--no-leaderboard")
    assert code == 0, err
    out = tmp_path / "out"
    before = _events_by_match(out)
    assert any([e[0] for e in ev] != sorted(e[0] for e in ev) for ev in before.values())   # the premise
    assert cli("tournament", "compact", str(out))[0] == 0
    assert len(committed_parts(out, "t")) == 1
    assert _events_by_match(out) == before
    _verifies(out)
