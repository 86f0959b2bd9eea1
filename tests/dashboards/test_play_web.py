"""``cardarena play GAME --human SEAT --web`` in a real browser (issue 26 item 10): headless Chromium
(Debian's ``chromium``) driven by Playwright, against the real command run as a subprocess.

Whole one-deal matches are played by clicking: a trick game (Hartenjagen, cards clicked in the hand), a
rummy with a meld laid card by card with a joker (Jokeren), and Zenuwen (its ticks, the space bar
passing).  Every response the server sends the page is recorded (``page.route``) and checked: the
page itself and its scripts hold no card, and every card in every message is one the seat sees at
that point (its observation before or after the move, replayed by the engine from the logged
match), until the end, whose reveal comes last.  Requests without the token get 403.

Skipped, with the reason, where Playwright or ``/usr/bin/chromium`` is missing (Playwright only drives
that binary: ``playwright install`` is never needed).
"""
from __future__ import annotations

import json
import re
import select
import subprocess
import sys
import time
import urllib.error
import urllib.request
from collections.abc import Callable, Iterator
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import pytest

from dashboards.human import CARD, HUMAN_REF, card_tokens
from engine import load_game
from tests.dashboards.test_play_human import prefer_melds

CHROMIUM = Path("/usr/bin/chromium")
ARGS = ["--headless", "--no-sandbox", "--disable-gpu", "--disable-dev-shm-usage",
        "--disable-background-networking", "--disable-component-update", "--disable-sync", "--no-first-run"]
TEMPLATES = Path(__file__).resolve().parents[2] / "dashboards" / "templates"

pytestmark = [
    pytest.mark.skipif(not CHROMIUM.exists(), reason="needs /usr/bin/chromium (apt-get install chromium)"),
]


@pytest.fixture(scope="module")
def browser() -> Iterator[Any]:
    sync_api = pytest.importorskip("playwright.sync_api", reason="needs playwright (pip install playwright)")
    with sync_api.sync_playwright() as p:
        b = p.chromium.launch(executable_path=str(CHROMIUM), args=ARGS)
        try:
            yield b
        finally:
            b.close()


@dataclass
class WebMatch:
    """The command serving one match, its page, and every response the page received."""

    proc: subprocess.Popen[str]
    url: str
    out: Path
    responses: list[tuple[str, int, str]] = field(default_factory=list)
    """(path, status, body) of every response the page got, in order."""
    clicked: list[str] = field(default_factory=list)
    card_clicks: int = 0
    keys: int = 0


STARTED: list[subprocess.Popen[str]] = []


@pytest.fixture(autouse=True)
def _no_server_left() -> Iterator[None]:
    """A test that fails half-way leaves no server waiting for its person."""
    yield
    while STARTED:
        proc = STARTED.pop()
        if proc.poll() is None:
            proc.kill()
            proc.communicate()


def start(game: str, seat: int, out: Path, *extra: str) -> WebMatch:
    proc = subprocess.Popen([sys.executable, "-m", "dashboards.app", "play", game, "--human", str(seat),
                             "--deals", "1", "--web", "--out", str(out), *extra],
                            stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)
    STARTED.append(proc)
    assert proc.stdout is not None
    ready, _, _ = select.select([proc.stdout], [], [], 120)
    assert ready, "the command printed no URL in 120 s"
    line = proc.stdout.readline()
    m = re.search(r"http://127\.0\.0\.1:\d+/\?token=[\w-]+", line)
    assert m is not None, line + (proc.stderr.read() if proc.stderr else "")
    return WebMatch(proc, m.group(0), out)


