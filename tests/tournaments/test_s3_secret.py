"""The tournament secret on an object store, and a store that fails while a batch is published
(issue 27, section 6; moto's S3 server, as in test_s3.py).

- The secret is kept apart from the log (``s3://B/PREFIX.secrets/``, not under ``PREFIX/``) while the
  tournament runs, so whoever may read a running tournament's log cannot deal its remaining boards;
  the manifest holds its fingerprint from the start; the secret joins the log when it is complete.
- No temporary mirror ever holds the secret (a SIGKILLed driver left one with it), and the mirrors of
  dead processes are removed when the next one is made.
- A ``StoreError`` while publishing is one line naming the object, exit 2, and ``--resume`` finishes
  the tournament with every match once.
"""
from __future__ import annotations

import json
import os
import signal
import subprocess
import sys
import time
from pathlib import Path

import pytest

from tests.tournaments.conftest import FOUR, raw_spec, toml_of
from tests.tournaments.test_s3 import _keys, _query_rows, _spec, bucket, s3_endpoint, s3_env  # noqa: F401
from tournaments.ledger import secret_fingerprint
from tournaments.schedule import schedule

ROOT = Path(__file__).parents[2]


def _get(bucket: str, key: str) -> bytes:  # noqa: F811  (the fixture name)
    import boto3
    c = boto3.client("s3", endpoint_url=os.environ["AWS_ENDPOINT_URL"])
    return bytes(c.get_object(Bucket=bucket, Key=key)["Body"].read())


def test_s3_secret_is_apart_from_the_log_until_the_tournament_is_complete(tmp_path: Path,
                                                                          bucket: str) -> None:  # noqa: F811
    from tournaments.runners import prepare, run_tournament
    spec = _spec(tmp_path, f"s3://{bucket}/t", games=["hartenjagen"])
    p = prepare(spec)
    try:
        assert p.mirror is not None
        assert not [f for f in p.mirror.dir.rglob("*") if f.name.endswith(".secret")]
        assert not [k for k in _keys(bucket, "t/") if k.endswith(".secret")], "the log holds no secret"
        kept = _get(bucket, "t.secrets/t.secret")
        manifest = json.loads(_get(bucket, "t/_tournaments/t.json"))
        assert manifest["secret_sha256"] == secret_fingerprint(bytes.fromhex(kept.decode().strip()))
        assert p.secret == bytes.fromhex(kept.decode().strip())
    finally:
        p.release()
    s = run_tournament(spec, resume=True, executor="inline", progress=False)
    assert s.complete
    assert _get(bucket, "t/_tournaments/t.secret") == kept     # published once complete: replays check


def test_s3_log_at_a_buckets_root_is_refused_in_one_line(tmp_path: Path, bucket: str) -> None:  # noqa: F811
    from tournaments.runners import TournamentError, prepare
    with pytest.raises(TournamentError, match=r"needs a prefix .*kept apart") as e:
        prepare(_spec(tmp_path, f"s3://{bucket}"))
    assert "\n" not in str(e.value) and _keys(bucket) == []


@pytest.mark.slow
def test_s3_sigkilled_driver_leaves_no_secret_in_its_mirror_and_old_mirrors_are_swept(
        tmp_path: Path, bucket: str) -> None:  # noqa: F811
    from tournaments.store import MIRROR_PREFIX, sweep_mirrors
    raw = raw_spec(tmp_path, bots=FOUR, output=f"s3://{bucket}/t", games=["hartenjagen"],
                   matches_per_seating=4, max_deals=2)
    (tmp_path / "t.toml").write_text(toml_of(raw))
    tmp = tmp_path / "tmp"
    tmp.mkdir()
    env = {**os.environ, "CARDARENA_LEASE_TTL_S": "1", "TMPDIR": str(tmp)}
    cmd = [sys.executable, "-m", "dashboards.app", "tournament", "run", str(tmp_path / "t.toml"), "--inline"]
    proc = subprocess.Popen(cmd, env=env, stdout=subprocess.DEVNULL, stderr=subprocess.PIPE,
                            start_new_session=True, cwd=ROOT)
    deadline = time.monotonic() + 60
    while not _keys(bucket, "t/matches/") and time.monotonic() < deadline:
        time.sleep(0.05)
    os.killpg(proc.pid, signal.SIGKILL)
    proc.wait()
    secret = _get(bucket, "t.secrets/t.secret").strip()
    left = list(tmp.glob(MIRROR_PREFIX + "*"))
    assert left, "a SIGKILLed driver cannot remove its mirror"
    for f in (f for d in left for f in d.rglob("*") if f.is_file()):
        assert secret not in f.read_bytes() and not f.name.endswith(".secret"), f
    assert sweep_mirrors(str(tmp)) == left and not list(tmp.glob(MIRROR_PREFIX + "*"))
    time.sleep(1.1)
    res = subprocess.run([*cmd, "--resume"], env=env, capture_output=True, text=True, timeout=300, cwd=ROOT)
    assert res.returncode == 0, res.stderr
    ids = [r["match_id"] for r in _query_rows(f"s3://{bucket}/t")["matches"]]
    assert len(ids) == len(set(ids)) == len(list(schedule(_spec(tmp_path, f"s3://{bucket}/t",
                                                                games=["hartenjagen"], matches_per_seating=4,
                                                                max_deals=2))))


def test_s3_store_error_while_publishing_is_one_line_and_resumable(tmp_path: Path, bucket: str,  # noqa: F811
                                                                   monkeypatch: pytest.MonkeyPatch) -> None:
    """The store fails in the middle of publishing a batch (here its third copy): the run stops with
    one line naming the object and saying ``--resume``; the resume finishes with every match once."""
    from tournaments.runners import TournamentError, run_tournament
    from tournaments.store import ObjectStore, StoreError
    spec = _spec(tmp_path, f"s3://{bucket}/t", games=["hartenjagen"], matches_per_seating=2,
                 run={"batch_s": 0.01})
    real = ObjectStore.copy
    calls: list[str] = []

    def failing(self: ObjectStore, src: str, dst: str) -> None:
        calls.append(str(dst))
        if len(calls) == 7:    # the second batch, mid-publish
            raise StoreError(f"{self.where(src)}: cannot copy (the server went away)")
        real(self, src, dst)

    monkeypatch.setattr(ObjectStore, "copy", failing)
    with pytest.raises(TournamentError, match=r"the server went away.*--resume") as e:
        run_tournament(spec, executor="inline", progress=False)
    assert "\n" not in str(e.value)
    monkeypatch.setattr(ObjectStore, "copy", real)
    s = run_tournament(spec, resume=True, executor="inline", progress=False)
    assert s.complete
    ids = [r["match_id"] for r in _query_rows(f"s3://{bucket}/t")["matches"]]
    assert len(ids) == len(set(ids)) == s.total == len(list(schedule(spec)))
