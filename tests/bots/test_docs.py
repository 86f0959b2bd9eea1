"""docs/bots.md and docs/notation.md: generated from the games' own declarations and up to date."""
from __future__ import annotations

import re
from pathlib import Path

import pytest

from bots import obsdoc
from engine import GAMES, game_class
from engine.core import OBSERVATION_COMMON
from engine.notation import parse_action

ROOT = Path(__file__).resolve().parents[2]


def test_observation_tables_are_up_to_date() -> None:
    """Fails when a game's observation or declaration changed: run `make regen`."""
    assert obsdoc.main(["--check"]) == 0, "docs/bots.md or docs/notation.md is out of date: run `make regen`"


@pytest.mark.parametrize("game_id", GAMES)
def test_observation_declaration_matches_the_observations(game_id: str) -> None:
    """Every key of the game's observations (defaults and every option variant) is declared with a
    meaning, and every declared key appears in some observation."""
    assert obsdoc.problems(game_id) == []
    for k, meaning in game_class(game_id).state_class.observation_keys().items():
        assert k not in OBSERVATION_COMMON and len(meaning.split()) >= 3, (k, meaning)


def test_problems_names_an_undeclared_and_a_stale_key(monkeypatch: pytest.MonkeyPatch) -> None:
    cls = game_class("hartenjagen").state_class
    decl = dict(cls.OBSERVATION)
    decl.pop("voids")
    decl["ghost"] = "a key no observation has"
    monkeypatch.setattr(cls, "OBSERVATION", decl)
    got = obsdoc.problems("hartenjagen")
    assert any("'voids' is not declared" in p for p in got)
    assert any("'ghost' never appears" in p for p in got)


def test_every_game_has_a_table_with_meanings_and_an_example() -> None:
    text = obsdoc.DOC.read_text()
    for g in GAMES:
        section = text.split(f"### `{g}`:", 1)[1].split("\n### ", 1)[0]
        assert "| key | meaning | JSON shape | phases |" in section
        assert "**not declared**" not in section
        assert re.search(r"Example \(seed 1, seat \d+, phase `\w+`", section)
        assert '"options": {' in section and '"clock": {"move_s": 1.0' in section
    assert "| `trick` | the current trick as [seat, card] pairs in play order" in text
    assert "| `options` |" in text and "| `clock` |" in text


def test_shape_merges_values() -> None:
    s = obsdoc.Shape()
    for v in (None, [1, "QS"], [], [{"a": 1}]):
        s.add(v)
    assert s.render() == "null \\| list[int \\| card \\| {a: int}]"


@pytest.mark.parametrize("game_id", GAMES)
def test_notation_forms_parse_as_the_games_actions(game_id: str) -> None:
    """Every action form docs/notation.md lists for a game is valid in that game's grammar."""
    cls = game_class(game_id)
    for form in obsdoc.action_forms(cls):
        for alt in _expand(form):
            parse_action(alt, cls.extra_verbs or None)


def _expand(form: str) -> list[str]:
    """``trump C|D|H|S``, ``pass | declare ...``, ``swap 7H / draw stock``: one action per alternative."""
    out: list[str] = []
    for whole in re.split(r" [|/] ", form):
        acts = [""]
        for w in whole.split():
            acts = [f"{o} {x}".strip() for o in acts for x in w.split("|")]
        out += acts
    return out


def test_notation_doc_and_links() -> None:
    notation = obsdoc.NOTATION_DOC.read_text()
    for g in GAMES:
        assert f"#### {g}\n" in notation
    assert "`JK=6H`" in notation and "multiset" in notation
    assert "(notation.md)" in obsdoc.DOC.read_text()
    assert "docs/notation.md" in (ROOT / "README.md").read_text()
