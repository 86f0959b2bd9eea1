"""The invariant SQL's rule tables and families: rank orders and points come from the engine's card
tables (the ``card_tables`` table / ``card_ranks`` view), family files are included and rendered per
game, every game has invariant queries, and the table-driven checks catch a tampered log."""
from __future__ import annotations

import json
import re
from pathlib import Path

import duckdb
import pyarrow as pa
import pyarrow.parquet as pq
import pytest

from engine import GAMES, load_game
from tournaments.analysis import verify as V
from tournaments.analysis.views import TournamentLog
from tournaments.log import record_digests, write_part
from tournaments.paths import sibling_part

FOLLOW_GAMES = ("manillen", "butifarra", "manille_parlee", "manille_muette", "manille_2_7", "kruisjassen",
                "schutjassen", "grevjas", "klop_bela", "klop_bela_3p", "jo_jotte")
"""Trick games whose ``<game>_follow_suit`` query catches a seat that discards a plain card while
holding the led suit."""


def _part(root: Path, table: str, game: str) -> Path:
    return sorted((root / table / f"game={game}").glob("*.parquet"))[0]


def _rows(path: Path) -> list[dict[str, object]]:
    return pq.read_table(path).to_pylist()  # type: ignore[no-any-return]


def _write(path: Path, rows: list[dict[str, object]]) -> None:
    schema = pq.read_schema(path).remove_metadata()
    write_part(path, pa.Table.from_pylist(rows, schema=schema), fsync=False)
    record_digests(sibling_part(path, "matches"))   # a forged batch, recorded as committed


def _sql_checks(root: Path, game: str) -> dict[str, set[str]]:
    """Invariant query name -> match ids it reports, for the queries of ``game`` (as run_queries runs
    them: card tables registered, setup statements, then each query)."""
    con = TournamentLog(root).connect()
    V.register_card_tables(con)
    setup, queries = V.load_queries(game)
    for stmt in setup:
        con.execute(stmt)
    out: dict[str, set[str]] = {}
    for q in queries:
        for (mid, *_) in con.execute(f"SELECT match_id FROM ({q.sql})").fetchall():
            out.setdefault(q.name, set()).add(str(mid))
    con.close()
    return out


def test_completeness_every_game_has_invariant_queries() -> None:
    """Each registered game has its queries file with at least one documented invariant, every
    queries file is a game's (or a family file, named ``_*.sql``), and every family file is used."""
    for g in GAMES:
        _, queries = V.load_queries(g)
        assert queries, (f"{g} has no invariant queries: add tournaments/analysis/queries/{g}.sql with at "
                         "least one documented query (see the others)")
        assert all(q.doc and q.name.startswith(g.replace("hartenjagen", "hearts")) for q in queries), g
    files = sorted(V.QUERIES.glob("*.sql"))
    games = {p.stem for p in files if not p.name.startswith("_")}
    assert games == set(GAMES)
    text = "\n".join(p.read_text(encoding="utf-8") for p in files)
    for fam in (p.name for p in files if p.name.startswith("_") and p.name != "_common.sql"):
        assert f"-- include: {fam}" in text, f"family file {fam} is included by no game"


def test_sql_writes_no_rank_order_or_points_table() -> None:
    """No queries file spells a rank order (``'789JQKAT'``) or a points CASE (``WHEN 'T' THEN 5``)."""
    for p in V.QUERIES.glob("*.sql"):
        text = p.read_text(encoding="utf-8")
        assert not re.search(r"'[2-9TJQKA]{5,}'", text), p.name
        assert not re.search(r"WHEN '[2-9TJQKA]' THEN \d", text), p.name


def test_card_tables_sql_holds_the_engine_orders_and_points() -> None:
    """The ``card_ranks`` view orders each game's cards as the engine declares (and as the SQL once
    spelled them: manillen 7 8 9 J Q K A 10, Kruisjas trump 7 8 10 Q K A 9 J, Klop trump 7 8 Q K 10 A 9 J)."""
    con = duckdb.connect()
    V.register_card_tables(con)

    def order(game: str, ctx: str) -> str:
        rows = con.execute("SELECT card FROM card_ranks WHERE game = ? AND card LIKE '_S' "
                           f"ORDER BY {ctx}_rank", [game]).fetchall()
        return "".join(r[0][0] for r in rows)
    assert order("manillen", "plain") == "789JQKAT"
    assert order("kruisjassen", "trump") == "78TQKA9J" and order("kruisjassen", "plain") == "789TJQKA"
    assert order("klop_bela", "trump") == "78QKTA9J" and order("klop_bela_3p", "plain") == "789JQKTA"
    assert order("hartenjagen", "plain") == "23456789TJQKA"
    assert order("honderden_3p", "plain") == "9TJQKA"
    pts = dict(con.execute("SELECT game, sum(plain_points) FROM card_ranks GROUP BY game").fetchall())
    assert pts["manillen"] == pts["butifarra"] == 60 and pts["hartenjagen"] == 26
    for g in GAMES:
        tables = load_game(g).card_tables()
        n = con.execute("SELECT count(*) FROM card_ranks WHERE game = ?", [g]).fetchone()
        assert n is not None and n[0] == len(tables.deck), g


