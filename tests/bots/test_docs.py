"""docs/bots.md: the per-game observation tables are generated from the engine and up to date."""
from __future__ import annotations

from bots import obsdoc
from engine import GAMES


def test_observation_tables_are_up_to_date() -> None:
    """Fails when a game's observation changed: run `python -m bots.obsdoc --write`."""
    assert obsdoc.main(["--check"]) == 0


def test_every_game_has_a_table() -> None:
    text = obsdoc.DOC.read_text()
    for g in GAMES:
        assert f"### `{g}`:" in text
    assert "| `hand` | list[card] |" in text


def test_shape_merges_values() -> None:
    s = obsdoc.Shape()
    for v in (None, [1, "QS"], [], [{"a": 1}]):
        s.add(v)
    assert s.render() == "null \\| list[int \\| card \\| {a: int}]"
