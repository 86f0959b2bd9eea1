"""The optional compiled build of the engine's hot path (mypyc), and the switch that uses it.

``python build_compiled.py`` (run by ``make demo`` and ``make test`` when gcc, the CPython headers
and mypyc are present; skipped in one line otherwise) compiles the modules of :data:`MODULES` into
:data:`BUILD_DIR` (``build/compiled/``, outside the source tree, git-ignored) and writes a manifest
holding the SHA-256 of each compiled module's source.  The Python source stays the reference, and
the build runs only while every compiled module's source is byte for byte the one it was built
from: editable development never runs a stale compiled module.

``CARDARENA_COMPILED``:

* unset, empty or ``auto`` (the default): the compiled build when it is fresh, else the
  pure-Python source, silently (no build, a source edited since the build, another Python or
  another CPU);
* ``0``: the pure-Python source (the test suite's default: tests/conftest.py);
* ``1``: the compiled build if it exists and is fresh; otherwise one warning line and the source;
* ``require``: the compiled build, or an ``ImportError`` that says why not (``make test-compiled``).

``cardarena --version`` says which engine runs and why (:func:`describe`).

The modules are all-or-nothing: mypyc compiles them into one C library whose modules call each
other natively, so one edited source file turns the whole build off (a stale module never runs).
The build is used through a finder on ``sys.meta_path`` that answers only for the compiled
modules' names; every other module (a game module added since the build, tests, bots) still comes
from the source, and a game module that is not compiled runs interpreted on the compiled core.
"""
from __future__ import annotations

import importlib.machinery
import importlib.util
import os
import sys
from collections.abc import Sequence
from importlib.machinery import ModuleSpec
from pathlib import Path
from types import ModuleType

ROOT = Path(__file__).resolve().parent.parent
"""The project root (the directory holding ``engine/``)."""
BUILD_DIR = ROOT / "build" / "compiled"
MANIFEST = "manifest.json"
ENV = "CARDARENA_COMPILED"
GROUP = "cardarena_hot"
"""mypyc's group name: the shared C library is the top-level module ``cardarena_hot__mypyc``."""

def engine_modules(root: Path = ROOT) -> tuple[str, ...]:
    """Every module of the ``engine`` package, of ``engine.games`` and of its family folders
    (``engine.games.<family>``) but the packages' ``__init__`` and this switch itself, in file-name
    order: a directory listing, nothing imported."""
    here = root / "engine"
    top = [f"engine.{p.stem}" for p in sorted(here.glob("*.py")) if p.stem not in ("__init__", "_compiled")]
    games = [f"engine.games.{p.stem}" for p in sorted((here / "games").glob("*.py")) if p.stem != "__init__"]
    families = [f"engine.games.{d.name}.{p.stem}" for d in sorted((here / "games").iterdir())
                if (d / "__init__.py").is_file() for p in sorted(d.glob("*.py")) if p.stem != "__init__"]
    return (*top, *games, *families)


MODULES: tuple[str, ...] = engine_modules()
"""The compiled modules: every module of the engine (its core, the meld library, every game and
family module), so a new game file is compiled with the others and no list names it.  A module
added or removed since the build makes the build stale (:func:`check_build`) until it is rebuilt."""

GAMES: tuple[str, ...] = tuple(m.rpartition(".")[2] for m in MODULES
                               if m.startswith("engine.games.") and not m.rpartition(".")[2].startswith("_"))
"""The game ids whose modules are compiled (the oracle test plays each on both builds)."""


class CompiledBuildError(ImportError):
    """The compiled build was required (``CARDARENA_COMPILED=require``) but cannot be used."""


def source_path(module: str, root: Path = ROOT) -> Path:
    return root.joinpath(*module.split(".")).with_suffix(".py")


