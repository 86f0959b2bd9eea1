"""The bot interface (CONTRACT.md) and how players are made from names.

A bot is a Python file, or a folder with ``__init__.py``, defining either ``act(observation) -> str``
or a class ``Bot(game, seat, seed)`` with ``act(observation) -> str``; an optional ``GAMES`` list
limits the games it enters.  Built-in players are named by their module under ``bots/builtin``.

Submitted bots never run in this process: :mod:`bots.sandbox` runs each in its own OS process and
hands it observations only.  Built-in players are trusted code and may run in-process.

A player object has ``act(observation) -> str``.  Two optional extensions, used by the match loop
(:mod:`bots.match`):

* ``worlds: int`` and ``act_in_worlds(observation, worlds) -> str``: the player wants, with each
  observation, that many *determinized worlds*: engine states in which every card hidden from its
  seat has been redealt by the engine (``state.determinize(seat, rng)``).  Only the built-in
  ``ismcts`` asks for them; see docs/bots.md, "How ISMCTS sees the game".
* ``close()``: release the player's resources (a sandboxed process) once the match is over.
"""
from __future__ import annotations

import hashlib
import importlib
import os
from collections.abc import Callable, Iterator
from dataclasses import dataclass
from pathlib import Path
from typing import Any, Protocol

Observation = dict[str, Any]


class Player(Protocol):
    def act(self, observation: Observation) -> str: ...


BUILTIN = ("random", "greedy", "ismcts")
"""Names of the built-in players."""


class BotLoadError(ValueError):
    """A bot that cannot be loaded: missing, will not import, or defines neither ``act`` nor ``Bot``.

    The message is one line and says which.
    """


class FunctionPlayer:
    """Adapts a module-level ``act(observation)`` to the :class:`Player` protocol."""

    def __init__(self, fn: Callable[[Observation], str]) -> None:
        self.act = fn


def builtin_player(name: str, game: str, seat: int, seed: int) -> Player:
    """A built-in player by name; ``ValueError`` naming the known ones otherwise."""
    if name not in BUILTIN:
        raise ValueError(f"unknown built-in bot {name!r}; built-in bots: {', '.join(BUILTIN)}")
    module = importlib.import_module(f"bots.builtin.{name}")
    player: Player = module.Bot(game, seat, seed)
    return player


# --------------------------------------------------------------------------- bot sources
MAX_BOT_BYTES = 20 << 20
"""A submitted bot (all its files) may hold at most this many bytes."""

_SKIP_DIRS = {"__pycache__", ".git", ".mypy_cache", ".pytest_cache", ".ruff_cache"}


@dataclass(frozen=True)
class BotSource:
    """Where a bot's code is: a single ``.py`` file, or a package folder with ``__init__.py``."""

    path: Path
    """Absolute path of the file or of the folder."""
    package: bool

    @property
    def name(self) -> str:
        """The module name the bot is imported under."""
        return self.path.name if self.package else self.path.stem

    @property
    def entry(self) -> Path:
        """The file executed on import."""
        return self.path / "__init__.py" if self.package else self.path

    def files(self) -> Iterator[tuple[str, Path]]:
        """(relative name, path) of every file of the bot, in a stable order."""
        if not self.package:
            yield self.path.name, self.path
            return
        for root, dirs, names in os.walk(self.path):
            dirs[:] = sorted(d for d in dirs if d not in _SKIP_DIRS)
            for n in sorted(names):
                if n.endswith((".pyc", ".pyo")):
                    continue
                p = Path(root) / n
                if p.is_file() and not p.is_symlink():
                    yield p.relative_to(self.path).as_posix(), p

    def content_hash(self) -> str:
        """SHA-256 over the bot's files (names and contents), hex."""
        h = hashlib.sha256()
        h.update(b"package\0" if self.package else b"file\0")
        for rel, p in self.files():
            data = p.read_bytes()
            h.update(rel.encode() + b"\0" + str(len(data)).encode() + b"\0" + data)
        return h.hexdigest()

    def code_hash(self) -> str:
        """SHA-256 over what the bot runs: :meth:`content_hash` without a single file's own name, so
        that one file under another name hashes the same (a package's file names are part of its code
        and stay in; its folder's name never was).  How the ladder recognises another author's bot."""
        if self.package:
            return self.content_hash()
        data = self.path.read_bytes()
        return hashlib.sha256(b"file\0" + str(len(data)).encode() + b"\0" + data).hexdigest()

    def size(self) -> int:
        return sum(p.stat().st_size for _, p in self.files())


def bot_source(path: str | os.PathLike[str]) -> BotSource:
    """The :class:`BotSource` at ``path``; :class:`BotLoadError` (one line) when there is none."""
    p = Path(path).expanduser()
    if not p.exists():
        raise BotLoadError(f"bot file {str(path)!r} is missing: give a .py file or a folder with __init__.py")
    p = p.resolve()
    if p.is_dir():
        if not (p / "__init__.py").is_file():
            raise BotLoadError(f"bot folder {str(path)!r} has no __init__.py: a bot is a .py file or a "
                               "folder with __init__.py")
        src = BotSource(p, True)
        if not src.name.isidentifier():
            raise BotLoadError(f"bot folder name {src.name!r} is not a Python identifier")
    elif p.suffix == ".py":
        src = BotSource(p, False)
    else:
        raise BotLoadError(f"bot file {str(path)!r} is not a .py file: a bot is a .py file or a folder "
                           "with __init__.py")
    size = src.size()
    if size > MAX_BOT_BYTES:
        raise BotLoadError(f"bot {str(path)!r} holds {size} bytes; at most {MAX_BOT_BYTES} are accepted")
    return src


def looks_like_path(name: str) -> bool:
    """Does a bot name given on a command line or in a tournament spec name a file or folder?"""
    return name.endswith(".py") or "/" in name or os.sep in name
