"""``cardarena bots eval BOT --game G [--vs greedy,ismcts] [--boards N] [--json]``: how strong a bot is,
measured as a small tournament.

A spec is built in code: the bot and the opponents as entrants (an opponent entered again under
``NAME-2``, ``NAME-3``, ... until every seat of the game is filled), ``N`` duplicate boards, the
tournament's full schedule (every set of entrants that fills a table, every partnership split in a
partnership game) and every rotation of each, so the bot plays each board from every seat.  It runs with
``tournaments.runners.run_tournament`` on the local pool of processes (the bot in the sandbox, as in a
tournament), with the progress line, into ``--out`` (kept: every command that reads a tournament
reads it, ``bots faults``, ``bots replay``, ``show``) or a temporary directory.  The result is the
headline score of :mod:`tournaments.analysis.leaderboard` with its bootstrap 95% interval, per
entrant, and the bot's faults grouped as ``bots faults`` groups them.

A bot file or folder is stored in a registry of the output directory (``OUT/_bots``) for the run; a
submitted ``NAME[@VERSION]`` and the built-ins are used as they are.
"""
from __future__ import annotations

import json
import re
import tempfile
from pathlib import Path
from typing import Annotated, Any

import typer

DEFAULT_VS = "greedy"
DEFAULT_BOARDS = 4


def entrants(bot_label: str, bot: str, vs: list[str], players: int) -> list[dict[str, str]]:
    """The spec's entrants: the bot first, then the opponents, entered again (``NAME-2``, ...) until
    there are at least ``players``."""
    out = [{"name": bot_label, "bot": bot}]
    used = {bot_label}
    k = 0
    while len(out) < max(players, 1 + len(vs)):
        name = vs[k % len(vs)]
        label, n = name, 1
        while label in used:
            n += 1
            label = f"{name}-{n}"
        used.add(label)
        out.append({"name": label, "bot": name})
        k += 1
    return out


def evaluate(bot: str, game: str, vs: list[str], boards: int, out: Path, *, seed: int = 0,
             max_deals: int | None = None, progress: bool = True, executor: str = "local") -> dict[str, Any]:
    """Run the evaluation tournament into ``out`` and return the report ``--json`` prints.
    ``ValueError`` (one line) for bad input: an unknown game or bot, a bot that will not load."""
    from bots.api import BUILTIN, bot_source, looks_like_path
    from bots.registry import Registry
    from engine import game_class
    from tournaments.analysis.faults import report as fault_report
    from tournaments.analysis.views import open_log
    from tournaments.runners import run_tournament
    from tournaments.spec import parse_spec
    from tournaments.tournament_cli import leaderboard_rows
    bots_data: str | None = None
    ref = bot
    if looks_like_path(bot) and bot not in BUILTIN:
        src = bot_source(bot)   # BotLoadError (a ValueError) for a missing file
        stem = re.sub(r"[^a-z0-9_-]", "_", src.path.stem.lower()).strip("_-") or "bot"
        label = stem if stem[0].isalpha() and stem not in BUILTIN else f"bot_{stem}"
        label = label[:40]
        data = out / "_bots"
        Registry(data).add(src, label, [game], {})
        bots_data, ref = str(data.resolve()), label
    else:
        label = bot.split("@", 1)[0]
    if label in vs:
        label = f"{label}-eval"
    n = int(game_class(game).default_players)
    ents = entrants(label, ref, vs, n)
    raw: dict[str, Any] = {"name": "eval", "seed": seed, "secret": "seed", "games": [game], "bots": ents,
                           "matches_per_seating": boards, "output": str(out), "schedule": {"mode": "full"}}
    if max_deals is not None:
        raw["max_deals"] = max_deals
    spec = parse_spec(raw)
    summary = run_tournament(spec, executor=executor, progress=progress, bots_data=bots_data)
    rows = leaderboard_rows(out, summary.tournament)
    log = open_log(out, tables=("matches",))
    faults = fault_report(out, label, log)
    mine = next(r for r in rows if r["bot"] == label)
    return {"bot": bot, "label": label, "game": game, "vs": vs, "boards": boards, "players": n,
            "directory": str(out), "matches": summary.total, "score": mine["score"], "lo": mine["lo"],
            "hi": mine["hi"], "mean_place": mine["mean_place"], "wins": mine["wins"],
            "faults": faults["faults"], "fault_groups": faults["groups"], "entrants": rows,
            "seconds": summary.seconds}


