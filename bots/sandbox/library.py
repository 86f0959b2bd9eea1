"""The libraries every sandboxed bot may import besides the standard library (issue 24 §11): numpy,
and ``cardarena_rl`` (engine.rl's action ids and observation tensors, :mod:`bots.sandbox.rl_runtime`),
so that a policy trained with engine.rl can be submitted and play.

They are shown read-only at ``/sandbox/lib`` (:data:`LIB_INSIDE`), the way the codec is: numpy's own
package folder and its ``numpy.libs`` (the wheel's shared libraries) are bound there, and a
``cardarena_rl`` folder assembled here.  Nothing else of site-packages or of the project is: ``import
pyarrow`` and ``import engine`` fail inside.

``cardarena_rl`` is assembled once per engine source (a digest of ``engine/``, this module's runtime
and numpy's version) and numpy folder into a folder owned by this user in the temporary directory,
``cardarena-lib-UID-DIGEST`` (:func:`folder_name`), world-readable and writable by nobody else; a
folder of that name that is not (another user's, or changed) is not used.
"""
from __future__ import annotations

import hashlib
import json
import os
import shutil
import stat
import tempfile
import time
from dataclasses import dataclass
from functools import cache
from pathlib import Path
from typing import Any

LIB_INSIDE = "/sandbox/lib"
"""Where the sandbox shows the libraries (on the bot's ``sys.path``)."""
PACKAGE = "cardarena_rl"
RUNTIME = Path(__file__).with_name("rl_runtime.py")
ENGINE = Path(__file__).resolve().parent.parent.parent / "engine"
LIB_ENV = {"OPENBLAS_NUM_THREADS": "1", "OMP_NUM_THREADS": "1"}
"""The environment of every sandbox: numpy's BLAS starts no threads of its own (a bot runs on one
CPU, and its threads count against ``pids.max``)."""
COPIED = {"_actions.py": ENGINE / "rl" / "actions.py", "_tensors.py": ENGINE / "rl" / "tensors.py"}
"""The engine.rl files ``cardarena_rl`` runs, copied as they are."""


@dataclass(frozen=True)
class Library:
    """The libraries a sandbox shows (:func:`library`)."""

    binds: tuple[tuple[str, str], ...]
    """(host folder, folder inside) pairs, read-only, all under :data:`LIB_INSIDE`."""
    host_path: str
    """A host folder holding the same names (links to numpy), for a sandbox without a view of its own."""
    versions: tuple[tuple[str, str], ...]
    """(name, version) of what a bot can import from there."""


def numpy_dirs() -> tuple[str, str | None] | None:
    """numpy's package folder and its wheel's ``numpy.libs`` beside it (None when absent)."""
    try:
        import numpy
    except ImportError:  # pragma: no cover - numpy is a dependency
        return None
    where = os.path.dirname(os.path.realpath(numpy.__file__))
    if os.path.basename(where) != "numpy" or not os.path.isdir(where):
        return None
    libs = os.path.join(os.path.dirname(where), "numpy.libs")
    return where, (libs if os.path.isdir(libs) else None)


def _readable_by_all(folder: str) -> bool:
    """Can uid 65534 enter every folder under ``folder`` and read every file?"""
    try:
        for root, _, files in os.walk(folder):
            if os.stat(root).st_mode & 0o005 != 0o005:
                return False
            for f in files:
                if os.stat(os.path.join(root, f)).st_mode & 0o004 == 0:
                    return False
    except OSError:
        return False
    return True


def _digest(numpy_version: str) -> str:
    h = hashlib.sha256(numpy_version.encode())
    for path in [RUNTIME, *sorted(ENGINE.rglob("*.py"))]:
        h.update(str(path.relative_to(ENGINE.parent)).encode() + b"\0" + path.read_bytes())
    return h.hexdigest()[:16]


