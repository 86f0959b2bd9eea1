"""``cardarena play GAME --human SEAT --web``: the match in the browser, served on 127.0.0.1.

A Starlette app under uvicorn, bound to 127.0.0.1 on a free port; the URL it prints carries a random
token (``secrets.token_urlsafe``), and every request without it (in the query, ``?token=``, or the
``X-Cardarena-Token`` header) gets 403 and nothing else.  The match runs in a thread of this process:
:func:`bots.match.play_match` with :class:`WebHuman` at the person's seat, whose ``act`` posts the seat's
observation and waits for the page's answer.

What the page receives is only what :mod:`dashboards.human` gives the person: the seat's observation at
its turns and after every move (:class:`~dashboards.human.Watcher`, with another seat's hidden cards as
``??`` and a simultaneous tick's submissions unshown), the legal actions, and at the end the parent's
reveal of every hand.  The page itself (templates/play.html, play.js) holds no game data: it asks for
the messages (``GET /api/updates?since=N``, a long poll) and sends the person's choice
(``POST /api/act``, checked against the legal actions of that turn).  It draws the table with the match
viewer's code (templates/table.js), animates the other seats' moves one by one, shows the clock, and
lists the legal actions as buttons and as clickable cards of the hand.

Zenuwen is played in the engine's ticks: every seat submits one action a tick, the bots at once, so
the page (like the terminal) waits for the person at each tick; ``pass`` is one click (or the space bar),
and with ``&tick=MS`` in the URL a tick left to run for MS ms passes by itself (play against the clock).
"""
from __future__ import annotations

import asyncio
import json
import queue
import secrets
import socket
import threading
import time
from collections.abc import Awaitable, Callable, MutableMapping
from pathlib import Path
from typing import TYPE_CHECKING, Any

from dashboards.human import Abandoned, Seating, Update, Watcher, log_match

if TYPE_CHECKING:
    from bots.match import MatchResult
    from engine.core import Game

TEMPLATES = Path(__file__).with_name("templates")
STATIC = {"table.js": "text/javascript", "play.js": "text/javascript"}
"""The files the page loads besides itself (each with the token as well)."""
POLL_S = 15.0
"""How long ``/api/updates`` holds a request that has nothing new."""
END_GRACE_S = 600.0
"""After the end, how long the server waits for the page to fetch the final message."""

Scope = MutableMapping[str, Any]
Message = MutableMapping[str, Any]
ASGIApp = Callable[[Scope, Callable[[], Awaitable[Message]], Callable[[Message], Awaitable[None]]],
                   Awaitable[None]]


class Session:
    """What the match thread and the server share: the messages for the page, in order, and the
    person's pending turn with its answer."""

    def __init__(self, game: Game, seats: Seating, seed: int) -> None:
        self.lock = threading.Lock()
        self.messages: list[dict[str, Any]] = []
        self.answers: queue.Queue[str | None] = queue.Queue()
        self.turn: dict[str, Any] | None = None
        self.ended = threading.Event()
        self.seen_end = threading.Event()
        self.abandoned = threading.Event()
        self.think = 0.0
        cls = type(game)
        n = len(seats.labels)
        teams = [s % 2 for s in range(n)] if cls.teams else list(range(n))
        self.post({"type": "start", "game": cls.id, "name": cls.name, "seat": seats.human, "players": n,
                   "labels": seats.labels, "teams": teams, "seed": seed, "options": game.options})

    def post(self, msg: dict[str, Any]) -> None:
        with self.lock:
            msg["n"] = len(self.messages)
            self.messages.append(msg)

    def since(self, n: int) -> list[dict[str, Any]]:
        with self.lock:
            return self.messages[n:]

    # the match thread's side
    def ask(self, obs: dict[str, Any], ply: int) -> str:
        legal = list(obs["legal_actions"])
        t0 = time.monotonic()
        with self.lock:
            self.turn = {"id": len(self.messages), "legal": legal}
        self.post({"type": "turn", "ply": ply, "obs": obs, "think_s": round(self.think, 1)})
        try:
            while True:
                try:
                    got = self.answers.get(timeout=0.5)
                except queue.Empty:
                    if self.abandoned.is_set():
                        raise Abandoned("interrupted") from None
                    continue
                if got is None:
                    raise Abandoned("interrupted")
                return got
        finally:
            self.think += time.monotonic() - t0

    # the server's side
    def answer(self, turn: Any, action: Any) -> tuple[int, str]:
        """The page's choice for turn ``turn``: (HTTP status, message)."""
        with self.lock:
            t = self.turn
            if t is None or turn != t["id"]:
                return 409, "not your turn (or that turn is over)"
            if not isinstance(action, str) or action not in t["legal"]:
                return 400, "not one of the legal actions of this turn"
            self.turn = None
        self.answers.put(action)
        return 200, "ok"

    def abandon(self) -> None:
        self.abandoned.set()
        self.answers.put(None)


