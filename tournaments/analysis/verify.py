"""Verify a tournament log: replay every match from the engine, and run the invariant SQL.

Replay (:func:`replay_part`): for each committed batch, the matches part gives each match's game,
options, seed, players and max_deals; the moves part with the same name gives its actions.  Each
match is started from that identity and replayed ply by ply (:func:`engine.replay.replay`).  Every
action must be legal (and be taken by the logged seat, in the logged deal, from as many legal actions
as logged); at the end the match must be over, with the logged scores, engine ranking, number of
deals, and the logged rule events (name, deal, ply, seat).
A match that disagrees and was logged by another engine version (``matches.engine_version``, a
digest of the rules code) says so: a change of the rules code since is then a possible cause.
With ``deep=True`` the conformance invariants (``state.invariant_violations()``) are checked after
every action too.  Batches run in parallel worker processes.

Invariant SQL (:func:`run_queries`): ``queries/_common.sql`` for every game and
``queries/<game>.sql`` per game (see the files for the format).  Each query's rows are violations.
A game file may include a family file (``-- include: _family.sql key=value ...``), rendered for the
game (:func:`load_queries`).  Before the queries run, the ``card_tables`` table holds every game's
card orders and points from the engine's declarations (:func:`card_table_rows`), so no query writes
a rank order or a points table again.

With ``sample`` (``verify --sample F``) both check the same random fraction of the matches: the SQL's
views then hold the sampled matches' rows only (:attr:`TournamentLog.sample`), so its cost follows the
sample, not the log.

Every :class:`Violation` carries the match id and a command that replays it:
``cardarena verify DIR --match ID``.

Before either, :func:`certify` checks that every part reads whole (``tournaments.log.check_batch``):
each committed batch's three parts exist and decode completely (every row group and column, the page
CRCs checked), with the schema's columns and types; its moves agree with ``matches.moves`` and its
rows with the batch's digest record; every part's bytes still have the SHA-256 recorded at commit;
its rows belong to the tournament its name is keyed to, which has a manifest here.  A part that is
missing or does not decode raises :class:`Uncertified` (nothing else is checked: the rules cannot be
judged on a log that does not read); a part that decodes but fails another of these checks is an
``integrity`` violation, and the rule checks go on.
"""
from __future__ import annotations

import json
import math
import os
import re
import time
import traceback
from collections.abc import Callable, Collection, Iterator
from dataclasses import asdict, dataclass, field
from pathlib import Path
from typing import Any

import pyarrow as pa
import pyarrow.parquet as pq

from engine import GAMES, IllegalAction, State, load_game
from engine.replay import replay, start
from tournaments.analysis.views import LogError, TournamentLog
from tournaments.ledger import tournaments_in
from tournaments.log import TABLES, check_batch, engine_version
from tournaments.paths import part_path, tournaments_dir
from tournaments.store import Files, LocalFiles, StoreError, is_uri, log_files

QUERIES = Path(__file__).with_name("queries")
_BLOCK = re.compile(r"^-- (invariant|setup):?[ \t]*([A-Za-z0-9_]*)[ \t]*$", re.M)
_INCLUDE = re.compile(r"^-- include:[ \t]*(\S+)((?:[ \t]+[A-Za-z_]\w*=\S+)*)[ \t]*$", re.M)
_PLACEHOLDER = re.compile(r"\{([A-Za-z_]\w*)\}")
_ABS_TOL = 1e-9


@dataclass
class Violation:
    check: str
    """``replay`` or the invariant query's name."""
    game: str
    match_id: str
    detail: str
    replay: str = ""

    def line(self) -> str:
        return f"[{self.game}] {self.check}: match {self.match_id}: {self.detail}\n    replay: {self.replay}"


@dataclass
class ReplayStats:
    matches: int = 0
    moves: int = 0
    seconds: float = 0.0
    violations: list[Violation] = field(default_factory=list)
    sample: Sample | None = None
    """What ``--sample`` replayed (None: every match)."""
    resubmitted: int = 0
    """Replay tasks run again after their worker process died."""
    driver_seconds: float = 0.0
    """CPU seconds of the driving process."""

    def add(self, other: ReplayStats) -> None:
        self.matches += other.matches
        self.moves += other.moves
        self.seconds += other.seconds
        self.violations += other.violations


