"""Submissions: versions, identical content, content of another author, quotas, states and their log."""
from __future__ import annotations

import json
from datetime import UTC, datetime, timedelta
from pathlib import Path

from typer.testing import CliRunner

from dashboards.app import app
from tests.ladder.conftest import GOOD_BOT, OTHER_BOT, bot_file, tiny_spec
from tournaments.ladder.state import LadderStore

runner = CliRunner()


def cli(*args: str) -> tuple[int, str, str]:
    res = runner.invoke(app, ["ladder", *args])
    assert "Traceback" not in res.output + res.stderr, res.output + res.stderr
    return res.exit_code, res.stdout, res.stderr


def submit(out: Path, path: Path, name: str, author: str) -> dict[str, object]:
    code, so, se = cli("submit", str(out), str(path), "--name", name, "--author", author, "--json")
    assert code == 0, se
    got: dict[str, object] = json.loads(so)
    return got


def test_versions_count_and_identical_content_is_not_a_new_version(ladder: Path, tmp_path: Path) -> None:
    a = bot_file(tmp_path, "a", GOOD_BOT)
    b = bot_file(tmp_path, "b", OTHER_BOT)
    assert submit(ladder, a, "alpha", "alice")["ref"] == "alpha@1"
    again = submit(ladder, a, "alpha", "alice")
    assert again["ref"] == "alpha@1" and again["new"] is False
    assert submit(ladder, b, "alpha", "alice")["ref"] == "alpha@2"


def test_content_registered_under_another_author_is_flagged(ladder: Path, tmp_path: Path) -> None:
    a = bot_file(tmp_path, "a", GOOD_BOT)
    submit(ladder, a, "alpha", "alice")
    got = submit(ladder, a, "beta", "bob")
    assert got["new"] is True and got["duplicate_of"] == "alpha@1"
    reasons = [c.reason for c in LadderStore(ladder).changes() if c.ref == "beta@1"]
    assert any("alpha@1" in r and "alice" in r for r in reasons)


def test_another_authors_bot_under_another_file_or_folder_name_is_flagged(ladder: Path,
                                                                          tmp_path: Path) -> None:
    """The flag is about the code, not the file's name: a renamed copy of a file, or of a package's
    folder, is flagged; the same name with other code is not."""
    submit(ladder, bot_file(tmp_path, "a", GOOD_BOT), "alpha", "alice")
    copy = bot_file(tmp_path, "lookalike", GOOD_BOT)
    assert submit(ladder, copy, "beta", "bob")["duplicate_of"] == "alpha@1"
    (tmp_path / "x").mkdir()
    assert submit(ladder, bot_file(tmp_path / "x", "a", OTHER_BOT), "gamma", "carol")["duplicate_of"] is None
    for folder in ("pkg", "renamed"):
        (tmp_path / folder).mkdir()
        (tmp_path / folder / "__init__.py").write_text(OTHER_BOT + "\n# a package\n")
    submit(ladder, tmp_path / "pkg", "delta", "dave")
    assert submit(ladder, tmp_path / "renamed", "epsilon", "erin")["duplicate_of"] == "delta@1"


def test_a_name_belongs_to_its_first_author(ladder: Path, tmp_path: Path) -> None:
    submit(ladder, bot_file(tmp_path, "a", GOOD_BOT), "alpha", "alice")
    code, _, err = cli("submit", str(ladder), str(bot_file(tmp_path, "b", OTHER_BOT)), "--name", "alpha",
                       "--author", "mallory")
    assert code == 2 and "belongs to author 'alice'" in err and err.count("\n") == 1


def test_quota_per_day_is_refused_in_one_line(tmp_path: Path) -> None:
    from tournaments.ladder.core import create_ladder
    out = tmp_path / "q"
    create_ladder(tiny_spec(quotas={"per_day": 2, "active": 9}), str(out))
    for i in range(2):
        submit(out, bot_file(tmp_path, f"v{i}", GOOD_BOT + f"\n# {i}\n"), "alpha", "alice")
    code, _, err = cli("submit", str(out), str(bot_file(tmp_path, "v9", OTHER_BOT)), "--name", "alpha",
                       "--author", "alice")
    assert code == 2 and err.startswith("cardarena ladder: quota:") and "per_day = 2" in err
    assert err.count("\n") == 1
    # another author is not held by alice's quota
    submit(out, bot_file(tmp_path, "w", OTHER_BOT), "beta", "bob")


def test_quota_per_day_counts_the_last_24_hours(tmp_path: Path) -> None:
    from bots.api import bot_source
    from tournaments.ladder.core import create_ladder
    out = tmp_path / "q"
    spec = tiny_spec(quotas={"per_day": 1, "active": 9})
    create_ladder(spec, str(out))
    store = LadderStore(out)
    t0 = datetime(2026, 1, 1, tzinfo=UTC)
    store.submit(spec, bot_source(bot_file(tmp_path, "a", GOOD_BOT)), "alpha", "alice", now=t0)
    later = t0 + timedelta(days=1, seconds=1)
    src = bot_source(bot_file(tmp_path, "b", OTHER_BOT))
    v, new, _ = store.submit(spec, src, "alpha", "alice", now=later)
    assert new and v.ref == "alpha@2"


def test_quota_active_limits_versions_waiting(tmp_path: Path) -> None:
    from tournaments.ladder.core import create_ladder
    out = tmp_path / "q"
    create_ladder(tiny_spec(quotas={"per_day": 9, "active": 1}), str(out))
    submit(out, bot_file(tmp_path, "a", GOOD_BOT), "alpha", "alice")
    code, _, err = cli("submit", str(out), str(bot_file(tmp_path, "b", OTHER_BOT)), "--name", "alpha",
                       "--author", "alice")
    assert code == 2 and "quotas.active = 1" in err and err.count("\n") == 1


def test_status_lists_versions_with_the_fields_and_reference_author(ladder: Path, tmp_path: Path) -> None:
    submit(ladder, bot_file(tmp_path, "a", GOOD_BOT), "alpha", "alice")
    code, so, _ = cli("status", str(ladder), "--json")
    assert code == 0
    data = json.loads(so)
    rows = {v["ref"]: v for v in data["versions"]}
    for v in rows.values():
        assert {"ref", "author", "state", "groups", "last_group_at"} <= set(v)
    assert rows["alpha@1"]["state"] == "validating" and rows["alpha@1"]["author"] == "alice"
    assert rows["random"]["author"] == "reference" and rows["random"]["state"] == "active"


def test_retire_logs_the_change_with_reason_and_time(ladder: Path, tmp_path: Path) -> None:
    submit(ladder, bot_file(tmp_path, "a", GOOD_BOT), "alpha", "alice")
    code, _, _ = cli("retire", str(ladder), "alpha@1")
    assert code == 0
    ch = [c for c in LadderStore(ladder).changes() if c.ref == "alpha@1"]
    assert [(c.from_state, c.to_state) for c in ch] == [(None, "validating"), ("validating", "retired")]
    assert all(c.reason and datetime.fromisoformat(c.at).tzinfo is not None for c in ch)
    code, _, err = cli("retire", str(ladder), "random")
    assert code == 2 and "reference bot" in err
    code, _, err = cli("retire", str(ladder), "nobody@3")
    assert code == 2 and "no version" in err


def test_commands_on_a_directory_without_a_ladder_exit_2(tmp_path: Path) -> None:
    for args in (["status", str(tmp_path)], ["board", str(tmp_path), "--json"], ["run", str(tmp_path),
                                                                                "--groups", "1"]):
        code, _, err = cli(*args)
        assert code == 2 and "no ladder" in err
