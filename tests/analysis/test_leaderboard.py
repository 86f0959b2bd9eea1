"""One honest headline ranking (issue 14 item 11): the same score and interval on every surface, an
overall board that ranks entrants only over games each of them played, per-game tables that say
whether a lower score is better."""
from __future__ import annotations

import hashlib
import json
import random
from pathlib import Path
from typing import Any

import pytest

from engine import GAMES, game_class, load_game
from tournaments.analysis.leaderboard import Result, headlines, seat_scores
from tournaments.ledger import write_manifest
from tournaments.log import BatchLog, commit_batch

from ..test_bad_paths import run
from ..tournaments.conftest import raw_spec, toml_of
from .test_ratings import _pl_order

CORE = ["strong", "mid-a", "mid-b", "weak"]
THETA = {"strong": 1.0, "mid-a": 0.0, "mid-b": 0.0, "weak": -1.0, "hearts-only": 3.0}


def _write(root: Path, game: str, names: list[str], groups: int, seed: int, teams: bool) -> None:
    """Planted matches of ``game``: each group is the 4 rotations of 4 of ``names``; placements drawn
    from Plackett-Luce with the strengths THETA (a team's utility is its members' sum)."""
    rng = random.Random(seed)
    log = BatchLog("t", game)
    for g in range(groups):
        arrangement = rng.sample(names, 4)
        gid = hashlib.sha256(f"{game}/{g}".encode()).hexdigest()[:16]
        for rot in range(4):
            bots = [arrangement[(s - rot) % 4] for s in range(4)]
            if teams:
                order = _pl_order(rng, [THETA[bots[0]] + THETA[bots[2]], THETA[bots[1]] + THETA[bots[3]]])
                ranking, team_of = [1 + order.index(s % 2) for s in range(4)], [0, 1, 0, 1]
            else:
                order = _pl_order(rng, [THETA[b] for b in bots])
                ranking, team_of = [1 + order.index(s) for s in range(4)], [0, 1, 2, 3]
            mid = hashlib.sha256(f"{gid}/{rot}".encode()).hexdigest()[:16]
            log.add_match(match_id=mid, group_id=gid, options="{}", seed=g, players=4, max_deals=1,
                          board=g, rotation=rot, bots=bots, bot_refs=bots, teams=team_of,
                          scores=[float(r) for r in ranking], ranking=ranking, engine_ranking=ranking,
                          deals_played=1, sheet=[[float(r) for r in ranking]], moves=[], events=[], faults=[],
                          duration_s=0.0, finished_at_ms=0, worker="test")
    commit_batch(root, log, fsync=False)


