"""A tournament is finished by the rules code that started it: going on with matches logged by
another engine version of their game (``matches.engine_version``: the game's module and the engine
modules it uses) is refused in one line, unless ``--allow-engine-change``, which the manifest then
records; a game added to the engine since changes no other game's version."""
from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path
from typing import Any

import pyarrow as pa
import pyarrow.parquet as pq
import pytest

from engine.core import GAME_MODULES
from tests.tournaments.conftest import fastest_game, raw_spec, toml_of
from tests.treecopy import copy_env, project_copy
from tournaments.log import engine_version, game_sources, logged_engine_versions, record_digests, write_part
from tournaments.paths import committed_parts, manifest_path
from tournaments.runner import BatchResult
from tournaments.runners import Summary, TournamentError, prepare, run_tournament
from tournaments.spec import parse_spec

OLD = "0123456789ab"


def _half_played(tmp_path: Path) -> tuple[dict[str, Any], Path]:
    raw = raw_spec(tmp_path, **{"matches_per_seating": 2, "run": {"batch_s": 0.01},
                                "output": str(tmp_path / "out")})

    def stop_after_two(r: BatchResult, s: Summary) -> None:
        if s.done_now >= 2:
            raise KeyboardInterrupt

    first = run_tournament(parse_spec(raw), executor="inline", progress=False, on_batch=stop_after_two)
    assert first.stopped and not first.complete
    return raw, tmp_path / "out"


def _as_if_played_by(root: Path, version: str) -> None:
    """Rewrite the matches parts as an older cardarena wrote them (its engine version), with their
    digest records made anew so that the log is whole."""
    for p in committed_parts(root, "t"):
        t = pq.read_table(p)
        rows = t.to_pylist()
        for r in rows:
            r["engine_version"] = version
        write_part(p, pa.Table.from_pylist(rows, schema=t.schema.remove_metadata()), fsync=False)
        record_digests(p)


def test_going_on_with_matches_of_another_engine_version_is_refused_unless_allowed(tmp_path: Path) -> None:
    raw, root = _half_played(tmp_path)
    sp = parse_spec(raw)
    man = json.loads(manifest_path(root, "t").read_text())
    assert man["engine_version"] == engine_version()
    game = fastest_game()
    done = sum(logged_engine_versions(root, "t").values())
    assert logged_engine_versions(root, "t") == {engine_version(game): done} and done >= 2
    prepare(sp, resume=True).release()  # the same engine: goes on

    _as_if_played_by(root, OLD)
    with pytest.raises(TournamentError, match=f"played so far by engine {OLD} \\({done} matches\\) and this "
                       f"is engine {engine_version(game)}: the rules code has changed"):
        prepare(sp, resume=True)
    with pytest.raises(TournamentError, match="--allow-engine-change"):
        prepare(sp)  # a run without --resume on the same output goes on too: the same check

    spec_file = tmp_path / "spec.toml"
    spec_file.write_text(toml_of(raw))
    proc = subprocess.run([sys.executable, "-m", "dashboards.app", "tournament", "run", str(spec_file),
                           "--resume", "--no-progress", "--no-leaderboard"],
                          capture_output=True, text=True, timeout=300)
    assert proc.returncode != 0
    lines = [x for x in proc.stderr.splitlines() if x.strip()]
    assert len(lines) == 1 and "--allow-engine-change" in lines[0] and "Traceback" not in proc.stderr

    s = run_tournament(sp, resume=True, executor="inline", progress=False, allow_engine_change=True)
    assert s.complete and s.done_before == done
    man = json.loads(manifest_path(root, "t").read_text())
    assert [(c["from"], c["to"]) for c in man["engine_changes"]] == [([OLD], engine_version(game))]
    assert logged_engine_versions(root, "t") == {OLD: done, engine_version(game): s.total - done}


