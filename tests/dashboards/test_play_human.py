"""``cardarena play GAME --human SEAT`` at the terminal (issue 26 item 10), through the real entry point.

Whole matches are played by a scripted person who reads what the command printed (the numbered legal
actions after the last ``-- your turn`` line) and types a number or an action string, with bad input
mixed in: each bad line gets one line and the question again.  The logged match (``--out``) is then
replayed by the engine: the person's moves are the ones typed, the log holds ``human@local`` and the
boards never rank it.  Ctrl-C and an input that ends early end the command in one line (exit 130).
"""
from __future__ import annotations

import io
import json
import os
import re
import signal
import subprocess
import sys
import time
from collections.abc import Callable
from contextlib import redirect_stderr, redirect_stdout
from pathlib import Path
from typing import Any

import pytest

from dashboards.human import CARD, card_tokens, public_tokens, redact
from engine import GAMES, load_game
from tests.dashboards.conftest import cardarena
from tournaments.analysis.leaderboard import HUMAN_REF, ranked_match
from tournaments.analysis.views import open_log

ACTION = re.compile(r"\s*(\d+)\) (.+?)(?=\s{2,}\d+\)|$)")


def legal_shown(text: str) -> list[str]:
    """The numbered actions printed after the last ``-- your turn`` line."""
    tail = text[text.rindex("-- your turn"):]
    found: dict[int, str] = {}
    for line in tail.splitlines():
        if re.match(r"\s*\d+\) ", line):
            for m in ACTION.finditer(line):
                found[int(m.group(1))] = m.group(2).strip()
    return [found[k] for k in sorted(found)]


def prefer_melds(legal: list[str]) -> str:
    """A person who lays melds (a joker first), confirms them and otherwise plays the first action."""
    for pick in (lambda a: a.startswith("meld") and "JK" in a, lambda a: a.startswith("meld"),
                 lambda a: a == "confirm", lambda a: a != "takeback"):
        for a in legal:
            if pick(a):
                return a
    return legal[0]


def play_in_process(args: list[str], policy: Callable[[list[str]], str], bad_every: int = 0
                    ) -> tuple[int, str, str, list[str], int]:
    """Run ``cardarena ARGS`` through ``dashboards.app.main`` with a scripted person on ``input``:
    (exit status, stdout, stderr, the actions typed, bad lines typed)."""
    import builtins

    from dashboards.app import main
    out, err = io.StringIO(), io.StringIO()
    typed: list[str] = []
    bad = [0]
    asked = [0]

    def person(prompt: str = "") -> str:
        out.write(prompt)
        asked[0] += 1
        if bad_every and asked[0] % bad_every == 0:
            bad[0] += 1
            return ["0", "banana", "999", "play"][bad[0] % 4]
        legal = legal_shown(out.getvalue())
        a = policy(legal)
        typed.append(a)
        # a number or the action string, in another case, alternately
        return str(legal.index(a) + 1) if len(typed) % 2 else a.lower()

    old_argv, old_input = sys.argv, builtins.input
    sys.argv = ["cardarena", *args]
    builtins.input = person
    try:
        with redirect_stdout(out), redirect_stderr(err):
            try:
                main()
                code = 0
            except SystemExit as e:
                code = e.code if isinstance(e.code, int) else 1
    finally:
        sys.argv, builtins.input = old_argv, old_input
    return code, out.getvalue(), err.getvalue(), typed, bad[0]


def logged(out: Path) -> tuple[dict[str, Any], list[dict[str, Any]]]:
    log = open_log(out)
    con = log.connect()
    try:
        m = con.execute("SELECT * FROM matches").arrow().read_all().to_pylist()
        mv = con.execute("SELECT seat, action FROM moves ORDER BY ply").arrow().read_all().to_pylist()
    finally:
        con.close()
    assert len(m) == 1
    return m[0], mv


def check_replay(match: dict[str, Any], moves: list[dict[str, Any]], human: int, typed: list[str]) -> None:
    """The logged match replays on the engine, and the person's moves are the ones typed."""
    st = load_game(match["game"] if "game" in match else "", **json.loads(match["options"])).new_match(
        seed=int(match["seed"]), players=int(match["players"]), max_deals=match["max_deals"])
    for mv in moves:
        assert mv["seat"] == st.current_player
        st.apply(mv["action"])
    assert st.is_over()
    assert [mv["action"] for mv in moves if mv["seat"] == human] == typed


