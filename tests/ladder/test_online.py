"""The online layer: openskill's public API only, tau set on the model, the two traps of rate()."""
from __future__ import annotations

import ast
import inspect

import pytest
from openskill.models import PlackettLuce

import tournaments.ladder.online as online
from tournaments.ladder.online import ModelDrift, OnlineRatings, Outcome, Params, group_outcome, replay


def _teams(model: PlackettLuce) -> list[list[object]]:
    return [[model.rating(mu=25.0, sigma=8.0)], [model.rating(mu=27.0, sigma=3.0)],
            [model.rating(mu=20.0, sigma=5.0)]]


def test_tau_zero_passed_to_rate_is_silently_the_models_tau() -> None:
    """The trap: rate(..., tau=0) widens sigma by the model's tau, as if tau were not given."""
    m = PlackettLuce(tau=0.5)
    trap = m.rate(_teams(m), ranks=[1.0, 2.0, 3.0], tau=0)
    same = m.rate(_teams(m), ranks=[1.0, 2.0, 3.0])
    zero = PlackettLuce(tau=0.0)
    real = zero.rate(_teams(zero), ranks=[1.0, 2.0, 3.0])
    assert [t[0].sigma for t in trap] == [t[0].sigma for t in same]
    assert [t[0].sigma for t in trap] != [t[0].sigma for t in real]


def test_online_tau_zero_is_really_zero() -> None:
    o = Outcome("g", "hartenjagen", (("a",), ("b",), ("c",)), (1, 2, 3))
    st = OnlineRatings(Params(tau=0.0))
    st.ratings = {("hartenjagen", "a"): (25.0, 8.0), ("hartenjagen", "b"): (27.0, 3.0),
                  ("hartenjagen", "c"): (20.0, 5.0)}
    st.update(o)
    zero = PlackettLuce(mu=25.0, sigma=25.0 / 3.0, beta=25.0 / 6.0, kappa=0.0001, tau=0.0)
    real = zero.rate(_teams(zero), ranks=[1.0, 2.0, 3.0])
    assert [st.get("hartenjagen", x) for x in "abc"] == [(t[0].mu, t[0].sigma) for t in real]
    assert st.get("hartenjagen", "b")[1] <= 3.0   # no widening: sigma can only fall with tau 0


def test_limit_sigma_passed_to_rate_changes_the_model_for_later_calls() -> None:
    """The trap: one rate(..., limit_sigma=True) sets it for every later call."""
    m = PlackettLuce()
    assert m.limit_sigma is False
    m.rate(_teams(m), ranks=[1.0, 2.0, 3.0], limit_sigma=True)
    assert m.limit_sigma is True


def test_online_model_settings_cannot_drift() -> None:
    st = OnlineRatings(Params())
    o = Outcome("g", "x", (("a",), ("b",)), (1, 2))
    for _ in range(5):
        st.update(o)
    assert st.model.limit_sigma is False and st.model.tau == Params().tau
    st.model.limit_sigma = True   # as a rate(..., limit_sigma=True) elsewhere would do
    with pytest.raises(ModelDrift):
        st.update(o)


def test_online_uses_the_public_api_only() -> None:
    """No private openskill function (``_compute``), and ``rate`` never gets tau or limit_sigma."""
    tree = ast.parse(inspect.getsource(online))
    for node in ast.walk(tree):
        if isinstance(node, ast.Attribute) and node.attr.startswith("_") and not node.attr.startswith("__"):
            assert node.attr in {"_rating", "_check_model", "_phi_cdf"}, node.attr
        if isinstance(node, ast.Call) and isinstance(node.func, ast.Attribute) and node.func.attr == "rate":
            assert {k.arg for k in node.keywords} == {"ranks"}


def test_units_ranked_by_summed_placement_over_rotations() -> None:
    ms = [{"bots": ["a", "b", "c"], "teams": [0, 1, 2], "ranking": [1, 2, 3]},
          {"bots": ["c", "a", "b"], "teams": [0, 1, 2], "ranking": [1, 3, 2]},
          {"bots": ["b", "c", "a"], "teams": [0, 1, 2], "ranking": [3, 2, 1]}]
    o = group_outcome("g", "x", ms)
    # a: 1+3+1 = 5, b: 2+2+3 = 7, c: 3+1+2 = 6
    assert dict(zip([u[0] for u in o.units], o.ranks, strict=True)) == {"a": 1, "b": 3, "c": 2}


def test_partners_are_one_unit_and_ties_share_a_rank() -> None:
    ms = [{"bots": ["a", "b", "c", "d"], "teams": [0, 1, 0, 1], "ranking": [1, 2, 1, 2]},
          {"bots": ["d", "a", "b", "c"], "teams": [0, 1, 0, 1], "ranking": [1, 2, 1, 2]}]
    o = group_outcome("g", "x", ms)
    assert o.units == (("a", "c"), ("b", "d")) and o.ranks == (1, 1)


def test_replay_is_deterministic_to_the_bit() -> None:
    os_ = [Outcome(f"g{i}", "x", (("a",), ("b",), ("c",)), ((1, 2, 3), (2, 1, 3), (3, 3, 1))[i % 3])
           for i in range(30)]
    s1, r1 = replay(Params(), os_)
    s2, r2 = replay(Params(), os_)
    assert r1 == r2 and s1.ratings == s2.ratings
    assert [r.seq for r in r1] == sorted(r.seq for r in r1)
