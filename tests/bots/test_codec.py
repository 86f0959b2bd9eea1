"""The sandbox's codec (issue 15 item 4): JSON lines both ways, read and written with msgspec where it
is installed and with the standard library's ``json`` where it is not, on the same bytes.

* the round trip: every registered game's observations (with the match loop's ``options`` and
  ``clock``) decode to what ``json`` makes of them, at both ends and across them (one end msgspec,
  the other ``json``), and a sandboxed bot sees exactly that plain dict, under bubblewrap and under
  the unshare fallback, with msgspec inside the sandbox (only its package folder is bound);
* malformed bytes on the bot's channel (truncated, not UTF-8, nested deeper than a decoder recurses,
  not an object, an object that is no answer) are the bot's ``illegal`` move at ``act``, never an
  error of the parent.
"""
from __future__ import annotations

import hashlib
import json
import random
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest

import bots.sandbox.codec as codec_mod
from bots.api import bot_source
from bots.builtin.random import Bot as RandomBot
from bots.sandbox import (
    BotFault,
    Limits,
    Sandbox,
    codec_dir,
    decode_message,
    encode_message,
    isolation,
    start_players,
)
from engine import GAMES, load_game

FAST = Limits(move_time=2.0, time_bank=1.0, start_time=15.0, memory=512 << 20, group_memory=768 << 20)
CLOCK = {"move_s": 1.0, "bank_s": 4.25, "match_s": None}

DIGEST_BOT = '''import hashlib
import json


def act(observation):
    plain = type(observation) is dict and all(type(k) is str for k in observation)
    text = json.dumps(observation, sort_keys=True, ensure_ascii=True)
    return ("dict " if plain else "other ") + hashlib.sha256(text.encode()).hexdigest()
'''
"""Answers with the digest of the observation it received (and whether it is a plain dict)."""


def digest(obs: dict[str, Any]) -> str:
    plain = json.loads(json.dumps(obs))   # what a bot gets: JSON's view (tuples are lists)
    return "dict " + hashlib.sha256(json.dumps(plain, sort_keys=True, ensure_ascii=True).encode()).hexdigest()


def observations(game_id: str, n: int, seed: int = 7) -> list[dict[str, Any]]:
    """``n`` observations of the acting seat along a seeded random match, as the match loop sends
    them (``options`` and ``clock`` added)."""
    game = load_game(game_id)
    state = game.new_match(seed=seed, max_deals=1)
    rng = random.Random(seed)
    out = []
    while not state.is_over() and len(out) < n:
        seat = state.current_player
        assert seat is not None
        obs = state.observation(seat)
        obs["options"] = dict(game.options)
        obs["clock"] = dict(CLOCK)
        out.append(obs)
        for _ in range(rng.randint(1, 6)):   # move on a few plies between the observations kept
            if state.is_over():
                break
            state.apply(rng.choice(state.legal_actions()))
    return out


@pytest.mark.parametrize("game_id", GAMES)
def test_codec_round_trip_of_every_games_observations_matches_json(game_id: str) -> None:
    for obs in observations(game_id, 6):
        as_json = json.loads(json.dumps(obs))
        wire = encode_message(obs)
        assert b"\n" not in wire   # one message, one line
        assert decode_message(wire) == as_json
        assert json.loads(wire) == as_json   # a runner without msgspec reads the same bytes
        assert decode_message(json.dumps(obs, separators=(",", ":")).encode()) == as_json


def test_codec_writes_and_reads_what_msgspec_refuses_as_json_does() -> None:
    obs = {"legal_actions": ["play \ud800"], "big": 1 << 70, "text": "é\n\x00"}
    wire = encode_message(obs)
    assert json.loads(wire) == json.loads(json.dumps(obs)) == decode_message(wire)
    for line in (b'{"r":"\\ud800"}', b"NaN", b'[1e999]'):
        assert repr(decode_message(line)) == repr(json.loads(line))


def test_codec_lone_surrogate_action_is_illegal_in_the_match(tmp_path: Path) -> None:
    from bots.match import play_match, seat_seeds
    from tests.bots.toygame import toy

    bot = tmp_path / "forger.py"
    bot.write_text('def act(observation):\n    return "play \\ud800"\n')
    box = start_players([(bot_source(bot), False, 0)], "toy", [5], FAST, [1])[0]
    players: list[Any] = [RandomBot("toy", s, s) for s in range(4)]
    players[1] = box
    try:
        result = play_match(toy(), players, 3, seeds=seat_seeds(3, 4))
    finally:
        box.close()
    assert result.outcomes == ["ok", "illegal", "ok", "ok"] and result.faults[0].stage == "act"
    result.faults[0].reason.encode("utf-8")   # cleaned: it encodes


@pytest.fixture(params=("bwrap", "unshare"))
def wrapper(request: pytest.FixtureRequest, monkeypatch: pytest.MonkeyPatch) -> Iterator[str]:
    w = str(request.param)
    iso = isolation(w)
    if iso.refusal:
        pytest.skip(f"{w} does not work here: {iso.refusal}")
    monkeypatch.setenv("CARDARENA_SANDBOX", w)
    yield w


def play_digests(path: Path, obs: list[dict[str, Any]]) -> tuple[str, list[str]]:
    box = Sandbox(bot_source(path), FAST)
    try:
        box.start()
        box.new_match("hartenjagen", 0, 0)
        return box.codec, [box.act(o) for o in obs]
    finally:
        box.close()


