"""The registry of submitted bots: immutable copies under the data directory, and a table of versions.

Layout under the data directory (``$CARDARENA_DATA``, default ``<project>/data``)::

    bots/registry.sqlite            table ``bots``: name, version, hash, games, submitted, validation
    bots/store/NAME/HASH/...        the bot's files, read-only (a file bot: one ``.py``)

A name's versions count from 1; a new content makes a new version, while content identical to a
version of that name already stored makes none (``cardarena bots submit`` says which, ``NAME@K``:
:meth:`Registry.find`).  Tournaments name a bot ``NAME`` (its latest version) or ``NAME@VERSION``.
"""
from __future__ import annotations

import json
import os
import re
import shutil
import sqlite3
import stat
import tempfile
from collections.abc import Iterator
from contextlib import contextmanager
from dataclasses import dataclass
from datetime import UTC, datetime
from pathlib import Path
from typing import Any

from bots.api import BUILTIN, BotSource

NAME_RE = re.compile(r"^[a-z][a-z0-9_-]{0,39}$")
ENTRY_RE = re.compile(r"[A-Za-z0-9_][A-Za-z0-9_.-]{0,200}")
"""A stored bot's file or folder name: what every reader of the registry accepts (no space, no leading
``-`` or ``.``: such a name would read as an option or a hidden file)."""

_SCHEMA = """
CREATE TABLE IF NOT EXISTS bots (
    name       TEXT    NOT NULL,
    version    INTEGER NOT NULL,
    hash       TEXT    NOT NULL,
    kind       TEXT    NOT NULL,          -- 'file' or 'package'
    entry      TEXT    NOT NULL,          -- file or folder name inside the stored copy
    games      TEXT    NOT NULL,          -- JSON list of the game ids it was validated for
    submitted  TEXT    NOT NULL,          -- UTC, ISO 8601
    validation TEXT    NOT NULL,          -- JSON: per game 'ok' or the failure, and the sandbox used
    PRIMARY KEY (name, version)
)
"""


class RegistryError(LookupError):
    """The registry file cannot be read (corrupt, not a database, unreadable): one line naming it."""


def data_dir(path: str | os.PathLike[str] | None = None) -> Path:
    """The data directory: ``path``, else ``$CARDARENA_DATA``, else ``<project>/data``."""
    if path is not None:
        return Path(path)
    env = os.environ.get("CARDARENA_DATA")
    return Path(env) if env else Path(__file__).resolve().parent.parent / "data"


def check_name(name: str) -> str:
    """``name`` if it may name a submitted bot, else ``ValueError`` saying what is accepted."""
    if not isinstance(name, str) or not NAME_RE.fullmatch(name):
        raise ValueError(f"bad bot name {name!r}: use 1-40 characters a-z 0-9 _ -, starting with a letter")
    if name in BUILTIN:
        raise ValueError(f"bot name {name!r} is taken by a built-in bot ({', '.join(BUILTIN)})")
    return name


def check_entry_name(name: str) -> str:
    """``name`` (a bot's file or folder name) if the registry can store it, else ``ValueError``
    in one line saying what is accepted."""
    if not ENTRY_RE.fullmatch(name):
        raise ValueError(f"bad bot file name {name[:80]!r}: a submitted file or folder is named with "
                         "letters, digits, _ . and - only (no spaces), not starting with - or ., at most 201 "
                         "characters; rename it")
    return name


@dataclass(frozen=True)
class Entry:
    """One version of a submitted bot."""

    name: str
    version: int
    hash: str
    kind: str
    entry: str
    games: list[str]
    submitted: str
    validation: dict[str, Any]
    root: Path
    """The data directory it lives under."""

    @property
    def path(self) -> Path:
        return self.root / "bots" / "store" / self.name / self.hash / self.entry

    def source(self) -> BotSource:
        return BotSource(self.path, self.kind == "package")

    @property
    def spec(self) -> str:
        return f"{self.name}@{self.version}"

    def to_json(self) -> dict[str, Any]:
        return {"name": self.name, "version": self.version, "hash": self.hash, "kind": self.kind,
                "games": self.games, "submitted": self.submitted, "validation": self.validation,
                "path": str(self.path)}