def eval_cmd(
    bot: Annotated[str, typer.Argument(metavar="BOT", help="a bot file or folder, a submitted "
                                       "NAME[@VERSION] or a built-in")],
    game: Annotated[str, typer.Option("--game", metavar="GAME", help="the game to play")],
    vs: Annotated[str, typer.Option("--vs", metavar="BOTS", help="the opponents, comma-separated "
                                    "(built-ins or submitted bots)")] = DEFAULT_VS,
    boards: Annotated[int, typer.Option("--boards", metavar="N", min=1, max=1000,
                                        help="duplicate boards (each played in every seating and "
                                        "rotation)")] = DEFAULT_BOARDS,
    max_deals: Annotated[int | None, typer.Option("--deals", metavar="N", min=1, max=1000,
                                                  help="deals per match (default: the whole match)")
                         ] = None,
    seed: Annotated[int, typer.Option("--seed", min=0, max=2**62, help="the boards' seed")] = 0,
    out: Annotated[Path | None, typer.Option("--out", metavar="DIR", help="keep the tournament here "
                                             "(default: a temporary directory)")] = None,
    as_json: Annotated[bool, typer.Option("--json", help="machine-readable output")] = False,
) -> None:
    """Play BOT against the opponents on N duplicate boards, in every seating and rotation, in the
    sandbox on the local pool; print its headline score with its 95% interval and its faults."""
    from bots.failure import fail, one_line
    from engine import GAMES
    from tournaments.analysis.cli import PROG
    from tournaments.analysis.leaderboard import METRIC
    from tournaments.runners import TournamentError
    from tournaments.spec import SpecError
    if game not in GAMES:
        fail(PROG, f"unknown game {game!r}; `cardarena games` lists them")
    opponents = [v.strip() for v in vs.split(",") if v.strip()]
    if not opponents:
        fail(PROG, "--vs: name at least one opponent")
    with tempfile.TemporaryDirectory(prefix="cardarena-eval-") as tmp:
        where = out if out is not None else Path(tmp) / "eval"
        if out is not None and out.exists() and any(out.iterdir()):
            fail(PROG, f"--out {out}: not empty; choose a new directory")
        try:
            rep = evaluate(bot, game, opponents, boards, where, seed=seed, max_deals=max_deals,
                           progress=not as_json)
        except (ValueError, SpecError, TournamentError, LookupError) as e:
            fail(PROG, one_line(str(e)))
        if out is None:
            rep["directory"] = None
    if as_json:
        print(json.dumps(rep, indent=2))
        return
    lo, hi = rep["lo"], rep["hi"]
    ci = f" (95% interval {lo:.2f}..{hi:.2f})" if lo is not None and hi is not None else ""
    print(f"{one_line(rep['label'])} in {game} against {', '.join(opponents)}: score {rep['score']:.3f}"
          f"{ci} over {rep['matches']} matches ({boards} boards, every seat); mean place "
          f"{rep['mean_place']:.2f}, {rep['wins']} wins, {rep['faults']} fault(s)")
    print(f"  {METRIC}")
    for r in rep["entrants"]:
        rlo, rhi = r["lo"], r["hi"]
        band = f"{rlo:.2f}..{rhi:.2f}" if rlo is not None and rhi is not None else "-"
        score = f"{r['score']:.3f}" if r["score"] is not None else "-"
        print(f"  {one_line(r['bot']):<24} {score:>6}  {band:<11} {r['matches']:>4} matches  "
              f"{r['faults']} fault(s)")
    for i, g in enumerate(rep["fault_groups"], 1):
        first = g["faults"][0]
        print(f"fault {i}. {one_line(g['kind'])} x{g['count']}: {one_line(g['reason'], 200)}")
        print(f"   first: match {first['match_id']} seat {first['seat']} ply {first['ply']}")
    if rep["fault_groups"] and rep["directory"]:
        print(f"  `cardarena bots faults {rep['directory']} {rep['label']}` lists them; `cardarena bots "
              f"replay {rep['directory']} MATCH_ID` plays one again")
    elif rep["fault_groups"]:
        print("  (--out DIR keeps the tournament, for `bots faults` and `bots replay`)")