def other_engine_note(logged: str, game: str | None = None) -> str:
    """What a replay that disagrees says when the match was played by other rules code (for
    ``game``: the version of its rules, :func:`~tournaments.log.engine_version`)."""
    return (f"this match was played by engine {logged} and this is engine {engine_version(game)}: the rules "
            "code has changed since, so its replay may differ for that reason alone (verify a log with "
            "the engine version that played it)")


def replay_command(root: str | os.PathLike[str], match_id: str) -> str:
    return f"cardarena verify {root} --match {match_id}"


# ------------------------------------------------------------------------------------------ replay
def replay_match(row: dict[str, Any], actions: list[str], seats: list[int], deals: list[int],
                 legal_counts: list[int], events: list[tuple[int, int, str, int | None]] | None,
                 deep: bool = False) -> list[str]:
    """Replay one match (:func:`engine.replay.replay`); return what disagrees with the log (empty when
    all agrees)."""
    problems: list[str] = []
    try:
        state = start(row["game"], json.loads(row["options"]), row["seed"], row["players"], row["max_deals"])
    except ValueError as e:
        return [f"cannot start the match: {e}"]
    ply = -1

    def logged(state: State) -> str | None:
        """The next logged action, after checking the state it is played from against the log."""
        nonlocal ply
        if ply + 1 >= len(actions):
            return None
        ply += 1
        if state.current_player != seats[ply]:
            problems.append(f"ply {ply}: logged seat {seats[ply]} but seat {state.current_player} "
                            "is to act")
        if state.deal_no != deals[ply]:
            problems.append(f"ply {ply}: logged deal {deals[ply]} but the engine is in deal "
                            f"{state.deal_no}")
        if legal_counts and len(state.legal_actions()) != legal_counts[ply]:
            problems.append(f"ply {ply}: logged {legal_counts[ply]} legal actions but the engine has "
                            f"{len(state.legal_actions())}")
        return actions[ply]

    try:
        for step in replay(state, logged):
            if deep:
                bad = state.invariant_violations()
                if bad:
                    return [*problems, f"ply {ply} ({step.action!r}): invariant violated: {'; '.join(bad)}"]
            if len(problems) > 20:
                return [*problems, "(more problems not shown)"]
    except IllegalAction as e:
        return [*problems, f"ply {ply}: illegal action {actions[ply]!r} (seat {seats[ply]}): {e}"]
    except Exception as e:  # an engine crash is a finding to report, not a reason to stop verifying
        tb = traceback.format_exception_only(type(e), e)[-1].strip()
        return [*problems, f"ply {ply}: the engine crashed: {tb}"]
    if ply + 1 < len(actions):   # the match ended with actions left
        return [*problems, f"ply {ply + 1}: the match is already over, but {len(actions) - ply - 1} "
                f"more actions are logged (first {actions[ply + 1]!r})"]
    if not state.is_over():
        problems.append(f"after all {len(actions)} logged actions the match is not over "
                        f"(deal {state.deal_no}, phase {state.phase})")
        return problems
    scores = state.scores()
    if len(scores) != len(row["scores"]) or any(abs(a - b) > _ABS_TOL for a, b in zip(scores, row["scores"],
                                                                                     strict=False)):
        problems.append(f"logged scores {_nums(row['scores'])} but the replay gives {_nums(scores)}")
    ranking = state.ranking()
    if list(ranking) != list(row["engine_ranking"]):
        problems.append(f"logged engine_ranking {list(row['engine_ranking'])} but the replay gives {ranking}")
    if state.deal_no != row["deals_played"]:
        problems.append(f"logged deals_played {row['deals_played']} but the replay played {state.deal_no}")
    if events is not None:
        got = [(e["deal"], e["ply"], e["event"], e.get("seat")) for e in state.events]
        if got != events:
            problems.append(_event_diff(events, got))
    bad = state.invariant_violations()
    if bad:
        problems.append("invariants violated at the end: " + "; ".join(bad))
    return problems


def _nums(xs: Any) -> str:
    return "[" + ", ".join(f"{x:g}" for x in xs) + "]"


EventKey = tuple[int, int, str, int | None]


def _event_diff(logged: list[EventKey], got: list[EventKey]) -> str:
    for i, (a, b) in enumerate(zip(logged, got, strict=False)):
        if a != b:
            return f"rule event {i}: logged {_ev(a)} but the replay emits {_ev(b)}"
    if len(logged) > len(got):
        return (f"{len(logged) - len(got)} logged rule events the replay does not emit, "
                f"first {_ev(logged[len(got)])}")
    return (f"the replay emits {len(got) - len(logged)} more rule events than logged, "
            f"first {_ev(got[len(logged)])}")


