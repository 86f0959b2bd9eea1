"""A log's and a bot's text is never terminal markup, nor an escape sequence, in any command that
prints it (issue 27, section 5): entrant names, a fault reason and a worker holding rich markup
(``[/x]`` crashed ``query`` with a MarkupError; ``[link=...]`` and ``[conceal]`` put a link and
invisible text into the organiser's terminal) and ANSI/OSC escapes go through ``query`` (table, CSV,
JSON), ``rank``, ``coverage``, ``verify``, ``bots faults``, ``tournament leaderboard`` and
``status``, ``dashboard`` and ``show``: no traceback, the markup printed as the characters it is,
no escape of the log's reaching the terminal (run with colours forced, as on a terminal)."""
from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path

import pyarrow.parquet as pq
import pytest

from tournaments.analysis.synth import write_log
from tournaments.ledger import write_manifest

MARKUP = ["[/x]", "[link=http://evil.example]x[/link]", "[conceal]hidden[/conceal]", "[bold red]r"]
ESCAPES = ["\x1b[31mred\x1b[0m", "\x1b]8;;http://evil.example\x07click\x1b]8;;\x07", "\x1b[2J", "\u202eevil"]
HOSTILE = " ".join(MARKUP + ESCAPES)
LABEL = "[/x][link=http://evil.example]x[/link]\x1b[31m"
"""A part of an entrant's name (synthetic players are named by the text before '-')."""
BOTS = [f"random-{LABEL}", "first-[conceal]c", "last-\x1b]8;;http://evil.example\x07", "random-\u202eb"]
RAW = ("\x1b[31m", "\x1b]8;", "\x1b[2J", "\u202e", "\x1b[8m")
"""What must never reach the terminal: the log's escapes, and rich's conceal (SGR 8)."""


@pytest.fixture(scope="module")
def hostile_log(tmp_path_factory: pytest.TempPathFactory) -> Path:
    root = tmp_path_factory.mktemp("hostile") / "t"
    write_log(root, ["hartenjagen"], BOTS, boards=1, seed=3, max_deals=1, batch_size=2, tournament="t",
              fault_reason=HOSTILE, worker=HOSTILE)
    write_manifest(root, "t", {"tournament": "t", "total_matches": 4, "games": [{"id": "hartenjagen"}],
                               "bots": {b: b for b in BOTS}})
    names = set(pq.read_table(root / "matches", columns=["bots"]).column("bots").to_pylist()[0])
    assert names == set(BOTS)
    return root


def run(*args: str) -> subprocess.CompletedProcess[str]:
    env = {**os.environ, "FORCE_COLOR": "1", "COLUMNS": "2000", "TTY_COMPATIBLE": "1"}
    env.pop("NO_COLOR", None)
    return subprocess.run([sys.executable, "-m", "dashboards.app", *args], capture_output=True, text=True,
                          timeout=300, env=env)


def _clean(r: subprocess.CompletedProcess[str], what: list[str], bot_traceback: bool = False) -> str:
    """The output, checked: no traceback of ours (``play`` shows the bot's own), no raw escape."""
    text = r.stdout + r.stderr
    assert "MarkupError" not in text and "site-packages" not in text and "dashboards/" not in text, \
        (what, text[-2000:])
    assert bot_traceback or "Traceback" not in text, (what, text[-2000:])
    for raw in RAW:
        assert raw not in text, (what, raw, text[-2000:])
    return text


def commands(root: Path, tmp: Path) -> list[list[str]]:
    d = str(root)
    sql = "SELECT bots, fault_reason, faults, worker FROM matches"
    return [
        ["query", d, sql], ["query", d, sql, "-f", "json"],
        ["query", d, sql, "-o", str(tmp / "q.txt")],
        ["query", d, "SELECT DISTINCT bot FROM moves"],
        ["rank", d, "--bootstrap", "10"], ["rank", d, "--bootstrap", "10", "--wide"],
        ["coverage", d], ["verify", d, "--workers", "1"],
        ["bots", "faults", d, BOTS[0]], ["bots", "faults", d, BOTS[2]],
        ["tournament", "leaderboard", d], ["tournament", "status", d], ["tournament", "status", d, "--wide"],
        ["dashboard", d, "-o", str(tmp / "r.html")],
    ]