@pytest.mark.parametrize(("game", "human", "extra"), [
    ("hartenjagen", 2, []),
    ("jokeren_nl", 0, ["--seed", "6"]),
    ("zenuwen", 1, ["--bots", "random"]),
])
def test_a_whole_match_at_the_terminal_is_played_logged_and_replays(tmp_path: Path, game: str, human: int,
                                                                    extra: list[str]) -> None:
    out = tmp_path / "log"
    args = ["play", game, "--human", str(human), "--deals", "1", "--out", str(out), *extra]
    if "--seed" not in extra:
        args += ["--seed", "3"]
    code, stdout, stderr, typed, bad = play_in_process(args, prefer_melds, bad_every=7)
    assert code == 0, stderr
    assert bad > 0 and stdout.count("is not one of the") == bad
    assert "-- the match is over: every hand as dealt --" in stdout
    assert "Traceback" not in stdout + stderr
    match, moves = logged(out)
    assert match["bot_refs"][human] == HUMAN_REF and match["bots"][human] == "human"
    assert not ranked_match(list(match["bot_refs"]))
    match["game"] = game
    check_replay(match, moves, human, typed)
    if game == "hartenjagen":  # logged like any other match: verify replays it and runs the invariant SQL
        v = cardarena("verify", str(out))
        assert v.returncode == 0 and "0 violation(s)" in v.stdout, v.stdout + v.stderr
    if game == "jokeren_nl":   # the meld built card by card, with a joker naming a card
        assert any(a.startswith("meld JK=") for a in typed) and "confirm" in typed
    if game == "zenuwen":      # one action a tick, the bots' submissions never shown before it resolves
        assert "submitted an action" in stdout


def test_bots_may_name_the_whole_table_with_human_at_the_persons_seat(tmp_path: Path) -> None:
    code, _, stderr, _, _ = play_in_process(
        ["play", "hartenjagen", "--human", "1", "--bots", "random,human,greedy,random", "--seed", "1",
         "--deals", "1", "--out", str(tmp_path)], lambda legal: legal[0])
    assert code == 0, stderr
    match, _ = logged(tmp_path)
    assert match["bots"] == ["random", "human", "greedy", "random-2"]
    assert match["bot_refs"] == ["random", HUMAN_REF, "greedy", "random"]


def test_bad_input_gets_one_line_and_the_question_again(tmp_path: Path) -> None:
    code, stdout, stderr, typed, bad = play_in_process(
        ["play", "hartenjagen", "--human", "0", "--seed", "1", "--deals", "1"], lambda legal: legal[0],
        bad_every=3)
    assert code == 0, stderr
    refusals = [ln for ln in stdout.splitlines() if "is not one of the" in ln]
    assert len(refusals) == bad and bad >= 5
    assert all("type a number from 1 to" in ln for ln in refusals)
    assert len(typed) == 3 + 13   # three cards passed one by one, thirteen played


def test_bad_command_lines_are_one_line_exit_2(tmp_path: Path) -> None:
    for args, says in [
        (["play", "hartenjagen", "--human", "4"], "--human 4: seats are 0 to 3"),
        (["play", "hartenjagen", "--human", "0", "--bots", "greedy"], "hartenjagen takes 4 players"),
        (["play", "hartenjagen", "--human", "0", "--bots", "greedy,nosuchbot,random"], "unknown bot"),
        (["play", "hartenjagen", "--web"], "--web goes with --human"),
        (["play", "hartenjagen", "--out", str(tmp_path)], "--out goes with --human"),
        (["play", "hartenjagen", "--human", "0", "--json"], "--json does not go with --human"),
        (["play", "hartenjagen", "--human", "0", "--bots", "greedy,human,greedy,greedy"],
         "--bots names 'human' at seat 1 but --human is 0"),
    ]:
        code, _, stderr, _, _ = play_in_process(args, lambda legal: legal[0])
        assert code == 2, (args, stderr)
        assert says in stderr and len(stderr.strip().splitlines()) == 1, (args, stderr)


def test_ctrl_c_and_the_end_of_input_end_the_command_in_one_line(tmp_path: Path) -> None:
    ended = cardarena("play", "hartenjagen", "--human", "0", "--seed", "2", "--out", str(tmp_path / "a"),
                      timeout=120)   # stdin is empty: the input ends at the first question
    assert ended.returncode == 130, ended.stderr
    assert ended.stderr.strip().splitlines() == [
        "cardarena: the match was abandoned (the input ended before the match did); nothing was logged"]
    assert not (tmp_path / "a").exists()
    proc = subprocess.Popen([sys.executable, "-m", "dashboards.app", "play", "hartenjagen", "--human", "0",
                             "--seed", "2"], stdin=subprocess.PIPE, stdout=subprocess.PIPE,
                            stderr=subprocess.PIPE, text=True)
    assert proc.stdout is not None
    try:
        deadline = time.monotonic() + 120
        seen = ""
        while "your move" not in seen and time.monotonic() < deadline:
            seen += os.read(proc.stdout.fileno(), 4096).decode()
        proc.send_signal(signal.SIGINT)
        _, err = proc.communicate(timeout=60)
    finally:
        if proc.poll() is None:
            proc.kill()
            proc.communicate()
    assert proc.returncode == 130, err
    assert "Traceback" not in err and err.strip().splitlines() == [
        "cardarena: the match was abandoned (interrupted); nothing was logged"]