class WebHuman:
    """The person in the browser: a player whose ``act`` asks the page (:meth:`Session.ask`)."""

    def __init__(self, session: Session, watcher: Watcher) -> None:
        self.session = session
        self.watcher = watcher

    def act(self, obs: dict[str, Any]) -> str:
        return self.session.ask(obs, len(self.watcher.state.history))


def page(token: str) -> str:
    """The page: the head every report page has (its CSP: nothing from the network, no inline script;
    the scripts come from this server, with the token), the play page's markup; no game data."""
    head = (TEMPLATES / "head.html").read_text(encoding="utf-8")
    head = head.replace("@@SCRIPT_SRC@@", "'self'").replace("connect-src data: blob:", "connect-src 'self'")
    css = (TEMPLATES / "report.css").read_text(encoding="utf-8")
    head = head.replace("@@TITLE@@", "cardarena: play").replace("/*@@CSS@@*/", css)
    body = (TEMPLATES / "play.html").read_text(encoding="utf-8")
    return body.replace("@@HEAD@@", head).replace("@@TOKEN@@", token)


def make_app(session: Session, token: str) -> ASGIApp:
    """The Starlette app behind the token gate."""
    from starlette.applications import Starlette
    from starlette.requests import Request
    from starlette.responses import HTMLResponse, JSONResponse, Response
    from starlette.routing import Route

    async def index(request: Request) -> Response:
        return HTMLResponse(page(token), headers={"Cache-Control": "no-store"})

    async def static(request: Request) -> Response:
        name = request.path_params["name"]
        if name not in STATIC:
            return Response("not found", status_code=404)
        return Response((TEMPLATES / name).read_text(encoding="utf-8"), media_type=STATIC[name],
                        headers={"Cache-Control": "no-store"})

    async def updates(request: Request) -> Response:
        try:
            since = max(0, int(request.query_params.get("since", "0")))
        except ValueError:
            return JSONResponse({"error": "since: a message number"}, status_code=400)
        deadline = time.monotonic() + POLL_S
        msgs = session.since(since)
        while not msgs and time.monotonic() < deadline and not session.abandoned.is_set():
            await asyncio.sleep(0.05)
            msgs = session.since(since)
        if any(m["type"] in ("over", "error") for m in msgs):
            session.seen_end.set()
        return JSONResponse({"messages": msgs}, headers={"Cache-Control": "no-store"})

    async def act(request: Request) -> Response:
        try:
            body = json.loads(await request.body())
        except ValueError:
            return JSONResponse({"error": "a JSON body {turn, action}"}, status_code=400)
        if not isinstance(body, dict):
            return JSONResponse({"error": "a JSON body {turn, action}"}, status_code=400)
        status, text = session.answer(body.get("turn"), body.get("action"))
        return JSONResponse({"ok": status == 200, "error": None if status == 200 else text},
                            status_code=status)

    app = Starlette(routes=[Route("/", index), Route("/static/{name}", static),
                            Route("/api/updates", updates), Route("/api/act", act, methods=["POST"])])
    return token_gate(app, token)


