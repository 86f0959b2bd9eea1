"""The ladder spec: defaults, and one-line errors that name the field."""
from __future__ import annotations

from pathlib import Path

import pytest
from typer.testing import CliRunner

from dashboards.app import app
from tests.ladder.conftest import tiny_raw
from tournaments.ladder.spec import parse_ladder_spec
from tournaments.spec import SpecError


def test_defaults_of_the_tables() -> None:
    s = parse_ladder_spec(tiny_raw())
    assert (s.quotas.per_day, s.quotas.active) == (5, 2)
    assert s.matchmaking.epsilon == 0.2 and s.matchmaking.lru_share == 0.1
    assert s.settlement.confidence == 0.95
    assert [r.label for r in s.reference] == ["random", "greedy", "random-2", "random-3", "random-4"]


@pytest.mark.parametrize(("over", "field"), [
    ({"quotas": {"per_day": 0}}, "quotas.per_day"),
    ({"quotas": {"active": "2"}}, "quotas.active"),
    ({"quotas": {"weekly": 3}}, "quotas.weekly"),
    ({"matchmaking": {"epsilon": 1.5}}, "matchmaking.epsilon"),
    ({"matchmaking": {"epsilon": float("nan")}}, "matchmaking.epsilon"),
    ({"rating": {"tau": -1.0}}, "rating.tau"),
    ({"settlement": {"top_k": 1}}, "settlement.top_k"),
    ({"limits": {"move_s": 0}}, "limits.move_s"),
    ({"games": ["nope"]}, "games[0]"),
    ({"reference": ["mybot@2"]}, "reference[0]"),
    ({"reference": ["random"]}, "reference"),
    ({"colour": "red"}, "colour"),
])
def test_a_bad_field_is_one_line_naming_it(over: dict[str, object], field: str) -> None:
    with pytest.raises(SpecError) as e:
        parse_ladder_spec(tiny_raw(**over))
    msg = str(e.value)
    assert msg.startswith(field), msg
    assert "\n" not in msg


def test_create_with_a_bad_spec_exits_2_in_one_line(tmp_path: Path) -> None:
    spec = tmp_path / "bad.toml"
    spec.write_text('name = "x"\ngames = ["hartenjagen"]\nreference = ["random", "greedy", "ismcts"]\n'
                    '[quotas]\nper_day = -1\n')
    res = CliRunner().invoke(app, ["ladder", "create", str(spec), "--out", str(tmp_path / "o")])
    assert res.exit_code == 2
    assert res.stderr.strip().count("\n") == 0 and "quotas.per_day" in res.stderr
    assert "Traceback" not in res.output + res.stderr
