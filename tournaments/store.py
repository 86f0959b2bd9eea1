"""Where a tournament's log is kept when it is not a local directory: one small storage interface over
``pyarrow.fs`` (``s3://``, ``gs://``, ``hdfs://``, ...), addressed by keys relative to the log's root
(the layout of :mod:`tournaments.paths`, with ``/`` separators).

- :func:`open_store` resolves a URI and probes it with one listing, so an unknown scheme, a missing
  bucket, refused credentials or an unreachable endpoint fail before anything is written, as one
  :class:`StoreError` line naming the URI.
- ``s3://bucket/prefix`` takes its endpoint from the URI's query (``?endpoint_override=HOST:PORT&
  scheme=http``, as pyarrow's own ``from_uri``) or from ``AWS_ENDPOINT_URL`` (``http://HOST:PORT``);
  credentials and region from the usual AWS environment and config.
- :meth:`ObjectStore.put_if_absent` is a conditional write (S3 ``If-None-Match: *`` through boto3,
  which S3 and moto honour); on stores without one it is a check-then-write, documented in
  ``data/README.md`` as only as safe as the lease's expiry.
- A local directory stays on the existing ``flock``/rename protocol (:mod:`tournaments.log`); this
  module is only the object-store path.

>>> is_uri("s3://bucket/x"), is_uri("data/demo"), is_uri("/tmp/x"), is_uri("file:///tmp/x")
(True, False, False, False)
>>> restore_uri("s3:/bucket/x")      # what pathlib made of s3://bucket/x
's3://bucket/x'
"""
from __future__ import annotations

import builtins
import fnmatch
import json
import os
import re
import shutil
import tempfile
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any
from urllib.parse import parse_qs, urlsplit

import pyarrow as pa
import pyarrow.fs as pafs

from tournaments.paths import GAME_PREFIX, TOURNAMENTS, compaction_name, part_epoch, tournament_key

_URI = re.compile(r"^([a-zA-Z][a-zA-Z0-9+.-]*)://")
_MANGLED = re.compile(r"^([a-zA-Z][a-zA-Z0-9+.-]+):/(?!/)")


class StoreError(Exception):
    """A store that cannot be used: one line naming the URI and what failed."""


def is_uri(out: str | os.PathLike[str]) -> bool:
    """Whether ``out`` names an object store (``scheme://...``) rather than a local directory."""
    m = _URI.match(os.fspath(out))
    return m is not None and m.group(1).lower() != "file"


def restore_uri(text: str | os.PathLike[str]) -> str:
    """``text`` with a URI's ``//`` put back where :class:`pathlib.Path` collapsed it (a command's
    path argument), else unchanged."""
    s = os.fspath(text)
    return _MANGLED.sub(r"\1://", s, count=1) if not _URI.match(s) else s


def _one_line(e: BaseException) -> str:
    text = " ".join(str(e).split())
    return re.sub(r"\s*\(Request ID: [^)]*\)", "", text)[:300]


