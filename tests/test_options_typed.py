"""Options declared, not spelled (issue 22 section 5): a game's typed options (``Game.options_type``,
a frozen dataclass) hold exactly its declared options (``options_spec``) with their defaults, are
built once per game from the checked options, and a misspelt or missing name fails at import."""
from __future__ import annotations

import dataclasses
from typing import Any

import pytest

from engine import GAMES, game_class, load_game
from engine.core import NO_CARD_TABLES, Game, Option, State

TYPED = [g for g in GAMES if game_class(g).options_type is not None]


def _variants(cls: type[Game]) -> list[dict[str, Any]]:
    """The defaults, then each bool option flipped and each choice option at its other values."""
    out: list[dict[str, Any]] = [{}]
    for o in cls.options_spec:
        if isinstance(o.default, bool):
            out.append({o.name: not o.default})
        elif o.choices is not None:
            out.extend({o.name: c} for c in o.choices if c != o.default)
    return out


@pytest.mark.parametrize("game_id", TYPED)
def test_typed_options_are_the_checked_options(game_id: str) -> None:
    cls = game_class(game_id)
    kind = cls.options_type
    assert kind is not None
    for variant in _variants(cls):
        g = load_game(game_id, **variant)
        typed = g.opts(kind)
        assert dataclasses.asdict(typed) == g.options, variant
        assert g.opts(kind) is typed  # one object per game, shared by its matches (frozen)
        with pytest.raises(dataclasses.FrozenInstanceError):
            typed.__setattr__(next(iter(g.options)), None)
    with pytest.raises(TypeError, match="typed options"):
        load_game(game_id).opts(int)


def test_typed_options_that_misspell_or_miss_a_declared_option_fail_at_import() -> None:
    @dataclasses.dataclass(frozen=True)
    class Misspelt:
        targt: int = 100

    @dataclasses.dataclass(frozen=True)
    class OtherDefault:
        target: int = 99

    @dataclasses.dataclass
    class NotFrozen:
        target: int = 100

    for kind, message in ((Misspelt, "must declare the options of options_spec"),
                          (OtherDefault, "must declare the options of options_spec"),
                          (NotFrozen, "frozen dataclass")):
        with pytest.raises(ValueError, match=message):
            type("Toy", (Game,), {"id": "toy", "options_spec": (Option("target", 100, "the target"),),
                                  "options_type": kind, "state_class": State, "tables": NO_CARD_TABLES})


@pytest.mark.parametrize("game_id", GAMES)
def test_every_game_with_options_reads_them_typed(game_id: str) -> None:
    """A game that declares options declares them typed too (its rules read ``game.opts``)."""
    cls = game_class(game_id)
    assert not cls.options_spec or cls.options_type is not None, (
        f"{game_id} declares options but no options_type: add a frozen dataclass with one field per "
        f"option ({', '.join(o.name for o in cls.options_spec)}, with their defaults) as "
        f"options_type = ..., and read them as self.game.opts(YourOptions).name (engine/README.md)")
