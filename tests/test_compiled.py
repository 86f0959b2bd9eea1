"""The optional compiled build (engine/_compiled.py, build_compiled.py) against its oracle, the source.

* The compiled build plays the same games: identical histories, score sheets, events, observations,
  clones and determinized worlds over seeded random matches of every compiled game.
* A source edited after the build turns it off (by default, ``auto``, silently the pure source; with
  ``CARDARENA_COMPILED=1`` a warning and the pure source; with ``require`` one line and an error):
  stale compiled code never runs; so does a build made for another CPU.
* Without a C compiler the build is skipped in one line and the pure source works.

The tests that need a build skip when there is none (``python build_compiled.py`` makes it; ``make
test`` does when gcc and mypyc are present); under ``make test-compiled``
(``CARDARENA_COMPILED=require``) a missing build fails instead.
"""
from __future__ import annotations

import hashlib
import json
import os
import random
import shutil
import subprocess
import sys
import warnings
from pathlib import Path

import pytest

from engine import _compiled, load_game

ROOT = Path(__file__).resolve().parent.parent
MATCHES = 4
"""Seeded random matches per compiled game in the fast oracle test, of up to ``DEALS`` deals each
(the slow one plays ``SLOW_MATCHES`` whole matches)."""
DEALS = 2
SLOW_MATCHES = 16


def _need_build() -> None:
    files, why = _compiled.check_build()
    if not files:
        if os.environ.get(_compiled.ENV) == "require":
            pytest.fail(f"{_compiled.ENV}=require but {why}")
        pytest.skip(why)


def match_digest(game_id: str, matches: int, max_deals: int | None = None) -> dict[str, str]:
    """Per seed, the SHA-256 of everything a match shows: each action with the legal list it was
    chosen from, every few plies an observation, a clone played on for a few plies and a world
    determinized for a seat, and at the end the events, score sheet, scores and ranking."""
    game = load_game(game_id)
    out = {}
    for seed in range(matches):
        rng = random.Random(seed)
        state = game.new_match(seed=seed, max_deals=max_deals)
        h = hashlib.sha256()
        ply = 0
        while not state.is_over():
            legal = state.legal_actions()
            h.update(repr((state.current_player, legal)).encode())
            if ply % 9 == 0:
                seat = ply % state.players
                h.update(json.dumps(state.observation(seat), sort_keys=True).encode())
                twin = state.clone()
                for _ in range(3):
                    if twin.is_over():
                        break
                    twin.apply(rng.choice(twin.legal_actions()))
                h.update(repr((twin.history[-3:], twin.events[-2:], twin.score_sheet())).encode())
                try:
                    world = state.determinize(seat, random.Random(ply))
                except NotImplementedError:
                    pass
                else:
                    h.update(json.dumps(world.observation(seat), sort_keys=True).encode())
                    h.update(repr(sorted(world.zones().items())).encode())
            state.apply(rng.choice(legal))
            ply += 1
        h.update(repr((state.history, state.events, state.score_sheet(), state.scores(),
                       state.ranking())).encode())
        out[str(seed)] = h.hexdigest()
    return out


def _run(code: str, mode: str, cwd: Path = ROOT) -> subprocess.CompletedProcess[str]:
    env = dict(os.environ, **{_compiled.ENV: mode})
    return subprocess.run([sys.executable, "-c", code], cwd=cwd, env=env, text=True, capture_output=True,
                          timeout=120)


def _digest_in_child(mode: str, matches: int, max_deals: int | None,
                     games: list[str] | None = None) -> dict[str, dict[str, str]]:
    """Per game of ``games`` (default ``engine.GAMES``), :func:`match_digest` in a child on build
    ``mode``."""
    code = ("import json, engine, engine.core\n"
            "from engine import _compiled\n"
            "from tests.test_compiled import match_digest\n"
            f"assert _compiled.is_compiled(engine.core) == {mode != '0'}, 'wrong build'\n"
            "out = {}\n"
            f"for g in {games!r} or engine.GAMES:\n"
            f"    out[g] = match_digest(g, {matches}, {max_deals})\n"
            "print(json.dumps(out))\n")
    r = _run(code, mode)
    assert r.returncode == 0, r.stderr[-2000:]
    out: dict[str, dict[str, str]] = json.loads(r.stdout)
    return out