def play(browser: Any, wm: WebMatch, policy: Callable[[list[str]], str], prefer_cards: bool = False,
         space_for_pass: bool = False, reload_at: int = -1) -> Any:
    """Open the page and click through the whole match (reloading the page before the person's move
    ``reload_at``); return the page (at the end)."""
    from urllib.parse import urlparse
    ctx = browser.new_context(viewport={"width": 1300, "height": 1000})
    page = ctx.new_page()
    errors: list[str] = []
    page.on("pageerror", lambda e: errors.append(str(e)))
    page.on("console", lambda m: errors.append(m.text) if m.type == "error" else None)

    def record(route: Any) -> None:
        resp = route.fetch()
        wm.responses.append((urlparse(route.request.url).path, resp.status, resp.text()))
        route.fulfill(response=resp)

    page.route("**/*", record)
    page.goto(wm.url + "&delay=0")
    moves = 0
    while True:
        page.wait_for_selector("body[data-state=turn], body[data-state=over], body[data-state=error]",
                               timeout=90_000)
        state = page.get_attribute("body", "data-state")
        if state != "turn":
            break
        if moves == reload_at:   # the page again, in the middle of the match: the same turn comes back
            turn = page.get_attribute("body", "data-turn")
            page.reload()
            page.wait_for_selector(f"body[data-state=turn][data-turn='{turn}']", timeout=90_000)
            reload_at = -1
        turn = page.get_attribute("body", "data-turn")
        legal = [b.get_attribute("data-action") for b in page.query_selector_all("#p-actions button")]
        choice = policy(legal)
        wm.clicked.append(choice)
        in_hand = page.query_selector(f'.seat.viewer .card[data-action="{choice}"]') if prefer_cards else None
        if in_hand is not None:
            in_hand.click()
            wm.card_clicks += 1
        elif space_for_pass and choice == "pass" and moves % 2:
            page.keyboard.press("Space")
            wm.keys += 1
        else:
            page.click(f'#p-actions button[data-action="{choice}"]')
        page.wait_for_selector(f"body:not([data-turn='{turn}']), body:not([data-state=turn])", timeout=90_000)
        moves += 1
    assert state == "over", page.text_content("#p-status")
    assert errors == [], errors
    return page


def finish(wm: WebMatch) -> tuple[dict[str, Any], list[dict[str, Any]]]:
    """The command's exit and the logged match with its moves."""
    out, err = wm.proc.communicate(timeout=120)
    assert wm.proc.returncode == 0, err
    assert "Traceback" not in err
    assert "never ranked" in out
    from tournaments.analysis.views import open_log
    con = open_log(wm.out).connect()
    try:
        match = con.execute("SELECT * FROM matches").arrow().read_all().to_pylist()
        moves = con.execute("SELECT seat, action FROM moves ORDER BY ply").arrow().read_all().to_pylist()
    finally:
        con.close()
    assert len(match) == 1
    return match[0], moves


def seen_by_seat(game: str, match: dict[str, Any], moves: list[dict[str, Any]], seat: int) -> list[set[str]]:
    """The cards the seat sees after each number of moves (0 .. all), replayed by the engine."""
    st = load_game(game, **json.loads(match["options"])).new_match(
        seed=int(match["seed"]), players=int(match["players"]), max_deals=match["max_deals"])
    seen = [card_tokens(st.observation(seat))]
    for mv in moves:
        st.apply(mv["action"])
        seen.append(card_tokens(st.observation(seat)))
    assert st.is_over()
    return seen


TABLES = ("card_order", "card_points")
"""Observation keys whose dicts are keyed by every card of the deck (the game's card tables)."""


def all_tokens(value: Any) -> set[str]:
    """Every card token in a message, in dict keys as well (but the card tables' keys: the whole deck)."""
    out: set[str] = set()
    stack = [value]
    while stack:
        v = stack.pop()
        if isinstance(v, str):
            out.update(CARD.findall(v))
        elif isinstance(v, dict):
            for k, x in v.items():
                if k in TABLES and isinstance(x, dict):
                    stack.extend(x.values())
                else:
                    stack.extend((k, x))
        elif isinstance(v, list):
            stack.extend(v)
    return out


