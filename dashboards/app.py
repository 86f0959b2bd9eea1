"""The ``cardarena`` command line (typer): the program's entry point, in the topmost layer.

The app mounts every layer's commands (engine <- bots <- tournaments <- dashboards; each imports only
its own layer and those below): ``games``, ``rules``, ``play`` and ``demo`` here; ``bots ...``
(bots/cli.py); ``tournament ...`` (tournaments/tournament_cli.py); ``query``, ``rank``, ``verify``,
``coverage``, ``fuzz`` (tournaments/analysis/cli.py); ``dashboard`` and ``show`` (dashboards/cli.py).
``[project.scripts]`` points ``cardarena`` at :func:`dashboards.entry.main`, which answers ``games``
itself and hands every other command line to :func:`main` here; ``python -m dashboards.app`` runs
this app directly.

Bad input (unknown game, wrong number of bots, malformed option or action) exits 2 with one line
that says what was wrong and what is accepted; never a traceback.
"""
from __future__ import annotations

import json
import math
import sys
import textwrap
from pathlib import Path
from typing import TYPE_CHECKING, Annotated, Any

import typer

from bots.cli import app as bots_app
from bots.failure import HELP_SETTINGS, fail
from dashboards.listing import print_games
from tournaments.analysis.tables import plain, plain_console, styled
from tournaments.ladder.cli import app as ladder_app
from tournaments.tournament_cli import app as tournament_app

if TYPE_CHECKING:   # the engine, the games and the bots load in the commands that use them
    from rich.table import Table

    from bots.match import MatchResult
    from engine.core import Game, State

app = typer.Typer(add_completion=False, no_args_is_help=True, pretty_exceptions_enable=False,
                  context_settings=HELP_SETTINGS,
                  rich_markup_mode=None,  # plain help: typer's rich help imports rich.markdown and more
                  help="cardarena: rules verification and tournaments for traditional card games.")
app.add_typer(tournament_app, name="tournament")
app.add_typer(bots_app, name="bots")
app.add_typer(ladder_app, name="ladder")
out = plain_console()
"""Reads no markup: bot names, fault reasons and bot output are printed as the text they are."""
PROG = "cardarena"
RULES_DOC = "docs/rules.md"
"""The rules reference shipped in the repository (``cardarena rules`` points to it)."""


def _version(value: bool) -> None:
    if value:
        from importlib.metadata import version

        from engine import _compiled  # (imports the engine: which build runs is decided there)
        print(f"cardarena {version('cardarena')}\n{_compiled.describe()}")
        raise typer.Exit()


@app.callback()
def _root(show_version: Annotated[bool, typer.Option(
        "--version", callback=_version, is_eager=True,
        help="the version, and which engine runs (the compiled build or the pure-Python source)")] = False,
          ) -> None:
    pass


try:  # typer >= 0.22 vendors click; older releases depend on it
    from typer._click import exceptions as click_exc
except ImportError:  # pragma: no cover
    import click.exceptions as click_exc  # type: ignore[no-redef]


class UserError(Exception):
    """Bad input: reported as one line, exit status 2."""


def _game_or_fail(game_id: str, options: dict[str, Any] | None = None) -> Game:
    from engine import GAMES, load_game
    if game_id not in GAMES:
        raise UserError(f"unknown game {game_id!r}; known games: {', '.join(GAMES)}")
    try:
        return load_game(game_id, **(options or {}))
    except ValueError as e:
        raise UserError(str(e)) from None


def _parse_options(pairs: list[str]) -> dict[str, Any]:
    opts: dict[str, Any] = {}
    for p in pairs:
        key, sep, raw = p.partition("=")
        if not sep or not key:
            raise UserError(f"bad option {p!r}: write KEY=VALUE, e.g. -o target=50 or -o long_play=true")
        if len(p) > 4096 or "\0" in p:
            raise UserError(f"bad option {key[:40]!r}: at most 4096 characters, no NUL")
        try:
            value = json.loads(raw, parse_constant=_not_finite)
        except json.JSONDecodeError:
            value = raw
        except ValueError:  # NaN, Infinity: refused by _not_finite
            raise UserError(f"option {key}={raw}: expected a finite number") from None
        if isinstance(value, float) and not math.isfinite(value):  # 1e999 parses as inf
            raise UserError(f"option {key}={raw}: expected a finite number")
        opts[key] = value
    return opts