def test_a_game_version_is_its_module_and_the_engine_modules_it_imports() -> None:
    """engine_version(game) hashes the game's rules code only: its module and what it imports from
    the engine, directly or through its family module (read from the sources)."""
    names = [p.as_posix() for p in game_sources("handjas")]
    for own in ("engine/games/jass/handjas.py", "engine/games/jass/_jass.py", "engine/tricks.py",
                "engine/core.py", "engine/cards.py"):
        assert any(n.endswith(own) for n in names), (own, names)
    assert not any("hartenjagen" in n or "/rummy/" in n or "manille" in n for n in names), names
    assert engine_version("handjas") != engine_version("hartenjagen")
    with pytest.raises(ValueError, match="unknown game 'no_such_game'"):
        game_sources("no_such_game")


def _run_in(tree: Path, *args: str, timeout: float = 600) -> subprocess.CompletedProcess[str]:
    """``args`` run by Python in the copied tree ``tree`` (its code, not the checkout's)."""
    return subprocess.run([sys.executable, *args], cwd=tree, env=copy_env(tree), capture_output=True,
                          text=True, timeout=timeout)


def test_a_tournament_started_before_a_new_game_was_added_resumes_without_allow_engine_change(
        tmp_path: Path) -> None:
    """Issue 22: a game module added to engine/games/ (really in the package, of a copy of the
    project: tests/treecopy.py) changes the whole engine's digest but not the version of the
    tournament's game, so the tournament goes on with no flag."""
    raw, root = _half_played(tmp_path)
    game = fastest_game()
    tree = project_copy(tmp_path / "src")
    source = tree.joinpath(*GAME_MODULES["manillen"].split(".")).with_suffix(".py")
    added = tree / "engine" / "games" / "zz_added_since.py"
    added.write_text(source.read_text().replace('    id = "manillen"\n', '    id = "zz_added_since"\n'))
    seen = _run_in(tree, "-c", "import json, engine\nfrom engine.core import discover\n"
                   "from tournaments.log import engine_version as v\n"
                   f"print(json.dumps([engine.__file__, discover(), v(), v({game!r})]))")
    assert seen.returncode == 0, seen.stderr[-2000:]
    where, games, whole, version = json.loads(seen.stdout.splitlines()[-1])
    assert Path(where).is_relative_to(tree) and "zz_added_since" in games
    assert whole != engine_version() and version == engine_version(game)
    spec_file = tmp_path / "spec.toml"
    spec_file.write_text(toml_of(raw))
    resumed = _run_in(tree, "-m", "dashboards.app", "tournament", "run", str(spec_file), "--inline",
                      "--resume", "--no-progress", "--no-leaderboard", "--json")
    assert resumed.returncode == 0, resumed.stderr[-2000:]
    summary = json.loads(resumed.stdout)
    assert summary["complete"] and summary["done_before"] >= 2, summary
    man = json.loads(manifest_path(root, "t").read_text())
    assert "engine_changes" not in man


def test_a_tournament_started_by_the_cli_resumes_by_the_cli_after_the_toy_game_was_added(
        tmp_path: Path) -> None:
    """Issue 22 (Done when), through the real entry point: ``cardarena tournament run`` is stopped
    (Ctrl-C) halfway, the walk-through's toy game file (tests/toygame/toy_tricks.py) is added to
    engine/games/ (of a copy of the project: tests/treecopy.py), and ``tournament run --resume``
    finishes the tournament with no --allow-engine-change: the game's version is unchanged, so no
    engine change is recorded."""
    import signal
    import time

    raw = raw_spec(tmp_path, **{"matches_per_seating": 600, "run": {"batch_s": 0.01},
                                "output": str(tmp_path / "out")})   # long enough to be stopped halfway
    root = tmp_path / "out"
    spec_file = tmp_path / "spec.toml"
    spec_file.write_text(toml_of(raw))
    tree = project_copy(tmp_path / "src")
    cli = [sys.executable, "-m", "dashboards.app", "tournament", "run", str(spec_file), "--inline",
           "--no-progress", "--no-leaderboard"]
    first = subprocess.Popen(cli, cwd=tree, env=copy_env(tree), stdout=subprocess.PIPE,
                             stderr=subprocess.PIPE, text=True)
    deadline = time.monotonic() + 120
    while not committed_parts(root, "t") and first.poll() is None and time.monotonic() < deadline:
        time.sleep(0.05)
    first.send_signal(signal.SIGINT)
    _, err = first.communicate(timeout=120)
    before = sum(logged_engine_versions(root, "t").values())
    assert 0 < before, (first.returncode, err)
    assert first.returncode != 0 and "Traceback" not in err, (first.returncode, err)

    toy = tree / "engine" / "games" / "toy_tricks.py"
    toy.write_text((tree / "tests" / "toygame" / "toy_tricks.py").read_text())
    games = _run_in(tree, "-m", "dashboards.app", "games", "--json", timeout=120)
    assert games.returncode == 0 and "toy_tricks" in games.stdout, games.stderr[-2000:]
    resumed = _run_in(tree, *cli[1:], "--resume", "--json")
    assert resumed.returncode == 0, resumed.stderr[-2000:]
    assert "--allow-engine-change" not in resumed.stderr
    summary = json.loads(resumed.stdout)
    assert summary["complete"] and summary["done_before"] == before < summary["total"], summary
    versions = logged_engine_versions(root, "t")
    assert versions == {engine_version(fastest_game()): summary["total"]}, versions
    man = json.loads(manifest_path(root, "t").read_text())
    assert "engine_changes" not in man