@contextmanager
def sqlite_session(path: Path, schema: str, write: bool, error: type[Exception], what: str,
                   corrupt_hint: str = "") -> Iterator[sqlite3.Connection]:
    """A connection to the SQLite file ``path`` with its ``schema`` (statements, run each time); with
    ``write`` one transaction (``BEGIN IMMEDIATE``: one writer at a time, committed at the end, rolled
    back on any exception).  A file that cannot be opened or is not a database raises ``error`` with one
    line naming ``what`` and ``path`` (then ``corrupt_hint``).  The bot registry's and the ladder's
    store (:mod:`tournaments.ladder.state`) are both kept this way."""
    try:
        con = sqlite3.connect(path, timeout=30, isolation_level=None)
    except sqlite3.Error as e:
        raise error(f"{what} {path} cannot be opened: {e}") from None
    try:
        try:
            con.executescript(schema)
            if write:
                con.execute("BEGIN IMMEDIATE")
            yield con
            if write:
                con.execute("COMMIT")
        except BaseException:
            if write and con.in_transaction:
                con.execute("ROLLBACK")
            raise
    except sqlite3.DatabaseError as e:  # "file is not a database", "database disk image is malformed"
        raise error(f"{what} {path} is corrupt ({e}){corrupt_hint}") from None
    finally:
        con.close()


class Registry:
    """The registry under a data directory."""

    def __init__(self, root: str | os.PathLike[str] | None = None) -> None:
        self.root = data_dir(root)
        self.dir = self.root / "bots"
        self.db_path = self.dir / "registry.sqlite"

    @contextmanager
    def _db(self, write: bool = False) -> Iterator[sqlite3.Connection]:
        if write:
            self.dir.mkdir(parents=True, exist_ok=True)
        elif not self.db_path.exists():
            raise LookupError(f"no bot has been submitted under {self.root}")
        if self.db_path.exists() and not self.db_path.is_file():
            raise RegistryError(f"bot registry {self.db_path} is not a regular file")
        with sqlite_session(self.db_path, _SCHEMA, write, RegistryError, "bot registry",
                            "; move it away and submit the bots again") as con:
            yield con

    def _entry(self, row: tuple[Any, ...]) -> Entry:
        try:
            name, version, h, kind, entry, games, submitted, validation = row
            e = Entry(name, version, h, kind, entry, json.loads(games), submitted, json.loads(validation),
                      self.root)
            ok = (isinstance(name, str) and NAME_RE.match(name) is not None and isinstance(version, int)
                  and isinstance(h, str) and re.fullmatch(r"[0-9a-f]{8,128}", h) is not None
                  and kind in ("file", "package") and isinstance(entry, str)
                  and ENTRY_RE.fullmatch(entry) is not None
                  and isinstance(e.games, list) and isinstance(e.validation, dict))
        except (ValueError, TypeError) as err:  # a row of the wrong shape or JSON that does not parse
            raise RegistryError(f"bot registry {self.db_path} is corrupt: a row of "
                                f"{str(row[0])[:40]!r} cannot be read ({err})") from None
        if not ok:
            raise RegistryError(f"bot registry {self.db_path} is corrupt: the row of "
                                f"{str(name)[:40]!r} version {str(version)[:12]} holds invalid fields")
        return e

    def add(self, src: BotSource, name: str, games: list[str], validation: dict[str, Any]) -> Entry:
        """Store an immutable copy of ``src`` and record it as the next version of ``name``."""
        check_name(name)
        check_entry_name(src.path.name)   # before anything is stored
        h = src.content_hash()
        store = self.dir / "store" / name / h
        with self._db(write=True) as con:
            if not store.exists():
                _copy_readonly(src, store)
            (version,) = con.execute("SELECT COALESCE(MAX(version), 0) + 1 FROM bots WHERE name = ?",
                                     (name,)).fetchone()
            row = (name, version, h, "package" if src.package else "file", src.path.name,
                   json.dumps(games), datetime.now(UTC).isoformat(timespec="seconds"), json.dumps(validation))
            con.execute("INSERT INTO bots VALUES (?, ?, ?, ?, ?, ?, ?, ?)", row)
        return self._entry(row)

    def find(self, name: str, content_hash: str) -> Entry | None:
        """The version of ``name`` whose content hash is ``content_hash`` (the earliest), or None."""
        if not self.db_path.exists():
            return None
        with self._db() as con:
            row = con.execute("SELECT * FROM bots WHERE name = ? AND hash = ? ORDER BY version LIMIT 1",
                              (name, content_hash)).fetchone()
        return None if row is None else self._entry(row)

    def entries(self, name: str | None = None, skipped: list[str] | None = None) -> list[Entry]:
        """Every version (of ``name``), by name then version.  A row that cannot be read (invalid
        fields, say, written by an older version) is left out: one line saying which is appended to
        ``skipped`` when given, else the whole listing fails with :class:`RegistryError`."""
        if not self.db_path.exists():
            return []
        out = []
        with self._db() as con:
            q = "SELECT * FROM bots" + (" WHERE name = ?" if name else "") + " ORDER BY name, version"
            for r in con.execute(q, (name,) if name else ()):
                try:
                    out.append(self._entry(r))
                except RegistryError as e:
                    if skipped is None:
                        raise
                    skipped.append(f"skipped a row of the registry: {e}")
        return out

    def resolve(self, spec: str) -> Entry:
        """The entry named ``NAME`` (latest version) or ``NAME@VERSION``; ``LookupError`` if none."""
        name, _, ver = spec.partition("@")
        if not NAME_RE.fullmatch(name) or (ver and not (ver.isdigit() and ver.isascii() and len(ver) <= 9)):
            raise LookupError(f"{spec!r} is not NAME or NAME@VERSION")
        with self._db() as con:
            if ver:
                row = con.execute("SELECT * FROM bots WHERE name = ? AND version = ?",
                                  (name, int(ver))).fetchone()
            else:
                row = con.execute("SELECT * FROM bots WHERE name = ? ORDER BY version DESC LIMIT 1",
                                  (name,)).fetchone()
            if row is None:
                known = [r[0] for r in con.execute("SELECT MAX(version) FROM bots WHERE name = ?", (name,))]
                if ver and known and known[0]:
                    raise LookupError(f"{name} has versions 1..{known[0]}, not {ver}")
                raise LookupError(f"no submitted bot named {name!r}")
        entry = self._entry(row)
        if not entry.path.exists() or entry.source().content_hash() != entry.hash:
            raise LookupError(f"the stored copy of {entry.spec} is missing or was modified ({entry.path})")
        return entry