def _not_finite(text: str) -> Any:
    raise ValueError(f"{text} is not a finite number")


MAX_SEED = 2**63 - 1
MAX_DEALS = 10_000


@app.command("games")
def games_cmd(as_json: Annotated[bool, typer.Option("--json", help="machine-readable output")] = False
              ) -> None:
    """List the implemented games: id, name, seats, family and options (read from a cached index, so
    no game is loaded; `cardarena rules GAME` has an option's meaning)."""
    print_games(as_json)  # (dashboards/entry.py answers `games` and `games --json` before typer loads)


@app.command("rules")
def rules_cmd(game: Annotated[str, typer.Argument(help="game id (see `cardarena games`)")],
              as_json: Annotated[bool, typer.Option("--json")] = False) -> None:
    """The rules card in brief, the options with their defaults, and the action notation."""
    g = _game_or_fail(game)
    cls = type(g)
    source = cls.seed_ref.replace("RULES.md", RULES_DOC)  # the rules reference shipped in the repository
    if as_json:
        print(json.dumps({"id": cls.id, "name": cls.name, "source": source, "reference": RULES_DOC,
                          "summary": cls.summary,
                          "players": [cls.min_players, cls.max_players],
                          "options": [{"name": o.name, "default": o.default, "doc": o.doc,
                                       "choices": list(o.choices) if o.choices else None}
                                      for o in cls.options_spec],
                          "notation": cls.notation}, indent=2))
        return
    players = (str(cls.min_players) if cls.min_players == cls.max_players
               else f"{cls.min_players}-{cls.max_players}")
    out.print(styled((cls.name, "bold"), f"  ({cls.id}; {players} players; {cls.family}; source: {source})"))
    out.print()
    out.print(textwrap.dedent(cls.summary).strip(), markup=False)
    out.print()
    out.print(styled(("Options", "bold"), " (load_game(id, NAME=VALUE) or `-o NAME=VALUE`):"))
    if not cls.options_spec:
        out.print("  none")
    for o in cls.options_spec:
        choices = f" (one of {', '.join(map(repr, o.choices))})" if o.choices else ""
        out.print(f"  {o.name} = {o.default!r}{choices}: {o.doc}", markup=False)
    out.print()
    out.print(styled(("Actions", "bold"), ":"))
    out.print(textwrap.indent(textwrap.dedent(cls.notation).strip(), "  "), markup=False)
    out.print()
    out.print(f"The whole card, with every decision: {RULES_DOC} (section `{cls.id}`); card and action "
              "notation: docs/notation.md.", markup=False)


def _brief(result: MatchResult, names: list[str], width: int = 100) -> list[str]:
    """The moves in brief: one block per deal, ``seat:action`` entries, rule events in brackets, and
    ``[FAULT seat S: KIND]`` on the move a bot faulted (that move and the seat's later ones are the
    random fallback's)."""
    state = result.state
    replay = state.game.new_match(seed=result.seed, players=state.players, max_deals=state.max_deals)
    by_ply: dict[int, list[str]] = {}
    for ev in state.events:
        short = ev["event"].split(".", 1)[1]
        seat = f" seat {ev['seat']}" if ev.get("seat") is not None else ""
        by_ply.setdefault(ev["ply"], []).append(f"[{short}{seat}]")
    faulted = {f.ply: f for f in result.faults}
    lines: list[str] = []
    deal, entries = -1, list[str]()
    for ply, action in enumerate(state.history):
        if replay.deal_no != deal:
            if entries:
                lines += _wrap(entries, width)
            deal, entries = replay.deal_no, []
            lines.append(f"deal {deal}:")
        f = faulted.get(ply)
        if f is not None:
            entries.append(f"[FAULT seat {f.seat}: {f.outcome}; random plays on]")
        entries.append(f"{replay.current_player}:{action}")
        replay.apply(action)
        entries += by_ply.get(ply, [])
    if entries:
        lines += _wrap(entries, width)
    return lines