def test_family_files_render_per_game_and_fail_clearly(tmp_path: Path,
                                                       monkeypatch: pytest.MonkeyPatch) -> None:
    """klop_bela and klop_bela_3p share one family file, rendered with their own ids and trick size;
    an unknown family file or a placeholder without a value is one clear error naming the file."""
    _, two = V.load_queries("klop_bela")
    _, three = V.load_queries("klop_bela_3p")
    assert [q.name.removeprefix("klop_bela_") for q in two] == [q.name.removeprefix("klop_bela_3p_")
                                                                 for q in three]
    assert "k // 2" in V.load_queries("klop_bela")[0][2] and "k // 3" in V.load_queries("klop_bela_3p")[0][2]
    assert all("{" not in q.sql for q in two + three)
    monkeypatch.setattr(V, "QUERIES", tmp_path)
    (tmp_path / "_fam.sql").write_text("-- invariant: {game}_x\n-- doc\nSELECT '{colour}' AS match_id\n")
    (tmp_path / "hartenjagen.sql").write_text("-- include: _fam.sql colour=red\n")
    assert V.load_queries("hartenjagen")[1][0].name == "hartenjagen_x"
    (tmp_path / "hartenjagen.sql").write_text("-- include: _fam.sql\n")
    with pytest.raises(ValueError, match=r"hartenjagen.sql: _fam.sql needs colour"):
        V.load_queries("hartenjagen")
    (tmp_path / "hartenjagen.sql").write_text("-- include: _nope.sql\n")
    with pytest.raises(ValueError, match=re.escape("'_nope.sql' is not a queries/_*.sql file")):
        V.load_queries("hartenjagen")


def _trumps(root: Path, game: str) -> dict[tuple[str, int], str]:
    """(match, deal) -> trump suit, from the `trump X` actions and the trump_turned events."""
    out: dict[tuple[str, int], str] = {}
    for r in _rows(_part(root, "moves", game)):
        a = str(r["action"])
        if a.startswith("trump ") and a[6:] in ("C", "D", "H", "S"):
            out[(str(r["match_id"]), int(r["deal"]))] = a[6:]  # type: ignore[call-overload]
    for e in _rows(_part(root, "events", game)):
        if str(e["event"]).endswith(".trump_turned"):
            out[(str(e["match_id"]), int(e["deal"]))] = json.loads(str(e["data"]))["suit"]  # type: ignore[call-overload]
    return out


def _revoke(root: Path, game: str) -> str:
    """In one match of ``game``, swap a follow with a later play of the same seat in a plain side suit:
    the seat now discards while it still holds (and later plays) the led suit.  Returns the match id."""
    path = _part(root, "moves", game)
    rows = _rows(path)
    players = {str(m["match_id"]): int(m["players"])  # type: ignore[call-overload]
               for m in _rows(_part(root, "matches", game))}
    trumps = _trumps(root, game)
    for mid in dict.fromkeys(str(r["match_id"]) for r in rows):
        n = players[mid]
        for deal in sorted({int(r["deal"]) for r in rows if r["match_id"] == mid}):  # type: ignore[call-overload]
            trump = trumps.get((mid, deal))
            plays = [r for r in rows if r["match_id"] == mid and r["deal"] == deal
                     and str(r["action"]).startswith("play ")]
            for i, r in enumerate(plays):
                led = str(plays[i - i % n]["action"])[-1]
                if i % n == 0 or str(r["action"])[-1] != led or led == trump or str(r["action"])[5] == "J":
                    continue
                for later in plays[i + 1:]:
                    s = str(later["action"])[-1]
                    if later["seat"] == r["seat"] and s not in (led, trump):
                        r["action"], later["action"] = later["action"], r["action"]
                        _write(path, rows)
                        return mid
    raise AssertionError(f"no play of {game} to swap")


@pytest.mark.parametrize("game", FOLLOW_GAMES)
def test_follow_suit_revokes_are_caught_in_every_trick_family(log_copy: Path, game: str) -> None:
    """A revoke (a plain discard while holding the led suit) is reported by the game's follow-suit
    query (its family file's, over the card tables of the game)."""
    assert _sql_checks(log_copy, game) == {}
    mid = _revoke(log_copy, game)
    assert _sql_checks(log_copy, game)[f"{game}_follow_suit"] == {mid}


def test_q1_manille_2_7_contract_points_forged_are_caught(log_copy: Path) -> None:
    """Q1: a contract event whose points are not the declarer's tricks (card points from the card
    tables, plus one a trick) is reported; so is a made contract below its target (Q1) and a score
    that the sheet does not book for the declarer (Q4)."""
    assert _sql_checks(log_copy, "manille_2_7") == {}
    path = _part(log_copy, "events", "manille_2_7")
    rows = _rows(path)
    contracts = [r for r in rows if str(r["event"]) in ("manille_2_7.contract_made",
                                                        "manille_2_7.contract_failed")]
    assert len(contracts) >= 2
    first, second = contracts[0], contracts[1]
    data = json.loads(str(first["data"]))
    data["points"] += 1
    first["data"] = json.dumps(data)
    data2 = json.loads(str(second["data"]))
    data2["score"] = data2["score"] + 1
    second["data"] = json.dumps(data2)
    _write(path, rows)
    found = _sql_checks(log_copy, "manille_2_7")
    assert first["match_id"] in found["manille_2_7_q1_contract_points"]
    assert second["match_id"] in found["manille_2_7_q4_only_the_declarer_scores"]
