"""The dashboard report: its sections from real tournament logs, the viewer's embedded replay, the
sampling of matches, bad input.  (The real-browser test is test_browser.py.)"""
from __future__ import annotations

import base64
import json
import re
import zlib
from pathlib import Path
from typing import Any

import pyarrow as pa
import pyarrow.parquet as pq
import pytest

from dashboards.report import build_report
from dashboards.report_data import (
    Analysis,
    DashboardError,
    read_logs,
    replay_for_viewer,
    sample_matches,
)
from engine import load_game
from tests.dashboards.conftest import cardarena
from tests.dashboards.tourney import empty_tournament, write_matches


def embedded(page: str, script_id: str) -> Any:
    m = re.search(rf'<script type="application/json" id="{script_id}">(.*?)</script>', page, re.S)
    assert m, script_id
    return json.loads(m.group(1))


Frame = tuple[dict[str, Any], list[dict[str, Any]]]


def frames_of(match: dict[str, Any]) -> tuple[dict[str, Any], list[Frame]]:
    """Decode a viewer match as the page's script does: the body, and per frame (common, seats)."""
    body = json.loads(zlib.decompress(base64.b64decode(match["z"])))
    out = []
    common: dict[str, Any] = {}
    seats: list[dict[str, Any]] = [{} for _ in range(match["players"])]

    def apply(prev: dict[str, Any], d: list[Any]) -> dict[str, Any]:
        new = {**prev, **d[0]}
        for k in d[1] if len(d) > 1 else []:
            del new[k]
        return new
    for f in body["frames"]:
        common = apply(common, f["c"])
        seats = [apply(o, d) for o, d in zip(seats, f["s"], strict=True)]
        out.append((common, seats))
    return body, out


def replay(m: dict[str, Any]) -> Any:
    state = load_game(m["game"], **m["options"]).new_match(seed=m["seed"], players=m["players"],
                                                           max_deals=m["max_deals"])
    return state


# ------------------------------------------------------------------------------------------ sections
@pytest.fixture(scope="module")
def faulty_report(faulty_tournament: Path, tmp_path_factory: pytest.TempPathFactory) -> str:
    out = tmp_path_factory.mktemp("rep") / "faulty.html"
    path, summary = build_report(faulty_tournament, out, sample=3, verify=True, bootstrap=50)
    assert path == out and summary["viewer_matches"] == 3
    return out.read_text()


def test_report_has_every_section_and_needs_no_network(faulty_report: str) -> None:
    page = faulty_report
    for section in ("overview", "leaderboards", "faults", "coverage", "viewer"):
        assert f'<section id="{section}">' in page
    assert "@@" not in page.replace("/*@@", "").replace("@@*/", ""), "an unfilled placeholder"
    # nothing is fetched: no external script, stylesheet, image or font; the chart library is inline
    markup = re.sub(r"(<script[^>]*>).*?</script>", r"\1</script>", page, flags=re.S)
    assert not re.search(r"<(script|link|img|iframe)[^>]+(src|href)=", markup)
    assert markup.count("<script") == 4
    assert "window.vegaEmbed=" in page
    assert "default-src 'none'" in page  # the page's CSP forbids loading anything anyway


def test_faults_per_bot_with_their_reasons(faulty_tournament: Path, faulty_report: str) -> None:
    logs = read_logs(faulty_tournament)
    crashes = sum(1 for m in logs.matches for f in m["faults"] if m["bots"][f["seat"]] == "crashy")
    assert crashes > 0
    rows = re.findall(r'<tr class="fault-row" data-bot="crashy".*?</tr>', faulty_report, re.S)
    assert len(rows) == 1, "not one fault row for crashy's one bug"
    row = rows[0]
    assert re.findall(r'<td class="count">(\d+)</td>', row) == [str(crashes)]
    assert "crashy gives up on its seventh move" in row
    assert '<span class="kind crash">crash</span>' in row