@dataclass
class ObjectStore:
    """A log's root in an object store: ``fs`` and the ``base`` path in it (``bucket/prefix``)."""

    uri: str
    fs: pafs.FileSystem
    base: str
    scheme: str
    s3: dict[str, Any] = field(default_factory=dict)
    """The S3 settings (endpoint, scheme, region) for the conditional write's client."""

    def path(self, key: str | os.PathLike[str]) -> str:
        k = Path(key).as_posix().lstrip("/")
        return f"{self.base}/{k}" if k and k != "." else self.base

    def where(self, key: str | os.PathLike[str]) -> str:
        """The URI of ``key``, for messages."""
        k = Path(key).as_posix()
        return f"{self.uri.split('?', 1)[0].rstrip('/')}/{k}"

    def _fail(self, what: str, key: str | os.PathLike[str], e: BaseException) -> StoreError:
        return StoreError(f"{self.where(key)}: cannot {what} ({_one_line(e)})")

    def get(self, key: str | os.PathLike[str]) -> bytes:
        """The object's bytes; ``FileNotFoundError`` when there is none."""
        client = self._client()
        if client is not None:
            from botocore.exceptions import BotoCoreError, ClientError
            bucket, _, k = self.path(key).partition("/")
            try:
                return bytes(client.get_object(Bucket=bucket, Key=k)["Body"].read())
            except ClientError as e:
                if e.response.get("Error", {}).get("Code") in ("NoSuchKey", "404"):
                    raise FileNotFoundError(self.where(key)) from None
                raise self._fail("read", key, e) from None
            except BotoCoreError as e:
                raise self._fail("read", key, e) from None
        try:
            with self.fs.open_input_stream(self.path(key)) as f:
                return bytes(f.read())
        except FileNotFoundError:
            raise
        except (OSError, pa.ArrowException) as e:
            if "NO_SUCH_KEY" in str(e) or "does not exist" in str(e):
                raise FileNotFoundError(self.where(key)) from None
            raise self._fail("read", key, e) from None

    def _client(self) -> Any:
        """A boto3 S3 client for single-request writes (None: not S3, or boto3 not installed)."""
        if self.scheme != "s3":
            return None
        if "client" not in self.__dict__:
            try:
                import boto3
            except ImportError:
                self.__dict__["client"] = None
            else:
                self.__dict__["client"] = boto3.client("s3", **self.s3)
        return self.__dict__["client"]

    def put(self, key: str | os.PathLike[str], data: bytes) -> None:
        """Write the object whole (one PUT: readers see the old object or the new one)."""
        client = self._client()
        if client is not None:
            from botocore.exceptions import BotoCoreError, ClientError
            bucket, _, k = self.path(key).partition("/")
            try:
                client.put_object(Bucket=bucket, Key=k, Body=data)
            except (ClientError, BotoCoreError) as e:
                raise self._fail("write", key, e) from None
            return
        try:
            with self.fs.open_output_stream(self.path(key)) as f:
                f.write(data)
        except (OSError, pa.ArrowException) as e:
            raise self._fail("write", key, e) from None

    def put_if_absent(self, key: str | os.PathLike[str], data: bytes) -> bool:
        """Create the object unless it exists; False when it did.  Atomic on S3 (``If-None-Match``)."""
        client = self._client()
        if client is not None:
            from botocore.exceptions import BotoCoreError, ClientError
            bucket, _, k = self.path(key).partition("/")
            try:
                client.put_object(Bucket=bucket, Key=k, Body=data, IfNoneMatch="*")
            except ClientError as e:
                if e.response.get("Error", {}).get("Code") in ("PreconditionFailed",
                                                               "ConditionalRequestConflict"):
                    return False
                raise self._fail("create", key, e) from None
            except BotoCoreError as e:
                raise self._fail("create", key, e) from None
            return True
        if self.exists(key):    # no conditional write here: check, then write (see data/README.md)
            return False
        self.put(key, data)
        return True

    def exists(self, key: str | os.PathLike[str]) -> bool:
        client = self._client()
        if client is not None:
            from botocore.exceptions import BotoCoreError, ClientError
            bucket, _, k = self.path(key).partition("/")
            try:
                client.head_object(Bucket=bucket, Key=k)
            except ClientError as e:
                if e.response.get("Error", {}).get("Code") in ("NoSuchKey", "404", "NotFound"):
                    return False
                raise self._fail("look up", key, e) from None
            except BotoCoreError as e:
                raise self._fail("look up", key, e) from None
            return True
        try:
            return bool(self.fs.get_file_info(self.path(key)).type == pafs.FileType.File)
        except (OSError, pa.ArrowException) as e:
            raise self._fail("look up", key, e) from None

    def list(self, prefix: str | os.PathLike[str] = "") -> list[str]:
        """The keys (relative to the root) of every object under ``prefix``, sorted."""
        sel = pafs.FileSelector(self.path(prefix), recursive=True, allow_not_found=True)
        try:
            infos = self.fs.get_file_info(sel)
        except (OSError, pa.ArrowException) as e:
            raise self._fail("list", prefix, e) from None
        n = len(self.base) + 1
        return sorted(i.path[n:] for i in infos if i.type == pafs.FileType.File)

    def delete(self, key: str | os.PathLike[str]) -> None:
        client = self._client()
        if client is not None:   # (pyarrow would leave a folder marker behind the last object)
            from botocore.exceptions import BotoCoreError, ClientError
            bucket, _, k = self.path(key).partition("/")
            try:
                client.delete_object(Bucket=bucket, Key=k)
            except (ClientError, BotoCoreError) as e:
                raise self._fail("delete", key, e) from None
            return
        try:
            self.fs.delete_file(self.path(key))
        except FileNotFoundError:
            return
        except (OSError, pa.ArrowException) as e:
            if "NO_SUCH_KEY" in str(e) or "does not exist" in str(e):
                return
            raise self._fail("delete", key, e) from None

    def delete_many(self, keys: builtins.list[str]) -> None:
        """Delete ``keys`` (absent ones are no error): on S3 one request per thousand keys."""
        client = self._client()
        if client is None:
            for k in keys:
                self.delete(k)
            return
        from botocore.exceptions import BotoCoreError, ClientError
        for i in range(0, len(keys), 1000):
            chunk = keys[i:i + 1000]
            bucket = self.path(chunk[0]).partition("/")[0]
            objects = [{"Key": self.path(k).partition("/")[2]} for k in chunk]
            try:
                got = client.delete_objects(Bucket=bucket, Delete={"Objects": objects, "Quiet": True})
            except (ClientError, BotoCoreError) as e:
                raise self._fail("delete", chunk[0], e) from None
            errors = got.get("Errors") or []
            if errors:
                e0 = errors[0]
                raise StoreError(f"{self.where(e0.get('Key', chunk[0]))}: cannot delete ({e0.get('Code')}: "
                                 f"{e0.get('Message')}; {len(errors)} of {len(chunk)} objects)")

    def copy(self, src: str | os.PathLike[str], dst: str | os.PathLike[str]) -> None:
        """Copy an object inside the store (server side where the store can: on S3 one CopyObject, made
        by pyarrow's C++ client without the GIL, a third of boto3's CPU; a missing source fails)."""
        try:
            self.fs.copy_file(self.path(src), self.path(dst))
        except (OSError, pa.ArrowException) as e:
            raise self._fail("copy to " + self.where(dst) + " from", src, e) from None

    def download(self, dest: Path, prefixes: builtins.list[str], keep: Any = None) -> builtins.list[str]:
        """Copy the objects under ``prefixes`` (those ``keep(key)`` accepts) to the same keys under
        the local directory ``dest``; return their keys."""
        got: builtins.list[str] = []
        for prefix in prefixes:
            for k in self.list(prefix):
                if keep is not None and not keep(k):
                    continue
                target = dest / k
                target.parent.mkdir(parents=True, exist_ok=True)
                target.write_bytes(self.get(k))
                got.append(k)
        return got