def token_gate(app: ASGIApp, token: str) -> ASGIApp:
    """Every HTTP request must carry ``token`` (query ``token=`` or header ``X-Cardarena-Token``): else
    403, and the app is not reached."""
    from urllib.parse import parse_qs
    want = token.encode()

    async def gate(scope: Scope, receive: Callable[[], Awaitable[Message]],
                   send: Callable[[Message], Awaitable[None]]) -> None:
        if scope["type"] == "http":
            given = parse_qs(scope.get("query_string", b"").decode("latin-1")).get("token", [""])[-1].encode()
            for k, v in scope.get("headers", []):
                if k == b"x-cardarena-token":
                    given = v
            if not secrets.compare_digest(given, want):
                await send({"type": "http.response.start", "status": 403,
                            "headers": [(b"content-type", b"text/plain; charset=utf-8")]})
                await send({"type": "http.response.body", "body": b"forbidden: this page needs its token\n"})
                return
        await app(scope, receive, send)

    return gate


def free_socket() -> socket.socket:
    """A listening socket on 127.0.0.1 on a port the system picks."""
    sock = socket.socket(socket.AF_INET, socket.SOCK_STREAM)
    sock.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)
    sock.bind(("127.0.0.1", 0))
    sock.listen(16)
    return sock


def play_in_browser(g: Game, seats: Seating, seed: int, deals: int | None, out_dir: Path | None,
                    say: Callable[[str], None]) -> tuple[MatchResult, Path | None]:
    """Serve the page, play the match with the person in the browser, and return its result (and the
    log's part with ``out_dir``).  :class:`~dashboards.human.Abandoned` when the server stopped first
    (Ctrl-C)."""
    import uvicorn

    from bots.match import close_players, make_players, play_match

    h = seats.human
    session = Session(g, seats, seed)
    players: list[Any] = make_players(g, [b or "random" for b in seats.bots], seed)
    records: list[Any] = []

    def notify(u: Update) -> None:
        session.post(u.to_json())

    watcher = Watcher(g, seed, len(players), deals, seats, notify)
    players[h] = WebHuman(session, watcher)
    session.post({"type": "view", "ply": 0, "obs": watcher.obs})

    def on_move(rec: Any) -> None:
        records.append(rec)
        watcher.on_move(rec)

    outcome: dict[str, Any] = {}

    def run() -> None:
        try:
            result = play_match(g, players, seed, deals, on_move=on_move)
            outcome["result"] = result
            st = result.state
            session.post({"type": "over", "obs": watcher.obs, "scores": st.scores(),
                          "placement": result.placement, "sheet": st.score_sheet(),
                          "reveal": watcher.reveal(), "faults": [f.to_json() for f in result.faults]})
        except Abandoned as e:
            outcome["abandoned"] = e
        except Exception as e:  # an engine or bot-loading failure: shown on the page, raised below
            outcome["error"] = e
            session.post({"type": "error", "error": f"{type(e).__name__}: {e}"})
        finally:
            session.ended.set()

    sock = free_socket()
    port = sock.getsockname()[1]
    token = secrets.token_urlsafe(24)
    config = uvicorn.Config(make_app(session, token), log_level="warning", access_log=False,
                            lifespan="off", timeout_graceful_shutdown=1)
    server = uvicorn.Server(config)

    def stop_when_done() -> None:
        session.ended.wait()
        session.seen_end.wait(END_GRACE_S)
        time.sleep(0.3)   # the page's last request is answered
        server.should_exit = True

    say(f"open http://127.0.0.1:{port}/?token={token} to play (Ctrl-C to stop)")
    match = threading.Thread(target=run, name="match", daemon=True)
    closer = threading.Thread(target=stop_when_done, name="closer", daemon=True)
    match.start()
    closer.start()
    try:
        server.run(sockets=[sock])
    except KeyboardInterrupt:   # (uvicorn raises the Ctrl-C it caught once it has stopped)
        if "result" not in outcome:
            raise
    finally:
        if not session.ended.is_set():
            session.abandon()
        match.join(timeout=10)
        close_players([p for s, p in enumerate(players) if s != h])
        sock.close()
    if "error" in outcome:
        raise outcome["error"]
    if "result" not in outcome:
        raise Abandoned("interrupted")
    result: MatchResult = outcome["result"]
    logged = log_match(out_dir, g, result, seats, records) if out_dir is not None else None
    return result, logged