def _wrap(entries: list[str], width: int) -> list[str]:
    """``entries`` joined and wrapped at ``width``, an entry never split across lines."""
    text = "  ".join(e.replace(" ", "\xa0") for e in entries)
    return [ln.replace("\xa0", " ")
            for ln in textwrap.wrap(text, width, initial_indent="  ", subsequent_indent="  ")]


FAULT_EXIT = 3
"""``cardarena play`` exits 3 when a bot faulted (a crash, a timeout, an illegal action, its memory cap):
the match was finished by the random fallback and the faulting seat placed last."""


def _fault_lines(result: MatchResult, names: list[str], outputs: dict[int, str],
                 teams: bool = False) -> list[str]:
    """Every fault: seat, bot, where (deal, the bot's move, the ply), kind and reason, then the
    traceback excerpt indented (the bot's output is shown apart, not repeated here)."""
    lines: list[str] = []
    for f in result.faults:
        seat = f.bot_seat
        where = (f"at {f.stage}" if f.stage in ("start", "import", "init")
                 else f"at deal {f.deal}, its move {f.move} (ply {f.ply})")
        gave = f", it played {f.action!r}" if f.action is not None else ""
        lines.append(f"FAULT seat {seat} ({names[seat]}): {f.outcome} {where}{gave}: {f.reason}")
        tb = _without_output(f.traceback, outputs.get(seat, ""))
        lines += [f"    {ln}" for ln in tb.splitlines()[-12:]]
        placed = (f"seat {seat} and its partner, seat {(seat + 2) % 4}, are placed last" if teams
                  else f"seat {seat} is placed last")
        lines.append(f"    the random fallback played seat {seat}'s other "
                     f"{result.fallback_moves[seat]} moves; {placed}")
    return lines


def _without_output(traceback: str, output: str) -> str:
    """A fault's traceback excerpt without the bot's own output, which the sandbox appends to it and
    which ``play`` shows (and ``--json`` gives) apart, as ``outputs``."""
    if output:
        cut = traceback.rfind(output.splitlines()[0])
        if cut >= 0:
            return traceback[:cut].rstrip()
    return traceback


def _sheet_table(state: State, names: list[str], placement: list[int]) -> Table:
    """The score sheet, then the scores and each seat's one place: the match's placement, in which a
    faulting seat (in a partnership game, its side) forfeits and is placed last."""
    from tournaments.analysis.tables import fit_table  # cells fold at 80 columns, never cut
    table = fit_table("deal", *[f"seat {i} ({n})" for i, n in enumerate(names)], title="score sheet")
    for i, row in enumerate(state.score_sheet(), 1):
        table.add_row(str(i), *[_num(v) for v in row])
    table.add_row("score", *[_num(v) for v in state.scores()], style="bold")
    table.add_row("place", *[str(r) for r in placement], style="bold")
    return table


def _num(v: float) -> str:
    return str(int(v)) if float(v).is_integer() else f"{v:g}"


def _bot_names(game: Game, bots: str | None, players: int | None) -> list[str]:
    cls = type(game)
    seats = (str(cls.min_players) if cls.min_players == cls.max_players
             else f"{cls.min_players} to {cls.max_players}")
    if players is not None and not cls.min_players <= players <= cls.max_players:
        raise UserError(f"--players {players}: {cls.id} takes {seats} players")
    if bots is None:
        return ["random"] * (players or cls.default_players)
    names = [b.strip() for b in bots.split(",") if b.strip()]
    if not cls.min_players <= len(names) <= cls.max_players:
        raise UserError(f"{cls.id} takes {seats} players; --bots names {len(names)}: {bots[:200]}")
    if players is not None and players != len(names):
        raise UserError(f"--players {players} but --bots names {len(names)} bots")
    return names