def test_a_human_match_is_never_ranked(cli_tournament: Path, tmp_path: Path) -> None:
    """A match with a human seat logged into a tournament changes neither ``rank`` nor ``tournament
    leaderboard``; alone in a folder, ``rank`` says it ranks nothing."""
    import shutil

    from bots.match import close_players, make_players, play_match
    from dashboards.human import Seating, log_match
    root = tmp_path / "t"
    shutil.copytree(cli_tournament, root)
    before = [cardarena("rank", str(root), "--json").stdout,
              cardarena("tournament", "leaderboard", str(root), "--json").stdout]
    from dashboards.report_data import Analysis, read_logs

    def shares() -> dict[str, Any]:   # the report's share of each entrant against each opponent
        return {e["bot"]: e["opponents"] for e in Analysis(read_logs(root), bootstrap=10).entrants()}

    shares_before = shares()
    g = load_game("hartenjagen")
    seats = Seating(0, [None, "random", "random", "random"], ["random", "r2", "r3", "greedy"])
    players = make_players(g, ["random"] * 4, 9)
    records: list[Any] = []
    try:
        result = play_match(g, players, 9, 1, on_move=records.append)
    finally:
        close_players(players)
    tournament = json.loads(before[1])["tournament"] if "tournament" in json.loads(before[1]) else None
    name = tournament or next(p.stem for p in (root / "_tournaments").glob("*.json"))
    log_match(root, g, result, seats, records, tournament=name)
    q = cardarena("query", str(root), "SELECT count(*) AS n FROM matches WHERE list_contains(bot_refs, "
                  "'human@local')", "--json")
    assert json.loads(q.stdout)[0]["n"] == 1, q.stdout + q.stderr
    after = [cardarena("rank", str(root), "--json").stdout,
             cardarena("tournament", "leaderboard", str(root), "--json").stdout]
    assert after == before
    assert shares() == shares_before   # (the human match's seats carry the entrants' labels)
    alone = tmp_path / "alone"
    log_match(alone, g, result, seats, records)
    r = cardarena("rank", str(alone))
    assert r.returncode == 0 and "no ranked matches" in r.stdout and "never ranked" in r.stdout


def test_another_seats_private_cards_are_redacted() -> None:
    obs = {"hand": ["QS", "2C"], "trick": [[1, "KH"]], "legal_actions": ["play QS"]}
    assert redact("pass 2C 3D KH", public_tokens(obs)) == "pass ?? ?? KH"
    assert CARD.findall("meld JK=6H 7H/2") == ["JK", "6H", "7H"]


