"""cardarena query: every format of every column, and --out errors as one line (no tracebacks)."""
from __future__ import annotations

import csv
import io
import json
from pathlib import Path

import pytest

from ..test_bad_paths import run


def cardarena(capsys: pytest.CaptureFixture[str], *args: str) -> tuple[int, str, str]:
    """``cardarena ARGS`` through ``dashboards.app.main`` in this process: (exit code, stdout, stderr)."""
    return run(capsys, list(args))

LISTS = "SELECT match_id, bots, scores, ranking, sheet, faults FROM matches ORDER BY match_id"


def _rows_of_csv(text: str) -> list[dict[str, object]]:
    return [{k: v if k == "match_id" else json.loads(v) for k, v in r.items()}
            for r in csv.DictReader(io.StringIO(text))]


def test_query_csv_of_list_columns_is_json_text(capsys: pytest.CaptureFixture[str], clean_log: Path,
                                                tmp_path: Path) -> None:
    """List and struct columns (bots, scores, ranking, sheet, faults) are JSON text in CSV cells, equal
    to what --format json gives, on stdout and in --out."""
    code, text, err = cardarena(capsys, "query", str(clean_log), LISTS, "--format", "csv")
    assert code == 0 and "Traceback" not in err, err
    want = json.loads(cardarena(capsys, "query", str(clean_log), LISTS, "--format", "json")[1])
    assert want and _rows_of_csv(text) == want
    out = tmp_path / "m.csv"
    code, _, err = cardarena(capsys, "query", str(clean_log), LISTS, "--format", "csv", "--out", str(out))
    assert code == 0, err
    assert _rows_of_csv(out.read_text()) == want
    code, text, _ = cardarena(capsys, "query", str(clean_log),
                              "SELECT {'seat': 1, 'kind': 'crash'} AS f, [[1, 2]] AS l", "--format", "csv")
    assert _rows_of_csv(text) == [{"f": {"seat": 1, "kind": "crash"}, "l": [[1, 2]]}]


def test_query_out_to_a_missing_folder_or_a_folder_is_one_line(capsys: pytest.CaptureFixture[str],
                                                               clean_log: Path, tmp_path: Path) -> None:
    for fmt in ("csv", "json", "table", "parquet"):
        for target, needle in ((tmp_path / "nope" / "x.out", "no such folder"), (tmp_path, "is a folder")):
            code, _, err = cardarena(capsys, "query", str(clean_log), "SELECT 1 AS x", "--format", fmt,
                                     "--out", str(target))
            assert code == 2 and "Traceback" not in err, err
            assert len(err.strip().splitlines()) == 1 and needle in err, err
    assert not (tmp_path / "nope").exists(), "a missing folder is not created silently"


def test_query_sql_error_is_one_line(capsys: pytest.CaptureFixture[str], clean_log: Path) -> None:
    code, _, err = cardarena(capsys, "query", str(clean_log), "SELEC nonsense FROM")
    assert code == 2 and len(err.strip().splitlines()) == 1 and "SQL error" in err, err


def test_query_json_flag_is_the_json_format(capsys: pytest.CaptureFixture[str], clean_log: Path) -> None:
    """`query --json`, as every data command takes it, prints what `--format json` prints."""
    code, text, err = cardarena(capsys, "query", str(clean_log), LISTS, "--json")
    assert code == 0, err
    assert json.loads(text) == json.loads(cardarena(capsys, "query", str(clean_log), LISTS,
                                                    "--format", "json")[1])
    code, _, err = cardarena(capsys, "query", str(clean_log), LISTS, "--json", "--format", "csv")
    assert code == 2 and len(err.strip().splitlines()) == 1, err


def test_query_table_never_breaks_a_number_across_lines(capsys: pytest.CaptureFixture[str],
                                                        clean_log: Path,
                                                        monkeypatch: pytest.MonkeyPatch) -> None:
    """A 19-digit seed stays on one line in a narrow terminal (it folded across four before)."""
    monkeypatch.setenv("COLUMNS", "60")
    sql = ("SELECT match_id, 9223372036854775807 AS seed, 'a long text that may fold' AS note, "
           "1234567890123.5 AS x FROM matches LIMIT 2")
    code, text, err = cardarena(capsys, "query", str(clean_log), sql)
    assert code == 0, err
    assert text.count("9223372036854775807") == 2 and text.count("1234567890123.5") == 2, text


def test_query_game_reads_and_checks_only_that_games_files(capsys: pytest.CaptureFixture[str],
                                                         log_copy: Path) -> None:
    """`query --game G` (issue 25 §4: one game of a large log reads that game's files alone): the answer
    is the whole log's answer for game G, another game's damaged part is neither read nor checked, and
    a game the log does not hold is one line, exit 2."""
    sql = ("SELECT game, count(*) AS n, sum(think_us) AS t FROM moves WHERE bot = 'first' "
           "GROUP BY game ORDER BY game")
    games = ["hartenjagen", "manillen"]
    whole = json.loads(cardarena(capsys, "query", str(log_copy), sql, "--json")[1])
    code, text, err = cardarena(capsys, "query", str(log_copy), sql, "--json", *[x for g in games
                                                                                for x in ("--game", g)])
    assert code == 0, err
    assert json.loads(text) == [r for r in whole if r["game"] in games] and len(json.loads(text)) == 2
    other = sorted((log_copy / "moves" / "game=tonk").glob("*.parquet"))[0]
    other.write_bytes(other.read_bytes()[:100])   # damaged: a whole-log question is refused
    code, _, err = cardarena(capsys, "query", str(log_copy), sql, "--json")
    assert code == 2 and "game=tonk" in err, err
    code, text, err = cardarena(capsys, "query", str(log_copy), sql, "--json", "--game", "hartenjagen")
    assert code == 0, err
    assert json.loads(text) == [r for r in whole if r["game"] == "hartenjagen"]
    code, _, err = cardarena(capsys, "query", str(log_copy), sql, "--game", "nosuchgame")
    assert code == 2 and len(err.strip().splitlines()) == 1 and "no logged match of game nosuchgame" in err