def _same_on_both_builds(matches: int, max_deals: int | None) -> None:
    """Every game, to the byte, on the compiled build and on the source (every game module is
    compiled: :data:`engine._compiled.GAMES` is :data:`engine.GAMES`)."""
    _need_build()
    from engine import GAMES
    assert set(_compiled.GAMES) == set(GAMES), "a game module is missing from engine._compiled.MODULES"
    compiled = _digest_in_child("require", matches, max_deals)
    pure = _digest_in_child("0", matches, max_deals)
    assert set(compiled) == set(pure) == set(GAMES)
    for game_id in GAMES:
        p, c = pure[game_id], compiled[game_id]
        differ = [s for s in p if p[s] != c[s]]
        assert not differ, f"{game_id}: the compiled build differs from the source in seeds {differ}"


def test_compiled_build_plays_the_same_matches_as_the_source() -> None:
    """The oracle: every game the build runs, seeded random matches (two deals), pure and compiled,
    to the byte: legal lists, actions, observations, clones, determinized worlds, events, sheets."""
    _same_on_both_builds(MATCHES, DEALS)


@pytest.mark.slow
def test_compiled_build_plays_the_same_whole_matches_as_the_source() -> None:
    _same_on_both_builds(SLOW_MATCHES, None)


def test_compiled_modules_are_the_ones_loaded() -> None:
    """With the build active every module of MODULES is an extension module, the rest source."""
    _need_build()
    code = ("import engine, importlib, sys\nfrom engine import _compiled\n"
            "engine.load_game('hartenjagen')\n"
            "bad = [m for m in _compiled.MODULES if not _compiled.is_compiled(importlib.import_module(m))]\n"
            "import engine.games.jass._jass as j\n"
            "print(bad, _compiled.is_compiled(j) == ('engine.games.jass._jass' in _compiled.MODULES))\n")
    r = _run(code, "require")
    assert r.returncode == 0, r.stderr[-2000:]
    assert r.stdout.split() == ["[]", "True"]


def _copy_tree(tmp: Path, with_build: bool) -> Path:
    root = tmp / "proj"
    shutil.copytree(ROOT / "engine", root / "engine", ignore=shutil.ignore_patterns("__pycache__"))
    shutil.copy(ROOT / "build_compiled.py", root)
    if with_build:
        shutil.copytree(_compiled.BUILD_DIR, root / "build" / "compiled")
    return root


def test_a_build_made_for_another_cpu_is_not_used(tmp_path: Path) -> None:
    """The build is compiled with ``-march=native``: copied to a machine whose CPU differs (its
    manifest's ``cpu`` is not this machine's), it is refused with the reason, never run."""
    _need_build()
    root = _copy_tree(tmp_path, with_build=True)
    build = root / "build" / "compiled"
    assert _compiled.check_build(build, root)[1] == ""
    path = build / _compiled.MANIFEST
    manifest = json.loads(path.read_text(encoding="utf-8"))
    manifest["cpu"] = hashlib.sha256(b"another machine").hexdigest()
    path.write_text(json.dumps(manifest), encoding="utf-8")
    files, why = _compiled.check_build(build, root)
    assert files == {} and why.startswith("the compiled build was made for another CPU")


def test_a_new_engine_module_is_compiled_with_the_others_and_stales_the_build(tmp_path: Path) -> None:
    """MODULES is every module of the engine (a directory listing): a game file added after the
    build joins the list with no other edit, and the build is stale until it is rebuilt with it."""
    _need_build()
    root = _copy_tree(tmp_path, with_build=True)
    build = root / "build" / "compiled"
    assert _compiled.engine_modules(root) == _compiled.MODULES and _compiled.check_build(build, root)[1] == ""
    family = root / "engine" / "games" / "manille"
    shutil.copy(family / "manillen.py", family / "manillen_copy.py")
    assert "engine.games.manille.manillen_copy" in _compiled.engine_modules(root)
    files, why = _compiled.check_build(build, root)
    assert files == {} and why.startswith("a module of engine/ was added or removed since the compiled build")


PROBE = ("import engine, engine.core\nfrom engine import _compiled\n"
         "print(engine.__file__, _compiled.is_compiled(engine.core))\n")