def open_store(uri: str, timeout_s: float = 5.0) -> ObjectStore:
    """Resolve ``uri`` and probe it (one listing of its root); :class:`StoreError` otherwise."""
    uri = restore_uri(uri)
    parts = urlsplit(uri)
    scheme = parts.scheme.lower()
    s3: dict[str, Any] = {}
    try:
        if scheme == "s3":
            q = {k: v[-1] for k, v in parse_qs(parts.query).items()}
            endpoint = q.get("endpoint_override")
            http = q.get("scheme", "https")
            env = os.environ.get("AWS_ENDPOINT_URL_S3") or os.environ.get("AWS_ENDPOINT_URL")
            if endpoint is None and env:
                e = urlsplit(env)
                endpoint, http = e.netloc or e.path, e.scheme or "https"
            region = q.get("region") or os.environ.get("AWS_REGION") or os.environ.get(
                "AWS_DEFAULT_REGION") or "us-east-1"
            kw: dict[str, Any] = {"region": region, "connect_timeout": timeout_s,
                                  "request_timeout": timeout_s,
                                  "retry_strategy": pafs.AwsStandardS3RetryStrategy(max_attempts=2)}
            if q.get("anonymous", "").lower() in ("1", "true", "yes"):   # a public bucket: no credentials
                kw["anonymous"] = True
            if endpoint:
                kw.update(endpoint_override=endpoint, scheme=http)
                s3["endpoint_url"] = f"{http}://{endpoint}"
            s3["region_name"] = region
            fs: pafs.FileSystem = pafs.S3FileSystem(**kw)
            base = (parts.netloc + parts.path).rstrip("/")
            if not parts.netloc:
                raise StoreError(f"{uri}: no bucket named (expected s3://BUCKET/PREFIX)")
        else:
            fs, base = pafs.FileSystem.from_uri(uri)
            base = base.rstrip("/")
    except StoreError:
        raise
    except (OSError, pa.ArrowException, ValueError) as e:
        raise StoreError(f"{uri}: not a usable store URI ({_one_line(e)})") from None
    store = ObjectStore(uri, fs, base, scheme, s3)
    if scheme == "s3":
        bucket = base.split("/", 1)[0]
        try:
            info = fs.get_file_info(bucket)
        except (OSError, pa.ArrowException) as e:
            raise StoreError(f"{uri}: the store cannot be reached or refused the request ({_one_line(e)})"
                             ) from None
        if info.type == pafs.FileType.NotFound:
            raise StoreError(f"{uri}: no bucket {bucket!r} at this endpoint")
    try:
        store.list("_tournaments")
    except StoreError as e:
        raise StoreError(f"{uri}: the store cannot be listed ({str(e).split(' (', 1)[-1]}") from None
    return store


