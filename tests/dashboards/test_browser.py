"""The report in a real browser: headless Chromium (Debian's ``chromium``) driven by Playwright.

The test plays a tournament (``cardarena tournament run``), writes its report, opens the file and
checks what a person would: the leaderboard rows, every chart drawn, the match viewer stepping
forward and back with the cards each seat held (checked against the engine), the filters, the rule
events as they fire; and that the page logged no console error and made no network request.

It installs what it needs: when ``/usr/bin/chromium`` is missing it runs ``apt-get install chromium``
(as root, as CI runs).  Playwright only drives that binary: ``playwright install`` is never needed.
"""
from __future__ import annotations

import json
import os
import shutil
import subprocess
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest

from dashboards.report import build_report
from dashboards.report_data import read_logs
from engine import load_game
from tests.dashboards.conftest import GAME_PAIR

CHROMIUM = Path("/usr/bin/chromium")
CHROMIUM_ARGS = ["--headless", "--no-sandbox", "--disable-gpu", "--disable-dev-shm-usage",
                 "--disable-background-networking", "--disable-component-update", "--disable-sync",
                 "--no-first-run"]


def ensure_chromium() -> Path:
    """Debian's chromium, installed with apt-get when missing (root only)."""
    if CHROMIUM.exists():
        return CHROMIUM
    if os.geteuid() != 0 or shutil.which("apt-get") is None:
        pytest.skip("needs /usr/bin/chromium: run `apt-get install chromium` as root")
    env = {**os.environ, "DEBIAN_FRONTEND": "noninteractive"}
    subprocess.run(["apt-get", "update", "-qq"], check=True, env=env, timeout=900)
    subprocess.run(["apt-get", "install", "-y", "-qq", "-o", "DPkg::Lock::Timeout=300", "chromium"],
                   check=True, env=env, timeout=1800)
    assert CHROMIUM.exists(), "apt-get installed chromium but /usr/bin/chromium is missing"
    return CHROMIUM


@pytest.fixture(scope="module")
def browser() -> Iterator[Any]:
    from playwright.sync_api import sync_playwright
    path = ensure_chromium()
    with sync_playwright() as p:
        b = p.chromium.launch(executable_path=str(path), args=CHROMIUM_ARGS)
        try:
            yield b
        finally:
            b.close()


@pytest.fixture(scope="module")
def report(cli_tournament: Path, tmp_path_factory: pytest.TempPathFactory) -> Path:
    out = tmp_path_factory.mktemp("browser") / "report.html"
    build_report(cli_tournament, out, sample=6, verify=True, bootstrap=50)
    return out


def new_match(m: dict[str, Any]) -> Any:
    """The engine's state at the start of a logged match."""
    return load_game(m["game"], **json.loads(m["options"])).new_match(seed=m["seed"], players=m["players"],
                                                                      max_deals=m["max_deals"])


class Page:
    """A loaded report, with what it logged and requested."""

    def __init__(self, browser: Any, path: Path) -> None:
        self.url = path.resolve().as_uri()
        self.errors: list[str] = []
        self.requests: list[str] = []
        self.blocked: list[str] = []
        self.context = browser.new_context(viewport={"width": 1300, "height": 1000})
        self.context.route("**/*", self._route)
        page = self.context.new_page()
        page.on("console", lambda m: self.errors.append(f"console.{m.type}: {m.text}")
                if m.type == "error" else None)
        page.on("pageerror", lambda e: self.errors.append(f"page error: {e}"))
        page.on("request", lambda r: self.requests.append(r.url))
        page.on("requestfailed", lambda r: self.errors.append(f"request failed: {r.url}"))
        page.goto(self.url)
        page.wait_for_function("document.body.dataset.charts !== undefined", timeout=60_000)
        page.wait_for_function("document.body.dataset.viewer !== undefined", timeout=60_000)
        self.page = page

    def _route(self, route: Any) -> None:
        url = route.request.url
        if url == self.url or url.startswith(("data:", "blob:")):
            route.continue_()
        else:
            self.blocked.append(url)
            route.abort()

    def text(self, sel: str) -> str:
        return str(self.page.locator(sel).inner_text())

    def cards(self, sel: str) -> list[str]:
        return [str(t) for t in self.page.locator(sel).evaluate_all("els => els.map(e => e.title)")]

    def offline(self) -> None:
        """No console error, and no request but the report file itself."""
        assert not self.errors, self.errors
        assert not self.blocked, self.blocked
        assert [u for u in self.requests if not u.startswith(("data:", "blob:"))] == [self.url]