def check_no_leak(wm: WebMatch, seen: list[set[str]]) -> None:
    """No payload sent to the page holds a card the seat may not see: the page and its scripts hold no
    game data (the scripts are the repository's files as they are), and each message's cards are in the
    seat's observation at that point (a move: before or after it); the reveal comes last, at the end."""
    statics = {"/static/table.js": "table.js", "/static/play.js": "play.js"}
    messages: list[dict[str, Any]] = []
    by_n: dict[int, dict[str, Any]] = {}
    for path, status, body in wm.responses:
        assert status == 200, (path, status)
        if path == "/":
            assert (TEMPLATES / "report.css").read_text(encoding="utf-8") in body   # the styles: the repo's
            markup = re.sub(r"<style>.*?</style>", "", body, flags=re.S)
            assert CARD.findall(markup) == [], "cards in the page"
        elif path in statics:
            assert body == (TEMPLATES / statics[path]).read_text(encoding="utf-8")
        elif path == "/api/updates":   # (a reloaded page asks for every message again: the same ones)
            for m in json.loads(body)["messages"]:
                assert by_n.setdefault(m["n"], m) == m
                messages.append(m)
        elif path != "/api/act":
            raise AssertionError(f"the page asked for {path}")
    messages = [by_n[k] for k in sorted(by_n)]
    assert [m["n"] for m in messages] == list(range(len(messages))), "every message, in order"
    assert messages[-1]["type"] == "over" and all(m["type"] != "over" for m in messages[:-1])
    last = len(seen) - 1
    for m in messages[:-1]:
        if m["type"] == "move":
            allowed = seen[m["ply"]] | seen[m["ply"] + 1]
        elif m["type"] in ("turn", "view"):
            allowed = seen[m["ply"]]
        else:
            allowed = set()
        extra = all_tokens(m) - allowed
        assert not extra, (m["type"], m.get("ply"), sorted(extra))
    assert all_tokens({k: v for k, v in messages[-1].items() if k != "reveal"}) <= seen[last]


def test_hartenjagen_played_by_clicking_cards(browser: Any, tmp_path: Path) -> None:
    wm = start("hartenjagen", 1, tmp_path / "log", "--seed", "4")
    base = wm.url.split("?")[0]
    for path in ("", "static/play.js", "api/updates?since=0", "api/updates?since=0&token=nope"):
        with pytest.raises(urllib.error.HTTPError) as e:
            urllib.request.urlopen(base + path, timeout=10)
        assert e.value.code == 403
    bad = urllib.request.Request(base + "api/act", data=b'{"turn": 0, "action": "play AS"}', method="POST")
    with pytest.raises(urllib.error.HTTPError) as e:
        urllib.request.urlopen(bad, timeout=10)
    assert e.value.code == 403
    page = play(browser, wm, lambda legal: legal[-1], prefer_cards=True, reload_at=5)
    assert wm.card_clicks >= 13   # each card of the deal played by clicking it in the hand
    reveal_rows = page.query_selector_all("#p-reveal table.reveal tr")
    assert len(reveal_rows) == 4
    page.context.close()
    match, moves = finish(wm)
    assert match["bot_refs"][1] == HUMAN_REF
    assert [mv["action"] for mv in moves if mv["seat"] == 1] == wm.clicked
    check_no_leak(wm, seen_by_seat("hartenjagen", match, moves, 1))
    passed = {m["n"]: m for p, _, b in wm.responses if p == "/api/updates" for m in json.loads(b)["messages"]
              if m["type"] == "move" and m["seat"] == 2 and m["text"].startswith("pass")}.values()
    assert len(passed) == 3 and all(m["text"] == "pass ??" for m in passed)   # seat 2 passes to seat 3