def test_leaderboards_overall_and_per_game_with_intervals(faulty_tournament: Path) -> None:
    logs = read_logs(faulty_tournament)
    an = Analysis(logs, bootstrap=50)
    game = logs.matches[0]["game"]
    for scope in (None, game):
        rows = an.leaderboard(scope)
        assert {r["bot"] for r in rows} == {"random", "r2", "r3", "crashy"}
        for r in rows:
            assert r["strength_lo"] - 1e-9 <= r["strength"] <= r["strength_hi"] + 1e-9
            assert r["lo"] < r["mu"] < r["hi"]
        # crashy forfeits every match: placed last every time, it is last on the board
        assert rows[-1]["bot"] == "crashy" and rows[-1]["mean_place"] == 4
        assert rows[-1]["faults"] == rows[-1]["matches"]
    h2h = an.head_to_head(None)
    pairs = {(r["a"], r["b"]): r for r in h2h}
    for (a, b), r in pairs.items():  # both directions, complementary shares
        assert pairs[(b, a)]["share"] == pytest.approx(1 - r["share"])
    assert pairs[("random", "crashy")]["share"] == 1.0


def test_convergence_ends_at_the_leaderboard_rating(cli_tournament: Path) -> None:
    logs = read_logs(cli_tournament)
    an = Analysis(logs, bootstrap=20)
    for scope in [None, *sorted({m["game"] for m in logs.matches})]:
        board = {r["bot"]: r for r in an.leaderboard(scope)}
        conv = an.convergence(scope)
        for bot, row in board.items():
            series = [p for p in conv if p["bot"] == bot]
            assert series, (scope, bot)
            assert series[-1]["mu"] == pytest.approx(row["mu"]), (scope, bot)
            assert [p["match"] for p in series] == sorted(p["match"] for p in series)


def test_coverage_counts_every_logged_event(cli_tournament: Path) -> None:
    logs = read_logs(cli_tournament)
    rows = Analysis(logs, bootstrap=10).coverage()
    fired = {(r["game"], r["event"]): r["count"] for r in rows}
    q = "SELECT game, event, count(*) AS n FROM events GROUP BY ALL"
    logged = {(r["game"], r["event"]): r["n"] for r in logs.rows(q)}
    assert logged and all(fired[k] == n for k, n in logged.items())
    assert all(r["count"] == 0 for r in rows if (r["game"], r["event"]) not in logged)


def test_verification_status_reports_a_tampered_log(tmp_path: Path) -> None:
    root = write_matches(tmp_path / "t", "tamper", "hartenjagen", [["a", "b", "c", "d"]] * 2)
    assert 'class="status ok"' in build_report(root, tmp_path / "ok.html", sample=0)[0].read_text()
    # rewrite one match's logged scores: the replay no longer agrees
    [part] = (root / "matches").glob("game=*/*.parquet")
    t = pq.read_table(part)
    scores = t.column("scores").to_pylist()
    scores[0] = [s + 1 for s in scores[0]]
    col = pa.array(scores, t.schema.field("scores").type)
    t = t.set_column(t.schema.get_field_index("scores"), "scores", col)
    pq.write_table(t, part)
    page = build_report(root, tmp_path / "bad.html", sample=0)[0].read_text()
    assert 'class="status bad"' in page and "violation" in page
    assert "cardarena verify" in page and t.column("match_id")[0].as_py() in page


# ------------------------------------------------------------------------------------------ viewer data
def test_viewer_frames_are_each_seats_observation_after_each_move(faulty_tournament: Path) -> None:
    logs = read_logs(faulty_tournament)
    m = next(x for x in logs.matches if x["faults"])
    moves = logs.moves_of([m["match_id"]])[m["match_id"]]
    vm = replay_for_viewer(m, moves)
    body, frames = frames_of(vm)
    assert vm["error"] is None and len(frames) == len(moves) + 1
    state = replay({**m, "options": json.loads(m["options"])})
    for k, (common, seats) in enumerate(frames):
        for seat in range(state.players):
            assert {**common, **seats[seat]} == json.loads(json.dumps(state.observation(seat))), (k, seat)
        if k < len(moves):
            state.apply(moves[k]["action"])
    # the rule events sit on the frame of the move that fired them, all of them
    assert [e for _, e in body["events"]] == json.loads(json.dumps(state.events))
    for k, e in body["events"]:
        assert k == 0 or e["ply"] == k - 1
    # the logged move statuses come along: the crash, then the fallback's moves
    statuses = [mv[2] for mv in body["moves"]]
    assert "crash" in statuses and statuses[statuses.index("crash") + 1:].count("fallback") > 0
    assert body["sheet"] == state.score_sheet()