def test_report_in_chromium(browser: Any, report: Path, cli_tournament: Path) -> None:
    pg = Page(browser, report)
    page = pg.page
    logs = read_logs(cli_tournament)
    entrants = sorted({b for m in logs.matches for b in m["bots"]})

    # the leaderboards: one row per entrant in the overall tab and in each game's tab
    rows = page.locator("#lb-overall tr.lb-row")
    assert sorted(rows.evaluate_all("rs => rs.map(r => r.dataset.bot)")) == entrants
    games = sorted({m["game"] for m in logs.matches})
    for g in games:
        page.click(f'button.tab[data-tab="lb-{g}"]')
        assert page.locator(f"#lb-{g}").is_visible() and not page.locator("#lb-overall").is_visible()
        assert page.locator(f"#lb-{g} tr.lb-row").count() == len(entrants)
    # every chart is drawn (an SVG in each chart slot)
    slots = page.locator("div.chart").count()
    assert slots >= 3 * (1 + len(games)) - 1
    assert page.locator("div.chart svg.marks").count() == slots
    assert "replay as logged" in pg.text("#verify-status")

    # the match viewer: the first match of the list is shown; then the first plain game's match (a
    # partnership game can hand a seat's cards to its partner), stepped forward and back
    first = page.locator("#v-match").input_value()
    assert page.locator("body").get_attribute("data-viewer") == first
    options = page.locator("#v-match option").evaluate_all("os => os.map(o => [o.value, o.textContent])")
    mid = next(v for v, text in options if f"· {GAME_PAIR[0]} ·" in text)
    page.select_option("#v-match", mid)
    page.wait_for_function(f"document.body.dataset.viewer === '{mid}'")
    m = next(x for x in logs.matches if x["match_id"] == mid)
    moves = logs.moves_of([mid])[mid]
    state = new_match(m)
    states = [state.clone()]
    for mv in moves[:6]:
        state.apply(mv["action"])
        states.append(state.clone())
    assert pg.text("#v-ply").startswith(f"move 0 / {len(moves)}")

    def shows(k: int) -> None:
        assert pg.text("#v-ply").startswith(f"move {k} / {len(moves)}")
        for seat in range(m["players"]):  # "all hands": each seat's hand, as the engine had it
            held = pg.cards(f'.seat[data-seat="{seat}"] .field[data-key="hand"] .card')
            assert held == states[k].observation(seat)["hand"], (k, seat)
        if k:
            mv = moves[k - 1]
            line = pg.text("#v-move")
            assert f"ply {k - 1}" in line and f"seat {mv['seat']}" in line, line
            assert mv["action"].split()[0] in line

    for k in (1, 2, 3):
        page.click("#v-next")
        shows(k)
    page.click("#v-prev")
    shows(2)
    page.keyboard.press("ArrowRight")
    shows(3)
    page.click("#v-first")
    shows(0)
    assert page.locator("#v-prev").is_disabled()

    # as seat 1 sees it: its own hand face up, the others' as backs
    page.select_option("#v-seat", "1")
    page.click("#v-next")
    assert pg.cards('.seat[data-seat="1"] .field[data-key="hand"] .card') == states[1].observation(1)["hand"]
    for seat in (0, 2):
        backs = page.locator(f'.seat[data-seat="{seat}"] .field[data-key="hand"] .card.back').count()
        assert backs == len(states[1].observation(seat)["hand"])
        assert pg.cards(f'.seat[data-seat="{seat}"] .field[data-key="hand"] .card:not(.back)') == []
    page.select_option("#v-seat", "all")

    # rule events appear as they fire: jump to the first, it is on the move line and in the list
    final = new_match(m)
    for mv in moves:
        final.apply(mv["action"])
    if final.events:
        page.click("#v-first")
        page.click("#v-next-ev")
        ev = final.events[0]
        assert ev["event"] in pg.text("#v-move .evt.fresh")
        assert pg.text("#v-ply").startswith(f"move {ev['ply'] + 1} /")
        assert ev["event"] in pg.text("#v-events li.fresh")
    # the end of the match: the last move, the forward button off
    page.click("#v-last")
    assert pg.text("#v-ply").startswith(f"move {len(moves)} / {len(moves)}")
    assert page.locator("#v-next").is_disabled()
    assert page.locator(".card").count() > 0

    # the filters: by game, then by entrant
    other = next(g for g in games if g != m["game"])
    page.select_option("#v-game", other)
    labels = page.locator("#v-match option").all_inner_texts()
    assert labels and all(f" · {other} · " in t for t in labels)
    page.select_option("#v-game", "")
    page.select_option("#v-bot", "greedy")
    labels = page.locator("#v-match option").all_inner_texts()
    assert labels and all("greedy" in t for t in labels)
    assert pg.text("#v-ply").startswith("move 0 /")  # a new match opened at its start

    pg.offline()
    pg.context.close()