def source_digest(module: str, root: Path = ROOT) -> str:
    """SHA-256 of a module's source file, as hex."""
    import hashlib  # (ast, hashlib, json: imported only when the build is asked for; start-up)
    return hashlib.sha256(source_path(module, root).read_bytes()).hexdigest()


def cpu_signature() -> str:
    """What the build was compiled for (build_compiled.py passes ``-march=native``): SHA-256 of the
    machine type and the first processor's vendor, model and feature flags in ``/proc/cpuinfo``.  A
    build copied to another machine (a working tree in an image, a shared home) is not used there:
    its code may use instructions that CPU lacks."""
    import hashlib
    try:
        with open("/proc/cpuinfo", encoding="utf-8", errors="replace") as f:
            first = f.read(1 << 16).split("\n\n", 1)[0]
    except OSError:
        first = ""
    keys = ("vendor_id", "model name", "flags", "Features", "CPU implementer", "CPU architecture",
            "CPU part")
    lines = [ln for ln in first.splitlines() if ln.partition(":")[0].strip() in keys]
    return hashlib.sha256("\n".join([os.uname().machine, *lines]).encode()).hexdigest()


def write_manifest(build_dir: Path, modules: Sequence[str], root: Path = ROOT,
                   digests: dict[str, str] | None = None) -> Path:
    """Record what was built: the Python and CPU it is for, and per module its extension file, its
    source digest and docstring.  ``digests`` are the sources' digests as the build began to read
    them (``build_compiled.py``): a source edited while it compiled is then recorded as the text it
    replaced, so the build counts as stale for it (never a build of older text marked fresh)."""
    import ast
    import json
    suffix = importlib.machinery.EXTENSION_SUFFIXES[0]
    entries = {}
    for m in modules:
        rel = Path(*m.split(".")).with_name(m.rpartition(".")[2] + suffix)
        if not (build_dir / rel).is_file():
            raise FileNotFoundError(f"compiled module {m} missing: {build_dir / rel}")
        src = source_path(m, root).read_text(encoding="utf-8")
        digest = digests[m] if digests is not None else source_digest(m, root)
        entries[m] = {"file": rel.as_posix(), "sha256": digest,
                      "doc": ast.get_docstring(ast.parse(src), clean=False)}
    lib = GROUP + "__mypyc" + suffix
    if not (build_dir / lib).is_file():
        raise FileNotFoundError(f"mypyc's shared library missing: {build_dir / lib}")
    path = build_dir / MANIFEST
    path.write_text(json.dumps({"cache_tag": sys.implementation.cache_tag, "cpu": cpu_signature(),
                                "library": lib, "modules": entries},
                               indent=1) + "\n",
                    encoding="utf-8")
    return path


class _Loader(importlib.machinery.ExtensionFileLoader):
    """Loads a compiled module and gives it its source's docstring (mypyc drops module docstrings)."""

    def __init__(self, name: str, path: str, doc: str | None) -> None:
        super().__init__(name, path)
        self.doc = doc

    def exec_module(self, module: ModuleType) -> None:
        super().exec_module(module)
        if module.__doc__ is None:
            module.__doc__ = self.doc