def test_viewer_says_where_a_replay_breaks(tmp_path: Path) -> None:
    root = write_matches(tmp_path / "t", "broken", "hartenjagen", [["a", "b", "c", "d"]])
    logs = read_logs(root)
    m = logs.matches[0]
    moves = logs.moves_of([m["match_id"]])[m["match_id"]]
    moves[5] = {**moves[5], "action": "play ZZ"}
    vm = replay_for_viewer(m, moves)
    assert vm["error"] and "ply 5" in vm["error"] and "'play ZZ'" in vm["error"]
    assert len(frames_of(vm)[1]) == 6


def test_viewer_shows_where_the_engine_failed(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    from engine import game_class
    root = write_matches(tmp_path / "t", "bug", "hartenjagen", [["a", "b", "c", "d"]])
    logs = read_logs(root)
    m = logs.matches[0]
    moves = logs.moves_of([m["match_id"]])[m["match_id"]]
    cls = game_class("hartenjagen").state_class
    apply = cls.apply

    def failing(self: Any, action: str) -> None:
        if len(self.history) == 4:
            raise KeyError("a bug")
        apply(self, action)
    monkeypatch.setattr(cls, "apply", failing)
    vm = replay_for_viewer(m, moves)
    assert vm["error"] and "engine failed at ply 4" in vm["error"] and "KeyError" in vm["error"]
    assert len(frames_of(vm)[1]) == 5


def test_sample_takes_every_game_faults_first_and_asked_ids(cli_tournament: Path,
                                                            faulty_tournament: Path) -> None:
    ms = read_logs(cli_tournament).matches
    games = {m["game"] for m in ms}
    pick = sample_matches(ms, 4)
    assert len(pick) == 4 and {m["game"] for m in pick} == games
    assert sample_matches(ms, 4) == pick  # deterministic
    assert len(sample_matches(ms, -1)) == len(ms) and sample_matches(ms, 0) == []
    extra = [m["match_id"] for m in ms if m not in pick][:2]
    more = sample_matches(ms, 4, include=extra)
    assert len(more) == 6 and set(extra) <= {m["match_id"] for m in more}
    with pytest.raises(DashboardError, match="no match 'nosuchmatch'"):
        sample_matches(ms, 4, include=["nosuchmatch"])
    faulty = read_logs(faulty_tournament).matches
    assert sample_matches(faulty, 1)[0]["faults"]


def test_sample_puts_faulted_matches_first_and_covers_every_entrant(cli_tournament: Path,
                                                                    faulty_tournament: Path) -> None:
    for root in (cli_tournament, faulty_tournament):
        ms = read_logs(root).matches
        for n in (4, 8, 20, -1):
            pick = sample_matches(ms, n)
            flags = [bool(m["faults"]) for m in pick]
            assert flags == sorted(flags, reverse=True), "a clean match before a faulted one"
            if n >= 8 or n < 0:
                assert {b for m in ms for b in m["bots"]} <= {b for m in pick for b in m["bots"]}
    ms = read_logs(faulty_tournament).matches
    pick = sample_matches(ms, 20)
    assert pick[0]["faults"]
    faulters = {m["bots"][f["seat"]] for m in ms for f in m["faults"] if f.get("seat") is not None}
    shown = {m["bots"][f["seat"]] for m in pick for f in m["faults"] if f.get("seat") is not None}
    assert len(shown) >= min(len(faulters), 5), "every entrant that faulted has a faulted match shown"


def test_viewer_embeds_the_sample_and_says_how_many(cli_tournament: Path, tmp_path: Path) -> None:
    total = len(read_logs(cli_tournament).matches)
    small = build_report(cli_tournament, tmp_path / "s.html", sample=2, verify=False)[0]
    big = build_report(cli_tournament, tmp_path / "b.html", sample=8, verify=False)[0]
    assert len(embedded(small.read_text(), "matches-data")) == 2
    assert len(embedded(big.read_text(), "matches-data")) == 8
    assert f"2 of {total:,} matches are included" in small.read_text()
    assert "--sample N" in small.read_text() and big.stat().st_size > small.stat().st_size


# ------------------------------------------------------------------------------------------ bad input
def nodata(page: str) -> list[str]:
    return re.findall(r'<p class="nodata">(.*?)</p>', page)


def test_empty_tournament_renders_with_explanations(tmp_path: Path) -> None:
    root = empty_tournament(tmp_path / "e")
    page = build_report(root, tmp_path / "e.html")[0].read_text()
    notes = " ".join(nodata(page))
    assert "no leaderboard" in notes and "no faults" in notes and "no rule coverage" in notes
    assert "Nothing to verify" in notes
    assert "nothing to step through" in page
    assert embedded(page, "charts-data") == {} and embedded(page, "matches-data") == []


def test_single_bot_and_single_game_render_with_explanations(tmp_path: Path) -> None:
    solo = write_matches(tmp_path / "s", "solo", "hartenjagen", [["solo"] * 4] * 2)
    page = build_report(solo, tmp_path / "s.html", verify=False)[0].read_text()
    notes = " ".join(nodata(page))
    assert "A single entrant: nobody to meet." in notes
    assert "A single entrant: there is no rating to converge." in notes
    assert page.count('<tr class="lb-row" data-bot="solo">') == 2  # overall and the game's tab
    assert "The tournament has one game, so this is its leaderboard." in page
    assert len(embedded(page, "matches-data")) == 2
    # nothing to chart but the entrant's own think time (coverage is a table per game)
    assert [k.split("-", 2)[2] for k in embedded(page, "charts-data")] == ["think-0"]
    assert "No opponent met." in notes


def test_cli_writes_the_report_and_prints_its_path(cli_tournament: Path, tmp_path: Path) -> None:
    out = tmp_path / "r.html"
    proc = cardarena("dashboard", str(cli_tournament), "-o", str(out), "--sample", "1", "--no-verify")
    assert proc.returncode == 0, proc.stderr
    assert proc.stdout.strip() == str(out.resolve()) and out.stat().st_size > 100_000


@pytest.mark.parametrize("args, needle", [
    (["/nonexistent/dir"], "no such directory"),
    (["{tmp}"], "not a tournament directory"),
    (["{t}", "--match", "nosuchmatch"], "no match 'nosuchmatch'"),
    (["{t}", "-o", "{tmp}"], "is a directory"),
    (["{t}", "-o", "{tmp}/missing/r.html"], "the folder {tmp}/missing does not exist"),
    (["{t}", "-o", "{tmp}/file/r.html"], "is a file, not a folder"),
    (["{t}", "--sample", "-5"], "--sample"),
])
def test_cli_bad_input_is_one_line(args: list[str], needle: str, cli_tournament: Path,
                                   tmp_path: Path) -> None:
    (tmp_path / "file").write_text("")
    proc = cardarena("dashboard", *[a.format(tmp=tmp_path, t=cli_tournament) for a in args])
    assert proc.returncode == 2, proc
    err = proc.stderr.strip()
    assert "Traceback" not in proc.stderr and len(err.splitlines()) == 1, proc.stderr
    assert needle.format(tmp=tmp_path) in err, err
    assert not (tmp_path / "missing").exists()  # nothing created


def test_cli_names_a_corrupted_part(tmp_path: Path) -> None:
    root = write_matches(tmp_path / "t", "c", "hartenjagen", [["a", "b", "c", "d"]])
    [part] = (root / "moves").glob("game=*/*.parquet")
    part.write_bytes(part.read_bytes()[:100])
    proc = cardarena("dashboard", str(root), "-o", str(tmp_path / "r.html"))
    assert proc.returncode == 2 and len(proc.stderr.strip().splitlines()) == 1, proc.stderr
    assert str(part) in proc.stderr and "Traceback" not in proc.stderr


# ------------------------------------------------------------------------------------------ faults, entrants
def test_normalise_reason_one_bug_at_any_move_is_one_shape() -> None:
    """The same bug with other cards, numbers, addresses, ids and suits normalises to one reason; a
    different bug (another exception, another message) does not."""
    import random

    from bots.faults import normalise_reason
    rng = random.Random(14)
    deck = [r + s for r in "23456789TJQKA" for s in "CDHS"] + ["JK", "JK=5H"]

    def illegal() -> str:
        c, d = rng.sample(deck, 2)
        legal = ", ".join(f"play {x}" for x in rng.sample(deck, rng.randint(1, 12)))
        suit = rng.choice(["hearts", "clubs", "Spades", "diamonds"])
        return (f"'play {c}': 'play {c}' is not legal now: seat {rng.randint(0, 5)} must follow {suit}, "
                f"not {d}; legal now ({rng.randint(1, 40)}): {legal}")

    def crash() -> str:
        return (f"KeyError: move {rng.randint(1, 999)} took {rng.random() * 9:.3f} s at "
                f"0x{rng.getrandbits(48):x}, match {rng.getrandbits(64):016x}\nTraceback ...\n  line "
                f"{rng.randint(1, 300)}")

    def timeout() -> str:
        return (f"no answer within {rng.uniform(0.1, 9):.3g} s (move limit 1 s + time bank "
                f"{rng.random():.2g} s left)")

    for make in (illegal, crash, timeout):
        shapes = {normalise_reason(make()) for _ in range(200)}
        assert len(shapes) == 1, shapes
    assert len({normalise_reason(x()) for x in (illegal, crash, timeout)}) == 3
    assert normalise_reason("KeyError: 'hand'") != normalise_reason("ValueError: 'hand'")


@pytest.fixture(scope="module")
def buggy_report(buggy_tournament: Path, tmp_path_factory: pytest.TempPathFactory) -> str:
    out = tmp_path_factory.mktemp("rep") / "buggy.html"
    return build_report(buggy_tournament, out, sample=4, verify=False, bootstrap=20)[0].read_text()


def test_faults_one_bug_at_random_moves_is_one_row(buggy_tournament: Path, buggy_report: str) -> None:
    """Each test bot has one bug that shows at random moves with other cards and numbers: one row per
    bot, its count every fault of that bot, its first example the earliest match and its move."""
    logs = read_logs(buggy_tournament)
    for bot, kind in (("illegal", "illegal"), ("flaky", "crash")):
        faults = [(m["match_id"], f) for m in logs.matches for f in m["faults"]
                  if m["bots"][f["seat"]] == bot]
        assert len({f["reason"] for _, f in faults}) > 1, "the bug should show with different reasons"
        assert {f["kind"] for _, f in faults} == {kind}
        rows = re.findall(rf'<tr class="fault-row" data-bot="{bot}" data-kind="{kind}">.*?</tr>',
                          buggy_report, re.S)
        assert len(rows) == 1, (bot, len(rows))
        assert re.findall(r'<td class="count">(\d+)</td>', rows[0]) == [str(len(faults))]
        first_id, first = faults[0]  # logs.matches is in the order the matches finished
        assert f'<code class="mid">{first_id}</code> move {first["ply"]}' in rows[0]
        assert f"cardarena show DIR {first_id}" in rows[0]
    assert buggy_report.count('<tr class="fault-row"') == 2


def test_entrants_show_their_options(buggy_report: str) -> None:
    row = re.search(r'<tr class="entrant" data-bot="mc">.*?</tr>', buggy_report, re.S)
    assert row and "ismcts" in row.group(0) and '<td class="opts">iterations=4</td>' in row.group(0)
    plain = re.search(r'<tr class="entrant" data-bot="random">.*?</tr>', buggy_report, re.S)
    assert plain and '<td class="opts">defaults</td>' in plain.group(0)
    # on every leaderboard, under the label
    lb = re.findall(r'<tr class="lb-row" data-bot="mc">.*?</tr>', buggy_report, re.S)
    assert len(lb) == 2 and all('<span class="opts">ismcts · iterations=4</span>' in r for r in lb)


# ------------------------------------------------------------------------------------------ cardarena show
def test_show_writes_a_one_match_viewer_page(buggy_tournament: Path, tmp_path: Path) -> None:
    logs = read_logs(buggy_tournament)
    m = next(x for x in logs.matches if x["faults"])
    out = tmp_path / "one.html"
    proc = cardarena("show", str(buggy_tournament), m["match_id"], "-o", str(out))
    assert proc.returncode == 0, proc.stderr
    assert proc.stdout.strip() == str(out.resolve())
    page = out.read_text()
    [vm] = embedded(page, "matches-data")
    assert vm["id"] == m["match_id"] and vm["nmoves"] == len(logs.moves_of([m["match_id"]])[m["match_id"]])
    assert vm["faults"] == m["faults"] and 'id="v-fault"' in page
    markup = re.sub(r"(<script[^>]*>).*?</script>", r"\1</script>", page, flags=re.S)
    assert not re.search(r"<(script|link|img|iframe)[^>]+(src|href)=", markup)



def test_show_takes_a_unique_prefix_and_writes_beside_the_logs(buggy_tournament: Path) -> None:
    from dashboards.report import build_match_page
    m = read_logs(buggy_tournament).matches[-1]
    path, summary = build_match_page(buggy_tournament, m["match_id"][:10])
    assert summary["match_id"] == m["match_id"] and path == buggy_tournament / f"match-{m['match_id']}.html"
    assert [x["id"] for x in embedded(path.read_text(), "matches-data")] == [m["match_id"]]
    path.unlink()
    with pytest.raises(DashboardError, match="no match 'ab'"):
        build_match_page(buggy_tournament, "ab")  # too short to be a prefix


@pytest.mark.parametrize("args, needle", [
    (["/nonexistent/dir", "00"], "no such directory"),
    (["{tmp}", "00"], "not a tournament directory"),
    (["{t}", "ffffffffffffffff"], "no match 'ffffffffffffffff'"),
    (["{t}", "{mid}", "-o", "{tmp}/missing/p.html"], "does not exist"),
    (["{t}", "{mid}", "-o", "{tmp}"], "is a directory"),
])
def test_show_bad_input_is_one_line(args: list[str], needle: str, buggy_tournament: Path,
                                    tmp_path: Path) -> None:
    mid = read_logs(buggy_tournament).matches[0]["match_id"]
    proc = cardarena("show", *[a.format(tmp=tmp_path, t=buggy_tournament, mid=mid) for a in args])
    assert proc.returncode == 2, proc
    err = proc.stderr.strip()
    assert "Traceback" not in proc.stderr and len(err.splitlines()) == 1, proc.stderr
    assert err.startswith("cardarena show: ") and needle in err, err
    assert not (tmp_path / "missing").exists()


def test_a_page_per_entrant_with_scores_faults_think_time_and_bank(faulty_tournament: Path,
                                                                   tmp_path: Path) -> None:
    """Issue 26 item 7: every entrant has a page; its numbers are the logs' own."""
    import statistics
    logs = read_logs(faulty_tournament)
    ents = {e["bot"]: e for e in Analysis(logs, bootstrap=20).entrants()}
    labels = {b for m in logs.matches for b in m["bots"]}
    assert set(ents) == labels
    moves = pq.read_table(faulty_tournament / "moves", columns=["bot", "status", "think_us", "match_id",
                                                                "seat"]).to_pylist()
    for bot, e in ents.items():
        own = [r["think_us"] for r in moves if r["bot"] == bot and r["status"] == "ok"]
        (t,) = e["think"]
        assert t["moves"] == len(own) and t["median_ms"] == pytest.approx(statistics.median(own) / 1000)
        assert t["max_ms"] == pytest.approx(max(own) / 1000)
        assert e["matches"] == sum(1 for m in logs.matches if bot in m["bots"])
        n_faults = sum(1 for m in logs.matches for f in m["faults"] if m["bots"][f["seat"]] == bot)
        assert len(e["faults"]) == n_faults
        assert e["bank"]["seats"] == len({(r["match_id"], r["seat"]) for r in moves if r["bot"] == bot})
        # its share against one opponent, from the raw matches
        opp = e["opponents"][0]
        won = n = 0.0
        for m in logs.matches:
            for i, a in enumerate(m["bots"]):
                for j, b in enumerate(m["bots"]):
                    if a == bot and b == opp["opponent"] and m["teams"][i] != m["teams"][j]:
                        r_i, r_j = m["ranking"][i], m["ranking"][j]
                        won += 1.0 if r_i < r_j else 0.5 if r_i == r_j else 0.0
                        n += 1
        assert opp["n"] == n and opp["share"] == pytest.approx(won / n)
    assert ents["crashy"]["faults"] and ents["crashy"]["games"][0]["rank"].endswith("4")
    page = build_report(faulty_tournament, tmp_path / "r.html", verify=False, bootstrap=20)[0].read_text()
    panes = re.findall(r'<div class="pane( active)? entrant" id="(ent-\d+)" data-bot="([^"]+)">', page)
    assert sorted(p[2] for p in panes) == sorted(labels) and sum(1 for p in panes if p[0]) == 1
    crashy = re.split(r'id="ent-\d+" data-bot="crashy">', page)[1].split('<div class="pane', 1)[0]
    viewer = {m["id"] for m in embedded(page, "matches-data")}
    linked = set(re.findall(r'class="to-fault" href="#viewer" data-match="([0-9a-f]+)"', crashy))
    assert linked and linked <= viewer
    assert "Time bank: drawn on in" in crashy and "Against each opponent" in crashy
