"""``cardarena bots ...``: validate, submit and list bots (mounted by dashboards/app.py).

Bad input (a missing bot file, one that will not import or defines neither ``act`` nor ``Bot``, an
unknown game, a bad name) exits 2 with one line that says which; a bot that fails its smoke matches
exits 1 with one line per game.  Never a traceback.
"""
from __future__ import annotations

import json
import os
import stat
import sys
from typing import TYPE_CHECKING, Annotated, Any

import typer

from bots.failure import HELP_SETTINGS, fail, one_line

if TYPE_CHECKING:   # the sandbox, the engine and the registry load in the commands (--help stays cheap)
    from bots.validate import GameCheck, Validation

PROG = "cardarena bots"
app = typer.Typer(add_completion=False, no_args_is_help=True, pretty_exceptions_enable=False,
                  context_settings=HELP_SETTINGS,
                  rich_markup_mode=None,  # plain help: typer's rich help imports rich.markdown and more
                  help="Bots: check a bot, submit it to the registry, list the registry, a bot's faults in a "
                       "tournament.")

DataDir = Annotated[str | None, typer.Option("--data-dir", help="data directory (default: $CARDARENA_DATA "
                                                                 "or the project's data/)")]
GamesOpt = Annotated[list[str] | None, typer.Option("--games", "-g", help="game ids, comma-separated or "
                                                                          "repeated (default: every game "
                                                                          "the bot enters)")]
SeedOpt = Annotated[int | None, typer.Option(min=0, max=2**63 - 1,
                                             help="deal every smoke match from this seed (default: a fresh "
                                                  "random seed per match, shown on a failure)")]


def _split(games: list[str] | None) -> list[str] | None:
    if not games:
        return None
    return [g.strip() for item in games for g in item.split(",") if g.strip()]


MAX_SEED = 2**63 - 1
MAX_DEALS = 1_000
"""``--deals`` per smoke match at most."""


def _usable(path: str) -> bool:
    """No NUL, at most 4096 characters and 255 bytes per name: a path ``stat`` can answer about."""
    return ("\0" not in path and len(path) <= 4096
            and all(len(p.encode("utf-8", "surrogateescape")) <= 255 for p in path.split("/")))


def _check_data_dir(data_dir: str | None) -> None:
    if data_dir is not None and not _usable(data_dir):
        fail(PROG, "--data-dir: not a usable path (at most 4096 characters and 255 per name, no NUL)")


def _checked_source(path: str) -> Any:
    """The bot's :class:`bots.api.BotSource`, or one line and exit 2."""
    from bots.api import BotLoadError, bot_source
    if not _usable(path):
        fail(PROG, "the bot's path is not usable (at most 4096 characters and 255 per name, no NUL)")
    try:
        src = bot_source(path)
    except BotLoadError as e:
        fail(PROG, str(e))
    if not src.package and not stat.S_ISREG(os.stat(src.path).st_mode):  # (stat follows a symlink)
        fail(PROG, f"bot file {path!r} is not a regular file (a FIFO or a device cannot be a bot)")
    return src


def _run_validation(path: str, games: list[str] | None, seed: int | None, deals: int) -> Validation:
    from bots.validate import validate
    if not 1 <= deals <= MAX_DEALS:
        fail(PROG, f"--deals: {deals} is out of range 1..{MAX_DEALS}")
    if seed is not None and not 0 <= seed <= MAX_SEED:
        fail(PROG, f"--seed: {seed} is out of range 0..{MAX_SEED}")
    src = _checked_source(path)
    try:
        v = validate(src, _split(games), seed=seed, deals=deals)
    except ValueError as e:
        fail(PROG, str(e))
    if v.load_error is not None:
        err = v.load_error
        where = "does not load" if err.stage in ("import", "start") else "fails at start"
        fail(PROG, f"bot {path!r} {where}: {err.reason}")
    if not v.checks:
        why = "; ".join(f"{g}: {w}" for g, w in v.skipped.items()) or "no game is implemented"
        fail(PROG, f"bot {path!r} enters no game that can be played ({why})")
    return v


OUTPUT_LINES = 5
"""Lines of a bot's stdout and of its stderr shown per smoke match (``--json`` has the whole excerpt)."""


def _traceback_lines(c: GameCheck) -> list[str]:
    """The end of the failing move's traceback excerpt, without the bot's output (shown apart)."""
    if c.ok or c.fault is None or not c.fault.traceback:
        return []
    tb = c.fault.traceback
    if c.output:   # the sandbox appends the bot's output to the excerpt: it is shown apart
        cut = tb.rfind(c.output.splitlines()[0])
        if cut >= 0:
            tb = tb[:cut].rstrip()
    return tb.splitlines()[-6:]


def _print_checks(v: Validation) -> None:
    for c in v.checks:   # the bot's text shown escaped (bots.failure.one_line): it cannot act on a terminal
        print(one_line(c.line(), None))
        for tl in _traceback_lines(c):
            print(f"    {one_line(tl, None)}")
        warning = c.bank_warning()
        if warning:
            print(warning)
        if c.streams:
            print(f"{c.game}: the bot's output (start):")
        for stream, text in c.streams.items():
            lines = text.splitlines()
            for i, ln in enumerate(lines[:OUTPUT_LINES]):
                ln = one_line(ln, None)
                print(f"    [{stream}] {ln}" if i == 0 else f"    {' ' * (len(stream) + 2)} {ln}")
            if len(lines) > OUTPUT_LINES:
                print(f"    ... ({len(lines) - OUTPUT_LINES} more lines of {stream}; --json has them)")
    for g, why in v.skipped.items():
        print(f"{g}: skipped ({why})")
    if v.checks:
        print(v.standing_line())


