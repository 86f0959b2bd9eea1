"""``cardarena dashboard DIR -o report.html``: the tournament report as one self-contained HTML file;
``cardarena show DIR MATCH_ID``: the match viewer of one logged match, as one self-contained HTML file.

:func:`dashboard_cmd` and :func:`show_cmd` are typer commands; ``dashboards/app.py`` mounts them with
``app.command("dashboard")(dashboard_cmd)`` and ``app.command("show")(show_cmd)``.  Bad input (no such
directory, not a tournament, an unreadable part file, an unknown ``--match`` or MATCH_ID, an ``-o`` that
names a folder or lies in a missing one) exits 2 with one line on stderr; never a traceback.
"""
from __future__ import annotations

import json
import sys
from pathlib import Path
from typing import Annotated

import typer

from bots.failure import fail, one_line

PROG = "cardarena dashboard"
SHOW = "cardarena show"


def dashboard_cmd(
    directory: Annotated[Path, typer.Argument(metavar="DIR", help="the tournament's output directory")],
    output: Annotated[Path | None, typer.Option("--output", "-o", help="the HTML file to write "
                                                "(default: DIR/report.html; for a log in an "
                                                "object store, ./report.html)")] = None,
    sample: Annotated[int, typer.Option(min=-1, max=1_000_000,
                                        help="matches to embed in the match viewer (-1: all; 0: none)")] = 20,
    match: Annotated[list[str] | None, typer.Option("--match", help="embed this match id too (repeatable)")
                     ] = None,
    verify: Annotated[bool, typer.Option("--verify/--no-verify", help="replay every match for the "
                                         "verification status (`cardarena verify`)")] = True,
    as_json: Annotated[bool, typer.Option("--json", help="machine-readable summary")] = False,
) -> None:
    """Write the tournament report: leaderboards with intervals, head-to-head, rating convergence,
    faults, rule coverage, verification, spec and size, and a match viewer; one HTML file that
    needs no network."""
    from dashboards.report import DashboardError, build_report
    from tournaments.spec import usable_path

    if not usable_path(directory):
        fail(PROG, "DIR: not a usable path (at most 4096 characters and 255 per name, no NUL)")
    if sample < -1:
        fail(PROG, f"--sample must be -1 (all), 0 (none) or a number of matches, got {sample}")
    if output is not None and usable_path(output) and output.is_dir():
        fail(PROG, f"--output {output} is a directory; give a file name such as {output / 'report.html'}")
    if output is not None and usable_path(output) and output.parent.is_dir():   # a FIFO or a device
        from tournaments.analysis.cli import file_path
        file_path(output, "--output", must_exist=False)
    try:
        path, summary = build_report(directory, output, sample=sample, include=match or [], verify=verify)
    except DashboardError as e:
        fail(PROG, str(e))
    except OSError as e:
        fail(PROG, f"cannot write the report: {e}")
    if as_json:
        print(json.dumps(summary))
        return
    kb = summary["bytes"] / 1024
    print(f"{path.resolve()}")
    print(f"  {summary['matches']:,} matches, {summary['viewer_matches']} in the viewer, {summary['charts']} "
          f"charts, {kb:,.0f} KiB, {summary['seconds']} s", file=sys.stderr)


def show_cmd(
    directory: Annotated[Path, typer.Argument(metavar="DIR", help="the tournament's output directory")],
    match_id: Annotated[str, typer.Argument(metavar="MATCH_ID", help="the match (its 16 hex digits, as "
                                            "`cardarena query` prints them; a unique prefix will do)")],
    output: Annotated[Path | None, typer.Option("--output", "-o", help="the HTML file to write "
                                                "(default: DIR/match-MATCH_ID.html)")] = None,
    as_json: Annotated[bool, typer.Option("--json", help="machine-readable summary")] = False,
) -> None:
    """Write the match viewer for one logged match: every move, each seat's view, the rule events and
    a jump to any fault; one HTML file that needs no network."""
    from dashboards.report import DashboardError, build_match_page

    try:
        path, summary = build_match_page(directory, match_id, output)
    except DashboardError as e:
        fail(SHOW, str(e))
    except OSError as e:
        fail(SHOW, f"cannot write the page: {e}")
    if as_json:
        print(json.dumps(summary))
        return
    print(f"{path.resolve()}")
    print(f"  {one_line(summary['game'], None)} match {one_line(summary['match_id'], None)}: "
          f"{summary['moves']:,} moves, {summary['faults']} fault(s), {summary['bytes'] / 1024:,.0f} KiB, "
          f"{summary['seconds']} s", file=sys.stderr)
    if summary["replay_error"]:
        print(f"  warning: {one_line(summary['replay_error'], None)}", file=sys.stderr)


app = typer.Typer(add_completion=False, pretty_exceptions_enable=False)
app.command("dashboard")(dashboard_cmd)
app.command("show")(show_cmd)

if __name__ == "__main__":
    app()