def folder_name(uid: int, digest: str, targets: dict[str, str]) -> str:
    """The name of ``uid``'s library folder in the temporary directory: the package's digest and
    the numpy it links to (:func:`_targets`), so two checkouts or environments on one machine, with
    the same engine but another numpy folder, each have a folder of their own and neither finds the
    other's links where it expects its own (:func:`_owned` would refuse them, every time)."""
    h = hashlib.sha256(digest.encode())
    for name, target in sorted(targets.items()):
        h.update(b"\0" + name.encode() + b"\0" + target.encode())
    return f"cardarena-lib-{uid}-{h.hexdigest()[:16]}"


def _targets(where: str, libs: str | None) -> dict[str, str]:
    """The links of a library folder: its name -> numpy's folder (and numpy.libs, where there is one)."""
    return {"numpy": where, **({"numpy.libs": libs} if libs else {})}


def export_tables() -> dict[str, Any]:
    """What engine.rl's ids and encoders read from the engine, ``{file name: JSON value}`` of the
    ``tables`` folder: the card constants, and per game (default options) its player counts,
    ``action_forms``, the catalogues its ``action_catalogue`` lists, its deck, its state class's
    ``PHASES``, ``TENSOR``, ``TENSOR_SKIP`` and observation keys, and the deck mask of a match at
    each player count."""
    from engine import GAMES, load_game
    from engine.cards import PACK, RANKS, SUITS, TOKENS
    from engine.core import OBSERVATION_COMMON
    from engine.rl.actions import _SLOT, BUILTIN_SLOTS
    from engine.rl.tensors import declared

    out: dict[str, Any] = {
        "engine.json": {"PACK": PACK, "RANKS": RANKS, "SUITS": SUITS, "TOKENS": list(TOKENS[:PACK]),
                        "OBSERVATION_COMMON": list(OBSERVATION_COMMON)},
        "games.json": list(GAMES)}
    for game_id in GAMES:
        game = load_game(game_id)
        forms = list(getattr(type(game), "action_forms", None) or [])
        slots = {f: [m.group() for m in _SLOT.finditer(f)] for f in forms}
        catalogues = {f: list(game.action_catalogue(f)) for f in forms
                      if any(s not in BUILTIN_SLOTS and ".." not in s for s in slots[f])}
        counts = range(game.min_players, game.max_players + 1)
        cls = type(game.new_match(seed=0, players=game.default_players))
        out[f"{game_id}.json"] = {
            "game": game_id, "min_players": game.min_players, "max_players": game.max_players,
            "default_players": game.default_players, "action_forms": forms, "catalogues": catalogues,
            "deck": list(game.card_tables().deck),
            "state": {"name": cls.__name__, "PHASES": list(getattr(cls, "PHASES", None) or []),
                      "TENSOR": declared(cls, "TENSOR"), "TENSOR_SKIP": declared(cls, "TENSOR_SKIP"),
                      "observation_keys": cls.observation_keys()},
            "deck_mask": {str(n): game.new_match(seed=0, players=n).deck_mask for n in counts}}
    return out


def _write_package(root: Path) -> None:
    """``root/cardarena_rl``: the runtime, the two engine.rl files and the tables."""
    pkg = root / PACKAGE
    (pkg / "tables").mkdir(parents=True)
    shutil.copyfile(RUNTIME, pkg / "__init__.py")
    for name, src in COPIED.items():
        shutil.copyfile(src, pkg / name)
    for name, value in export_tables().items():
        (pkg / "tables" / name).write_text(json.dumps(value, separators=(",", ":")), encoding="utf-8")
    for d, _, files in os.walk(root):
        os.chmod(d, 0o755)
        for f in files:
            os.chmod(os.path.join(d, f), 0o644)


def _links(root: Path, targets: dict[str, str]) -> None:
    for name, target in targets.items():
        os.symlink(target, root / name)


def _expected() -> set[str]:
    """The paths of an assembled ``cardarena_rl``, relative to its folder."""
    from engine import GAMES

    tables = ["engine.json", "games.json", *(f"{g}.json" for g in GAMES)]
    return {"__init__.py", *COPIED, "tables", *(f"tables/{name}" for name in tables)}