def test_stale_source_turns_the_compiled_build_off(tmp_path: Path) -> None:
    """A copy of the project with its build: used while the sources are the built ones; after one
    compiled module's source is edited, ``1`` warns and runs the source, ``require`` says why."""
    _need_build()
    root = _copy_tree(tmp_path, with_build=True)
    r = _run(PROBE, "1", cwd=root)
    assert r.returncode == 0, r.stderr[-2000:]
    where, compiled = r.stdout.split()
    assert Path(where).resolve().is_relative_to(root) and compiled == "True"
    src = root / "engine" / "tricks.py"
    src.write_text(src.read_text(encoding="utf-8") + "\n# an edit after the build\n", encoding="utf-8")
    r = _run(PROBE, "1", cwd=root)
    assert r.returncode == 0, r.stderr[-2000:]
    assert r.stdout.split()[1] == "False"
    assert "engine/tricks.py was edited after the compiled build" in r.stderr
    r = _run(PROBE, "require", cwd=root)
    assert r.returncode != 0
    assert "CompiledBuildError: CARDARENA_COMPILED=require: engine/tricks.py was edited" in r.stderr


def test_build_is_skipped_in_one_line_without_a_compiler(tmp_path: Path) -> None:
    root = _copy_tree(tmp_path, with_build=False)
    env = dict(os.environ, PATH=str(tmp_path / "empty"), **{_compiled.ENV: "0"})
    r = subprocess.run([sys.executable, "build_compiled.py"], cwd=root, env=env, text=True,
                       capture_output=True, timeout=60)
    assert r.returncode == 0, r.stderr
    assert r.stdout.startswith("compiled build skipped: no C compiler"), r.stdout
    assert not (root / "build" / "compiled").exists()
    r = _run(PROBE, "0", cwd=root)
    assert r.returncode == 0 and r.stdout.split()[1] == "False"
    r = subprocess.run([sys.executable, "build_compiled.py", "--check"], cwd=root, text=True,
                       capture_output=True, env=dict(os.environ, **{_compiled.ENV: "require"}), timeout=60)
    assert (r.returncode, r.stdout.split(":")[:2]) == (1, ["compiled build", " not usable"]), r.stderr


def test_a_source_edited_while_it_compiles_installs_no_build(tmp_path: Path) -> None:
    """The manifest records the sources as the build began to read them, and a build during which a
    source changed is discarded with one line: a build of the older text is never marked fresh for
    the newer.  Run in a copy of the tree, with mypyc stood in for by an edit of engine/cards.py."""
    root = _copy_tree(tmp_path, with_build=False)
    script = ("import subprocess, sys\nfrom pathlib import Path\nimport build_compiled\n"
              "def compile_(cmd, **kw):\n"
              "    p = Path('engine/cards.py'); p.write_text(p.read_text() + '# edited\\n')\n"
              "    return subprocess.CompletedProcess(cmd, 0, '', '')\n"
              "build_compiled.subprocess.run = compile_\n"
              "build_compiled.build(Path('build/compiled'), quiet=True)\n")
    r = subprocess.run([sys.executable, "-c", script], cwd=root, env=dict(os.environ, PYTHONPATH=str(root)),
                       text=True, capture_output=True, timeout=120)
    assert r.returncode == 1 and "Traceback" not in r.stderr, r.stderr[-2000:]
    assert r.stderr.strip() == ("build_compiled: engine/cards.py changed during the build (1 module(s)); "
                                "nothing was installed: run it again"), r.stderr
    assert not (root / "build" / "compiled").exists()
    assert not list((root / "build").glob("compiled-*"))   # the work folder is gone too