@app.command("validate")
def validate_cmd(
    path: Annotated[str, typer.Argument(help="the bot: a .py file or a folder with __init__.py")],
    games: GamesOpt = None,
    seed: SeedOpt = None,
    deals: Annotated[int, typer.Option(help="deals per smoke match")] = 1,
    as_json: Annotated[bool, typer.Option("--json", help="machine-readable output")] = False,
) -> None:
    """Load the bot in the sandbox and play one smoke match of every game it enters against random
    bots; per game: ok and its place, or the move that failed and why; the start of its stdout and
    stderr; a warning for a move that drew on the time bank; its standing against the random bots.
    Exit 1 on any failure."""
    from bots.sandbox import isolation
    v = _run_validation(path, games, seed, deals)
    if as_json:
        print(json.dumps(v.to_json(), indent=2))
    else:
        _print_checks(v)
        print(("ok: " if v.ok else "FAILED: ") + f"{sum(c.ok for c in v.checks)}/{len(v.checks)} games"
              f" ({isolation().wrapper} sandbox)")
    if not v.ok:
        raise typer.Exit(1)


@app.command("submit")
def submit_cmd(
    path: Annotated[str, typer.Argument(help="the bot: a .py file or a folder with __init__.py")],
    name: Annotated[str, typer.Option("--name", help="registry name (a-z 0-9 _ -)")],
    games: GamesOpt = None,
    seed: SeedOpt = None,
    deals: Annotated[int, typer.Option(help="deals per smoke match")] = 1,
    data_dir: DataDir = None,
    as_json: Annotated[bool, typer.Option("--json", help="machine-readable output")] = False,
) -> None:
    """Validate the bot, then store an immutable copy as the next version of NAME.  Content identical
    to a version of NAME already stored makes no new version: it says which (``NAME@K``)."""
    from bots.registry import Registry, RegistryError, check_entry_name, check_name
    try:
        check_name(name)
    except ValueError as e:
        fail(PROG, str(e))
    _check_data_dir(data_dir)
    src = _checked_source(path)
    try:
        check_entry_name(src.path.name)
    except ValueError as e:
        fail(PROG, str(e))
    registry = Registry(data_dir)
    try:
        same = registry.find(name, src.content_hash())
    except RegistryError as e:
        fail(PROG, str(e))
    if same is not None:
        latest = max(e.version for e in registry.entries(name, []))
        note = "" if same.version == latest else f"; {name} alone names {name}@{latest}, the latest"
        if as_json:
            print(json.dumps({**same.to_json(), "new_version": False, "same_as": same.spec}, indent=2))
        else:
            print(f"not submitted again: the same content as {same.spec} (hash {same.hash[:12]}, submitted "
                  f"{same.submitted}); no new version{note}")
        return
    v = _run_validation(path, games, seed, deals)
    if not v.ok:
        _print_checks(v)
        print(f"not submitted: {name} failed validation", file=sys.stderr)
        raise typer.Exit(1)
    try:
        entry = registry.add(v.source, name, v.games, v.summary())
    except RegistryError as e:
        fail(PROG, str(e))
    except OSError as e:
        fail(PROG, f"cannot store the bot under {registry.dir}: {e.strerror or e}", 1)
    if as_json:
        print(json.dumps({**entry.to_json(), "new_version": True, "same_as": None}, indent=2))
        return
    _print_checks(v)
    print(f"submitted {entry.spec} (hash {entry.hash[:12]}) for {len(entry.games)} games; "
          f"tournaments name it {entry.name} (latest) or {entry.spec}")


@app.command("list")
def list_cmd(
    name: Annotated[str | None, typer.Argument(help="only this bot's versions")] = None,
    data_dir: DataDir = None,
    as_json: Annotated[bool, typer.Option("--json", help="machine-readable output")] = False,
) -> None:
    """The registry: every submitted version, with its hash, games, time and validation result."""
    from bots.registry import Registry, RegistryError
    _check_data_dir(data_dir)
    skipped: list[str] = []
    try:
        entries = Registry(data_dir).entries(name, skipped)
    except RegistryError as err:
        fail(PROG, str(err))
    if name is not None and not entries and skipped:
        fail(PROG, skipped[0])
    for line in skipped:   # one bad row does not hide the others
        print(f"{PROG}: warning: {line}", file=sys.stderr)
    if name is not None and not entries:
        fail(PROG, f"no submitted bot named {name!r}")
    if as_json:
        print(json.dumps([e.to_json() for e in entries], indent=2))
        return
    if not entries:
        print("no bots submitted yet (cardarena bots submit PATH --name NAME)")
        return
    from rich.console import Console
    from rich.table import Table
    from rich.text import Text
    table = Table("bot", "hash", "submitted", "games", "validation")
    for e in entries:   # a registry's text is never markup, and shown escaped
        val: dict[str, Any] = e.validation
        table.add_row(*[Text(one_line(str(x), None)) for x in (e.spec, e.hash[:12], e.submitted,
                                                                ", ".join(e.games))],
                      "ok" if val.get("ok") else "failed")
    Console(highlight=False, soft_wrap=False, width=200, markup=False).print(table)


def main() -> None:  # pragma: no cover - the lead mounts ``app`` under ``cardarena bots``
    app()


if __name__ == "__main__":  # pragma: no cover
    main()