def _ev(e: tuple[int, int, str, int | None]) -> str:
    deal, ply, name, seat = e
    return f"{name} (deal {deal}, ply {ply}, seat {seat})"


def _read(path: Path, columns: list[str], ids: list[str] | None = None,
          files: Files | None = None) -> pa.Table:
    try:   # (a compacted part is sorted by match_id: the filter skips the other row groups)
        return pq.read_table(str(path), columns=columns, filesystem=files.fs if files is not None else None,
                             filters=None if ids is None else [("match_id", "in", ids)])
    except (OSError, pa.ArrowException) as e:
        where = files.shown(str(path)) if files is not None else str(path)
        raise LogError(f"{where}: unreadable Parquet part, truncated or corrupted "
                       f"({' '.join(str(e).split())})") from None


_FILES: dict[str, Files] = {}
"""A worker's view of each log it replays from (a store opened once per process, not per task)."""


def _files_of(root: str) -> Files:
    """The files of the log at ``root`` (a directory, or a store's URI: read in place)."""
    if not is_uri(root):
        return LocalFiles(root)
    got = _FILES.get(root)
    if got is None:
        try:
            got = _FILES[root] = log_files(root)
        except StoreError as e:
            raise LogError(str(e)) from None
    return got


def _py(table: pa.Table, column: str) -> list[Any]:
    """A non-null column as a Python list (via numpy: many times faster than ``to_pylist``)."""
    out: list[Any] = table.column(column).to_numpy(zero_copy_only=False).tolist()
    return out


def replay_part(root: str, game: str, name: str, deep: bool = False, only: str | None = None,
                check_events: bool = True, ids: Collection[str] | None = None) -> ReplayStats:
    """Replay the matches of one committed batch (``matches/game=G/NAME`` and its moves part); with
    ``ids``, only those matches of it (the rows of the others are not read where the part's row groups
    tell them apart)."""
    t0 = time.perf_counter()
    files = _files_of(root)
    base = files.root
    stats = ReplayStats()
    mpath = part_path(base, "matches", game, name)
    if only is not None:
        ids = [only]
    want = sorted(ids) if ids is not None else None
    matches = _read(mpath, ["match_id", "options", "seed", "players", "max_deals", "scores",
                            "engine_ranking", "deals_played", "moves", "engine_version"], want, files)
    if want is not None and matches.num_rows == 0:
        return stats
    moves = _read(part_path(base, "moves", game, name), ["match_id", "ply", "seat", "deal", "action",
                                                         "legal_count"], want, files)
    moves = moves.sort_by([("match_id", "ascending"), ("ply", "ascending")])
    events_by_match: dict[str, list[tuple[int, int, str, int | None]]] = {}
    if check_events:
        ev = _read(part_path(base, "events", game, name), ["match_id", "deal", "ply", "event", "seat"], want,
                   files)
        ev_cols = [_py(ev, c) for c in ("match_id", "deal", "ply", "event")]
        ev_cols.append(ev.column("seat").to_pylist())  # nullable
        for mid, deal, ply, event, seat in zip(*ev_cols, strict=True):
            events_by_match.setdefault(mid, []).append((deal, ply, event, seat))
    ids = _py(moves, "match_id")
    actions = _py(moves, "action")
    seats = _py(moves, "seat")
    deals = _py(moves, "deal")
    legal = _py(moves, "legal_count")
    spans: dict[str, tuple[int, int]] = {}
    start = 0
    for i in range(1, len(ids) + 1):
        if i == len(ids) or ids[i] != ids[start]:
            spans[ids[start]] = (start, i)
            start = i
    rows = matches.to_pylist()
    for row in rows:
        row["game"] = game
        mid = row["match_id"]
        a, b = spans.get(mid, (0, 0))
        if b - a != row["moves"]:
            stats.violations.append(Violation("replay", game, mid, f"matches.moves = {row['moves']} but the "
                                              f"moves part has {b - a} rows", replay_command(root, mid)))
        problems = replay_match(row, actions[a:b], seats[a:b], deals[a:b], legal[a:b],
                                events_by_match.get(mid, []) if check_events else None, deep=deep)
        if problems and row["engine_version"] != engine_version(game):
            problems[0] += f" ({other_engine_note(row['engine_version'], game)})"
        stats.matches += 1
        stats.moves += b - a
        for p in problems:
            stats.violations.append(Violation("replay", game, mid, p, replay_command(root, mid)))
    stats.seconds = time.perf_counter() - t0
    return stats


