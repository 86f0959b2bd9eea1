"""``cardarena tournament plan``: the dry run agrees with the run, its cost table covers every game,
and the sampled schedule balances pair meetings on random entrant counts."""
from __future__ import annotations

import itertools
import json
import random
import subprocess
import sys
from collections import Counter
from pathlib import Path
from typing import Any

import pyarrow.parquet as pq
import pytest
from typer.testing import CliRunner

from engine import GAMES, game_class
from tests.tournaments.conftest import fastest_game, raw_spec, toml_of
from tournaments.costs import COSTS
from tournaments.plan import ids_digest
from tournaments.schedule import count_arrangements, least_spread, sampled_arrangements
from tournaments.tournament_cli import app

runner = CliRunner()
SIX: list[Any] = ["random", *({"name": f"r{i}", "bot": "random"} for i in range(2, 7))]


def _spread(entrants: list[str], arrs: list[tuple[str, ...]]) -> tuple[int, int, list[int]]:
    meet = Counter(frozenset(p) for a in arrs for p in itertools.combinations(a, 2))
    vals = [meet[frozenset(p)] for p in itertools.combinations(entrants, 2)]
    appear = Counter(e for a in arrs for e in a)
    apps = [appear[e] for e in entrants]
    return max(vals) - min(vals), max(apps) - min(apps), apps


def _meetings(entrants: list[str], arrs: list[tuple[str, ...]]) -> list[int]:
    meet = Counter(frozenset(p) for a in arrs for p in itertools.combinations(a, 2))
    return [meet[frozenset(p)] for p in itertools.combinations(entrants, 2)]


def test_plan_cost_table_has_every_game() -> None:
    missing = ", ".join(sorted(set(GAMES) - set(COSTS)))
    assert not missing, f"tournaments/costs.py has no entry for {missing}: run `make regen`"
    for gid in GAMES:
        c = COSTS[gid]
        assert c["seconds_per_deal"] > 0 and c["actions_per_deal"] > 0 and c["deals_per_match"] >= 1, (
            f"tournaments/costs.py: the entry of {gid} is not a measurement: run bench/game_costs.py {gid}")