def _copy_readonly(src: BotSource, dest: Path) -> None:
    """Copy the bot's files into ``dest`` atomically (a temporary folder renamed), read-only."""
    dest.parent.mkdir(parents=True, exist_ok=True)
    tmp = Path(tempfile.mkdtemp(prefix=".incoming-", dir=dest.parent))
    try:
        target = tmp / src.path.name
        if src.package:
            for rel, p in src.files():
                out = target / rel
                out.parent.mkdir(parents=True, exist_ok=True)
                shutil.copyfile(p, out)
        else:
            shutil.copyfile(src.path, target)
        make_readonly(tmp)
        os.rename(tmp, dest)
    except BaseException:
        rmtree_readonly(tmp)
        raise


def make_readonly(folder: Path) -> None:
    """Every file under ``folder`` read-only (0444), every folder and ``folder`` itself 0555."""
    for root, dirs, files in os.walk(folder, topdown=False):
        for f in files:
            os.chmod(os.path.join(root, f), stat.S_IRUSR | stat.S_IRGRP | stat.S_IROTH)
        for d in dirs:
            os.chmod(os.path.join(root, d), 0o555)
    os.chmod(folder, 0o555)


def rmtree_readonly(path: Path) -> None:
    """Remove a folder :func:`make_readonly` made (its folders made writable first)."""
    for root, dirs, _ in os.walk(path):
        for d in dirs:
            os.chmod(os.path.join(root, d), 0o755)
    if path.exists():
        os.chmod(path, 0o755)
        shutil.rmtree(path, ignore_errors=True)
