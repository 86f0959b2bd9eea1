"""Damaged logs through the real command line (issue 11, item 5): a truncated, empty, junk or
16-bytes-overwritten ``matches`` part, a deleted ``moves`` part and a part holding another tournament's
rows.  Every reader reports the bad part in one line (never a traceback); ``verify`` does not certify
the log; ``tournament repair`` and ``--resume`` quarantine the batch and play exactly its matches again,
after which every scheduled match is in the log once and the log verifies."""
from __future__ import annotations

import json
import random
import shutil
from collections.abc import Callable
from pathlib import Path

import pyarrow as pa
import pyarrow.parquet as pq
import pytest
from typer.testing import CliRunner

from dashboards.app import app
from tests.tournaments.conftest import raw_spec, toml_of
from tournaments.ledger import repair
from tournaments.log import check_batch, record_digests, write_part
from tournaments.paths import committed_parts, part_name

runner = CliRunner()


def cli(*args: str) -> tuple[int, str, str]:
    res = runner.invoke(app, list(args))
    assert "Traceback" not in res.output + res.stderr, res.output + res.stderr
    return res.exit_code, res.stdout, res.stderr


@pytest.fixture(scope="module")
def played(tmp_path_factory: pytest.TempPathFactory) -> tuple[Path, Path]:
    """(spec file, output) of a finished tiny tournament: 8 Hartenjagen matches of one deal, in batches
    of two or more matches.  Do not modify: copy it (``fresh``)."""
    base = tmp_path_factory.mktemp("played")
    spec = base / "t.toml"
    spec.write_text(toml_of(raw_spec(base, matches_per_seating=2, run={"batch_s": 0.01})))
    code, _, err = cli("tournament", "run", str(spec), "--inline", "--no-progress", "--no-leaderboard")
    assert code == 0, err
    assert len(committed_parts(base / "out", "t")) >= 2   # the first batch has 2 matches (Sizer)
    return spec, base / "out"


@pytest.fixture
def fresh(played: tuple[Path, Path], tmp_path: Path) -> tuple[Path, Path, set[str]]:
    """A private copy: (spec, output, the ids of every scheduled match)."""
    spec, src = played
    out = tmp_path / "out"
    shutil.copytree(src, out)
    ids = set(pq.read_table(out / "matches", columns=["match_id"]).column("match_id").to_pylist())
    return spec, out, ids


def _victim(out: Path) -> Path:
    return committed_parts(out, "t")[1]


def _ids(part: Path) -> set[str]:
    return set(pq.read_table(part, columns=["match_id"]).column("match_id").to_pylist())


