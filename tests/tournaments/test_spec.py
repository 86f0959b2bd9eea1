"""The tournament spec: TOML or flags, validated with one-line errors that name the field."""
from __future__ import annotations

from pathlib import Path
from typing import Any

import pytest

from engine import GAMES, game_class
from tests.tournaments.conftest import FOUR, fastest_game, raw_spec, toml_of
from tournaments.spec import SpecError, load_spec, parse_spec

EXAMPLES = Path(__file__).resolve().parents[2] / "examples"


def spec_error(raw: dict[str, Any]) -> str:
    with pytest.raises(SpecError) as e:
        parse_spec(raw)
    msg = str(e.value)
    assert "\n" not in msg
    return msg


def test_valid_spec_from_toml(tmp_path: Path) -> None:
    raw = raw_spec(tmp_path, limits={"move_s": 0.5, "bank_s": 2.0}, schedule={"mode": "full"})
    p = tmp_path / "mini.toml"
    p.write_text(toml_of({k: v for k, v in raw.items() if k != "name"}))
    spec = load_spec(p)
    assert spec.name == "mini"  # the file name when the spec has none
    assert [g.id for g in spec.games] == [fastest_game()]
    assert [e.label for e in spec.bots] == ["random", "r2", "r3", "r4"]
    assert spec.bots[1].bot == "random"
    assert spec.limits.move_s == 0.5 and spec.limits.bank_s == 2.0
    assert spec.games[0].max_deals == 1
    assert spec.games[0].players == game_class(fastest_game()).default_players


def test_example_specs_are_valid() -> None:
    """Every example spec parses: a ladder spec (a `reference` list) as a ladder, the rest as
    tournaments."""
    import tomllib

    from tournaments.ladder.spec import load_ladder_spec
    files = sorted(EXAMPLES.glob("*.toml"))
    assert files, "examples/ ships at least one spec"
    for f in files:
        if "reference" in tomllib.loads(f.read_text(encoding="utf-8")):
            ladder = load_ladder_spec(f)
            assert ladder.games, f
            continue
        spec = load_spec(f)
        assert spec.games and spec.bots


def test_games_all_means_every_registered_game(tmp_path: Path) -> None:
    more = [{"name": f"r{i}", "bot": "random"} for i in range(5, 9)]
    spec = parse_spec(raw_spec(tmp_path, games="all", bots=[*FOUR, *more]))
    assert [g.id for g in spec.games] == GAMES
    assert spec.identity()["games"] == "all"


def test_per_game_options_players_and_deals(tmp_path: Path) -> None:
    gid = next(g for g in GAMES if game_class(g).min_players < game_class(g).max_players)
    cls = game_class(gid)
    opt = cls.options_spec[0]
    spec = parse_spec(raw_spec(tmp_path, games=[{"id": gid, "options": {opt.name: opt.default},
                                                 "players": cls.min_players, "max_deals": 2}]))
    g = spec.games[0]
    assert (g.options, g.players, g.max_deals) == ({opt.name: opt.default}, cls.min_players, 2)


@pytest.mark.parametrize("over, field", [
    ({"sed": 3}, "sed: unknown field"),
    ({"seed": "x"}, "seed: expected an integer"),
    ({"seed": -1}, "seed: -1 is out of range"),
    ({"matches_per_seating": 0}, "matches_per_seating"),
    ({"games": ["nosuchgame"]}, "games[0]: unknown game 'nosuchgame'"),
    ({"games": []}, "games: expected"),
    ({"games": [{"id": "hartenjagen", "colour": 1}]}, "games[0].colour: unknown field"),
    ({"bots": []}, "bots: expected a non-empty list"),
    ({"bots": ["random", "random", "random", "random"]}, "bots[1]: entrant 'random' is listed twice"),
    ({"bots": ["random", "r2 x", "a", "b"]}, "bots[1]: 'r2 x' is not a bot name"),
    ({"bots": ["random@2", "a", "b", "c"]}, "bots[0]: built-in bot 'random' has no versions"),
    ({"bots": [{"name": "x", "bot": 3}, "a", "b", "c"]}, "bots[0].bot"),
    ({"limits": {"move_ms": 1}}, "limits.move_ms: unknown field"),
    ({"limits": {"move_s": 0}}, "limits.move_s"),
    ({"schedule": {"mode": "swiss"}}, "schedule.mode"),
    ({"schedule": {"mode": "sampled"}}, "schedule.seatings"),
    ({"run": {"batch_s": "fast"}}, "run.batch_s"),
    ({"name": "a b"}, "name:"),
    ({"address": ""}, "address:"),
])
def test_bad_field_is_named_in_one_line(tmp_path: Path, over: dict[str, Any], field: str) -> None:
    assert field in spec_error(raw_spec(tmp_path, **over))


