"""Issue 24 §11: a trained policy can be submitted.  The sandbox offers numpy and ``cardarena_rl``
(engine.rl's action ids and encoder, bots/sandbox/library.py); ``bots/examples/policy`` is a package
bot carrying its weights; the REINFORCE example of docs/rl.md saves exactly its format.  Under
bubblewrap and under the unshare fallback: the docs' saved policy validates, the example plays its
best legal id in a match and plays a tournament (``bots eval``) against the built-ins.  The attacks
on the libraries are in test_hostile.py (test_issue24_s11_...)."""
from __future__ import annotations

import json
import os
import random
import re
import runpy
import shutil
import sys
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import numpy as np
import pytest
from typer.testing import CliRunner

from bots.api import bot_source
from bots.cli import app
from bots.match import make_players, play_match, seat_seed
from bots.sandbox import Limits, isolation, start_players
from bots.sandbox.library import library
from engine import GAMES, load_game
from engine.rl import action_space, observation_encoder

ROOT = Path(__file__).resolve().parents[2]
EXAMPLE = ROOT / "bots" / "examples" / "policy"
DOC = ROOT / "docs" / "rl.md"
FAST = Limits(move_time=5.0, time_bank=5.0, start_time=20.0)


@pytest.fixture(params=("bwrap", "unshare"))
def wrapper(request: pytest.FixtureRequest, monkeypatch: pytest.MonkeyPatch) -> Iterator[str]:
    w = str(request.param)
    iso = isolation(w)
    if iso.refusal:
        pytest.skip(f"{w} does not work here: {iso.refusal}")
    monkeypatch.setenv("CARDARENA_SANDBOX", w)
    yield w


@pytest.fixture
def cardarena_rl(monkeypatch: pytest.MonkeyPatch) -> Iterator[Any]:
    """The ``cardarena_rl`` package a sandboxed bot imports, imported here from its host folder."""
    lib = library()
    assert lib is not None
    monkeypatch.syspath_prepend(lib.host_path)
    import cardarena_rl
    yield cardarena_rl
    for name in [m for m in sys.modules if m == "cardarena_rl" or m.startswith("cardarena_rl.")]:
        del sys.modules[name]


def test_issue24_s11_the_sandboxs_ids_and_tensors_are_engine_rls(cardarena_rl: Any) -> None:
    """For every game at its smallest, default and largest player count: the same action strings,
    the same layout, and over 40 plies of a random match the same tensor of every observation (after
    a JSON round trip, as the sandbox delivers it) and the same legal ids."""
    assert tuple(cardarena_rl.GAMES) == tuple(GAMES)
    for game_id in GAMES:
        space, theirs = action_space(game_id), cardarena_rl.action_space(game_id)
        assert theirs.strings == space.strings and theirs.size == space.size
        assert [vars(b) for b in theirs.blocks] == [vars(b) for b in space.blocks]
        game = load_game(game_id)
        for n in sorted({game.min_players, game.default_players, game.max_players}):
            enc, box = observation_encoder(game_id, n), cardarena_rl.observation_encoder(game_id, n)
            assert (box.shape, box.layout, box.phases) == (enc.shape, enc.layout, enc.phases), (game_id, n)
            state, rng = game.new_match(seed=n, players=n), random.Random(n)
            for _ in range(40):
                if state.is_over():
                    break
                obs = json.loads(json.dumps(state.observation(state.current_player)))
                assert np.array_equal(box.encode(obs), enc.encode(obs)), (game_id, n, obs["phase"])
                assert cardarena_rl.legal_ids(theirs, obs) == space.legal_ids(state)
                assert np.array_equal(cardarena_rl.legal_mask(theirs, obs), space.mask(state))
                state.apply(rng.choice(state.legal_actions()))
    four = cardarena_rl.observation_encoder("hartenjagen", 4)
    assert cardarena_rl.observation_encoder("hartenjagen") is four


def test_issue24_s11_bad_input_to_cardarena_rl_is_one_line_value_error(cardarena_rl: Any) -> None:
    for call in (lambda: cardarena_rl.action_space("chess"), lambda: cardarena_rl.action_space(3),
                 lambda: cardarena_rl.observation_encoder("hartenjagen", 3),
                 lambda: cardarena_rl.observation_encoder("hartenjagen", True),
                 lambda: cardarena_rl.action_space("hartenjagen").id("play 1Z"),
                 lambda: cardarena_rl.action_space("hartenjagen").string(104)):
        with pytest.raises(ValueError) as err:
            call()
        assert "\n" not in str(err.value)