TASK_MATCHES = 32
"""Matches per replay task: whole match groups (``group_id``: a seating on a board, every rotation)
are put together until a task holds this many (more for a part with few row groups: at most one task
per row group of its moves part, see :func:`replay_tasks`)."""


@dataclass(frozen=True)
class ReplayTask:
    """One unit of distributed replay: some match groups of one committed batch."""
    root: str
    game: str
    name: str
    ids: tuple[str, ...]
    deep: bool = False

    @property
    def match_ids(self) -> list[str]:
        return list(self.ids)

    @property
    def key(self) -> str:
        """Names the task among a replay's, as :attr:`tournaments.runner.Batch.key` names a batch
        (the submission loop counts a lost task's attempts by it): its part and first match."""
        return f"{self.name}:{self.ids[0] if self.ids else ''}"


def run_replay_task(task: ReplayTask) -> ReplayStats | str:
    """A worker's replay of one :class:`ReplayTask` (a part that cannot be read: its one line)."""
    try:
        return replay_part(task.root, task.game, task.name, deep=task.deep, ids=task.ids)
    except LogError as e:
        return str(e)


@dataclass
class Sample:
    """What ``verify --sample F`` replayed: a random fraction of the matches, reproducible from ``seed``."""
    fraction: float
    seed: int
    sampled: int
    of: int

    def confidence(self, violating: int) -> str:
        """What the sample says about the whole log (0 violating matches in n: the rate is below 3/n
        at 95%, the rule of three)."""
        if not self.sampled:
            return "no match sampled: nothing can be said of the log"
        if violating == 0:
            return (f"0 violating matches in {self.sampled} sampled of {self.of}: the log's violation rate "
                    f"is below {3 / self.sampled:.3g} ({3 / self.sampled:.2%}) at 95% confidence")
        return (f"{violating} violating matches in {self.sampled} sampled of {self.of} "
                f"({violating / self.sampled:.2%} of the sample)")


def replay_tasks(log: TournamentLog, deep: bool = False, sample: float | None = None,
                 seed: int | None = None) -> tuple[list[ReplayTask], Sample | None]:
    """The replay of ``log`` cut into :class:`ReplayTask` s by match group (every match, or a random
    ``sample`` fraction of them drawn with ``seed``)."""
    per_part: list[tuple[str, str, list[str], list[str]]] = []
    for p in log.parts["matches"]:
        t = _read(p.path, ["match_id", "group_id"], files=log.files)
        per_part.append((p.game, p.path.name, _py(t, "match_id"), _py(t, "group_id")))
    drawn: Sample | None = None
    keep: set[str] | None = None
    if sample is not None:
        import random
        every = sorted(m for _, _, ids, _ in per_part for m in ids)
        seed = seed if seed is not None else random.SystemRandom().randrange(2**31)
        k = min(len(every), max(1, math.ceil(sample * len(every)))) if every else 0
        keep = set(random.Random(seed).sample(every, k))
        drawn = Sample(sample, seed, k, len(every))
    tasks: list[ReplayTask] = []
    for game, name, ids, groups in per_part:
        by_group: dict[str, list[str]] = {}
        for m, g in zip(ids, groups, strict=True):
            if keep is None or m in keep:
                by_group.setdefault(g, []).append(m)
        # A task reads the row groups holding its matches: a big (compacted) part is cut into at most
        # as many tasks as its moves part has row groups, its groups in match-id order (the part's
        # order), so that each task decodes about one row group rather than every task all of them.
        chosen = sum(len(v) for v in by_group.values())
        row_groups = pq.read_metadata(str(part_path(log.root, "moves", game, name)),
                                      filesystem=log.reader.fs).num_row_groups
        size = max(TASK_MATCHES, math.ceil(chosen / max(1, row_groups)))
        cur: list[str] = []
        for g in sorted(by_group, key=lambda g: min(by_group[g])):
            cur += by_group[g]
            if len(cur) >= size:
                tasks.append(ReplayTask(log.location, game, name, tuple(cur), deep))
                cur = []
        if cur:
            tasks.append(ReplayTask(log.location, game, name, tuple(cur), deep))
    return tasks, drawn


