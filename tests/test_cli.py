"""The command line: output for people and --json for tools; bad input is one line, exit 2."""
from __future__ import annotations

import json
import subprocess
import sys

import pytest

from engine import GAMES, game_class


def cardarena(*args: str) -> subprocess.CompletedProcess[str]:
    return subprocess.run([sys.executable, "-m", "dashboards.app", *args], capture_output=True,
                          text=True, timeout=120)


def assert_one_line_error(proc: subprocess.CompletedProcess[str], *needles: str) -> None:
    assert proc.returncode == 2, proc
    err = proc.stderr.strip()
    assert "Traceback" not in proc.stderr and len(err.splitlines()) == 1, proc.stderr
    for n in needles:
        assert n in err, err


def test_unknown_game_names_the_known_ids() -> None:
    proc = cardarena("play", "nosuchgame")
    assert_one_line_error(proc, "nosuchgame", *GAMES)
    assert_one_line_error(cardarena("rules", "nosuchgame"), "known games")


@pytest.mark.parametrize("game_id", GAMES)
def test_wrong_number_of_bots_says_how_many_seats(game_id: str) -> None:
    cls = game_class(game_id)
    bots = ",".join(["random"] * (cls.max_players + 1))
    seats = str(cls.min_players) if cls.min_players == cls.max_players else f"{cls.min_players} to"
    assert_one_line_error(cardarena("play", game_id, "--bots", bots), f"takes {seats}")


def test_bad_option_and_usage_errors_are_one_line() -> None:
    gid = GAMES[0]
    assert_one_line_error(cardarena("play", gid, "-o", "nosuch=1"), "valid options")
    assert_one_line_error(cardarena("play", gid, "-o", "junk"), "KEY=VALUE")
    assert_one_line_error(cardarena("play", gid, "--seed", "x"), "--seed")
    assert_one_line_error(cardarena("play"), "Missing argument")
    assert_one_line_error(cardarena("play", gid, "--bots", "random,nosuchbot,random,random"
                                    if game_class(gid).max_players >= 4 else "random,nosuchbot"), "nosuchbot")


def test_games_json() -> None:
    proc = cardarena("games", "--json")
    assert proc.returncode == 0
    rows = json.loads(proc.stdout)
    assert [r["id"] for r in rows] == GAMES
    assert all(r["players"][0] <= r["default_players"] <= r["players"][1] for r in rows)


@pytest.mark.parametrize("game_id", GAMES)
def test_rules_shows_card_options_and_notation(game_id: str) -> None:
    cls = game_class(game_id)
    proc = cardarena("rules", game_id)
    assert proc.returncode == 0, proc.stderr
    for o in cls.options_spec:
        assert o.name in proc.stdout
    first_verb = cls.notation.split()[0]
    assert first_verb in proc.stdout
    data = json.loads(cardarena("rules", game_id, "--json").stdout)
    assert data["id"] == game_id
    assert [o["name"] for o in data["options"]] == [o.name for o in cls.options_spec]


@pytest.mark.parametrize("game_id", GAMES)
def test_play_prints_moves_and_score_sheet(game_id: str) -> None:
    proc = cardarena("play", game_id, "--seed", "7", "--deals", "1")
    assert proc.returncode == 0, proc.stderr
    assert "deal 1:" in proc.stdout and "score sheet" in proc.stdout
    data = json.loads(cardarena("play", game_id, "--seed", "7", "--deals", "1", "--json").stdout)
    again = json.loads(cardarena("play", game_id, "--seed", "7", "--deals", "1", "--json").stdout)
    assert data == again, "the same seed must give the same match"
    assert len(data["sheet"]) == 1 and data["moves"] and len(data["ranking"]) == len(data["bots"])


def test_rules_points_to_the_shipped_reference() -> None:
    """`cardarena rules` and the docs point to docs/rules.md in the repository, not a folder beside it."""
    from pathlib import Path
    root = Path(__file__).resolve().parents[1]
    assert (root / "docs" / "rules.md").is_file()
    gid = GAMES[0]
    proc = cardarena("rules", gid)
    assert proc.returncode == 0 and f"docs/rules.md (section `{gid}`)" in " ".join(proc.stdout.split())
    assert json.loads(cardarena("rules", gid, "--json").stdout)["reference"] == "docs/rules.md"
    docs = [root / "README.md", root / "engine" / "README.md",
            root / "tournaments" / "analysis" / "README.md",
            *sorted(p for p in (root / "docs").glob("*.md") if p.name != "rules.md")]
    for doc in docs:
        assert "shared/rules/RULES.md" not in doc.read_text(encoding="utf-8"), doc