def _owned(root: Path, targets: dict[str, str]) -> bool:
    """Is ``root`` this user's, writable by nobody else, holding exactly the package as assembled
    (no other name, no link inside it) and the links to numpy?"""
    me = os.geteuid()
    pkg = root / PACKAGE
    try:
        if set(os.listdir(root)) != {PACKAGE, *targets}:
            return False
        for name, target in targets.items():
            if os.readlink(root / name) != target:
                return False
        seen: set[str] = set()
        for d, dirs, files in os.walk(pkg):
            for p in [d, *(os.path.join(d, x) for x in [*dirs, *files])]:
                st = os.lstat(p)
                if st.st_uid != me or st.st_mode & 0o022 or stat.S_ISLNK(st.st_mode):
                    return False
                seen.add(os.path.relpath(p, pkg))
        if seen - {"."} != _expected():
            return False
        st = os.lstat(root)
        return st.st_uid == me and not st.st_mode & 0o022 and stat.S_ISDIR(st.st_mode)
    except OSError:
        return False


def _assemble(digest: str, targets: dict[str, str]) -> Path:
    """The folder holding ``cardarena_rl`` and the links to numpy: the cached one, or a new one."""
    base = Path(tempfile.gettempdir())
    root = base / folder_name(os.geteuid(), digest, targets)
    if _owned(root, targets):
        return root
    fresh = Path(tempfile.mkdtemp(prefix="cardarena-lib-new-", dir=base))
    _write_package(fresh)
    _links(fresh, targets)
    os.chmod(fresh, 0o755)
    try:
        os.rename(fresh, root)   # fails when another process made it first, or a stranger's is there
    except OSError:
        if _owned(root, targets):
            shutil.rmtree(fresh, ignore_errors=True)
            return root
        return fresh
    _reap(base, root)
    return root


STALE_S = 86400.0
"""A library folder of this user's that no process has used for a day is removed when another is
made (:func:`library` marks its folder as used at every sandbox it starts; a process that finds
its folder gone makes it again)."""


def _reap(base: Path, keep: Path) -> None:
    """Remove this user's library folders in ``base`` (other engine versions, or fresh ones) that
    have not been used for :data:`STALE_S` seconds."""
    me, now = os.geteuid(), time.time()
    for d in base.glob("cardarena-lib-*"):
        mine = d.name.startswith((f"cardarena-lib-{me}-", "cardarena-lib-new-"))
        if d == keep or not mine:
            continue
        try:
            st = os.lstat(d)
        except OSError:
            continue
        if stat.S_ISDIR(st.st_mode) and st.st_uid == me and now - st.st_mtime > STALE_S:
            shutil.rmtree(d, ignore_errors=True)


def library() -> Library | None:
    """The libraries shown to sandboxed bots (None: numpy is missing or uid 65534 cannot read it;
    then a bot has the standard library only).  Made once per process, and again if its folder
    went away (a temporary-file cleaner, :func:`_reap`) since."""
    lib = _library()
    if lib is not None and not os.path.isfile(os.path.join(lib.host_path, PACKAGE, "__init__.py")):
        _library.cache_clear()
        lib = _library()
    if lib is not None:
        try:
            os.utime(lib.host_path)   # in use: not stale (_reap)
        except OSError:   # not marked: at worst reaped after a day unused, then made again
            pass
    return lib


@cache
def _library() -> Library | None:
    dirs = numpy_dirs()
    if dirs is None or not all(_readable_by_all(d) for d in dirs if d is not None):
        return None
    import numpy

    where, libs = dirs
    targets = _targets(where, libs)
    digest = _digest(numpy.__version__)
    root = _assemble(digest, targets)
    binds = [(where, f"{LIB_INSIDE}/numpy"), (str(root / PACKAGE), f"{LIB_INSIDE}/{PACKAGE}")]
    if libs:
        binds.append((libs, f"{LIB_INSIDE}/numpy.libs"))
    return Library(tuple(binds), str(root), (("numpy", numpy.__version__), (PACKAGE, digest)))


__all__ = ["LIB_ENV", "LIB_INSIDE", "PACKAGE", "Library", "export_tables", "folder_name", "library",
           "numpy_dirs"]