def test_activate_without_a_build(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    """No build: ``auto`` (unset) and ``0`` are the source silently, ``1`` warns once, ``require``
    raises, others are refused; :func:`describe` says which engine runs and why."""
    monkeypatch.setattr(_compiled, "ACTIVE", None)  # (this process may run on the build: make test-compiled)
    monkeypatch.setattr(_compiled, "STATUS", _compiled.STATUS)
    missing = tmp_path / "none"
    for quiet in ("", "auto", "0"):
        with warnings.catch_warnings(record=True) as caught:
            warnings.simplefilter("always")
            assert _compiled.activate(quiet, build_dir=missing) is False
        assert caught == []
    assert _compiled.describe() == f"engine: the pure-Python source ({_compiled.ENV}=0)"
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        assert _compiled.activate("1", build_dir=missing) is False
    assert [str(w.message) for w in caught] == [
        f"cardarena: running the pure-Python engine: no compiled build in {missing} "
        "(run: python build_compiled.py)"]
    assert _compiled.describe() == (f"engine: the pure-Python source: no compiled build in {missing} "
                                    "(run: python build_compiled.py)")
    with pytest.raises(_compiled.CompiledBuildError, match="require: no compiled build"):
        _compiled.activate("require", build_dir=missing)
    with pytest.raises(_compiled.CompiledBuildError, match=r"accepted values are auto \(the default\), 0, 1"):
        _compiled.activate("yes", build_dir=missing)


VERSION = ("import engine, engine.core\nfrom engine import _compiled\n"
           "print(_compiled.is_compiled(engine.core))\nprint(_compiled.describe())\n")


def test_auto_runs_a_fresh_build_and_the_source_silently_once_stale(tmp_path: Path) -> None:
    """``CARDARENA_COMPILED`` unset: a fresh build that runs every game is used (and said); after a
    compiled module's source is edited, the source runs, without a warning."""
    _need_build()
    root = _copy_tree(tmp_path, with_build=True)
    r = _run(VERSION, "", cwd=root)
    assert r.returncode == 0 and r.stderr == "", r.stderr[-2000:]
    compiled, line = r.stdout.splitlines()
    assert compiled == "True"
    assert line == (f"engine: the compiled build ({len(_compiled.MODULES)} modules in "
                    f"{root / 'build' / 'compiled'}; {_compiled.ENV}=auto)")
    src = root / "engine" / "stock.py"
    src.write_text(src.read_text(encoding="utf-8") + "\n# an edit after the build\n", encoding="utf-8")
    r = _run(VERSION, "", cwd=root)
    assert r.returncode == 0 and r.stderr == "", r.stderr[-2000:]
    assert r.stdout.splitlines() == ["False", "engine: the pure-Python source: engine/stock.py was edited "
                                              "after the compiled build (rebuild: python build_compiled.py)"]


def test_compiled_rummy_states_show_each_field_once_to_the_garbage_collector() -> None:
    """A compiled subclass that declares a field of its base again (``RummyState`` re-declaring
    ``DrawDiscardState.stock``) reports it twice to the cyclic GC, which then empties the stock
    list a live state shares with the exact search's garbage copies (ramino_drift seed 3 after
    seed 2 diverged in the compiled build): every field object is reported once, the game twice
    (``game`` and ``rg``)."""
    _need_build()
    code = ("import gc, random\nfrom collections import Counter\nimport engine\n"
            "from engine import _compiled\nimport engine.games.rummy._rummy as r\n"
            "assert _compiled.is_compiled(r), 'wrong build'\n"
            "for g in ('jokeren_nl', 'amerikaans_jokeren', 'jokeren_drift', 'ramino_drift', 'loba'):\n"
            "    st = engine.load_game(g).new_match(seed=1)\n    rng = random.Random(1)\n"
            "    for _ in range(300):\n        st.apply(rng.choice(st.legal_actions()))\n"
            "    for o in (st, st._light_clone(), st.clone()):\n"
            "        refs = [x for x in gc.get_referents(o) if x is not None and x is not st.game]\n"
            "        print(g, [type(x).__name__ for x in refs if Counter(map(id, refs))[id(x)] > 1])\n")
    r = _run(code, "require")
    assert r.returncode == 0, r.stderr[-2000:]
    assert r.stdout.splitlines() == [f"{g} []" for g in ("jokeren_nl", "amerikaans_jokeren", "jokeren_drift",
                                                          "ramino_drift", "loba") for _ in range(3)], r.stdout


def test_version_says_which_engine_runs() -> None:
    """``cardarena --version``: the version, then which engine runs (and, on the source, why)."""
    def version(mode: str) -> list[str]:
        r = subprocess.run([sys.executable, "-m", "dashboards.app", "--version"], cwd=ROOT, text=True,
                           capture_output=True, env=dict(os.environ, **{_compiled.ENV: mode}), timeout=60)
        assert r.returncode == 0, r.stderr[-2000:]
        return r.stdout.splitlines()
    first, engine_line = version("0")
    assert first.startswith("cardarena ") and engine_line == (
        f"engine: the pure-Python source ({_compiled.ENV}=0)")
    if _compiled.check_build()[0]:
        assert version("require")[1].startswith(
            f"engine: the compiled build ({len(_compiled.MODULES)} modules in {_compiled.BUILD_DIR}; ")