def test_bad_game_option_names_game_and_option(tmp_path: Path) -> None:
    gid = fastest_game()
    msg = spec_error(raw_spec(tmp_path, games=[{"id": gid, "options": {"no_such_option": 1}}]))
    assert msg.startswith("games[0].options:") and "no_such_option" in msg and gid in msg


def test_too_few_entrants_for_the_seats(tmp_path: Path) -> None:
    gid = fastest_game()
    seats = game_class(gid).default_players
    msg = spec_error(raw_spec(tmp_path, bots=FOUR[:seats - 1]))
    assert msg.startswith(f"games[0] ({gid})") and f"seats {seats} players" in msg


def test_unknown_submitted_bot_is_refused_when_the_names_are_known(tmp_path: Path) -> None:
    with pytest.raises(SpecError, match=r"bots\[4\]: unknown bot 'nobody'"):
        parse_spec(raw_spec(tmp_path, bots=[*FOUR, "nobody"]), known_bots={"somebody"})


def test_malformed_toml_and_missing_file(tmp_path: Path) -> None:
    p = tmp_path / "bad.toml"
    p.write_text("seed = = 3\n")
    with pytest.raises(SpecError, match="not valid TOML"):
        load_spec(p)
    with pytest.raises(SpecError, match="not found"):
        load_spec(tmp_path / "missing.toml")


def test_identity_ignores_where_and_how(tmp_path: Path) -> None:
    a = parse_spec(raw_spec(tmp_path))
    b = parse_spec(raw_spec(tmp_path, output=str(tmp_path / "elsewhere"), address="auto",
                            run={"batch_s": 3.0}))
    c = parse_spec(raw_spec(tmp_path, seed=12))
    assert a.spec_hash() == b.spec_hash() != c.spec_hash()


def test_bot_options_are_constructor_keywords_of_built_ins(tmp_path: Path) -> None:
    from bots.api import BUILTIN

    if "ismcts" not in BUILTIN:
        pytest.skip("needs the ismcts built-in")
    ok = parse_spec(raw_spec(tmp_path, bots=[*FOUR[:3], {"name": "i", "bot": "ismcts",
                                                          "options": {"iterations": 5}}]))
    assert ok.bots[3].options == {"iterations": 5}
    assert ok.spec_hash() != parse_spec(raw_spec(tmp_path, bots=[*FOUR[:3], {"name": "i", "bot": "ismcts"}])
                                        ).spec_hash()
    for options, field in (({"iteratons": 5}, "bots[3].options.iteratons: ismcts accepts"),
                           ({"iterations": [1]}, "bots[3].options.iterations: expected")):
        assert field in spec_error(raw_spec(tmp_path, bots=[*FOUR[:3], {"name": "i", "bot": "ismcts",
                                                                         "options": options}]))
    assert "only built-in bots take options" in spec_error(
        raw_spec(tmp_path, bots=[*FOUR[:3], {"name": "i", "bot": "mine", "options": {"x": 1}}]))
    assert "sandbox_builtins" in spec_error(
        raw_spec(tmp_path, bots=[*FOUR[:3], {"name": "i", "bot": "ismcts", "options": {"iterations": 5}}],
                 limits={"sandbox_builtins": True}))


def test_games_all_seats_every_entrant_when_fewer_than_the_default(tmp_path: Path,
                                                                   monkeypatch: pytest.MonkeyPatch) -> None:
    flexible = [g for g in GAMES if game_class(g).min_players <= 3 < game_class(g).default_players
                and not game_class(g).teams]
    fixed = [g for g in GAMES if game_class(g).min_players > 3]
    if not flexible or not fixed:
        pytest.skip("needs a game playable by 3 whose default is more, and one that needs 4")
    monkeypatch.setattr("tournaments.spec.GAMES", flexible)
    three = parse_spec(raw_spec(tmp_path, games="all", bots=FOUR[:3]))
    assert {g.players for g in three.games} == {3}
    monkeypatch.setattr("tournaments.spec.GAMES", [*flexible, fixed[0]])
    assert f"games ({fixed[0]})" in spec_error(raw_spec(tmp_path, games="all", bots=FOUR[:3]))
