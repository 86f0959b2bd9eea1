"""The lazy game registry (engine.core: discover, register, game_class): a game is one module
``engine/games/<id>.py`` or ``engine/games/<family>/<id>.py``; the ids come from a listing of the
package's path and its family folders, nothing is imported until a game is asked for, and a new
variant needs no central list.  X5: its rule events carry its own id."""
from __future__ import annotations

import subprocess
import sys
from collections.abc import Iterator
from pathlib import Path

import pytest

import engine
import engine.games
from bots.match import play
from engine import GAMES, game_class, load_game
from engine.core import _REGISTRY, GAME_MODULES, RULES_ORDER, discover

GAMES_DIR = Path(engine.games.__file__).parent


def source(game_id: str) -> Path:
    """The file of a game's module (``engine/games/[<family>/]<id>.py``)."""
    return GAMES_DIR.joinpath(*GAME_MODULES[game_id].split(".")[2:]).with_suffix(".py")


@pytest.fixture
def extra_games(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Iterator[Path]:
    """A second directory on the game package's discovery path, removed again afterwards."""
    before = set(GAMES)
    monkeypatch.setattr(engine.games, "__path__", [*engine.games.__path__, str(tmp_path)])
    yield tmp_path
    monkeypatch.undo()
    for name in set(GAMES) - before:
        _REGISTRY.pop(name, None)
        sys.modules.pop(f"engine.games.{name}", None)
    discover()
    assert set(GAMES) == before


def copy_game(src: str, new_id: str, where: Path) -> None:
    text = source(src).read_text()
    assert text.count(f'    id = "{src}"\n') == 1
    (where / f"{new_id}.py").write_text(text.replace(f'    id = "{src}"\n', f'    id = "{new_id}"\n'))


@pytest.mark.parametrize("src", ["manillen", "kruisjassen", "hartenjagen"])
def test_x5_a_copied_game_file_under_a_new_id_registers_plays_and_greedy_plays_it(
        src: str, extra_games: Path) -> None:
    new_id = f"{src}_copy"
    copy_game(src, new_id, extra_games)
    assert new_id not in GAMES
    cls = game_class(new_id)  # found by the scan, imported on demand
    assert cls.id == new_id and new_id in GAMES and GAMES.index(new_id) >= len(RULES_ORDER)
    n = cls.default_players
    by_greedy = play(new_id, ["greedy"] * n, 5, max_deals=2)
    assert by_greedy.ok and by_greedy.state.is_over(), [f.line() for f in by_greedy.faults]
    # the same game: the same seeded random players make the same match as in the original
    copy = play(new_id, ["random"] * n, 5, max_deals=2)
    original = play(src, ["random"] * n, 5, max_deals=2)
    assert copy.ok and copy.state.is_over()
    assert copy.state.history == original.state.history
    assert copy.state.scores() == original.state.scores()
    names = {e["event"] for e in copy.state.events}
    assert names and all(e.startswith(new_id + ".") for e in names)  # X5: its own id
    assert {e.split(".", 1)[1] for e in names} == \
        {e["event"].split(".", 1)[1] for e in original.state.events}


def test_x5_a_module_that_declares_no_game_is_refused_in_one_line(extra_games: Path) -> None:
    (extra_games / "not_a_game.py").write_text('"""A helper someone forgot to prefix with _."""\n')
    assert "not_a_game" in discover()
    with pytest.raises(ValueError, match=r"^module engine\.games\.not_a_game registers no game"):
        game_class("not_a_game")


def test_x5_a_game_declared_under_another_id_than_its_module_is_refused(extra_games: Path) -> None:
    text = source("manillen").read_text()
    (extra_games / "wrong_name.py").write_text(text)  # still says id = "manillen"
    with pytest.raises(ValueError, match=r"game id 'manillen' declared in module engine\.games\.wrong_name"):
        game_class("wrong_name")


def test_unknown_id_names_the_known_games() -> None:
    with pytest.raises(ValueError, match="unknown game 'no_such_game'; known games: genive, geneve"):
        load_game("no_such_game")
    with pytest.raises(ValueError, match="a game id is a string"):
        game_class(3)  # type: ignore[arg-type]


def test_games_lists_every_game_module_in_rules_order() -> None:
    files = [*GAMES_DIR.glob("*.py"), *GAMES_DIR.glob("*/*.py")]
    modules = sorted(p.stem for p in files if not p.stem.startswith("_"))
    assert sorted(GAMES) == modules
    assert all(source(g).is_file() for g in GAMES)
    assert [g for g in GAMES if g in RULES_ORDER] == [g for g in RULES_ORDER if g in modules]


def test_importing_engine_imports_no_game_and_load_game_only_its_own() -> None:
    code = ("import sys, engine; before = [m for m in sys.modules if m.startswith('engine.games.')]; "
            "engine.load_game('hartenjagen'); "
            "after = [m for m in sys.modules if m.startswith('engine.games.')]; print(before, after)")
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True)
    assert out.stdout.split() == ["[]", "['engine.games.hartenjagen']"]


def test_a_game_in_a_family_folder_is_found_by_the_listing_and_imported_on_demand(extra_games: Path) -> None:
    """Discovery walks the family folders one level down (a folder with an ``__init__.py``) without
    importing them; the id is the module's name, its module ``engine.games.<family>.<id>``."""
    family = extra_games / "toyfamily"
    family.mkdir()
    (family / "__init__.py").write_text('"""A family folder."""\n')
    copy_game("manillen", "manillen_folded", family)
    assert "manillen_folded" in discover()
    assert GAME_MODULES["manillen_folded"] == "engine.games.toyfamily.manillen_folded"
    assert "engine.games.toyfamily" not in sys.modules
    try:
        assert game_class("manillen_folded").id == "manillen_folded"
    finally:
        sys.modules.pop("engine.games.toyfamily.manillen_folded", None)
        sys.modules.pop("engine.games.toyfamily", None)