def check_build(build_dir: Path = BUILD_DIR, root: Path = ROOT) -> tuple[dict[str, Path], str]:
    """The compiled modules' names -> extension files if the build is usable, and ``""``; or ``{}``
    and the one-line reason it is not (missing, another Python or CPU, a source edited since the build)."""
    import json
    path = build_dir / MANIFEST
    if not path.is_file():
        return {}, f"no compiled build in {build_dir} (run: python build_compiled.py)"
    try:
        manifest = json.loads(path.read_text(encoding="utf-8"))
        tag, lib, entries = manifest["cache_tag"], manifest["library"], manifest["modules"]
        cpu = manifest["cpu"]
    except (ValueError, KeyError, TypeError) as e:
        return {}, f"unreadable manifest {path} (rebuild: python build_compiled.py): {e!r}"
    if tag != sys.implementation.cache_tag:
        return {}, f"the compiled build is for {tag}, this is {sys.implementation.cache_tag}"
    if cpu != cpu_signature():
        return {}, "the compiled build was made for another CPU (-march=native; rebuild: python " \
                   "build_compiled.py)"
    if sorted(entries) != sorted(engine_modules(root)):
        return {}, "a module of engine/ was added or removed since the compiled build (rebuild: " \
                   "python build_compiled.py)"
    files: dict[str, Path] = {GROUP + "__mypyc": build_dir / lib}
    for m, entry in entries.items():
        src = source_path(m, root)
        if not src.is_file():
            return {}, f"the compiled build has {m}, whose source {src} is gone"
        if source_digest(m, root) != entry["sha256"]:
            return {}, f"{src.relative_to(root)} was edited after the compiled build (rebuild: " \
                       f"python build_compiled.py)"
        files[m] = build_dir / entry["file"]
        DOCS[m] = entry.get("doc")
    missing = [str(f) for f in files.values() if not f.is_file()]
    if missing:
        return {}, f"compiled files missing: {', '.join(missing)}"
    return files, ""


DOCS: dict[str, str | None] = {}
"""Each compiled module's docstring, from the manifest (set by :func:`check_build`)."""
STATUS = "the pure-Python source"
"""Which engine this process runs, and why (set by :func:`activate`; :func:`describe`)."""


class CompiledFinder:
    """A ``sys.meta_path`` finder that loads the named modules from their compiled files."""

    def __init__(self, files: dict[str, Path]) -> None:
        self.files = files

    def find_spec(self, name: str, path: Sequence[str] | None = None,
                  target: ModuleType | None = None) -> ModuleSpec | None:
        f = self.files.get(name)
        if f is None:
            return None
        loader = _Loader(name, str(f), DOCS.get(name))
        return importlib.util.spec_from_file_location(name, f, loader=loader)


ACTIVE: CompiledFinder | None = None
"""The finder in use, if the compiled build is active in this process."""


def activate(mode: str | None = None, build_dir: Path = BUILD_DIR, root: Path = ROOT) -> bool:
    """Use the compiled build if ``mode`` (default: ``$CARDARENA_COMPILED``) asks and it is fresh.

    Must run before any compiled module is imported (``engine/__init__.py`` calls it first).
    """
    global ACTIVE, STATUS
    mode = os.environ.get(ENV, "") if mode is None else mode
    if mode == "0":
        STATUS = f"the pure-Python source ({ENV}=0)"
        return False
    if mode not in ("", "auto", "1", "require"):
        raise CompiledBuildError(f"{ENV}={mode!r}: accepted values are auto (the default), 0, 1 and "
                                 "require")
    if ACTIVE is not None:
        return True
    files, why = check_build(build_dir, root)
    if not files:
        STATUS = f"the pure-Python source: {why}"
        if mode == "require":
            raise CompiledBuildError(f"{ENV}=require: {why}")
        if mode == "1":
            import warnings
            warnings.warn(f"cardarena: running the pure-Python engine: {why}", RuntimeWarning,
                          stacklevel=2)
        return False
    early = [m for m in files if m in sys.modules and m != "engine"]
    if early:
        raise CompiledBuildError(f"{ENV}: {', '.join(early)} imported before the compiled build was "
                                 "activated")
    ACTIVE = CompiledFinder(files)
    sys.meta_path.insert(0, ACTIVE)
    STATUS = f"the compiled build ({len(files) - 1} modules in {build_dir}; {ENV}={mode or 'auto'})"
    return True


def describe() -> str:
    """One line: which engine this process runs (for ``cardarena --version``)."""
    return f"engine: {STATUS}"


def is_compiled(module: ModuleType) -> bool:
    """True for a module loaded from the compiled build (an extension module, not source)."""
    return isinstance(getattr(module, "__loader__", None), importlib.machinery.ExtensionFileLoader)