def test_jokeren_a_meld_with_a_joker_laid_card_by_card(browser: Any, tmp_path: Path) -> None:
    wm = start("jokeren_nl", 0, tmp_path / "log", "--seed", "6")
    page = play(browser, wm, prefer_melds)
    page.context.close()
    assert any(a.startswith("meld JK=") for a in wm.clicked) and "confirm" in wm.clicked
    match, moves = finish(wm)
    assert [mv["action"] for mv in moves if mv["seat"] == 0] == wm.clicked
    check_no_leak(wm, seen_by_seat("jokeren_nl", match, moves, 0))


def test_zenuwen_ticks_in_the_browser(browser: Any, tmp_path: Path) -> None:
    wm = start("zenuwen", 1, tmp_path / "log", "--seed", "2", "--bots", "random")

    def tick(legal: list[str]) -> str:   # play to a centre pile when possible, else pass
        return next((a for a in legal if a.startswith("play")), "pass" if "pass" in legal else legal[0])

    page = play(browser, wm, tick, space_for_pass=True)
    page.context.close()
    assert wm.keys > 0
    match, moves = finish(wm)
    assert [mv["action"] for mv in moves if mv["seat"] == 1] == wm.clicked
    check_no_leak(wm, seen_by_seat("zenuwen", match, moves, 1))
    msgs = [m for p, _, b in wm.responses if p == "/api/updates" for m in json.loads(b)["messages"]]
    assert any(m["type"] == "move" and m["seat"] == 0 and m["text"] == "submitted an action" for m in msgs)


def test_other_seats_moves_are_shown_one_by_one(browser: Any, tmp_path: Path) -> None:
    """With the default pace the page shows each bot's move in turn (``data-shown``: the message last
    drawn), a pause apart, before the person's next turn."""
    import signal
    wm = start("hartenjagen", 0, tmp_path / "log", "--seed", "5")
    page = browser.new_context().new_page()
    page.goto(wm.url + "&delay=400")
    gaps: list[tuple[float, list[str]]] = []
    for _ in range(5):
        page.wait_for_selector("body[data-state=turn]", timeout=90_000)
        turn = page.get_attribute("body", "data-turn")
        page.click("#p-actions button")
        t0, shown = time.monotonic(), []
        while (page.get_attribute("body", "data-state") != "turn"
               or page.get_attribute("body", "data-turn") == turn):
            s = page.get_attribute("body", "data-shown")
            if s is not None and (not shown or shown[-1] != s):
                shown.append(s)
            page.wait_for_timeout(40)
        gaps.append((time.monotonic() - t0, shown))
    page.context.close()
    wm.proc.send_signal(signal.SIGINT)
    wm.proc.communicate(timeout=60)
    # between two of the person's turns, three or more moves of the bots drawn one after the other,
    # 400 ms apart
    assert any(len(shown) >= 3 and seconds >= 0.8 for seconds, shown in gaps), gaps


def test_a_zenuwen_tick_left_to_run_passes_with_tick(browser: Any, tmp_path: Path) -> None:
    """``&tick=MS``: Zenuwen against the clock; a tick the person lets run passes by itself (nothing is
    clicked here: every answer the page sends is ``pass``, one a tick)."""
    import signal
    wm = start("zenuwen", 0, tmp_path / "log", "--seed", "3", "--bots", "greedy")
    page = browser.new_context().new_page()
    sent: list[dict[str, Any]] = []
    page.on("request", lambda r: sent.append(json.loads(r.post_data or "{}")) if r.method == "POST" else None)
    page.goto(wm.url + "&delay=0&tick=150")
    deadline = time.monotonic() + 90
    while len(sent) < 20 and time.monotonic() < deadline:
        page.wait_for_timeout(100)
    page.context.close()
    wm.proc.send_signal(signal.SIGINT)
    wm.proc.communicate(timeout=60)
    assert len(sent) >= 20, "the ticks did not go on"
    assert all(x["action"] == "pass" for x in sent)
    turns = [x["turn"] for x in sent]
    assert turns == sorted(set(turns))   # one answer a tick, in order