MIRROR_PREFIX = "cardarena-store-"
"""Temporary mirrors are ``<tmp>/cardarena-store-<pid>-<random>``: the pid of the process that made it."""


def sweep_mirrors(tmp: str | None = None) -> list[Path]:
    """Remove the temporary mirrors that processes which no longer run left behind (a SIGKILLed driver
    or reader); return them.  A mirror of a live process is left alone.  A mirror named by an older
    cardarena (no pid in its name) may belong to a live process: only the tournament secrets such
    mirrors held are removed from it."""
    gone = []
    for d in Path(tmp or tempfile.gettempdir()).glob(MIRROR_PREFIX + "*"):
        pid = d.name[len(MIRROR_PREFIX):].split("-", 1)[0]
        if not d.is_dir() or d.is_symlink():
            continue
        if not pid.isdigit():
            for f in d.glob("_tournaments/*.secret"):
                f.unlink(missing_ok=True)
            continue
        try:
            os.kill(int(pid), 0)
            continue   # its process still runs
        except ProcessLookupError:
            pass
        except PermissionError:   # another user's live process
            continue
        shutil.rmtree(d, ignore_errors=True)
        gone.append(d)
    return gone


class Mirror:
    """A temporary local copy of some of a store's objects, removed by :meth:`close`; never a tournament
    secret (:func:`tournaments.ledger.mirror_tournament` leaves them out).  Only a driver (and the
    bookkeeping of ``repair``/``compact``) makes one; readers read the store in place (:class:`StoreFiles`).
    Making one first removes the mirrors of processes that died without removing theirs."""

    def __init__(self, store: ObjectStore, prefixes: list[str], keep: Any = None) -> None:
        sweep_mirrors()
        self.dir = Path(tempfile.mkdtemp(prefix=f"{MIRROR_PREFIX}{os.getpid()}-"))
        try:
            self.keys: set[str] = set(store.download(self.dir, prefixes, keep))
        except BaseException:
            self.close()
            raise
        self.store = store

    def close(self) -> None:
        shutil.rmtree(self.dir, ignore_errors=True)

    def local_files(self) -> set[str]:
        return {p.relative_to(self.dir).as_posix() for p in self.dir.rglob("*") if p.is_file()}

    def push(self, key: str) -> None:
        """Upload the mirror's ``key`` to the store."""
        self.store.put(key, (self.dir / key).read_bytes())

    def sync_back(self, under: str) -> tuple[list[str], list[str]]:
        """Make the store follow what changed in the mirror under ``under``: upload new or changed files,
        delete the downloaded ones that are gone; return (uploaded, deleted)."""
        now = {k for k in self.local_files() if k.startswith(under)}
        gone = sorted(k for k in self.keys if k.startswith(under) and k not in now)
        new = sorted(k for k in now if k not in self.keys)
        for k in new:
            self.push(k)
        for k in gone:
            self.store.delete(k)
        self.keys = (self.keys - set(gone)) | set(new)
        return new, gone


