"""cardarena coverage: every card event of each logged game, with counts; never-fired flagged."""
from __future__ import annotations

import json
from pathlib import Path

import pytest

from engine import GAMES
from tournaments.analysis import open_log
from tournaments.analysis.coverage import card_events, coverage, rules_events
from tournaments.analysis.views import TournamentLog

from .conftest import cardarena


def test_card_events_come_from_the_engine_or_rules_md() -> None:
    for g in GAMES:
        names, source = card_events(g)
        assert names and source in ("engine", "RULES.md")
    parsed = rules_events()
    if not parsed:
        pytest.skip("the rules reference (shared/) is not beside this checkout")
    assert "moon_shot" in parsed["hartenjagen"]


def test_counts_match_the_events_table(clean_log: Path) -> None:
    log = open_log(clean_log)
    covs = {c.game: c for c in coverage(log)}
    assert set(covs) == set(GAMES)
    for g, c in covs.items():
        names, _ = card_events(g)
        assert [e["event"] for e in c.events] == [f"{g}.{n}" for n in names]
        for e in c.events:
            n = log.sql("SELECT count(*) AS n FROM events WHERE event = ?", [e["event"]])["n"][0]
            assert e["fired"] == n and e["missing"] == (n == 0)
    # two deals of random play never reach the end of a Hearts match to 100: match_over is flagged
    hj = covs["hartenjagen"]
    assert "hartenjagen.match_over" in hj.missing


def test_extra_events_are_listed_apart(log_copy: Path) -> None:
    import pyarrow as pa
    import pyarrow.parquet as pq

    from tournaments.log import write_part
    part = sorted((log_copy / "events" / "game=geneve").glob("*.parquet"))[0]
    rows = pq.read_table(part).to_pylist()
    rows.append(dict(rows[0], event="geneve.not_on_the_card"))
    write_part(part, pa.Table.from_pylist(rows, schema=pq.read_schema(part).remove_metadata()), fsync=False)
    cov = coverage(TournamentLog(log_copy), "geneve")[0]
    assert cov.extra == [{"event": "geneve.not_on_the_card", "fired": 1, "matches": 1}]


def test_coverage_cli(clean_log: Path) -> None:
    proc = cardarena("coverage", str(clean_log), "--json")
    assert proc.returncode == 0, proc.stderr
    data = {c["game"]: c for c in json.loads(proc.stdout)}
    assert "hartenjagen.match_over" in data["hartenjagen"]["missing"]
    text = cardarena("coverage", str(clean_log), "--game", "hartenjagen")
    assert "NEVER FIRED" in text.stdout and "hartenjagen.match_over" in text.stdout