def test_the_web_server_needs_its_token_and_checks_every_answer(tmp_path: Path) -> None:
    """``--web`` without a browser: the real command's server, driven over HTTP by a small client that
    polls the messages and answers each turn.  Without the token (or with another) every path is 403;
    an answer that is not one of the turn's legal actions is 400, one for a turn that is over 409; the
    match ends, the command exits 0 and logs it."""
    import select
    import urllib.error
    import urllib.request

    proc = subprocess.Popen([sys.executable, "-m", "dashboards.app", "play", "hartenjagen", "--human", "3",
                             "--seed", "8", "--deals", "1", "--web", "--out", str(tmp_path / "log")],
                            stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)
    assert proc.stdout is not None
    assert select.select([proc.stdout], [], [], 120)[0], "no URL printed"
    m = re.search(r"http://127\.0\.0\.1:(\d+)/\?token=([\w-]+)", proc.stdout.readline())
    assert m is not None
    base, token = f"http://127.0.0.1:{m.group(1)}/", m.group(2)

    def call(path: str, body: dict[str, Any] | None = None, tok: str | None = token) -> tuple[int, Any]:
        headers = {"X-Cardarena-Token": tok} if tok is not None else {}
        req = urllib.request.Request(base + path, data=None if body is None else json.dumps(body).encode(),
                                     headers=headers, method="GET" if body is None else "POST")
        try:
            with urllib.request.urlopen(req, timeout=60) as r:
                text = r.read().decode()
                return r.status, json.loads(text) if path.startswith("api") else text
        except urllib.error.HTTPError as e:
            return e.code, e.read().decode()

    try:
        for path in ("", "static/play.js", "api/updates?since=0"):
            assert call(path, tok=None)[0] == 403
            assert call(path, tok=token[:-1] + ("A" if token[-1] != "A" else "B"))[0] == 403
        assert call("api/act", {"turn": 0, "action": "pass 2C"}, tok=None)[0] == 403
        status, html = call("?token=" + token, tok=None)
        assert status == 200 and "play.js" in html
        since, turns, over = 0, 0, None
        while over is None:
            status, got = call(f"api/updates?since={since}")
            assert status == 200
            for msg in got["messages"]:
                since = msg["n"] + 1
                if msg["type"] == "over":
                    over = msg
                elif msg["type"] == "turn":
                    legal = msg["obs"]["legal_actions"]
                    assert call("api/act", {"turn": msg["n"], "action": "play ZZ"})[0] == 400
                    assert call("api/act", {"turn": msg["n"] + 1000, "action": legal[0]})[0] == 409
                    assert call("api/act", {"turn": msg["n"], "action": legal[0]})[0] == 200
                    assert call("api/act", {"turn": msg["n"], "action": legal[0]})[0] == 409   # answered
                    turns += 1
        assert turns == 3 + 13 and over["placement"] and len(over["reveal"]["dealt"][0]["hands"]) == 4
        stdout, err = proc.communicate(timeout=60)
        assert "never ranked" in stdout
    finally:
        if proc.poll() is None:
            proc.kill()
            proc.communicate()
    assert proc.returncode == 0, err
    match, moves = logged(tmp_path / "log")
    assert match["bot_refs"][3] == HUMAN_REF and len(moves) == 4 * 16


def test_ctrl_c_stops_the_web_server_in_one_line(tmp_path: Path) -> None:
    import select
    import urllib.request
    proc = subprocess.Popen([sys.executable, "-m", "dashboards.app", "play", "hartenjagen", "--human", "0",
                             "--web", "--out", str(tmp_path / "log")],
                            stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)
    assert proc.stdout is not None
    try:
        assert select.select([proc.stdout], [], [], 120)[0], "no URL printed"
        url = re.search(r"http://\S+", proc.stdout.readline())
        assert url is not None
        with urllib.request.urlopen(url.group(0), timeout=30) as r:   # the page is being served
            assert r.status == 200
        proc.send_signal(signal.SIGINT)
        _, err = proc.communicate(timeout=60)
    finally:
        if proc.poll() is None:
            proc.kill()
            proc.communicate()
    assert proc.returncode == 130
    assert err.strip().splitlines() == [
        "cardarena: the match was abandoned (interrupted); nothing was logged"]
    assert not (tmp_path / "log").exists()


@pytest.mark.parametrize("game", GAMES)
def test_every_game_shows_the_person_only_what_the_seat_sees(game: str) -> None:
    """Over a one-deal match of every game (random players, the person in the last seat): each update
    the person is given (the other seats' moves as text, their rule events, the observation after)
    holds only cards the seat sees before or after that move; a simultaneous tick's submissions are
    never shown; the reveal comes only once the match is over."""
    from bots.match import close_players, make_players, play_match
    from dashboards.human import Update, Watcher, seating
    from engine import game_class
    g = load_game(game)
    n = game_class(game).default_players
    seats = seating(n, n - 1, ["random"] * (n - 1))
    updates: list[Update] = []
    watcher = Watcher(g, 11, n, 1, seats, updates.append)
    with pytest.raises(AssertionError):
        watcher.reveal()
    seen = [card_tokens(watcher.obs)]

    def on_move(rec: Any) -> None:
        watcher.on_move(rec)
        seen.append(card_tokens(watcher.obs))

    players = make_players(g, ["random"] * n, 11)
    try:
        play_match(g, players, 11, 1, on_move=on_move)
    finally:
        close_players(players)
    assert len(updates) == len(seen) - 1 > 0
    for k, u in enumerate(updates):
        shown = CARD.findall(u.text) + [t for e in u.events for t in CARD.findall(e)]
        assert set(shown) <= seen[k] | seen[k + 1], (k, u.text, u.events)
        assert card_tokens(u.obs) == seen[k + 1]
        if u.seat != n - 1 and "submitted" in u.obs:
            assert u.text == "submitted an action"
    assert watcher.reveal()["dealt"]