def play_and_show(game_id: str, names: list[str], seed: int, deals: int | None, options: dict[str, Any],
                  as_json: bool) -> MatchResult:
    """Play one match and print it: the moves, every fault where it happened (seat, move, kind, reason,
    traceback excerpt), each sandboxed bot's stdout/stderr excerpt and the score sheet; with
    ``as_json`` one JSON object (``faults``, ``outputs``, ``placement`` among its keys)."""
    from bots.match import close_players, make_players, play_match
    from engine import load_game
    try:
        game = load_game(game_id, **options)
        players = make_players(game, names, seed)
    except ValueError as e:
        raise UserError(str(e)) from None
    try:
        result = play_match(game, players, seed, deals)
    finally:
        close_players(players)
    outputs = {seat: text for seat, p in enumerate(players)
               if isinstance(text := getattr(p, "output", ""), str) and text}
    state = result.state
    if as_json:
        print(json.dumps({"game": game_id, "options": state.game.options, "seed": seed, "bots": names,
                          "moves": [{"ply": i, "seat": s, "action": a}
                                    for i, (s, a) in enumerate(result.moves)],
                          "events": state.events, "sheet": state.score_sheet(), "scores": state.scores(),
                          "ranking": state.ranking(), "placement": result.placement,
                          "faults": [{**f.to_json(), "bot": names[f.bot_seat],
                                      "traceback": _without_output(f.traceback, outputs.get(f.bot_seat, "")),
                                      "fallback_moves": result.fallback_moves[f.bot_seat]}
                                     for f in result.faults],
                          "outputs": {str(s): t for s, t in outputs.items()}}))
        return result
    out.print(styled((type(state.game).name, "bold"), f"  seed {seed}  bots: {', '.join(names)}"
                     f"  ({len(state.history)} moves, {state.deal_no} deals)"))
    for line in _brief(result, names, width=min(100, out.width)):
        out.print(plain(line))
    for line in _fault_lines(result, names, outputs, bool(type(state.game).teams)):
        out.print(plain(line, "bold red" if line.startswith("FAULT") else ""))
    for seat, text in outputs.items():
        out.print(plain(f"output of seat {seat} ({names[seat]}):"))
        for ln in text.splitlines()[:40]:
            out.print(plain(f"    {ln}"))
    out.print(_sheet_table(state, names, result.placement))
    if result.faults:
        out.print("place: a faulting seat forfeits and is placed last"
                  + (", with its partner" if type(state.game).teams else "")
                  + f"; by the score alone the places are {' '.join(map(str, state.ranking()))}",
                  markup=False)
    return result


@app.command("play")
def play_cmd(
    game: Annotated[str, typer.Argument(help="game id (see `cardarena games`)")],
    bots: Annotated[str | None, typer.Option(help="comma-separated bots, one per seat (default: random)")
                    ] = None,
    seed: Annotated[int | None, typer.Option(min=0, max=MAX_SEED, help="match seed (default: a fresh "
                                             "random one, printed so the match can be replayed)")] = None,
    deals: Annotated[int | None, typer.Option(min=1, max=MAX_DEALS, help="stop after this many deals")
                     ] = None,
    players: Annotated[int | None, typer.Option(help="number of seats (default: the game's)")] = None,
    option: Annotated[list[str] | None, typer.Option("--option", "-o", metavar="KEY=VALUE",
                                                     help="game option (repeatable)")] = None,
    as_json: Annotated[bool, typer.Option("--json", help="machine-readable output")] = False,
    human: Annotated[int | None, typer.Option(
        "--human", metavar="SEAT", help="play SEAT yourself (from 0) against the bots: --bots then names "
        "the other seats in seat order (default: greedy), or every seat with 'human' at yours")] = None,
    web: Annotated[bool, typer.Option("--web", help="with --human: play in the browser (a local server on "
                                      "127.0.0.1; open the URL it prints)")] = False,
    out_dir: Annotated[Path | None, typer.Option(
        "--out", metavar="DIR", help="with --human: log the match into DIR like a tournament match "
        "(tournament 'play'; never ranked)")] = None,
) -> None:
    """Play one match and print each move, every bot fault where it happened (with its traceback
    excerpt), each bot's output and the score sheet.  Exit 3 when a bot faulted.  With --human SEAT you
    play that seat (at the terminal, or in the browser with --web)."""
    g = _game_or_fail(game, _parse_options(option or []))
    if human is None and (web or out_dir is not None):
        raise UserError(f"{'--web' if web else '--out'} goes with --human SEAT (play a seat yourself)")
    if deals is not None and deals < 1:
        raise UserError(f"--deals must be at least 1, got {deals}")
    if seed is None:
        import secrets

        from bots.match import SEED_BITS
        seed = secrets.randbits(SEED_BITS)
    if human is not None:
        if as_json:
            raise UserError("--json does not go with --human: the match is played at the terminal or "
                            "in the browser")
        _play_human(g, human, bots, players, seed, deals, web, out_dir)
        return
    names = _bot_names(g, bots, players)
    result = play_and_show(game, names, seed, deals, g.options, as_json)
    if result.faults:
        raise typer.Exit(FAULT_EXIT)