def _truncate(p: Path) -> None:
    p.write_bytes(p.read_bytes()[: p.stat().st_size // 2])


def _empty(p: Path) -> None:
    p.write_bytes(b"")


def _junk(p: Path) -> None:
    p.write_bytes(random.Random(3).randbytes(p.stat().st_size))


def _overwrite16(p: Path) -> None:
    """16 bytes inside the data of the ``ranking`` column (what the leaderboard reads)."""
    meta = pq.read_metadata(p)
    col = meta.row_group(0).column(meta.schema.to_arrow_schema().get_field_index("ranking"))
    at = col.data_page_offset + col.total_compressed_size - 16
    data = bytearray(p.read_bytes())
    data[at:at + 16] = bytes(16)
    p.write_bytes(bytes(data))


DAMAGE: dict[str, Callable[[Path], None]] = {"truncated": _truncate, "empty": _empty, "junk": _junk,
                                             "overwritten16": _overwrite16}


def _once_each(out: Path, ids: set[str]) -> None:
    logged = pq.read_table(out / "matches", columns=["match_id"]).column("match_id").to_pylist()
    assert sorted(logged) == sorted(ids)
    for t in ("moves", "events"):   # and every batch whole again: each matches part has its siblings
        assert {p.name for p in (out / t).rglob("*.parquet")} == {p.name for p in committed_parts(out, "t")}


@pytest.mark.parametrize("damage", list(DAMAGE))
def test_damaged_matches_part_is_named_by_every_reader(fresh: tuple[Path, Path, set[str]],
                                                       damage: str) -> None:
    _, out, ids = fresh
    victim = _victim(out)
    lost = _ids(victim)
    DAMAGE[damage](victim)
    code, stdout, err = cli("tournament", "status", str(out), "--json")   # warns, skips, exits 1
    assert code == 1 and err.count("\n") == 1 and str(victim) in err and "not counted" in err
    assert f'"done": {len(ids) - len(lost)}' in stdout
    for cmd in (["tournament", "leaderboard", str(out)], ["query", str(out), "SELECT count(*) FROM matches"],
                ["rank", str(out)]):
        code, _, err = cli(*cmd)                                          # cannot go on: exit 2
        assert code == 2 and err.count("\n") == 1 and str(victim) in err, (cmd, err)
    code, stdout, err = cli("verify", str(out), "--workers", "1")
    assert code == 2 and str(victim) in err and "not certified" in err and "violation" not in stdout


def test_verify_certifies_the_digest_of_every_part(fresh: tuple[Path, Path, set[str]]) -> None:
    """A part that still decodes but whose bytes changed since its commit (here: its footer's
    created-by string) is an integrity violation, whatever the rules say."""
    _, out, _ = fresh
    victim = _victim(out)
    data = victim.read_bytes()
    at = data.rindex(b"parquet-cpp")
    victim.write_bytes(data[:at] + b"PARQUET-CPP" + data[at + 11:])
    assert pq.read_table(victim).num_rows > 0                       # it reads, with the same rows
    code, stdout, _ = cli("verify", str(out), "--workers", "1", "--no-replay")
    assert code == 1 and "integrity" in stdout and str(victim) in stdout and "SHA-256" in stdout


@pytest.mark.parametrize("damage", ["truncated", "overwritten16"])
def test_k5_resume_quarantines_a_damaged_batch_and_plays_exactly_its_matches(
        fresh: tuple[Path, Path, set[str]], damage: str) -> None:
    spec, out, ids = fresh
    victim = _victim(out)
    DAMAGE[damage](victim)
    code, stdout, err = cli("tournament", "run", str(spec), "--resume", "--out", str(out), "--inline",
                            "--no-progress", "--no-leaderboard")
    assert code == 0, err
    assert f"quarantined {victim}" in err and f"{len(ids)} of {len(ids)} matches (complete)" in stdout
    assert (out / "_quarantine" / "matches" / victim.parent.name / victim.name).is_file()
    _once_each(out, ids)
    code, stdout, err = cli("verify", str(out), "--workers", "1")
    assert code == 0 and "0 violation(s)" in stdout, stdout + err


def test_a_deleted_moves_part_makes_its_batch_incomplete_until_resumed(
        fresh: tuple[Path, Path, set[str]]) -> None:
    spec, out, ids = fresh
    victim = _victim(out)
    moves = out / "moves" / victim.parent.name / victim.name
    moves.unlink()
    code, stdout, err = cli("tournament", "status", str(out), "--json")
    assert code == 1 and str(moves) in err and "incomplete" in err
    assert f'"done": {len(ids) - len(_ids(victim))}' in stdout
    code, _, err = cli("tournament", "leaderboard", str(out))
    assert code == 2 and str(moves) in err
    code, stdout, err = cli("tournament", "repair", str(out))      # quarantine now, replay later
    assert code == 0 and f"quarantined {victim}" in stdout and "--resume" in stdout, stdout + err
    assert (out / "_quarantine" / "events" / victim.parent.name / victim.name).is_file()
    assert not victim.exists()
    code, stdout, err = cli("tournament", "run", str(spec), "--resume", "--out", str(out), "--inline",
                            "--no-progress", "--no-leaderboard")
    assert code == 0 and "(complete)" in stdout, err
    _once_each(out, ids)


def test_a_part_of_another_tournament_is_reported_not_counted(fresh: tuple[Path, Path, set[str]]) -> None:
    """A batch of tournament 'u' put into 't's tree under a name of 't' (the name says 't', the rows
    say 'u')."""
    spec, out, ids = fresh
    src = _victim(out)
    name = part_name("t", ["not-a-match-of-t"], 9)
    for t in ("moves", "events", "matches"):
        part = out / t / src.parent.name / src.name
        tab = pq.ParquetFile(part).read()       # (not read_table: it would add ``game`` from the path)
        tab = tab.set_column(tab.schema.get_field_index("tournament"), "tournament",
                             pa.array(["u"] * tab.num_rows, pa.string()))
        write_part(part.with_name(name), tab, fsync=False)
    alien = out / "matches" / src.parent.name / name
    record_digests(alien)   # a whole batch, digest record and all: only its rows are another's
    code, stdout, err = cli("tournament", "status", str(out), "--json")
    assert code == 1 and f'"done": {len(ids)}' in stdout and str(alien) in err and "'u'" in err
    code, stdout, err = cli("tournament", "leaderboard", str(out), "--json")
    assert code == 0 and str(alien) in err and "not counted" in err
    assert sum(r["matches"] for r in json.loads(stdout)) == 4 * len(ids)   # four seats a match
    code, stdout, _ = cli("verify", str(out), "--workers", "1", "--no-replay")
    assert code == 1 and str(alien) in stdout and "'u'" in stdout
    code, stdout, err = cli("tournament", "run", str(spec), "--resume", "--out", str(out), "--inline",
                            "--no-progress", "--no-leaderboard")
    assert code == 0 and f"quarantined {alien}" in err and "0 matches" not in stdout.split(";")[0]
    _once_each(out, ids)


def test_k5_repair_keeps_each_match_once_when_a_batch_is_copied_under_another_epoch(
        fresh: tuple[Path, Path, set[str]]) -> None:
    _, out, ids = fresh
    src = _victim(out)
    copy = src.name.replace("-e1-", "-e7-")
    for t in ("moves", "events", "matches"):
        shutil.copy(out / t / src.parent.name / src.name, out / t / src.parent.name / copy)
    record_digests(src.with_name(copy))
    fixed = repair(out, "t", ids)
    assert fixed.done == ids and len(fixed.quarantined) == 1 and "already in" in fixed.quarantined[0][1][0]
    _once_each(out, ids)


def test_check_batch_flags_16_bytes_overwritten_anywhere(fresh: tuple[Path, Path, set[str]]) -> None:
    """A property over random offsets (the outside check's kind of input): every overwrite, truncation
    or junk is a problem naming the part, and nothing raises."""
    _, out, _ = fresh
    victim = _victim(out)
    game = victim.parent.name.partition("=")[2]
    orig = victim.read_bytes()
    rng = random.Random(11)
    for i in range(120):
        data = bytearray(orig)
        if i % 3 == 0:
            at = rng.randrange(len(data) - 16)
            data[at:at + 16] = rng.randbytes(16)
        elif i % 3 == 1:
            data = data[:rng.randrange(len(data))]
        else:
            data = bytearray(rng.randbytes(rng.randrange(2000)))
        if bytes(data) == orig:
            continue
        victim.write_bytes(bytes(data))
        c = check_batch(out, game, victim.name, "t")
        assert c.problems and all(str(out) in p for p in c.problems), i


def _copy_batch(out: Path, src: Path, name: str) -> Path:
    """Every file of ``src``'s batch (its parts and digest record) copied under the part name ``name``."""
    from tournaments.paths import digest_path
    for t in ("moves", "events", "matches"):
        shutil.copy(out / t / src.parent.name / src.name, out / t / src.parent.name / name)
    shutil.copy(digest_path(src), digest_path(src.with_name(name)))
    return src.with_name(name)


READERS = [["tournament", "leaderboard", "{out}"], ["query", "{out}", "SELECT count(*) FROM matches"],
           ["rank", "{out}", "--bootstrap", "5"], ["coverage", "{out}"]]


def _refused_by_readers(out: Path, tmp: Path, *needles: str) -> None:
    """Every reader exits 2 with one line holding one of ``needles``; the dashboard that verifies the
    log refuses it too, or shows it failed."""
    for cmd in [*READERS, ["dashboard", "{out}", "--no-verify", "-o", str(tmp / "r.html")]]:
        code, _, err = cli(*[c.format(out=out) for c in cmd])
        assert code == 2 and err.count("\n") == 1 and any(n in err for n in needles), (cmd, code, err)
    _dashboard_says_so(out, tmp, *needles)


def _dashboard_says_so(out: Path, tmp: Path, *needles: str) -> None:
    page = tmp / "verified.html"
    code, _, err = cli("dashboard", str(out), "-o", str(page))
    if code == 0:
        assert 'class="status bad"' in page.read_text(), "a verified dashboard shows the damage"
    else:   # (a part whose pages no longer decode: the replay cannot read it)
        assert code == 2 and err.count("\n") == 1, err


def test_a_batch_copied_under_another_name_is_refused_by_every_reader(
        fresh: tuple[Path, Path, set[str]], tmp_path: Path) -> None:
    """Issue 27: a batch copied whole under another name (its digest record too, so it certifies
    alone) was counted twice by leaderboard, rank, dashboard and query (9,649 of 9,600)."""
    _, out, ids = fresh
    src = _victim(out)
    copy = _copy_batch(out, src, src.name[:-len("0123456789abcdef.parquet")] + "0" * 16 + ".parquet")
    _refused_by_readers(out, tmp_path, f"{copy}: holds", f"{src}: holds")
    code, stdout, err = cli("tournament", "status", str(out), "--json")
    assert code == 1 and "already in" in err and f'"done": {len(ids)}' in stdout
    code, stdout, err = cli("tournament", "repair", str(out))
    assert code == 0 and "quarantined" in stdout, stdout + err
    for cmd in READERS:
        code, _, err = cli(*[c.format(out=out) for c in cmd])
        assert code == 0, (cmd, err)
    _once_each(out, ids)


def test_a_moves_part_with_32_bytes_overwritten_is_refused_by_the_readers_of_moves(
        fresh: tuple[Path, Path, set[str]], tmp_path: Path) -> None:
    """Bytes of a moves part overwritten inside a data page that still decodes: its SHA-256 differs from
    the batch's digest record; query (which reads moves) refuses the log naming the part."""
    _, out, _ = fresh
    victim = _victim(out)
    moves = out / "moves" / victim.parent.name / victim.name
    meta = pq.read_metadata(moves)
    col = meta.row_group(0).column(meta.schema.to_arrow_schema().get_field_index("think_us"))
    at = col.data_page_offset + col.total_compressed_size - 32
    data = bytearray(moves.read_bytes())
    data[at:at + 32] = bytes(a ^ 0x5A for a in data[at:at + 32])
    moves.write_bytes(bytes(data))
    for cmd in (["query", str(out), "SELECT count(*) FROM moves"],
                ["dashboard", str(out), "--no-verify", "-o", str(tmp_path / "r.html")]):
        code, _, err = cli(*cmd)
        assert code == 2 and err.count("\n") == 1 and str(moves) in err and "SHA-256" in err, (cmd, err)
    _dashboard_says_so(out, tmp_path, str(moves))
    code, stdout, err = cli("tournament", "repair", str(out))
    assert code == 0 and f"quarantined {victim}" in stdout, stdout + err


def test_a_deleted_digest_record_is_reported(fresh: tuple[Path, Path, set[str]], tmp_path: Path) -> None:
    from tournaments.paths import digest_path
    _, out, _ = fresh
    victim = _victim(out)
    record = digest_path(victim)
    record.unlink()
    _refused_by_readers(out, tmp_path, str(record))
    code, _, err = cli("tournament", "status", str(out))
    assert code == 1 and str(record) in err and "missing digest record" in err
    code, stdout, err = cli("tournament", "repair", str(out))
    assert code == 0 and f"quarantined {victim}" in stdout and "missing digest record" in stdout


def test_repair_on_a_corrupt_manifest_names_the_file(fresh: tuple[Path, Path, set[str]]) -> None:
    _, out, _ = fresh
    manifest = out / "_tournaments" / "t.json"
    manifest.write_text("{not json")
    code, _, err = cli("tournament", "repair", str(out))
    assert code == 2 and err.count("\n") == 1 and str(manifest) in err, err