def test_codec_sandboxed_bot_sees_the_plain_dict_sent_msgspec_inside(wrapper: str, tmp_path: Path) -> None:
    assert codec_dir() is not None, "msgspec is a dependency (pyproject.toml)"
    bot = tmp_path / "digest.py"
    bot.write_text(DIGEST_BOT)
    obs = [*observations("hartenjagen", 12), {"legal_actions": ["play é"], "k": {"1": [1.5, None, True]}}]
    codec, got = play_digests(bot, obs)
    assert codec == "msgspec"   # the runner imported it from the folder bound into the sandbox
    assert got == [digest(o) for o in obs]


def test_codec_falls_back_to_json_at_either_end(monkeypatch: pytest.MonkeyPatch, tmp_path: Path) -> None:
    bot = tmp_path / "digest.py"
    bot.write_text(DIGEST_BOT)
    obs = observations("hartenjagen", 8)
    want = [digest(o) for o in obs]
    # msgspec absent where the runner runs: it reads and writes with json
    monkeypatch.setattr(codec_mod, "codec_dir", lambda: None)
    assert play_digests(bot, obs) == ("json", want)
    monkeypatch.undo()
    # msgspec absent here: this end writes and reads json, the runner still msgspec
    monkeypatch.setattr(codec_mod, "encode_message", codec_mod._json_encode)
    monkeypatch.setattr(codec_mod, "decode_message", json.loads)
    assert play_digests(bot, obs) == ("msgspec", want)


FORGER = '''import fcntl
import os

LINE = {line!r}


def act(observation):
    for name in os.listdir("/proc/self/fd"):
        fd = int(name)
        try:
            if fd > 2 and os.readlink(f"/proc/self/fd/{{fd}}").startswith("pipe:") and (
                    fcntl.fcntl(fd, fcntl.F_GETFL) & os.O_ACCMODE == os.O_WRONLY):
                os.write(fd, LINE + b"\\n")
        except OSError:   # the listing's own descriptor, closed by now
            pass
    return observation["legal_actions"][0]
'''
"""Writes ``LINE`` into its own reply pipe (the runner shares its process), then answers."""

MALFORMED = {
    "deep array": b"[" * 60000,
    "deep object": b'{"a":' * 12000,
    "deep but valid": b'{"x":' + b"[" * 5000 + b"]" * 5000 + b"}",
    "not utf-8": b"\xff\xfe\x00{}",
    "lone surrogate, no answer": b'{"b":"\\ud800"}',
    "truncated": b'{"a":"play',
    "trailing bytes": b'{"a":"play QS"} {"a":"play 2C"}',
    "NaN": b"NaN",
    "number out of range": b'{"a":1e999}',
    "an array": b'["play QS"]',
    "a string": b'"play QS"',
    "action not a string": b'{"a":{"card":"QS"}}',
    "extra key": b'{"a":"play QS","why":1}',
    "a ready message": b'{"ready":true,"games":null,"kind":"function","codec":"msgspec"}',
    "binary": bytes(range(1, 10)) + bytes(range(11, 256)),
    "integer too long": b'{"a":1' + b"0" * 5000 + b"}",
}


def test_codec_decoding_any_bytes_returns_or_raises_a_decode_error_only() -> None:
    """The class behind the malformed replies: whatever line a bot writes, decoding it either gives a
    value or raises one of ``DECODE_ERRORS`` (which the parent turns into ``illegal``), and the text
    a fault shows of a decoded value is short."""
    from bots.sandbox.codec import DECODE_ERRORS, show

    rng = random.Random(15)
    pieces = [b"{", b"}", b"[", b"]", b'"', b":", b",", b"\\", b"\\u", b"d800", b"a", b"1", b"-", b"e9",
              b".", b"null", b"true", b"NaN", b" ", b"\xff", b"\xc3", b"\x00", b'"a"', b"9" * 400]
    for _ in range(3000):
        if rng.random() < 0.3:
            line = bytes(rng.randrange(256) for _ in range(rng.randrange(1, 40))).replace(b"\n", b"")
        else:
            line = b"".join(rng.choice(pieces) for _ in range(rng.randrange(1, 30)))
        try:
            value = decode_message(line)
        except DECODE_ERRORS:
            continue
        assert len(show(value)) <= 80


@pytest.mark.parametrize("name", list(MALFORMED))
def test_codec_malformed_reply_is_illegal_never_a_parent_error(name: str, tmp_path: Path) -> None:
    bot = tmp_path / "forger.py"
    bot.write_text(FORGER.format(line=MALFORMED[name]))
    box = Sandbox(bot_source(bot), FAST)
    try:
        box.start()
        box.new_match("hartenjagen", 0, 0)
        with pytest.raises(BotFault) as err:
            box.act({"legal_actions": ["play QS", "play 2C"]})
    finally:
        box.close()
    f = err.value
    assert (f.outcome, f.stage) == ("illegal", "act"), f
    assert "bot channel" in f.reason and len(f.reason) < 200 and "\n" not in f.reason
    assert box.closed and box.proc is not None and box.proc.poll() is not None


def test_codec_without_a_sandbox_tool_leaves_no_site_packages_on_the_bots_path(tmp_path: Path) -> None:
    """A trusted bot in a plain process (no bubblewrap or unshare): the runner imports msgspec from its
    installation and takes that folder off ``sys.path`` before the bot's code runs."""
    bot = tmp_path / "paths.py"
    bot.write_text("import sys\n\ndef act(observation):\n"
                   "    return 'seen' if any('site-packages' in p for p in sys.path) else 'clean'\n")
    box = Sandbox(bot_source(bot), FAST, trusted=True, wrapper="none")
    try:
        box.start()
        box.new_match("hartenjagen", 0, 0)
        assert (box.codec, box.act({"legal_actions": ["x"]})) == ("msgspec", "clean")
    finally:
        box.close()