def _play_human(g: Game, human: int, bots: str | None, players: int | None, seed: int, deals: int | None,
                web: bool, out_dir: Path | None) -> None:
    """``play GAME --human SEAT``: the person in one seat, bots in the others (dashboards/human.py)."""
    from dashboards.human import DEFAULT_BOTS, HUMAN_LABEL, Abandoned, seating
    cls = type(g)
    names = [b.strip() for b in bots.split(",") if b.strip()] if bots is not None else None
    if names is not None and HUMAN_LABEL in names:   # a whole table, the person's seat named "human"
        if names.count(HUMAN_LABEL) != 1 or names.index(HUMAN_LABEL) != human:
            raise UserError(f"--bots names 'human' at seat {names.index(HUMAN_LABEL)} but --human is "
                            f"{human}: name it once, at your seat, or leave it out")
        names.remove(HUMAN_LABEL)
    n = players if players is not None else len(names) + 1 if names else cls.default_players
    if not cls.min_players <= n <= cls.max_players:
        seats_ = (str(cls.min_players) if cls.min_players == cls.max_players
                  else f"{cls.min_players} to {cls.max_players}")
        raise UserError(f"{cls.id} takes {seats_} players; "
                        + (f"--players {n}" if players is not None else f"--bots names {n - 1} bot(s) "
                           "for the seats beside yours"))
    if names is None:
        names = [DEFAULT_BOTS] * (n - 1)
    if out_dir is not None and out_dir.exists() and not out_dir.is_dir():
        raise UserError(f"--out {out_dir} is a file; give a folder (created when missing)")
    try:
        seats = seating(n, human, names)
    except ValueError as e:
        raise UserError(str(e)) from None
    try:
        if web:
            from dashboards.playweb import play_in_browser
            result, logged = play_in_browser(g, seats, seed, deals, out_dir, say=print)
        else:
            result, logged = _play_at_terminal(g, seats, seed, deals, out_dir)
    except (Abandoned, KeyboardInterrupt) as e:
        why = str(e) if isinstance(e, Abandoned) and str(e) else "interrupted"
        fail(PROG, f"the match was abandoned ({why}); nothing was logged", 130)
    except ValueError as e:   # a bot that cannot be made (unknown name, will not load)
        raise UserError(str(e)) from None
    state = result.state
    out.print(styled((type(state.game).name, "bold"), f"  seed {seed}  seats: {', '.join(seats.labels)}"
                     f"  ({len(state.history)} moves, {state.deal_no} deals)"))
    out.print(_sheet_table(state, seats.labels, result.placement))
    for line in _fault_lines(result, seats.labels, {}, bool(type(state.game).teams)):
        out.print(plain(line))
    if logged is not None:
        out.print(f"logged to {logged} (tournament 'play'; a match with a human seat is never ranked)",
                  markup=False)