@pytest.fixture(scope="module")
def met(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """A tournament ``t`` of Hartenjagen (the four core entrants and ``hearts-only``, by far the
    strongest) and Manillen (only the four core entrants): hearts-only entered one game only."""
    root = tmp_path_factory.mktemp("met") / "t"
    _write(root, "hartenjagen", [*CORE, "hearts-only"], groups=40, seed=1, teams=False)
    _write(root, "manillen", CORE, groups=40, seed=2, teams=True)
    write_manifest(root, "t", {"tournament": "t", "total_matches": 320,
                               "games": [{"id": "hartenjagen"}, {"id": "manillen"}],
                               "bots": {b: {"bot": "random"} for b in THETA}})
    return root


Surfaces = tuple[list[dict[str, Any]], dict[str, dict[str, Any]], Any]


def _surfaces(capsys: pytest.CaptureFixture[str], root: Path) -> Surfaces:
    """``tournament leaderboard --json``, ``rank --json`` (by scope) and the dashboard's analysis."""
    from dashboards.report_data import Analysis, read_logs
    code, text, err = run(capsys, ["tournament", "leaderboard", str(root), "--json"])
    assert code == 0, err
    cli_rows = json.loads(text)
    code, text, err = run(capsys, ["rank", str(root), "--json"])
    assert code == 0, err
    boards = {b["scope"]: b for b in json.loads(text)}
    return cli_rows, boards, Analysis(read_logs(root))


@pytest.fixture(scope="module")
def page(met: Path) -> str:
    """The dashboard of ``met``."""
    from dashboards.report import build_report
    return build_report(met, met.parent / "r.html", verify=False, bootstrap=20)[0].read_text()


def test_headline_is_the_same_on_every_surface(capsys: pytest.CaptureFixture[str], met: Path) -> None:
    cli_rows, boards, an = _surfaces(capsys, met)
    dash = {None: an.leaderboard(None), **{g: an.leaderboard(g) for g in ("hartenjagen", "manillen")}}
    ranked = [r for r in cli_rows if r["ranked"]]
    # overall: one order, one score and one interval on the CLI board, in rank and in the dashboard
    assert [r["bot"] for r in ranked] == [e["name"] for e in boards["overall"]["entrants"]] == [
        r["bot"] for r in dash[None]]
    for r, e, d in zip(ranked, boards["overall"]["entrants"], dash[None], strict=True):
        assert r["score"] == e["score"] == d["score"]
        assert (r["lo"], r["hi"]) == (e["score_lo"], e["score_hi"]) == (d["score_lo"], d["score_hi"])
        assert r["tied"] == e["tied_with_next"] == d["tied"]
    # per game: the CLI's per-game scores are the games' boards in rank and the dashboard
    for g in ("hartenjagen", "manillen"):
        rank_g = {e["name"]: e["score"] for e in boards[g]["entrants"]}
        dash_g = {d["bot"]: d["score"] for d in dash[g]}
        cli_g = {r["bot"]: r["games"][g] for r in cli_rows if g in r["games"]}
        assert rank_g == dash_g and set(cli_g) == set(rank_g)
        assert all(cli_g[b] == pytest.approx(rank_g[b], abs=1e-4) for b in rank_g)
    # and the score is what it says: the share of opponents placed below, from the raw matches
    import pyarrow.parquet as pq
    m = pq.read_table(met / "matches").to_pylist()
    hj = [x for x in m if x["game"] == "hartenjagen"]
    share = [s for x in hj for b, s in zip(x["bots"], seat_scores(x["bots"], x["teams"], x["ranking"]),
                                            strict=True) if b == "weak"]
    assert sum(share) / len(share) == pytest.approx(next(e["score"] for e in boards["hartenjagen"]["entrants"]
                                                         if e["name"] == "weak"))


def test_overall_ranks_entrants_only_where_they_met(capsys: pytest.CaptureFixture[str], met: Path,
                                                    page: str) -> None:
    cli_rows, boards, an = _surfaces(capsys, met)
    # hearts-only tops the one game it entered ...
    assert boards["hartenjagen"]["entrants"][0]["name"] == "hearts-only"
    # ... but is not on the overall board, which ranks the four over both games and says so
    ov = boards["overall"]
    assert ov["entrants"][0]["name"] == "strong" and len(ov["entrants"]) == 4
    assert ov["games"] == ["hartenjagen", "manillen"]
    assert [a["bot"] for a in ov["apart"]] == ["hearts-only"] and "entered only: hartenjagen" in ov["note"]
    assert {r["bot"]: r["ranked"] for r in cli_rows}["hearts-only"] is False
    assert cli_rows[-1]["bot"] == "hearts-only" and cli_rows[-1]["score"] is None
    assert "hearts-only" not in {r["bot"] for r in an.leaderboard(None)}
    code, text, _ = run(capsys, ["tournament", "leaderboard", str(met)])
    assert code == 0 and "entered only: hartenjagen" in text and "ranked over 2 game(s)" in text
    code, text, _ = run(capsys, ["rank", str(met), "--bootstrap", "20"])
    assert code == 0 and "entered only: hartenjagen" in text
    assert "not ranked overall" in page and "entered only: hartenjagen" in page
    # once per board that has the list, not again after the board's own note
    overall = page.split("entered only: hartenjagen")
    assert len(overall) == 2, "the report lists the entrants not ranked overall more than once"


def test_per_game_tables_say_whether_a_lower_score_is_better(capsys: pytest.CaptureFixture[str],
                                                              met: Path, page: str) -> None:
    code, text, _ = run(capsys, ["tournament", "leaderboard", str(met)])
    assert code == 0
    lines = {ln.split()[1]: ln for ln in text.splitlines() if ln.startswith("│ ") and len(ln.split()) > 3}
    assert "low wins" in lines["hartenjagen"] and "high wins" in lines["manillen"]
    code, text, _ = run(capsys, ["rank", str(met), "--game", "hartenjagen", "--bootstrap", "20"])
    assert code == 0 and "hartenjagen's score sheet: lower is better" in text
    code, text, _ = run(capsys, ["rank", str(met), "--game", "manillen", "--bootstrap", "20"])
    assert code == 0 and "manillen's score sheet: higher is better" in text
    assert "mean points (lower is better)" in page and "mean points (higher is better)" in page


@pytest.mark.parametrize("game", GAMES)
def test_lower_score_wins_declaration_agrees_with_the_ranking(game: str) -> None:
    """``Game.lower_score_wins`` is the direction in which the game ranks its own score sheet."""
    low = game_class(game).lower_score_wins
    seen = 0
    for seed in range(3):
        st = load_game(game).new_match(seed=seed, max_deals=1)
        rng = random.Random(seed)
        while not st.is_over():
            st.apply(rng.choice(st.legal_actions()))
        sc, rk = st.scores(), st.ranking()
        for i in range(len(sc)):
            for j in range(len(sc)):
                if rk[i] < rk[j] and sc[i] != sc[j]:
                    assert (sc[i] < sc[j]) == low, (game, sc, rk)
                    seen += 1
    assert seen or game == "zenuwen", f"{game}: no decided pair in 3 matches"


def test_seat_scores_ties_half_partners_are_not_opponents() -> None:
    assert seat_scores(["a", "b", "c", "d"], [0, 1, 2, 3], [1, 2, 2, 4]) == [1.0, 0.5, 0.5, 0.0]
    assert seat_scores(["a", "b", "c", "d"], [0, 1, 0, 1], [1, 2, 1, 2]) == [1.0, 0.0, 1.0, 0.0]
    assert seat_scores(["a", "b", "c", "d"], [0, 1, 0, 1], [1, 1, 1, 1]) == [0.5] * 4


def test_headline_ignores_match_order_and_gives_no_interval_from_one_board() -> None:
    rng = random.Random(4)
    rs = []
    for g in range(12):
        bots = rng.sample(["a", "b", "c", "d", "e"], 3)
        for rot in range(3):
            rs.append(Result("genive", f"g{g}", bots[rot:] + bots[:rot], [0, 1, 2], rng.sample([1, 2, 3], 3)))
    one = headlines(rs)["genive"]
    shuffled = rs[:]
    rng.shuffle(shuffled)
    assert headlines(shuffled)["genive"].to_json() == one.to_json()
    assert all(s.lo is not None and s.lo <= s.score <= s.hi for s in one.standings)
    single = headlines([r for r in rs if r.group_id == "g0"])["genive"]
    assert all(s.lo is None and s.hi is None for s in single.standings)


def test_tournament_run_board_is_the_leaderboard(capsys: pytest.CaptureFixture[str],
                                                 tmp_path: Path) -> None:
    spec = tmp_path / "s.toml"
    spec.write_text(toml_of(raw_spec(tmp_path, matches_per_seating=2)))
    code, text, err = run(capsys, ["tournament", "run", str(spec), "--inline", "--json"])
    assert code == 0, err
    board = json.loads(text)["leaderboard"]
    code, text, err = run(capsys, ["tournament", "leaderboard", str(tmp_path / "out"), "--json"])
    assert code == 0 and json.loads(text) == board
    code, text, err = run(capsys, ["rank", str(tmp_path / "out"), "--json"])
    (b,) = json.loads(text)
    assert [(e["name"], e["score"], e["score_lo"], e["score_hi"]) for e in b["entrants"]] == [
        (r["bot"], r["score"], r["lo"], r["hi"]) for r in board]


# ---------------------------------------------------------------- entrants who specialise (issue 26 item 6)
def test_specialists_get_per_game_champions_first(capsys: pytest.CaptureFixture[str], met: Path,
                                                  page: str) -> None:
    """hearts-only entered one game: each game's first place leads every surface, before the boards."""
    _, boards, _ = _surfaces(capsys, met)
    ov = boards["overall"]
    assert ov["specialised"] is True
    champ = {c["game"]: c for c in ov["champions"]}
    assert champ["hartenjagen"]["leaders"][0] == "hearts-only"
    assert champ["hartenjagen"]["score"] == boards["hartenjagen"]["entrants"][0]["score"]
    assert champ["manillen"]["leaders"][0] == "strong" and champ["manillen"]["entrants"] == 4
    code, text, _ = run(capsys, ["rank", str(met), "--bootstrap", "20"])
    assert code == 0 and text.index("per-game champions") < text.index("hartenjagen:")
    code, text, _ = run(capsys, ["tournament", "leaderboard", str(met)])
    assert code == 0 and text.index("per-game champions") < text.index("leaderboard: t")
    assert 'class="tab active" data-tab="lb-champions"' in page
    assert page.count('class="pane active"') == 1


def test_champions_hold_every_entrant_whose_interval_allows_first() -> None:
    """Two entrants of one strength share first place; a settled first stands alone."""
    from tournaments.analysis.leaderboard import champions
    rng = random.Random(3)
    results = []
    for g in range(30):
        for rot in range(4):
            bots = [["a", "b", "c", "d"][(s - rot) % 4] for s in range(4)]
            order = _pl_order(rng, [{"a": 0.0, "b": 0.0, "c": -3.0, "d": -3.0}[b] for b in bots])
            ranking = [1 + order.index(s) for s in range(4)]
            results.append(Result("hartenjagen", f"g{g}", bots, [0, 1, 2, 3], ranking))
            order = _pl_order(rng, [{"a": 4.0, "b": 0.0, "c": -3.0, "d": -3.0}[b] for b in bots])
            ranking = [1 + order.index(s) for s in range(4)]
            results.append(Result("genive", f"h{g}", bots, [0, 1, 2, 3], ranking))
    champ = {c.game: c for c in champions(headlines(results, bootstrap=100))}
    assert sorted(champ["hartenjagen"].leaders) == ["a", "b"]
    assert champ["genive"].leaders == ["a"]


def test_pick_games_prefers_a_board_of_two_over_a_lone_entrant() -> None:
    """A lone entrant of three games covers as many cells as three entrants of one: the board that
    compares somebody wins."""
    from tournaments.analysis.leaderboard import _pick_games
    games, ranked = _pick_games({"lone": {"a", "b", "c"}, "x": {"a"}, "y": {"a"}})
    assert games == ["a"] and ranked == ["lone", "x", "y"]


def test_no_overall_board_when_entrants_never_met(capsys: pytest.CaptureFixture[str], tmp_path: Path) -> None:
    """Two games with disjoint entrants: no overall score compares them, and every surface says so."""
    from dashboards.report import build_report
    from tournaments.analysis.leaderboard import NO_OVERALL
    root = tmp_path / "t"
    _write(root, "hartenjagen", CORE, groups=6, seed=1, teams=False)
    THETA.update({"m1": 0.5, "m2": 0.0, "m3": 0.0, "m4": -0.5})
    try:
        _write(root, "manillen", ["m1", "m2", "m3", "m4"], groups=6, seed=2, teams=True)
    finally:
        for k in ("m1", "m2", "m3", "m4"):
            THETA.pop(k)
    write_manifest(root, "t", {"tournament": "t", "total_matches": 48,
                               "games": [{"id": "hartenjagen"}, {"id": "manillen"}],
                               "bots": {b: {"bot": "random"} for b in [*CORE, "m1", "m2", "m3", "m4"]}})
    code, text, _ = run(capsys, ["rank", str(root), "--bootstrap", "20"])
    assert code == 0 and " ".join(NO_OVERALL.split()[:6]) in " ".join(text.split())
    assert "per-game champions" in text
    page = build_report(root, tmp_path / "r.html", verify=False, bootstrap=20)[0].read_text()
    assert NO_OVERALL.split(";")[0] in page
