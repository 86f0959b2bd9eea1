"""What ``cardarena games`` lists, without importing a game: a cached index of every game's id, name,
family, seats and option defaults (``tournaments/games_index.json``).

Importing a game builds its tables (all of them about a second, one rummy family 65,536 entries), so
the index is read instead.  It carries a digest of the sources it was built from (``engine/core.py``
and ``engine/games/**.py``): when they differ (a game added, removed or changed since the index was
written), :func:`listing` builds the rows from the games themselves, which is slow but never wrong.
It also carries every game's engine version (``engine``: :func:`engine_entry`), read by
``tournaments.log.engine_version`` while no engine source has changed since.
``tests/test_startup.py`` keeps the shipped index in sync; regenerate it with ``make regen`` (which
also rebuilds the other generated files), or alone with::

    .venv/bin/python -m tournaments.games_index
"""
from __future__ import annotations

import hashlib
import importlib.util
import json
from pathlib import Path
from typing import Any

INDEX_PATH = Path(__file__).with_name("games_index.json")
INDEX_VERSION = 1


def _engine_dir() -> Path:
    """The engine package's folder, found without importing it (``find_spec`` of a top-level package
    only locates it)."""
    spec = importlib.util.find_spec("engine")
    if spec is None or not spec.submodule_search_locations:
        raise RuntimeError("the engine package cannot be found")
    return Path(next(iter(spec.submodule_search_locations)))


def sources_digest() -> str:
    """SHA-256 over the paths and bytes of ``engine/core.py``, ``engine/games/*.py`` and
    ``engine/games/<family>/*.py``."""
    root = _engine_dir()
    h = hashlib.sha256()
    games = root / "games"
    for p in [root / "core.py", *sorted([*games.glob("*.py"), *games.glob("*/*.py")])]:
        h.update(p.relative_to(root).as_posix().encode() + b"\0" + p.read_bytes() + b"\0")
    return h.hexdigest()


def game_row(game_id: str) -> dict[str, Any]:
    """The row of one game, from its class (imports the game)."""
    from engine import game_class
    cls = game_class(game_id)
    return {"id": game_id, "name": cls.name, "family": cls.family,
            "players": [cls.min_players, cls.max_players], "default_players": cls.default_players,
            "teams": cls.teams, "options": {o.name: o.default for o in cls.options_spec}}


def build_rows() -> list[dict[str, Any]]:
    """Every game's row, in :data:`engine.GAMES` order (imports every game)."""
    from engine import GAMES
    return [game_row(g) for g in GAMES]


def read_index(path: Path = INDEX_PATH) -> dict[str, Any] | None:
    """The index file's content, or None when it is missing or not an index of this version."""
    try:
        data = json.loads(path.read_text(encoding="utf-8"))
    except (OSError, ValueError):
        return None
    if not isinstance(data, dict) or data.get("version") != INDEX_VERSION or not isinstance(
            data.get("games"), list) or not isinstance(data.get("digest"), str):
        return None
    return data


def listing(path: Path = INDEX_PATH) -> tuple[list[dict[str, Any]], bool]:
    """(every game's row, whether it came from the index): the index when its digest matches the
    engine's sources, else the rows built from the games."""
    data = read_index(path)
    if data is not None and data["digest"] == sources_digest():
        return list(data["games"]), True
    return build_rows(), False


def engine_entry() -> dict[str, Any]:
    """The index's ``engine`` entry: the whole engine's digest and every game's engine version made
    from the sources (``tournaments.log.engine_version``, which reads them back while the digest
    matches, so that a tournament worker does not parse a game's sources on its first batch)."""
    from engine import GAMES
    from tournaments.log import engine_digest, sources_version
    return {"digest": engine_digest(), "versions": {g: sources_version(g) for g in GAMES}}


def write_index(path: Path = INDEX_PATH) -> int:
    """Rebuild the index from the games; the number of games in it."""
    rows = build_rows()
    path.write_text(json.dumps({"version": INDEX_VERSION, "digest": sources_digest(), "games": rows,
                                "engine": engine_entry()}, indent=1) + "\n", encoding="utf-8")
    return len(rows)


if __name__ == "__main__":
    print(f"{INDEX_PATH}: {write_index()} games")