def _play_at_terminal(g: Game, seats: Any, seed: int, deals: int | None, out_dir: Path | None
                      ) -> tuple[MatchResult, Path | None]:
    from bots.match import close_players, make_players, play_match
    from dashboards.human import TerminalHuman, Update, Watcher, log_match

    h = seats.human

    def notify(u: Update) -> None:
        who = "you" if u.seat == h else f"seat {u.seat} ({u.label})"
        print(f"  {who}: {u.text}" + "".join(f"  [{e}]" for e in u.events))

    players = make_players(g, [b or "random" for b in seats.bots], seed)
    person = TerminalHuman(seats.labels, meanings=g.state_class.observation_keys())
    players[h] = person
    n = len(players)
    watcher = Watcher(g, seed, n, deals, seats, notify)
    records: list[Any] = []

    def on_move(rec: Any) -> None:
        records.append(rec)
        watcher.on_move(rec)

    print(f"{type(g).name}: you are seat {h}; " + ", ".join(
        f"seat {s} {lab}" for s, lab in enumerate(seats.labels) if s != h) + f"; seed {seed}")
    try:
        result = play_match(g, players, seed, deals, on_move=on_move)
    finally:
        close_players([p for s, p in enumerate(players) if s != h])
    reveal = watcher.reveal()
    print("-- the match is over: every hand as dealt --")
    for d in reveal["dealt"]:
        for s, hand in enumerate(d["hands"]):
            print(f"  deal {d['deal']} seat {s} ({seats.labels[s]}): {' '.join(hand) or '-'}")
    logged = log_match(out_dir, g, result, seats, records) if out_dir is not None else None
    return result, logged


@app.command("demo")
def demo_cmd(seed: Annotated[int, typer.Option(min=0, max=MAX_SEED, help="seed of every match")] = 7
             ) -> None:
    """One seeded match of every implemented game with random bots."""
    from engine import GAMES, game_class
    for gid in GAMES:
        cls = game_class(gid)
        play_and_show(gid, ["random"] * cls.default_players, seed, None, {}, False)
        out.print()


def _mount_analysis() -> None:
    """``query``, ``rank``, ``verify``, ``coverage``, ``fuzz`` (tournaments/analysis/cli.py)."""
    from tournaments.analysis.cli import register
    register(app)


_mount_analysis()


def _mount_dashboard() -> None:
    """``dashboard`` and ``show`` (dashboards/cli.py)."""
    from dashboards.cli import dashboard_cmd, show_cmd
    app.command("dashboard")(dashboard_cmd)
    app.command("show")(show_cmd)


_mount_dashboard()


def _mount_bot_faults() -> None:
    """``bots faults DIR NAME``, ``bots replay DIR MATCH_ID`` and ``bots eval BOT`` (tournaments/analysis/:
    they read or run a tournament, which bots/ may not import)."""
    from tournaments.analysis.evaluate import eval_cmd
    from tournaments.analysis.faults import faults_cmd
    from tournaments.analysis.replay import replay_cmd
    bots_app.command("faults")(faults_cmd)
    bots_app.command("replay")(replay_cmd)
    bots_app.command("eval")(eval_cmd)


_mount_bot_faults()


def _print_help(text: str) -> None:
    try:
        print(text)
        sys.stdout.flush()
    except BrokenPipeError:  # `cardarena | head`: the reader left; nothing more to say
        import os
        os.dup2(os.open(os.devnull, os.O_WRONLY), sys.stdout.fileno())


def main() -> None:
    """Console entry point: one-line errors for bad input, exit status 2."""
    try:
        from dashboards.helpstyle import conventional
        command = conventional(typer.main.get_command(app))
        rc = command.main(prog_name=PROG, standalone_mode=False)  # the code of a typer.Exit, if any
    except UserError as e:
        fail(PROG, str(e))
    except click_exc.NoArgsIsHelpError as e:  # a bare group (`cardarena`, `cardarena tournament`)
        _print_help(e.ctx.get_help())           # its help as the user would see it with --help
        sys.exit(0)
    except click_exc.UsageError as e:
        cmd = e.ctx.command_path if e.ctx else PROG
        if e.format_message():  # (empty when the help was shown for a bare command)
            fail(cmd, f"{e.format_message()} (see {cmd} --help)", e.exit_code)
        sys.exit(e.exit_code)
    except typer.Exit as e:
        sys.exit(e.exit_code)
    except typer.Abort:
        fail(PROG, "aborted", 130)
    sys.exit(rc if isinstance(rc, int) else 0)


if __name__ == "__main__":
    main()