# ------------------------------------------------------------------------------------------ compactions
@dataclass
class Compactions:
    """What the compactions of the tournaments in an object store took out of the committed set
    (``tournaments.compact``): the batches a committed compaction replaced, and every batch of a
    compaction's epoch until its record is written (a compaction under way, or one that died)."""

    replaced: set[str] = field(default_factory=set)
    """Names of the parts (and, with ``.json``, digest records) a committed compaction replaced."""
    pending: set[tuple[str, int]] = field(default_factory=set)
    """(tournament key, epoch) of the compactions without a record."""

    def hides(self, name: str) -> bool:
        """Is the part (or digest record) ``name`` out of the committed set?"""
        base = name[:-len(".json")] if name.endswith(".parquet.json") else name
        if base in self.replaced:
            return True
        epoch = part_epoch(base)
        return epoch is not None and (base[len("part-"):len("part-") + 8], epoch) in self.pending


def compactions(store: ObjectStore) -> Compactions:
    """Read the compaction objects of ``_tournaments/`` (a listing, and each commit record).  List this
    **before** the table folders: a compaction writes its batches, then its record, and deletes the
    batches it replaced only a grace period after that (``tournaments.compact``)."""
    out = Compactions()
    started: dict[tuple[str, int], str] = {}
    done: set[tuple[str, int]] = set()
    for k in store.list(TOURNAMENTS):
        got = compaction_name(k.rsplit("/", 1)[-1])
        if got is None:
            continue
        tid, epoch, is_record = got
        if not is_record:
            started[(tid, epoch)] = k
            continue
        try:
            record = json.loads(store.get(k))
        except FileNotFoundError:   # deleted since the listing
            continue
        except ValueError:
            raise StoreError(f"{store.where(k)}: not a compaction record (unreadable JSON)") from None
        if not isinstance(record, dict):
            raise StoreError(f"{store.where(k)}: not a compaction record (not a JSON object)")
        if record.get("aborted"):   # a dead compaction, its commit blocked: its batches stay out
            continue
        done.add((tid, epoch))
        for names in (record.get("replaced") or {}).values():
            out.replaced.update(str(n) for n in names)
    out.pending = {(tournament_key(tid), e) for (tid, e) in started if (tid, e) not in done}
    return out


# ------------------------------------------------------------------------------------------ reading in place
class LocalFiles:
    """A local log directory as the readers see it (``pathlib``): the same methods as :class:`StoreFiles`,
    so that a reader runs unchanged on either."""

    fs: pafs.FileSystem | None = None
    """What pyarrow reads through (``filesystem=``): None, the local filesystem by path."""

    def __init__(self, root: str | os.PathLike[str]) -> None:
        self.root = Path(root)

    def is_file(self, p: Path) -> bool:
        return p.is_file()

    def is_dir(self, p: Path) -> bool:
        return p.is_dir()

    def glob(self, p: Path, pattern: str) -> builtins.list[Path]:
        return sorted(p.glob(pattern))

    def read_bytes(self, p: Path) -> bytes:
        return p.read_bytes()

    def read_text(self, p: Path) -> str:
        return p.read_text()

    def shown(self, text: str) -> str:
        """``text`` (a message) with the paths in it as the user named them."""
        return text

    def where(self, p: Path) -> str:
        """The path of ``p`` for DuckDB and pyarrow's own readers."""
        return str(p)