def sampled_batches(tasks: list[ReplayTask]) -> dict[tuple[str, str], frozenset[str]]:
    """The matches ``tasks`` replay, by batch ((game, part name) -> match ids): what
    :attr:`TournamentLog.sample` takes for the invariant SQL of a sampled verify."""
    out: dict[tuple[str, str], set[str]] = {}
    for t in tasks:
        out.setdefault((t.game, t.name), set()).update(t.ids)
    return {k: frozenset(v) for k, v in out.items()}


def replay_all(log: TournamentLog, workers: int | None = None, deep: bool = False, only: str | None = None,
               progress: Callable[[int, int], None] | None = None, sample: float | None = None,
               seed: int | None = None, address: str | None = None,
               drawn: tuple[list[ReplayTask], Sample | None] | None = None) -> ReplayStats:
    """Replay every committed match of ``log`` (or ``only`` one, or a ``sample``), by match group, on
    ``workers`` local processes through the submission loop (:mod:`tournaments.runners.loop`: a task
    whose worker died runs again); 1 = in this process.  With ``address`` the tasks run on that Ray
    cluster instead (every node must read ``log.root``: a shared directory, or the object store, which
    each worker reads in place).  ``drawn``: the tasks and sample of :func:`replay_tasks` when already
    made.  ``stats.sample`` says what was sampled."""
    if only is not None:
        tasks = [ReplayTask(log.location, p.game, p.path.name, (only,), deep) for p in log.parts["matches"]]
        chosen = None
    else:
        tasks, chosen = drawn if drawn is not None else replay_tasks(log, deep, sample, seed)
    total = ReplayStats()
    total.sample = chosen
    t0, cpu0 = time.perf_counter(), time.process_time()
    workers = workers or min(len(tasks), os.cpu_count() or 1) or 1
    done = 0

    def collect(r: ReplayStats | str) -> None:
        nonlocal done
        _collect(total, r)
        done += 1
        if progress:
            progress(done, len(tasks))

    if address is None and (workers <= 1 or len(tasks) <= 1):
        for task in tasks:
            collect(run_replay_task(task))
    else:
        from typing import cast

        from tournaments.runners import TournamentError
        from tournaments.runners.local import LocalExecutor, LocalPool
        from tournaments.runners.loop import Executor, run_batches
        from tournaments.runners.progress import Progress
        from tournaments.runners.summary import Summary
        s = Summary("verify", log.root if log.uri is None else log.uri, len(tasks), 0)

        def run(executor: Any) -> None:
            try:
                run_batches(cast("Executor[Any]", executor), cast("Iterator[Any]", iter(tasks)),
                            cast("Callable[[Any], None]", collect), s, Progress(s, False))
            except TournamentError as e:
                raise LogError(f"verify: {e}") from None

        if address is not None:
            from tournaments.runners.ray import RayExecutor
            run(RayExecutor(address, fn=run_replay_task))
        else:
            with LocalPool(workers, run_replay_task) as pool:
                run(LocalExecutor(pool))
        total.resubmitted = s.resubmitted
    total.seconds = time.perf_counter() - t0
    total.driver_seconds = time.process_time() - cpu0
    return total


def _collect(total: ReplayStats, r: ReplayStats | str) -> None:
    if isinstance(r, str):
        raise LogError(r)
    total.add(r)


# ------------------------------------------------------------------------------------------ SQL
@dataclass
class Query:
    name: str
    doc: str
    sql: str
    source: Path


def load_queries(game: str | None) -> tuple[list[str], list[Query]]:
    """(setup statements, invariant queries) of ``queries/<game>.sql`` (``None``: ``_common.sql``),
    with its ``-- include:`` lines replaced by the family files they name, rendered for ``game``."""
    path = QUERIES / ("_common.sql" if game is None else f"{game}.sql")
    if not path.is_file():
        return [], []
    text = path.read_text(encoding="utf-8")
    if game is not None:
        text = _INCLUDE.sub(lambda m: _render(m, game, path), text)
    return parse_queries(text, path)


