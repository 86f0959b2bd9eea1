"""cardarena coverage: every card event of each logged game, with counts; never-fired flagged."""
from __future__ import annotations

import json
from pathlib import Path

import pytest

from engine import GAMES, game_class
from tournaments.analysis import coverage as coverage_mod
from tournaments.analysis import open_log
from tournaments.analysis.coverage import SOURCES, card_events, coverage, event_list
from tournaments.analysis.rules_doc import RULES_DOC, parse_rules
from tournaments.analysis.views import TournamentLog

from .conftest import cardarena

SHARED_RULES = Path(__file__).resolve().parents[3] / "shared" / "rules" / "RULES.md"
SHARED_TOOL = Path(__file__).resolve().parents[3] / "shared" / "tools" / "rules_coverage.py"


def test_shipped_rules_doc_is_the_rules_reference() -> None:
    """docs/rules.md is in the repository and is the rules reference, byte for byte."""
    assert RULES_DOC == Path(__file__).resolve().parents[2] / "docs" / "rules.md" and RULES_DOC.is_file()
    if not SHARED_RULES.is_file():
        pytest.skip(f"no rules reference beside this checkout ({SHARED_RULES}) to compare with")
    assert RULES_DOC.read_bytes() == SHARED_RULES.read_bytes(), (
        f"docs/rules.md differs from {SHARED_RULES}: copy it again")


def test_rules_doc_parser_agrees_with_the_reference_tool() -> None:
    """The project's parser reads every card as the reference's own tool does (a differential test)."""
    if not SHARED_TOOL.is_file():
        pytest.skip(f"no reference tool beside this checkout ({SHARED_TOOL})")
    import importlib.util
    spec = importlib.util.spec_from_file_location("_reference_rules_coverage", SHARED_TOOL)
    assert spec is not None and spec.loader is not None
    tool = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(tool)
    theirs = tool.parse_rules(str(RULES_DOC))
    ours = parse_rules(RULES_DOC)
    assert set(ours) == set(theirs)
    for g, card in ours.items():
        assert card.events == theirs[g]["events"] and card.decisions == theirs[g]["decisions"], g


def test_card_events_come_from_the_shipped_card_then_the_declaration() -> None:
    cards = parse_rules(RULES_DOC)
    assert "moon_shot" in cards["hartenjagen"].events
    for g in GAMES:
        el = event_list(g)
        card = cards[g].events if g in cards else []
        declared = list(game_class(g).rule_events)
        assert el.source in SOURCES and el.names
        assert list(el.names[:len(card)]) == card, "the card's events first, in its order"
        assert set(el.names) == set(card) | set(declared) and el.on_card == set(card)
        if not card:
            assert el.source == "declared only" and "declared events are its only list" in el.note, g
        assert card_events(g) == (list(el.names), el.source)


def test_declared_only_when_the_shipped_doc_is_missing(monkeypatch: pytest.MonkeyPatch,
                                                      tmp_path: Path) -> None:
    monkeypatch.setattr(coverage_mod, "RULES_DOC", tmp_path / "nope.md")
    coverage_mod._cards.cache_clear()
    event_list.cache_clear()
    try:
        el = event_list("hartenjagen")
        assert el.source == "declared only" and "nope.md is missing" in el.note
        assert list(el.names) == list(game_class("hartenjagen").rule_events)
    finally:
        coverage_mod._cards.cache_clear()
        event_list.cache_clear()


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

    from tournaments.log import record_digests, write_part
    from tournaments.paths import sibling_part
    part = sorted((log_copy / "events" / "game=geneve").glob("*.parquet"))[0]
    rows = pq.read_table(part).to_pylist()
    rows.append(dict(rows[0], event="geneve.not_on_the_card"))
    write_part(part, pa.Table.from_pylist(rows, schema=pq.read_schema(part).remove_metadata()), fsync=False)
    record_digests(sibling_part(part, "matches"))   # a forged batch, recorded as committed
    cov = coverage(TournamentLog(log_copy), "geneve")[0]
    assert cov.extra == [{"event": "geneve.not_on_the_card", "fired": 1, "matches": 1}]


def test_coverage_cli(clean_log: Path) -> None:
    proc = cardarena("coverage", str(clean_log), "--json")
    assert proc.returncode == 0, proc.stderr
    data = {c["game"]: c for c in json.loads(proc.stdout)}
    assert "hartenjagen.match_over" in data["hartenjagen"]["missing"]
    assert all(c["source"] in SOURCES for c in data.values())
    text = cardarena("coverage", str(clean_log), "--game", "hartenjagen")
    assert "NEVER FIRED" in text.stdout and "match_over" in text.stdout
    assert "(list: docs/rules.md)" in text.stdout


def test_coverage_says_when_the_declared_events_are_the_only_list(clean_log: Path) -> None:
    cards = parse_rules(RULES_DOC)
    bare = [g for g in GAMES if not (g in cards and cards[g].events)]
    if not bare:
        pytest.skip("every game's card in docs/rules.md lists its events")
    data = {c["game"]: c for c in json.loads(cardarena("coverage", str(clean_log), "--json").stdout)}
    for g in bare:
        assert data[g]["source"] == "declared only" and "its only list" in data[g]["note"], data[g]
    text = cardarena("coverage", str(clean_log), "--game", bare[0]).stdout
    assert "(list: declared only)" in text and "declared events are its only list" in text, text