@pytest.fixture
def fresh_versions() -> Any:
    """engine_version's per-process caches emptied before and after (as in a new worker)."""
    import tournaments.log as log
    caches = (log.engine_version, log.shipped_game_versions, log.engine_digest)
    for c in caches:
        c.cache_clear()
    yield log
    for c in caches:
        c.cache_clear()


def _count_parses(log: Any, monkeypatch: pytest.MonkeyPatch) -> list[str]:
    """Every game whose sources :func:`game_sources` reads (parses) from now on."""
    parsed: list[str] = []
    real = log.game_sources

    def counted(game: str) -> list[Path]:
        parsed.append(game)
        return real(game)
    monkeypatch.setattr(log, "game_sources", counted)
    return parsed


def test_the_shipped_game_versions_are_this_engines() -> None:
    """tournaments/games_index.json's ``engine`` entry holds this engine's digest and every game's
    version made from the sources: else every worker parses each game's sources again."""
    from engine import GAMES
    from tournaments.games_index import INDEX_PATH, read_index
    from tournaments.log import SHIPPED_INDEX, engine_digest, sources_version
    assert SHIPPED_INDEX == INDEX_PATH
    data = read_index()
    assert data is not None and isinstance(data.get("engine"), dict), f"{INDEX_PATH}: run `make regen`"
    assert data["engine"]["digest"] == engine_digest() and data["engine"]["versions"] == {
        g: sources_version(g) for g in GAMES}, f"{INDEX_PATH}'s engine versions are stale: run `make regen`"


def test_a_worker_reads_the_game_versions_without_parsing_a_source(
        fresh_versions: Any, monkeypatch: pytest.MonkeyPatch) -> None:
    """Issue 28 §2: engine_version(game) cost each worker 45-80 ms per game (the parse of the
    game's sources); with the shipped table of this engine it parses nothing, and says what the
    sources say."""
    from engine import GAMES
    log = fresh_versions
    parsed = _count_parses(log, monkeypatch)
    got = {g: log.engine_version(g) for g in GAMES}
    assert parsed == []
    assert got == {g: log.sources_version(g) for g in GAMES}


def test_an_edited_engine_parses_each_game_once_per_process(
        fresh_versions: Any, monkeypatch: pytest.MonkeyPatch) -> None:
    """When any engine source differs from the one the table was written from (its digest), the
    table is not used: each game's version comes from its sources, parsed once per process."""
    log = fresh_versions
    shipped = {g: log.engine_version(g) for g in ("hartenjagen", "honderden")}
    for c in (log.engine_version, log.shipped_game_versions):
        c.cache_clear()
    monkeypatch.setattr(log, "engine_digest", lambda: "0" * 64)  # as if a source had changed
    parsed = _count_parses(log, monkeypatch)
    for _ in range(3):
        assert {g: log.engine_version(g) for g in shipped} == shipped
    assert sorted(parsed) == ["hartenjagen", "honderden"]