def test_empty_report_in_chromium(browser: Any, tmp_path: Path) -> None:
    from tests.dashboards.tourney import empty_tournament
    out = build_report(empty_tournament(tmp_path / "e"), tmp_path / "e.html")[0]
    pg = Page(browser, out)
    assert pg.page.locator("p.nodata").count() >= 4
    assert pg.page.locator("#v-pick").is_hidden() and pg.page.locator("#v-main").is_hidden()
    pg.offline()
    pg.context.close()


@pytest.fixture(scope="module")
def every_game_report(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """A tournament over every implemented game, its report holding two matches of each."""
    from engine import GAMES
    from tests.dashboards.conftest import cardarena
    base = tmp_path_factory.mktemp("every-game")
    proc = cardarena("tournament", "run", "--inline", "--out", str(base / "t"), "--games", "all",
                     "--bots", "random,greedy,r2=random,g2=greedy", "--matches", "1", "--max-deals", "1",
                     "--seed", "3", "--no-progress", "--no-leaderboard", "--json")
    assert proc.returncode == 0, proc.stderr
    out = build_report(base / "t", base / "report.html", sample=2 * len(GAMES), verify=False, bootstrap=20)[0]
    return out


def test_every_game_draws_in_the_viewer(browser: Any, every_game_report: Path) -> None:
    """Each embedded match (two per game) opens, draws its start, middle (cards on the table) and end,
    and steps back from the end, without a script error."""
    from engine import GAMES
    pg = Page(browser, every_game_report)
    page = pg.page
    ids = page.locator("#v-match option").evaluate_all("os => os.map(o => o.value)")
    seen = set()
    for mid in ids:
        page.select_option("#v-match", mid)
        page.wait_for_function(f"document.body.dataset.viewer === '{mid}'")
        game = pg.text("#v-head b")
        seen.add(game)
        total = int(pg.text("#v-ply").split("/")[1].split("·")[0])
        for k in (0, total // 2, total):
            page.locator("#v-slider").fill(str(k))
            assert pg.text("#v-ply").startswith(f"move {k} / {total}"), (game, k)
            if k == total // 2:  # (before a cut or at the end a table may hold no card)
                assert page.locator("#v-table .card").count() > 0, (game, k)
        page.click("#v-prev")
        assert pg.text("#v-ply").startswith(f"move {total - 1} /")
    assert seen == set(GAMES)
    pg.offline()
    pg.context.close()


def test_melds_discard_pile_and_jokers_draw_as_cards(browser: Any, tmp_path: Path) -> None:
    """The viewer draws any observation by its shape, so a rummy's table melds (with a joker naming
    the card it stands for) and discard pile come out as cards; checked on a made-up two-seat match."""
    import base64
    import re
    import zlib

    from tests.dashboards.tourney import empty_tournament
    empty = build_report(empty_tournament(tmp_path / "e"), tmp_path / "e.html", verify=False)[0]
    page_text = empty.read_text()
    start = {"current_player": 0, "phase": "play", "deal": 1, "hand_sizes": [4, 2], "scores": [0.0, 0.0],
             "discard_pile": ["KS"], "table_melds": []}
    body = {
        "moves": [[0, "meld 5H JK=6H 7H", "ok", 1]],
        "events": [[1, {"event": "rummy.meld_laid", "deal": 1, "ply": 0, "seat": 0, "cards": 3}]],
        "frames": [
            {"c": [start], "s": [[{"hand": ["5H", "JK", "7H", "2C"]}], [{"hand": ["9D", "9S"]}]]},
            {"c": [{"current_player": 1, "hand_sizes": [1, 2], "table_melds": [["5H", "JK=6H", "7H"]],
                    "discard_pile": ["KS", "3D"]}], "s": [[{"hand": ["2C"]}], [{}]]},
        ],
        "sheet": [], "error": None,
    }
    match = {"id": "00000000000000aa", "game": "rummy", "tournament": "made-up", "players": 2,
             "bots": ["a", "b"], "teams": [0, 1], "scores": [0, 0], "ranking": [1, 2], "status": "ok",
             "faults": [], "deals": 1, "nmoves": 1, "seed": 1, "options": {}, "max_deals": 1, "error": None,
             "z": base64.b64encode(zlib.compress(json.dumps(body).encode())).decode()}
    page_text = re.sub(r'(<script type="application/json" id="matches-data">).*?(</script>)',
                       lambda mt: mt.group(1) + json.dumps([match]) + mt.group(2), page_text, flags=re.S)
    path = tmp_path / "rummy.html"
    path.write_text(page_text)
    pg = Page(browser, path)
    page = pg.page
    page.click("#v-next")
    assert pg.cards('.field[data-key="table_melds"] .card') == ["5H", "JK=6H", "7H"]
    assert page.locator('.field[data-key="table_melds"] .card.joker').count() == 1
    assert pg.cards('.field[data-key="discard_pile"] .card') == ["KS", "3D"]
    assert pg.cards('.seat[data-seat="0"] .field[data-key="hand"] .card') == ["2C"]
    assert "rummy.meld_laid" in pg.text("#v-move .evt.fresh")
    assert pg.cards("#v-move .act .card") == ["5H", "JK=6H", "7H"]
    page.select_option("#v-seat", "1")
    assert page.locator('.seat[data-seat="0"] .field[data-key="hand"] .card.back').count() == 1
    pg.offline()
    pg.context.close()


# ------------------------------------------------------------------------------------------ issue 14 item 16
NAV_VIEWPORTS = [(1300, 1000), (560, 800)]
"""A wide window, and a narrow one where the nav wraps and the sticky header grows."""


def test_nav_lands_with_the_section_heading_visible(browser: Any, report: Path) -> None:
    """A click on each nav link scrolls so that its section's heading is in view below the sticky
    header (not under it), in a wide window and in a narrow one where the header is taller."""
    pg = Page(browser, report)
    page = pg.page
    hrefs = page.locator("nav a").evaluate_all("as => as.map(a => a.getAttribute('href'))")
    assert len(hrefs) == 6
    bars = []
    for width, height in NAV_VIEWPORTS:
        page.set_viewport_size({"width": width, "height": height})
        for href in [*hrefs, hrefs[0]]:  # down the page and back up
            page.click(f'nav a[href="{href}"]')
            box = page.evaluate(f"""() => {{
                const h = document.querySelector("{href} h2").getBoundingClientRect();
                const bar = document.querySelector("header").getBoundingClientRect();
                return {{top: h.top, bottom: h.bottom, bar: bar.bottom, vh: window.innerHeight}};
            }}""")
            assert box["top"] >= box["bar"] - 0.5, (width, href, box)
            assert box["bottom"] <= box["vh"], (width, href, box)
            if href != "#viewer":  # (the last section may sit lower: the page ends)
                assert box["top"] - box["bar"] < 40, (width, href, box)  # it lands there
        bars.append(box["bar"])
    assert bars[1] > bars[0], "the narrow window's header should be taller (the nav wraps)"
    pg.offline()
    pg.context.close()


def test_coverage_is_one_small_table_per_game_at_every_game(browser: Any, every_game_report: Path) -> None:
    """Every game has its own coverage table saying which of its events never fired, and no table
    is wider than its box (no clipped column), in a wide and a narrow window."""
    from engine import GAMES
    pg = Page(browser, every_game_report)
    page = pg.page
    for width, height in NAV_VIEWPORTS:
        page.set_viewport_size({"width": width, "height": height})
        cards = page.evaluate("""() => Array.from(document.querySelectorAll("#coverage .cov-game")).map(c => {
            const t = c.querySelector("table.cov"), box = c.getBoundingClientRect();
            const sec = document.querySelector("#coverage").getBoundingClientRect();
            const cells = Array.from(c.querySelectorAll("td, th"));
            const inside = (r) => r.left >= box.left - 0.5 && r.right <= box.right + 0.5;
            return {game: c.dataset.game, never: c.querySelector("p.never").textContent,
                    zero: Array.from(c.querySelectorAll("tr.zero td.ev")).map(x => x.textContent),
                    rows: c.querySelectorAll("tr.cov-row").length,
                    fits: c.scrollWidth <= c.clientWidth && box.right <= sec.right + 0.5
                          && inside(t.getBoundingClientRect())
                          && cells.every(x => inside(x.getBoundingClientRect())
                                              && x.scrollWidth <= x.clientWidth)};
        })""")
        assert sorted(c["game"] for c in cards) == sorted(GAMES), width
        for c in cards:
            assert c["fits"], (width, c["game"])
            assert c["rows"] > 0, c["game"]
            if c["zero"]:
                assert c["never"].startswith("Never fired: ")
                assert sorted(c["never"][len("Never fired: "):-1].split(", ")) == sorted(c["zero"]), c
            else:
                assert c["never"] == "Every event fired.", c
    # the filter keeps the games with a gap
    gaps = page.locator("#coverage .cov-game.has-gaps").count()
    page.check("#cov-gaps")
    assert page.locator("#coverage .cov-game:visible").count() == gaps
    page.uncheck("#cov-gaps")
    assert page.locator("#coverage .cov-game:visible").count() == len(GAMES)
    pg.offline()
    pg.context.close()


@pytest.fixture(scope="module")
def buggy_browser_report(buggy_tournament: Path, tmp_path_factory: pytest.TempPathFactory) -> Path:
    out = tmp_path_factory.mktemp("browser-buggy") / "report.html"
    build_report(buggy_tournament, out, sample=4, verify=False, bootstrap=20)
    return out


def _fault_frames(m: dict[str, Any], nmoves: int) -> list[int]:
    return sorted({min(f["ply"] + 1, nmoves) for f in m["faults"]})


def test_viewer_jumps_to_the_fault(browser: Any, buggy_browser_report: Path, buggy_tournament: Path) -> None:
    """The viewer's fault button goes to the move where the fault happened (the faulted seat's move,
    its logged status the fault's kind) and names the fault; a faults-table link opens that match there."""
    logs = read_logs(buggy_tournament)
    pg = Page(browser, buggy_browser_report)
    page = pg.page
    embedded_ids = page.locator("#v-match option").evaluate_all("os => os.map(o => o.value)")
    faulted = [m for m in logs.matches if m["faults"] and m["match_id"] in embedded_ids]
    assert faulted
    for m in faulted:
        page.select_option("#v-match", m["match_id"])
        page.wait_for_function(f"document.body.dataset.viewer === '{m['match_id']}'")
        moves = logs.moves_of([m["match_id"]])[m["match_id"]]
        assert not page.locator("#v-fault").is_disabled()
        for k in _fault_frames(m, len(moves)):
            page.click("#v-fault")
            assert pg.text("#v-ply").startswith(f"move {k} / {len(moves)}"), (m["match_id"], k)
            f = next(x for x in m["faults"] if min(x["ply"] + 1, len(moves)) == k)
            note = pg.text("#v-move .fault-note")
            assert f"seat {f['seat']} ({m['bots'][f['seat']]})" in note and f["kind"] in note, note
            assert moves[k - 1]["status"] == f["kind"] and f"ply {k - 1}" in pg.text("#v-move")
    # a match without a fault: the button is off
    clean = [m for m in logs.matches if not m["faults"] and m["match_id"] in embedded_ids]
    if clean:
        page.select_option("#v-match", clean[0]["match_id"])
        page.wait_for_function(f"document.body.dataset.viewer === '{clean[0]['match_id']}'")
        assert page.locator("#v-fault").is_disabled()
    # the faults table's "view": that match, at that move, with the viewer's filters cleared
    page.select_option("#v-bot", "random")
    link = page.locator("a.to-fault").first
    mid, ply = link.get_attribute("data-match"), int(link.get_attribute("data-ply") or -1)
    link.click()
    page.wait_for_function(f"document.body.dataset.viewer === '{mid}'")
    n = len(logs.moves_of([mid])[mid])
    assert pg.text("#v-ply").startswith(f"move {min(ply + 1, n)} / {n}")
    assert page.locator("#v-match").input_value() == mid
    pg.offline()
    pg.context.close()


def test_show_page_in_chromium(browser: Any, buggy_tournament: Path, tmp_path: Path) -> None:
    """``cardarena show DIR MATCH_ID``: the page opens offline on that match, steps and jumps to its
    fault."""
    from tests.dashboards.conftest import cardarena
    logs = read_logs(buggy_tournament)
    m = next(x for x in logs.matches if x["faults"])
    out = tmp_path / "show.html"
    proc = cardarena("show", str(buggy_tournament), m["match_id"], "-o", str(out))
    assert proc.returncode == 0, proc.stderr
    pg = Page(browser, out)
    page = pg.page
    assert page.locator("#v-match option").evaluate_all("os => os.map(o => o.value)") == [m["match_id"]]
    assert m["match_id"] in pg.text("#v-head")
    moves = logs.moves_of([m["match_id"]])[m["match_id"]]
    page.click("#v-next")
    assert pg.text("#v-ply").startswith(f"move 1 / {len(moves)}")
    page.keyboard.press("f")
    assert pg.text("#v-ply").startswith(f"move {_fault_frames(m, len(moves))[0]} / {len(moves)}")
    assert page.locator("#v-move .fault-note").count() >= 1
    pg.offline()
    pg.context.close()


def test_an_entrants_page_links_its_faults_into_the_viewer(browser: Any, buggy_browser_report: Path,
                                                           buggy_tournament: Path) -> None:
    """Issue 26 item 7: an entrant's page (a tab) lists its faults; "view" opens that match at that move."""
    logs = read_logs(buggy_tournament)
    pg = Page(browser, buggy_browser_report)
    page = pg.page
    page.click('#entrants button.tab[data-bot="illegal"]')
    pane = page.locator('#entrants .pane.entrant[data-bot="illegal"]')
    assert pane.is_visible() and pane.locator("svg.marks").count() >= 1   # its plots are drawn
    link = pane.locator("a.to-fault").first
    mid, ply = link.get_attribute("data-match"), int(link.get_attribute("data-ply") or -1)
    assert any(m["match_id"] == mid and m["bots"][f["seat"]] == "illegal"
               for m in logs.matches for f in m["faults"])
    link.click()
    page.wait_for_function(f"document.body.dataset.viewer === '{mid}'")
    n = len(logs.moves_of([mid])[mid])
    assert pg.text("#v-ply").startswith(f"move {min(ply + 1, n)} / {n}")
    pg.offline()
    pg.context.close()