def test_fail_prints_prog_and_message_as_one_escaped_line_and_exits_2(
        capsys: pytest.CaptureFixture[str]) -> None:
    from bots.failure import fail

    with pytest.raises(SystemExit) as exit_2:
        fail("cardarena tournament", "bad\nspec \x1b[2Jhere\u2028\ud800")
    assert exit_2.value.code == 2
    with pytest.raises(SystemExit) as exit_1:
        fail("cardarena bots", "cannot store the bot", 1)
    assert exit_1.value.code == 1
    lines = capsys.readouterr().err.splitlines()
    assert lines == ["cardarena tournament: bad\\nspec \\x1b[2Jhere\\u2028\\ud800",
                     "cardarena bots: cannot store the bot"]


def test_every_command_module_uses_the_one_failure_helper() -> None:
    """No command module defines a failure or one-line helper of its own: bots/failure.py is the one."""
    import ast
    from pathlib import Path

    root = Path(__file__).resolve().parents[1]
    modules = [root / "dashboards" / "app.py", *sorted(p for layer in ("bots", "tournaments", "dashboards")
                                                        for p in (root / layer).rglob("*cli.py"))]
    assert len(modules) >= 5, modules
    own = {"fail", "_fail", "one_line", "_one_line"}
    for path in modules:
        tree = ast.parse(path.read_text())
        defined = {n.name for n in ast.walk(tree) if isinstance(n, ast.FunctionDef)} & own
        assert not defined, f"{path.relative_to(root)} defines {defined}"
        imported = {a.name for n in ast.walk(tree)
                    if isinstance(n, ast.ImportFrom) and n.module == "bots.failure" for a in n.names}
        assert "fail" in imported, f"{path.relative_to(root)} does not use bots.failure.fail"


def test_usage_error_of_the_entry_point_is_one_line_exit_2() -> None:
    """The entry point in the top layer: the console script's ``main``, a usage error one line."""
    code = "import sys; sys.argv = ['cardarena', 'play', '--nope']; from dashboards.app import main; main()"
    proc = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, timeout=60)
    assert_one_line_error(proc, "cardarena play: No such option: --nope", "(see cardarena play --help)")


def _all_command_paths() -> list[list[str]]:
    """Every command of the app, as the words a user types (``["tournament", "run"]``)."""
    import typer

    from dashboards.app import app
    from dashboards.helpstyle import conventional
    paths: list[list[str]] = []

    def walk(cmd: object, prefix: list[str]) -> None:
        subs = getattr(cmd, "commands", {})
        if not subs:
            paths.append(prefix)
        for name, sub in subs.items():
            walk(sub, [*prefix, name])
    walk(conventional(typer.main.get_command(app)), [])
    return paths


def test_bare_command_and_bare_groups_print_their_help_on_several_lines() -> None:
    for args in ([], ["tournament"], ["bots"]):
        proc = cardarena(*args)
        assert proc.returncode == 0, proc
        assert "\\n" not in proc.stdout and len(proc.stdout.splitlines()) > 5, proc.stdout
        assert proc.stdout.startswith("Usage: "), proc.stdout


def test_dash_h_is_help_everywhere() -> None:
    for path in [[], *_all_command_paths()]:
        proc = cardarena(*path, "-h")
        assert proc.returncode == 0 and proc.stdout.startswith("Usage: "), (path, proc)


def test_usage_lines_show_conventional_metavars(capsys: pytest.CaptureFixture[str]) -> None:
    """`cardarena query DIRECTORY SQL`, not `{directory} {sql}`; `--games GAMES`, not `<list[str]>`."""
    import typer

    from dashboards.app import app
    from dashboards.helpstyle import conventional
    command = conventional(typer.main.get_command(app))
    for path in _all_command_paths():
        command.main(args=[*path, "--help"], prog_name="cardarena", standalone_mode=False)
        out = capsys.readouterr().out
        usage = out.splitlines()[0]
        assert usage.startswith("Usage: cardarena"), (path, out)
        assert "{" not in usage and "<" not in usage, (path, usage)
        assert "list[" not in out, (path, out)


def test_user_docs_cite_what_ships_not_contract_or_rules_md() -> None:
    """A user's docs name docs/bots.md, docs/notation.md and docs/rules.md, which ship in the repository,
    never CONTRACT.md or RULES.md, which do not."""
    import re
    from pathlib import Path
    root = Path(__file__).resolve().parents[1]
    docs = [root / "README.md", root / "data" / "README.md", root / "bench" / "README.md",
            root / "examples" / "README.md", root / "examples" / "demo.toml",
            *sorted(p for p in (root / "docs").glob("*.md") if p.name != "rules.md")]
    for doc in docs:
        text = doc.read_text(encoding="utf-8")
        assert not re.search(r"\bCONTRACT(\.md)?\b|\bRULES\.md\b", text), doc