def _render(m: re.Match[str], game: str, source: Path, inherited: dict[str, str] | None = None,
            depth: int = 0) -> str:
    """The family file of an ``-- include: FILE key=value ...`` line, its ``{game}`` and ``{key}``
    placeholders filled in (a nested include inherits them); an unknown file or placeholder is an
    error naming the including file."""
    name = m.group(1)
    family = QUERIES / name
    if not name.startswith("_") or family.parent != QUERIES or not family.is_file():
        raise ValueError(f"{source.name}: included family file {name!r} is not a queries/_*.sql file")
    values = {**(inherited or {}), "game": game}
    for kv in m.group(2).split():
        key, _, value = kv.partition("=")
        values[key] = value
    body = family.read_text(encoding="utf-8")
    missing = sorted({p for p in _PLACEHOLDER.findall(body) if p not in values})
    if missing:
        raise ValueError(f"{source.name}: {name} needs {', '.join(missing)} (give them as key=value "
                         f"on the include line)")
    body = _PLACEHOLDER.sub(lambda p: values[p.group(1)], body)
    if depth >= 4:
        raise ValueError(f"{source.name}: includes nest deeper than 4 files (at {name})")
    return _INCLUDE.sub(lambda n: _render(n, game, family, values, depth + 1), body)


def card_table_rows() -> list[tuple[str, str, str, int, int]]:
    """(game, context, card, rank index, points) for every trick game's card tables with default
    options (``context`` is ``plain`` or ``trump``, :data:`engine.core.CONTEXTS`; rank index 1 is a
    suit's weakest card)."""
    rows = []
    for g in GAMES:
        for ctx, card, rank_index, points in load_game(g).card_tables().rows():
            rows.append((g, ctx, card, rank_index, points))
    return rows


def register_card_tables(con: Any) -> None:
    """Create the ``card_tables`` table (:func:`card_table_rows`) on the DuckDB connection ``con``,
    and its one-row-per-card view ``card_ranks`` (game, card, plain_rank, trump_rank, plain_points,
    trump_points) for the queries to join on."""
    cols = list(zip(*card_table_rows(), strict=True))
    names = ["game", "context", "card", "rank_index", "points"]
    types = [pa.string(), pa.string(), pa.string(), pa.int32(), pa.int32()]
    arrow = pa.table({n: pa.array(c, type=t) for n, c, t in zip(names, cols, types, strict=True)})
    con.register("card_tables_rows", arrow)
    con.execute("CREATE OR REPLACE TEMP TABLE card_tables AS SELECT * FROM card_tables_rows")
    con.unregister("card_tables_rows")
    con.execute("""CREATE OR REPLACE TEMP VIEW card_ranks AS
        SELECT game, card, any_value(rank_index) FILTER (WHERE context = 'plain') AS plain_rank,
               any_value(rank_index) FILTER (WHERE context = 'trump') AS trump_rank,
               any_value(points) FILTER (WHERE context = 'plain') AS plain_points,
               any_value(points) FILTER (WHERE context = 'trump') AS trump_points
        FROM card_tables GROUP BY game, card""")


def parse_queries(text: str, source: Path) -> tuple[list[str], list[Query]]:
    """Split a queries file into its ``-- setup`` statements and its ``-- invariant: NAME`` queries."""
    setup: list[str] = []
    queries: list[Query] = []
    marks = list(_BLOCK.finditer(text))
    for i, m in enumerate(marks):
        body = text[m.end():marks[i + 1].start() if i + 1 < len(marks) else len(text)]
        if m.group(1) == "setup":
            setup += [s.strip() for s in _statements(body) if s.strip()]
            continue
        doc_lines = []
        for line in body.strip().splitlines():
            if not line.startswith("--"):
                break
            doc_lines.append(line[2:].strip())
        sql = _strip_comments(body).strip().rstrip(";").strip()
        if not m.group(2):
            raise ValueError(f"{source}: an invariant block without a name")
        queries.append(Query(m.group(2), " ".join(doc_lines), sql, source))
    return setup, queries


def _strip_comments(sql: str) -> str:
    return "\n".join(line for line in sql.splitlines() if not line.lstrip().startswith("--"))


def _statements(sql: str) -> list[str]:
    return _strip_comments(sql).split(";")