def test_log_text_is_printed_as_text_by_every_command(hostile_log: Path, tmp_path: Path) -> None:
    for cmd in commands(hostile_log, tmp_path):
        r = run(*cmd)
        text = _clean(r, cmd)
        assert r.returncode in (0, 1), (cmd, r.returncode, text[-2000:])   # verify: 1 (the fake faults)
    r = run("query", str(hostile_log), "SELECT fault_reason FROM matches LIMIT 1")
    for m in MARKUP:   # the markup is shown, not interpreted (it would vanish, or crash)
        assert m in r.stdout, (m, r.stdout)
    assert "\\x1b[31mred" in r.stdout and "\\u202eevil" in r.stdout   # the escapes shown escaped
    assert all(m in (tmp_path / "q.txt").read_text() for m in MARKUP)
    assert not any(raw in (tmp_path / "q.txt").read_text() for raw in RAW)
    r = run("query", str(hostile_log), "SELECT fault_reason FROM matches LIMIT 1", "-f", "json")
    assert json.loads(r.stdout) == [{"fault_reason": HOSTILE}]   # JSON keeps the text exact
    r = run("rank", str(hostile_log), "--bootstrap", "10")
    assert "[/x][link=http://evil.example]x[/link]\\x1b[31m" in r.stdout and "[conceal]c" in r.stdout


def on_a_terminal(*args: str) -> str:
    """What ``cardarena ARGS`` writes to a terminal (a pseudo-terminal as stdout)."""
    import pty
    master, slave = pty.openpty()
    try:
        p = subprocess.Popen([sys.executable, "-m", "dashboards.app", *args], stdout=slave,
                             stderr=subprocess.PIPE, env={**os.environ, "COLUMNS": "2000"})
        os.close(slave)
        chunks = []
        while True:
            try:
                b = os.read(master, 65536)
            except OSError:   # EIO: the child closed the terminal
                break
            if not b:
                break
            chunks.append(b)
        assert p.wait(timeout=300) == 0
    finally:
        os.close(master)
    return b"".join(chunks).decode()


def test_query_csv_is_exact_in_a_pipe_and_escaped_on_a_terminal(hostile_log: Path) -> None:
    sql = "SELECT fault_reason FROM matches LIMIT 1"
    r = run("query", str(hostile_log), sql, "-f", "csv")
    assert r.returncode == 0 and HOSTILE in r.stdout   # data for a program: as it is
    shown = on_a_terminal("query", str(hostile_log), sql, "-f", "csv")
    assert "\\x1b[31mred" in shown and not any(raw in shown for raw in RAW), shown
    assert all(m in shown for m in MARKUP)


def test_match_page_summary_prints_log_text_escaped(hostile_log: Path, tmp_path: Path) -> None:
    mid = pq.read_table(hostile_log / "matches", columns=["match_id"]).column("match_id")[0].as_py()
    cmd = ["show", str(hostile_log), mid, "-o", str(tmp_path / "m.html")]
    r = run(*cmd)
    _clean(r, cmd)
    assert r.returncode == 0, r.stderr


def test_markup_in_a_users_path_or_bot_name_is_not_markup(tmp_path: Path) -> None:
    """A path or a bot name typed by the user is text too (``play`` with a bot file named
    ``evil[bold]x.py`` in a folder ``[conceal]b...``)."""
    bot = tmp_path / "[conceal]b[link=e.example]x"
    bot.mkdir()
    f = bot / "evil[bold]x.py"
    f.write_text("def act(observation):\n    raise ValueError('[/x] [conceal]hidden \\x1b[31m')\n")
    cmd = ["play", "hartenjagen", "--bots", f"random,random,random,{f}", "--deals", "1"]
    r = run(*cmd)
    text = _clean(r, cmd, bot_traceback=True)
    assert r.returncode == 3, text[-2000:]   # a bot faulted
    assert "evil[bold]x.py" in r.stdout and "[conceal]hidden" in r.stdout
    r = run("rank", str(tmp_path / "[/x]"))
    _clean(r, ["rank"])
    assert r.returncode == 2 and r.stderr.count("\n") == 1
