"""The report's ladder page: the board over time, online rating histories, placement, state changes."""
from __future__ import annotations

from pathlib import Path

from dashboards.report import _Charts, build_report, ladder_sections
from tournaments.ladder.loop import run_ladder


def test_the_report_of_a_ladder_has_its_page(ladder: Path) -> None:
    run_ladder(ladder, groups=3, executor="inline", say=lambda _: None)
    out, _ = build_report(ladder, ladder / "r.html", verify=False, bootstrap=20)
    page = out.read_text()
    assert '<section id="ladder">' in page and 'href="#ladder"' in page
    assert "chart-" in page and "ladder-board" in page and "ladder-online" in page
    assert "reference bot" in page   # the state changes: the reference bots' first rows


def test_a_tournament_report_has_no_ladder_page(tmp_path: Path) -> None:
    assert ladder_sections(tmp_path, _Charts()) == {"LADDER": "", "LADDER_NAV": ""}
