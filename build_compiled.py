"""Build the optional compiled hot path: mypyc over the modules of ``engine._compiled.MODULES``.

    python build_compiled.py [--check] [--quiet] [--test]

Writes C sources, objects and the extension modules under ``build/compiled/`` (never into the
source tree) and a manifest of the sources' digests; ``engine`` then uses the build by default
(``CARDARENA_COMPILED`` unset: ``auto``) and only while those sources are unchanged
(engine/_compiled.py; ``CARDARENA_COMPILED=0`` forces the source).  Without a C compiler, the
CPython headers or mypyc it says so in one line and exits 0: the pure-Python source is the
reference and works everywhere.  ``--check`` exits 1 when no fresh build exists (without
building); ``--test`` runs the compiled games' suites on the build (``make test`` does).
"""
from __future__ import annotations

import argparse
import os
import shutil
import subprocess
import sys
import sysconfig
import tempfile
from pathlib import Path

ROOT = Path(__file__).resolve().parent
sys.path.insert(0, str(ROOT))
os.environ["CARDARENA_COMPILED"] = "0"  # this script reads the build; it never runs on it (--test's
                                        # pytest children are given =require explicitly)

from engine import _compiled  # noqa: E402  (pure Python; never compiled itself)

MULTI_FILE = True
"""One C file per module (still one group, one shared library, native calls between modules), so
that gcc compiles them in parallel: 97 s wall / 72 s CPU for the 38 modules instead of 123 / 114 as
one C file, the same speed within noise (bench/README.md, "The compiled build")."""
JOBS = min(2, os.cpu_count() or 1)
"""Parallel gcc processes (``build_ext -j``)."""


def missing_tools() -> str:
    """Why the build cannot run here ("" when it can)."""
    cc = sysconfig.get_config_var("CC") or "cc"
    if shutil.which(cc.split()[0]) is None:
        return f"no C compiler ({cc.split()[0]})"
    include = sysconfig.get_paths()["include"]
    if not Path(include, "Python.h").is_file():
        return f"no CPython headers ({include}/Python.h)"
    try:
        import mypyc  # noqa: F401
    except ImportError:
        return "mypyc is not installed (pip install mypy)"
    return ""


EXTRA_CFLAGS: tuple[str, ...] = ("-march=native", "-fno-semantic-interposition")
"""Added to mypyc's ``-O3`` (through ``CFLAGS``): the build is for the machine that builds it
(``build/compiled`` is never shipped), and the modules of the one shared library call each other
directly instead of through the PLT.  bench/README.md ("The compiled build") has what each gave."""


def build(out: Path, quiet: bool) -> None:
    """Compile into a fresh temporary directory, then swap it in (a failed build leaves no half build)."""
    out.parent.mkdir(parents=True, exist_ok=True)
    work = Path(tempfile.mkdtemp(prefix="compiled-", dir=out.parent))
    paths = [str(_compiled.source_path(m).relative_to(ROOT)) for m in _compiled.MODULES]
    before = {m: _compiled.source_digest(m) for m in _compiled.MODULES}   # what mypyc is about to read
    script = (
        "import sys\n"
        "from setuptools import setup\n"
        "from mypyc.build import mypycify\n"
        f"mods = mypycify({paths!r}, opt_level='3', group_name={_compiled.GROUP!r}, "
        f"multi_file={MULTI_FILE!r}, target_dir={str(work / 'c')!r})\n"
        f"setup(name='cardarena-compiled', ext_modules=mods, script_args=['build_ext', '-j', "
        f"{str(JOBS)!r}, '--build-lib', "
        f"{str(work / 'lib')!r}, '--build-temp', {str(work / 'tmp')!r}])\n")
    env = dict(os.environ, MYPYC_OPT_LEVEL="3",
               CFLAGS=f"{os.environ.get('CFLAGS', '')} {' '.join(EXTRA_CFLAGS)}".strip())
    try:
        r = subprocess.run([sys.executable, "-c", script], cwd=ROOT, env=env, text=True,
                           capture_output=True)
        if r.returncode:
            sys.stderr.write(r.stdout[-4000:] + r.stderr[-4000:])
            raise SystemExit(f"build_compiled: mypyc failed (exit {r.returncode}); the pure-Python "
                             "engine is unaffected")
        if not quiet:
            print(r.stdout.strip().splitlines()[-1] if r.stdout.strip() else "", file=sys.stderr)
        edited = [m for m in _compiled.MODULES if _compiled.source_digest(m) != before[m]]
        if edited:
            raise SystemExit(f"build_compiled: {_compiled.source_path(edited[0]).relative_to(ROOT)} "
                             f"changed during the build ({len(edited)} module(s)); nothing was installed: "
                             "run it again")
        _compiled.write_manifest(work / "lib", _compiled.MODULES, digests=before)
        if out.exists():
            shutil.rmtree(out)
        (work / "lib").rename(out)
    finally:
        shutil.rmtree(work, ignore_errors=True)


def run_tests(workers: int) -> int:
    """``make test-compiled``: the conformance suite, the golden playthroughs and the compiled
    games' own tests on the compiled build (``CARDARENA_COMPILED=require``), for the compiled games
    only; then tests/test_compiled.py (the oracle against the source)."""
    games = _compiled.GAMES
    files = ["tests/test_conformance.py", "tests/test_playthroughs.py"]
    own = [Path("tests", "games", f"test_{g}.py") for g in games]
    files += [str(f) for f in own if (ROOT / f).is_file()]
    select = " or ".join(f"[{g}]" if g in _other_ids(games) else g for g in games)
    env = dict(os.environ, **{_compiled.ENV: "require"})
    base = [sys.executable, "-m", "pytest", "-q", "-m", "not slow"]
    par = ["-n", str(workers)] if workers > 1 else []
    r = subprocess.run([*base, *par, *files, "-k", select], cwd=ROOT, env=env)
    if r.returncode:
        return r.returncode
    return subprocess.run([*base, "tests/test_compiled.py"], cwd=ROOT, env=env).returncode


def _other_ids(games: tuple[str, ...]) -> set[str]:
    """The compiled game ids that are a part of another game's id (klop_bela, klop_bela_3p): those
    are selected by their parametrised name, ``[klop_bela]``."""
    from engine import GAMES
    return {g for g in games if any(g in other for other in GAMES if other != g)}


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description="Build the optional mypyc-compiled engine hot path.")
    ap.add_argument("--check", action="store_true", help="only say whether a fresh build exists")
    ap.add_argument("--quiet", action="store_true")
    ap.add_argument("--test", action="store_true",
                    help="run the compiled games' conformance, playthroughs and oracle on the build")
    ap.add_argument("--workers", type=int, default=2, help="pytest-xdist workers for --test (default 2)")
    a = ap.parse_args(argv)
    files, why = _compiled.check_build()
    if a.test:
        if not files:
            print(f"test-compiled: no usable compiled build: {why}", file=sys.stderr)
            return 1
        return run_tests(a.workers)
    if a.check:
        print("compiled build: fresh" if files else f"compiled build: not usable: {why}")
        return 0 if files else 1
    if files:
        if not a.quiet:
            print(f"compiled build up to date in {_compiled.BUILD_DIR}")
        return 0
    lack = missing_tools()
    if lack:
        print(f"compiled build skipped: {lack}; the pure-Python engine is used")
        return 0
    build(_compiled.BUILD_DIR, a.quiet)
    print(f"compiled build: {len(_compiled.MODULES)} modules in {_compiled.BUILD_DIR} (used by default "
          f"while fresh; {_compiled.ENV}=0 forces the source)")
    return 0


if __name__ == "__main__":
    sys.exit(main())