def docs_policy(tmp_path: Path, episodes: int = 3) -> Path:
    """The REINFORCE example of docs/rl.md run for ``episodes`` episodes, its policy.npz put beside
    a copy of the example bot's code: the bot a reader submits."""
    code = next(c for c in re.findall(r"```python\n(.*?)```", DOC.read_text(), re.S) if "np.savez" in c)
    code = re.sub(r"^EPISODES = \d+$", f"EPISODES = {episodes}", code, flags=re.M)
    work = tmp_path / "train"
    work.mkdir()
    (work / "train.py").write_text(code)
    here = Path.cwd()
    try:
        os.chdir(work)
        runpy.run_path(str(work / "train.py"), run_name="__main__")
    finally:
        os.chdir(here)
    bot = tmp_path / "mypolicy"
    bot.mkdir()
    shutil.copyfile(EXAMPLE / "__init__.py", bot / "__init__.py")
    shutil.copyfile(work / "policy.npz", bot / "policy.npz")
    return bot


def test_issue24_s11_the_docs_reinforce_example_saves_a_bot_that_validates(wrapper: str,
                                                                           tmp_path: Path) -> None:
    pytest.importorskip("pettingzoo")
    bot = docs_policy(tmp_path)
    with np.load(bot / "policy.npz") as saved:
        assert set(saved.files) == {"W", "game"} and str(saved["game"]) == "hartenjagen"
        shape = (action_space("hartenjagen").size, observation_encoder("hartenjagen").shape[0])
        assert saved["W"].shape == shape and saved["W"].dtype == np.float32
    done = CliRunner().invoke(app, ["validate", str(bot), "--json"])
    assert done.exit_code == 0, done.output
    report = json.loads(done.stdout)
    assert report["ok"] and report["declared_games"] == ["hartenjagen"], report
    assert list(report["games"]) == ["hartenjagen"] and report["games"]["hartenjagen"]["ok"]
    assert report["sandbox"].startswith(f"sandbox: {wrapper},")


def test_issue24_s11_the_policy_bot_plays_its_best_legal_id(wrapper: str) -> None:
    """The example bot against three random bots: every one of its moves is the legal id with the
    highest logit of its weights over engine.rl's tensor of its observation, recomputed here."""
    game, seed = load_game("hartenjagen"), 11
    boxes = start_players([(bot_source(EXAMPLE), False, 0)], "hartenjagen", [seat_seed(seed, 0)], FAST)
    players = [*boxes, *make_players(game, ["random"] * 4, seed)[1:]]
    try:
        result = play_match(game, players, seed, max_deals=1)
    finally:
        boxes[0].close()
    assert result.outcomes == ["ok"] * 4, result.faults
    with np.load(EXAMPLE / "policy.npz") as saved:
        w = saved["W"]
    space, enc = action_space("hartenjagen"), observation_encoder("hartenjagen", 4)
    replay, mine = game.new_match(seed=seed, max_deals=1), 0
    for seat, action in result.moves:
        if seat == 0:
            legal = space.mask(replay) == 1
            logits = np.where(legal, w @ enc.encode(replay.observation(0)), -np.inf)
            assert action == space.string(int(np.argmax(logits)))
            mine += 1
        replay.apply(action)
    assert mine >= 13   # its 13 cards played (and its passes)


def test_issue24_s11_the_policy_bot_plays_a_tournament_against_the_builtins(
        wrapper: str, capsys: pytest.CaptureFixture[str]) -> None:
    """``bots eval`` (a tournament on the local pool, the bot in the sandbox) against random and
    greedy: every match played, no fault."""
    from tests.test_bad_paths import run

    code, text, _ = run(capsys, ["bots", "eval", str(EXAMPLE), "--game", "hartenjagen",
                                 "--vs", "random,greedy",
                                 "--boards", "1", "--deals", "1", "--json"])
    out = json.loads(text)
    assert code == 0, out
    assert out["matches"] == 4 and out["faults"] == 0 and out["fault_groups"] == [], out
    assert {e["bot"] for e in out["entrants"]} == {"policy", "random", "random-2", "greedy"}