def test_sampled_meetings_balance_on_random_entrant_counts() -> None:
    r = random.Random(20261201)
    reached = feasible = 0
    for case in range(24):
        k = r.choice([2, 3, 4, 4, 5])
        teams = k == 4 and r.random() < 0.4
        n = r.randint(k + 1, 14)
        total = count_arrangements(n, k, teams)
        count = r.randint(2, min(total // 2 or 1, 40))
        ents = [f"e{i}" for i in range(n)]
        arrs = sampled_arrangements(ents, k, teams, count, random.Random(case))
        assert len(set(arrs)) == count, (n, k, teams, count)
        meet, app, apps = _spread(ents, arrs)
        assert app <= 1, (n, k, teams, count)
        bound = least_spread(n, k, apps)
        assert meet <= max(bound, 1) + 1, (n, k, teams, count, meet, bound)
        if bound <= 1:
            feasible += 1
            reached += meet <= 1
    assert reached >= 0.9 * feasible, (reached, feasible)


@pytest.mark.parametrize("teams", [False, True])
def test_sampled_twelve_entrants_every_pair_meets_within_one(teams: bool) -> None:
    """The issue's case: 12 entrants at tables of 4 (21 of 66 pairs never met, one pair 3 times)."""
    ents = [f"b{i:02d}" for i in range(12)]
    for count in (9, 10, 12, 30, 45):
        arrs = sampled_arrangements(ents, 4, teams, count, random.Random(count))
        meet, app, apps = _spread(ents, arrs)
        # 10 tables: 4 entrants sit at 4 of them, 12 meetings among 11 others: one pair meets twice
        assert meet <= max(1, least_spread(12, 4, apps)) and app <= 1, (count, meet, app)
        assert count < 11 or not any(c == 0 for c in _meetings(ents, arrs)), count


def test_plan_and_run_agree_on_the_schedule(tmp_path: Path) -> None:
    gid = fastest_game()
    raw = raw_spec(tmp_path, bots=SIX, games=[gid], schedule={"mode": "sampled", "seatings": 4})
    f = tmp_path / "s.toml"
    f.write_text(toml_of(raw))
    res = runner.invoke(app, ["plan", str(f), "--json", "--cpus", "2"])
    assert res.exit_code == 0, res.output
    rep = json.loads(res.output)
    n = game_class(gid).default_players
    (g,) = rep["games"]
    assert g["seatings"] == 4 and g["matches"] == 4 * n == rep["total_matches"]
    assert rep["estimate"]["cpus"] == 2 and rep["estimate"]["cpu_seconds"] > 0
    ran = runner.invoke(app, ["run", str(f), "--inline", "--json"])
    assert ran.exit_code == 0, ran.output
    rows = pq.read_table(tmp_path / "out" / "matches", columns=["match_id", "bots"]).to_pylist()
    assert ids_digest([r["match_id"] for r in rows]) == rep["match_ids_sha256"]
    together: Counter[frozenset[str]] = Counter()
    played: Counter[str] = Counter()
    for r in rows:
        played.update(r["bots"])
        together.update(frozenset(p) for p in itertools.combinations(r["bots"], 2))
    for e in rep["entrants"]:
        assert e["matches"] == played[e["entrant"]]
        assert all(v == together[frozenset((e["entrant"], o))] for o, v in e["meetings"].items())


def test_plan_text_names_sizes_meetings_and_estimate(tmp_path: Path) -> None:
    f = tmp_path / "s.toml"
    f.write_text(toml_of(raw_spec(tmp_path, bots=SIX)))
    res = runner.invoke(app, ["plan", str(f)])
    assert res.exit_code == 0, res.output
    for needle in ("schedule", "meetings", "entrants", "estimate, on", "5 of 5"):
        assert needle in res.stdout, needle


@pytest.mark.parametrize("address, runner_name", [(None, "local"), ("127.0.0.1:6379", "ray")])
def test_plan_estimate_names_the_runner_it_assumes_and_its_start_up(tmp_path: Path, address: str | None,
                                                                    runner_name: str) -> None:
    from tournaments.plan import LOCAL_START_S, MATCH_OVERHEAD_S, RAY_START_S
    raw = raw_spec(tmp_path, bots=SIX) | ({"address": address} if address else {})
    f = tmp_path / "s.toml"
    f.write_text(toml_of(raw))
    rep = json.loads(runner.invoke(app, ["plan", str(f), "--json", "--cpus", "1"]).output)
    est = rep["estimate"]
    assert est["runner"] == runner_name
    assert est["start_s"] == list(RAY_START_S if runner_name == "ray" else LOCAL_START_S)
    assert est["thinking_bots"] == []      # six random bots: the cost table's own speed
    assert est["cpu_seconds"] >= round(rep["total_matches"] * MATCH_OVERHEAD_S, 3)   # per-match overhead
    text = runner.invoke(app, ["plan", str(f), "--cpus", "1"]).stdout
    assert ("on Ray" if runner_name == "ray" else "on the local pool") in " ".join(text.split())


def test_plan_estimate_counts_the_builtin_bots_thinking(tmp_path: Path) -> None:
    """Issue 26 item 8: greedy's and ismcts's thinking (at its iterations) and the sandbox's round trip
    are in the estimate, from the cost table; only a submitted bot's own thinking is not."""
    from tournaments.costs import COSTS
    from tournaments.plan import SANDBOX_S_PER_MOVE

    def plan(bots: list[Any], **extra: Any) -> dict[str, Any]:
        f = tmp_path / "s.toml"
        f.write_text(toml_of(raw_spec(tmp_path, bots=bots, games=["hartenjagen"], **extra)))
        res = runner.invoke(app, ["plan", str(f), "--json"])
        assert res.exit_code == 0, res.output
        return dict(json.loads(res.output))

    base = ["random", {"name": "r2", "bot": "random"}, {"name": "r3", "bot": "random"}]
    randoms = plan([*base, {"name": "r4", "bot": "random"}])
    assert randoms["estimate"]["thinking_cpu_seconds"] == 0 and randoms["estimate"]["thinking_bots"] == []
    c = COSTS["hartenjagen"]
    (g,) = randoms["games"]
    assert g["moves"] == pytest.approx(g["matches"] * g["deals_per_match"] * c["actions_per_deal"], abs=1)
    # with a player that goes out, a deal lasts as long as the table's deals with greedy in one seat
    own_moves = g["matches"] * g["deals_per_match"] * c["skilled_actions_per_deal"] / 4   # one seat of four
    for its in (10, 40):
        rep = plan([*base, {"name": "mc", "bot": "ismcts", "options": {"iterations": its}}])
        want = own_moves * (c["ismcts_s_per_move"] + its * c["ismcts_s_per_iteration"])
        assert rep["estimate"]["thinking_cpu_seconds"] == pytest.approx(want, rel=1e-3, abs=1.5e-3)
        assert rep["games"][0]["moves"] == pytest.approx(4 * own_moves, abs=1)
        assert rep["estimate"]["thinking_bots"] == []
    rep = plan([*base, "greedy"], limits={"sandbox_builtins": True})
    want = 4 * own_moves * SANDBOX_S_PER_MOVE + own_moves * c["greedy_s_per_move"]
    assert rep["estimate"]["thinking_cpu_seconds"] == pytest.approx(want, rel=1e-3, abs=1.5e-3)
    text = " ".join(runner.invoke(app, ["plan", str(tmp_path / "s.toml")]).stdout.split())
    assert "of the built-in bots' thinking" in text and "Not counted" not in text


@pytest.mark.parametrize("body, needle", [
    (None, "not found"),
    ("seed = [", "not valid TOML"),
    ('bots = ["random"]\ngames = ["hartenjagen"]', "seats"),
    ('bots = ["random", "greedy", "ismcts", "mystery@3"]', "bots[3]: unknown bot 'mystery@3'"),
])
def test_plan_bad_spec_one_line_exit_2(tmp_path: Path, body: str | None, needle: str) -> None:
    f = tmp_path / "bad.toml"
    if body is not None:
        f.write_text(body + "\n")
    res = runner.invoke(app, ["plan", str(f)])
    assert res.exit_code == 2 and needle in res.stderr, res.output
    assert len(res.stderr.strip().splitlines()) == 1 and "Traceback" not in res.output


def test_plan_bad_spec_through_the_installed_command(tmp_path: Path) -> None:
    res = subprocess.run([sys.executable, "-m", "dashboards.app", "tournament", "plan",
                          str(tmp_path / "none.toml")], capture_output=True, text=True, timeout=60)
    assert res.returncode == 2 and res.stderr.count("\n") == 1 and "not found" in res.stderr