def run_queries(log: TournamentLog, games: list[str] | None = None, limit: int = 1000) -> tuple[
        list[Violation], list[str]]:
    """Run the common and per-game invariant queries; (violations, names of the queries run)."""
    import duckdb
    con = log.connect()
    violations: list[Violation] = []
    ran: list[str] = []
    present = games if games is not None else log.games
    try:
        register_card_tables(con)
        for game in [None, *present]:
            try:
                setup, queries = load_queries(game)
            except ValueError as e:
                raise LogError(f"invariant queries of {game or 'every game'}: {e}") from None
            for stmt in setup:
                con.execute(stmt)
            for q in queries:
                ran.append(q.name)
                try:
                    rel = con.execute(f"SELECT * FROM ({q.sql}) LIMIT {int(limit)}")
                    cols = [d[0] for d in rel.description]
                    rows = rel.fetchall()
                except duckdb.Error as e:
                    raise LogError(f"invariant {q.name} ({q.source.name}) failed: {e}") from None
                gi = cols.index("game") if "game" in cols else None
                for r in rows:
                    rec = dict(zip(cols, r, strict=True))
                    g = game or (str(r[gi]) if gi is not None else _game_of(con, rec["match_id"]))
                    violations.append(Violation(q.name, g, str(rec["match_id"]), str(rec.get("detail", "")),
                                                replay_command(log.location, str(rec["match_id"]))))
    finally:
        con.close()
    return violations, ran


def _game_of(con: Any, match_id: str) -> str:
    row = con.execute("SELECT game FROM matches WHERE match_id = ? UNION ALL "
                      "SELECT game FROM moves WHERE match_id = ? LIMIT 1", [match_id, match_id]).fetchone()
    return str(row[0]) if row else "?"


SQL_SAMPLE_MATCHES = 500
"""A sampled verify runs the invariant SQL over this many sampled matches at a time (a contiguous range
of match ids: in a compacted part, sorted by ``match_id``, a few row groups), so its memory does not
grow with the sample (1% of 10^8 moves is 10^6 rows)."""

Batches = dict[tuple[str, str], frozenset[str]]


def sample_chunks(batches: Batches, size: int) -> list[Batches]:
    """``batches`` (:func:`sampled_batches`) cut by ranges of ``size`` match ids: every copy of a match
    id (in any batch) falls in one chunk, so the per-match invariants (``match_logged_once`` too) see
    all of its rows.  At least one chunk."""
    ids = sorted({m for v in batches.values() for m in v})
    out: list[Batches] = []
    for i in range(0, len(ids), size):
        lo, hi = ids[i], ids[min(i + size, len(ids)) - 1]
        chunk = {k: frozenset(m for m in v if lo <= m <= hi) for k, v in batches.items()}
        out.append({k: v for k, v in chunk.items() if v})
    return out or [{}]


def _sampled(log: TournamentLog, batches: Batches, orphans: bool = True) -> TournamentLog:
    """``log`` (its parts as listed, no new listing or check) with views of the ``batches``' matches;
    ``orphans``: with its orphan parts' rows (in one chunk of a sample only)."""
    import copy
    out = copy.copy(log)
    out.sample, out.parts = batches, dict(log.parts)
    if not orphans:
        committed = {(p.game, p.path.name) for p in log.parts["matches"]}
        out.parts = {t: [p for p in ps if (p.game, p.path.name) in committed] for t, ps in log.parts.items()}
    return out


# ------------------------------------------------------------------------------------------ integrity
class Uncertified(LogError):
    """Parts that are missing or do not decode: :attr:`problems` has one line per problem."""

    def __init__(self, problems: list[str]) -> None:
        self.problems = problems
        more = f" (and {len(problems) - 1} more)" if len(problems) > 1 else ""
        super().__init__(problems[0] + more)


def certify(root: str | os.PathLike[str], log: TournamentLog | None = None) -> list[Violation]:
    """Check that every committed batch under ``root`` (or of ``log``: one match's batch, see
    :meth:`TournamentLog.only_match`) reads whole (see the module docstring); return the ``integrity``
    violations of parts that decode, raise :class:`Uncertified` for the others."""
    log = log or TournamentLog(Path(root), check=False, orphans=True)
    files = log.reader
    known = set(tournaments_in(log.root, files)) if files.is_dir(tournaments_dir(log.root)) else None
    fatal: list[str] = []
    out: list[Violation] = []
    for p in log.parts["matches"]:
        c = check_batch(log.root, p.game, p.path.name, None, full=True, files=files)
        fatal += c.unreadable
        for problem in c.problems:
            if problem not in c.unreadable:
                out.append(Violation("integrity", p.game, "-", problem))
        if c.matches is not None and known is not None:
            for t in sorted(set(c.matches.column("tournament").to_pylist()) - known):
                out.append(Violation("integrity", p.game, "-", files.shown(
                    f"{p.path}: holds rows of tournament {t!r}, which has no manifest in "
                    f"{tournaments_dir(log.root)}")))
    if fatal:
        raise Uncertified(fatal)
    return out