@pytest.fixture
def fresh_library(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Iterator[Path]:
    """library() made anew, in ``tmp_path`` as the temporary directory."""
    import tempfile

    from bots.sandbox import library as lib_mod

    monkeypatch.setattr(tempfile, "tempdir", str(tmp_path))
    lib_mod._library.cache_clear()
    yield tmp_path
    lib_mod._library.cache_clear()


def test_issue24_s11_a_library_folder_not_as_made_is_not_used(fresh_library: Path) -> None:
    """The folder named for this engine is used only when it is this user's, writable by nobody
    else and holds exactly the names assembled there: a planted module, a group-writable table, a
    link elsewhere or a folder of another user make library() assemble a fresh folder of its own
    (and leave the other alone)."""
    import numpy

    from bots.sandbox import library as lib_mod

    first = library()
    assert first is not None and Path(first.host_path).parent == fresh_library
    named = Path(first.host_path)
    where, libs = lib_mod.numpy_dirs() or ("", None)
    assert named.name == lib_mod.folder_name(os.geteuid(), lib_mod._digest(numpy.__version__),
                                             lib_mod._targets(where, libs))
    tables = named / "cardarena_rl" / "tables"
    tampered = [lambda: (named / "cardarena_rl" / "evil.py").write_text("x = 1\n"),
                lambda: (tables / "hartenjagen.json").chmod(0o666),
                lambda: (named / "cardarena_rl" / "_tensors.py").unlink() or
                (named / "cardarena_rl" / "_tensors.py").symlink_to("/etc/passwd")]
    if os.geteuid() == 0:   # another user's folder of that name
        tampered.append(lambda: os.chown(named / "cardarena_rl" / "tables", 65534, 65534))
    for tamper in tampered:
        tamper()
        lib_mod._library.cache_clear()
        again = library()
        assert again is not None and Path(again.host_path) != named
        assert Path(again.host_path).parent == fresh_library
        table = Path(again.host_path) / "cardarena_rl" / "tables" / "hartenjagen.json"
        assert table.stat().st_mode & 0o777 == 0o644
        shutil.rmtree(again.host_path)
        shutil.rmtree(named)
        lib_mod._library.cache_clear()
        assert library() == first   # made again under its name


def test_issue24_s11_two_environments_of_one_engine_each_have_their_library_folder(
        fresh_library: Path, tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    """Two checkouts or virtual environments on one machine, with the same engine sources and numpy
    version but numpy in another folder, each use a folder of their own under its own name, made
    once: neither finds the other's links where it expects its own and falls back to a fresh folder
    at every start (the named folder is used again by each)."""
    from bots.sandbox import library as lib_mod

    first = library()
    assert first is not None
    where, libs = lib_mod.numpy_dirs() or ("", None)
    other = tmp_path / "other-venv" / "numpy"
    other.parent.mkdir()
    other.symlink_to(where)   # another environment's numpy (the same files)
    numpy_dirs = lib_mod.numpy_dirs
    monkeypatch.setattr(lib_mod, "numpy_dirs", lambda: (str(other), libs))
    lib_mod._library.cache_clear()
    second = library()
    assert second is not None and second.host_path != first.host_path
    assert os.readlink(Path(second.host_path) / "numpy") == str(other)
    assert Path(second.host_path).name.startswith(f"cardarena-lib-{os.geteuid()}-")
    lib_mod._library.cache_clear()
    assert library() == second
    monkeypatch.setattr(lib_mod, "numpy_dirs", numpy_dirs)
    lib_mod._library.cache_clear()
    assert library() == first


def test_issue24_s11_a_library_folder_that_went_away_is_made_again(fresh_library: Path) -> None:
    lib = library()
    assert lib is not None
    shutil.rmtree(lib.host_path)
    again = library()
    assert again == lib and (Path(lib.host_path) / "cardarena_rl" / "__init__.py").is_file()


def test_issue24_s11_library_folders_unused_for_a_day_go_when_one_is_made(fresh_library: Path) -> None:
    """Making a library folder removes this user's others (other engine versions, fresh fallbacks)
    unused for a day, and keeps recent ones and other users'; every sandbox start marks its folder."""
    import time

    from bots.sandbox import library as lib_mod

    me = os.geteuid()
    old, recent, fresh_old = (fresh_library / f"cardarena-lib-{me}-{'a' * 16}",
                              fresh_library / f"cardarena-lib-{me}-{'b' * 16}",
                              fresh_library / "cardarena-lib-new-x1")
    strangers = fresh_library / f"cardarena-lib-65534-{'c' * 16}"
    day_ago = time.time() - lib_mod.STALE_S - 60
    for d in (old, recent, fresh_old, strangers):
        (d / "cardarena_rl").mkdir(parents=True)
    for d in (old, fresh_old, strangers):
        os.utime(d, (day_ago, day_ago))
    if me == 0:
        os.chown(strangers, 65534, 65534)
    lib = library()
    assert lib is not None
    assert not old.exists() and not fresh_old.exists() and recent.exists()
    assert strangers.exists() or me != 0
    os.utime(lib.host_path, (day_ago, day_ago))
    assert library() == lib and time.time() - os.stat(lib.host_path).st_mtime < 60   # marked as used