class StoreFiles:
    """A log in an object store as the readers see it, read **in place** through ``pyarrow.fs`` (no local
    copy, no write, no lease: read-only credentials are enough).  Paths are the ones
    :mod:`tournaments.paths` builds from :attr:`root` (``BUCKET/PREFIX/...``, the store's own paths);
    messages name them by URI (:meth:`shown`).

    Each folder is listed once and the listing kept (one LIST of a table's ``game=`` folder, not one
    request per file): a reader works on the snapshot of what was committed when it looked, as a local
    reader does on one ``listdir``."""

    def __init__(self, store: ObjectStore) -> None:
        self.store = store
        self.fs: pafs.FileSystem | None = store.fs
        self.root = Path(store.base)
        self._listed: dict[str, dict[str, pafs.FileType]] = {}
        self._sizes: dict[str, int] = {}
        self._compactions: Compactions | None = None

    @property
    def compactions(self) -> Compactions:
        """The store's compactions, read once, before any ``game=`` folder is listed."""
        if self._compactions is None:
            self._compactions = compactions(self.store)
        return self._compactions

    def _list(self, p: Path) -> dict[str, pafs.FileType]:
        key = p.as_posix()
        got = self._listed.get(key)
        if got is None:
            gone = self.compactions if p.name.startswith(GAME_PREFIX) else None   # (read first)
            sel = pafs.FileSelector(key, recursive=False, allow_not_found=True)
            try:
                infos = self.store.fs.get_file_info(sel)
            except (OSError, pa.ArrowException) as e:
                raise StoreError(f"{self.shown(key)}: cannot list ({_one_line(e)})") from None
            got = {i.base_name: i.type for i in infos
                   if gone is None or i.type != pafs.FileType.File or not gone.hides(i.base_name)}
            self._listed[key] = got
            self._sizes.update((i.path, i.size) for i in infos if i.type == pafs.FileType.File
                               and i.base_name in got and i.size is not None)
        return got

    def size(self, p: Path) -> int | None:
        """The size of the file ``p`` as its folder's listing gave it (None: not a listed file)."""
        if not self.is_file(p):
            return None
        return self._sizes.get(p.as_posix())

    def is_file(self, p: Path) -> bool:
        return self._list(p.parent).get(p.name) == pafs.FileType.File

    def is_dir(self, p: Path) -> bool:
        if p == self.root:
            return True
        return self._list(p.parent).get(p.name) == pafs.FileType.Directory

    def glob(self, p: Path, pattern: str) -> builtins.list[Path]:
        """What ``pattern`` (``/``-separated ``fnmatch`` patterns, no ``**``) names under ``p``, sorted, as
        :meth:`pathlib.Path.glob`: files or folders at the last level, folders before it."""
        level = [p]
        parts = pattern.split("/")
        for i, part in enumerate(parts):
            last = i == len(parts) - 1
            level = [d / n for d in level for n, t in sorted(self._list(d).items())
                     if (last or t == pafs.FileType.Directory) and fnmatch.fnmatchcase(n, part)]
        return sorted(level)

    def read_bytes(self, p: Path) -> bytes:
        try:
            with self.store.fs.open_input_stream(p.as_posix()) as f:
                return bytes(f.read())
        except FileNotFoundError:
            raise FileNotFoundError(self.shown(p.as_posix())) from None
        except (OSError, pa.ArrowException) as e:
            if "NO_SUCH_KEY" in str(e) or "does not exist" in str(e):
                raise FileNotFoundError(self.shown(p.as_posix())) from None
            raise OSError(f"{self.shown(p.as_posix())}: cannot read ({_one_line(e)})") from None

    def read_text(self, p: Path) -> str:
        return self.read_bytes(p).decode()

    def shown(self, text: str) -> str:
        return text.replace(self.store.base, self.store.uri.split("?", 1)[0].rstrip("/"))

    def where(self, p: Path) -> str:
        return p.as_posix()


Files = LocalFiles | StoreFiles
"""How a reader reaches a log's files: a local directory or an object store (see :func:`log_files`)."""


def log_files(root: str | os.PathLike[str]) -> Files:
    """The files of the log at ``root``: a local directory, or for a store's URI the store read in
    place (:class:`StoreError` when it cannot be reached or listed)."""
    text = restore_uri(root)
    if not is_uri(text):
        return LocalFiles(root)
    return StoreFiles(open_store(text))