# ------------------------------------------------------------------------------------------ all
@dataclass
class VerifyReport:
    matches: int
    moves: int
    replay_seconds: float
    sql_seconds: float
    queries: list[str]
    violations: list[Violation]
    unknown_games: list[str]
    sample: Sample | None = None
    """What ``--sample`` replayed and the invariant SQL checked (None: every match)."""
    confidence: str | None = None
    """With a sample: what it says of the whole log (:meth:`Sample.confidence`)."""
    workers: int = 1
    resubmitted: int = 0
    driver_seconds: float = 0.0

    def to_json(self) -> dict[str, Any]:
        d = asdict(self)
        d["ok"] = not self.violations
        return d


def verify(root: str | os.PathLike[str], workers: int | None = None, deep: bool = False,
           only: str | None = None, replay: bool = True, sql: bool = True,
           progress: Callable[[int, int], None] | None = None, sample: float | None = None,
           seed: int | None = None, address: str | None = None) -> VerifyReport:
    """Certify, replay and check a tournament directory (see the module docstring).

    With ``only`` (a match id) everything is restricted to that match: the batch that holds it is
    certified, it alone is replayed (in this process), and the invariant SQL of its game runs over
    views that hold its rows only (:meth:`TournamentLog.only_match`); a second or so on any log."""
    if only is not None:
        log = TournamentLog(Path(root), check=False, duplicates=False, digests=False).only_match(only)
        if not log.parts["matches"]:
            raise LogError(f"no match {only!r} in {root} (match ids are 16 hex digits: "
                           f"`cardarena query {root} \"SELECT match_id FROM matches\"` lists them)")
        violations = certify(root, log)
        log._check()
        workers = 1
    else:
        violations = certify(root)   # the integrity violations: reported, not refused below
        log = TournamentLog(Path(root), duplicates=False, digests=False,
                             orphans=True)   # an orphaned part is a finding here too
    unknown = [g for g in log.games if g not in GAMES]
    stats = ReplayStats()
    if unknown:
        for g in unknown:
            violations.append(Violation("replay", g, "-", f"game {g!r} is not implemented by this engine "
                                        f"(known: {', '.join(GAMES)}); its matches cannot be replayed"))
    sub = log
    if unknown:
        sub = log.sub(check=False, tables=TABLES, duplicates=True, digests=True, orphans=False)
        sub.parts = {t: [p for p in log.parts[t] if p.game not in unknown] for t in log.parts}
    drawn = replay_tasks(sub, deep, sample, seed) if sample is not None and only is None else None
    if replay:
        stats = replay_all(sub, workers=workers, deep=deep, only=only, progress=progress, sample=sample,
                           seed=seed, address=address, drawn=drawn)
        violations += stats.violations
    elif drawn is not None:
        stats.sample = drawn[1]
    t0 = time.perf_counter()
    ran: list[str] = []
    if sql:
        # a sample's SQL reads the sampled matches only (and orphan parts): the queries' input is the
        # sample's rows, read once from the row groups that hold them (TournamentLog.sample)
        if drawn is None:
            v, ran = run_queries(log)
            violations += v
        else:   # in chunks of the sampled matches: memory holds one chunk's rows, not the sample's
            for i, chunk in enumerate(sample_chunks(sampled_batches(drawn[0]), SQL_SAMPLE_MATCHES)):
                v, ran = run_queries(_sampled(log, chunk, orphans=i == 0))
                violations += v
    confidence = None
    if stats.sample is not None:
        chosen = {m for t in drawn[0] for m in t.ids} if drawn is not None else set()
        confidence = stats.sample.confidence(len({v.match_id for v in violations if v.match_id in chosen}))
    return VerifyReport(stats.matches, stats.moves, stats.seconds, time.perf_counter() - t0, ran, violations,
                        unknown, stats.sample, confidence, workers or 0, stats.resubmitted,
                        stats.driver_seconds)
