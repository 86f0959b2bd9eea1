"""Seeds outside tournaments (issue 11 item 2): ``bots validate`` deals every run afresh, ``play``
without ``--seed`` draws one and prints it, and a seat's own seed is an HMAC of the match seed."""
from __future__ import annotations

import json
import random
from pathlib import Path

from typer.testing import CliRunner

from bots.api import bot_source
from bots.cli import app as bots_app
from bots.match import seat_seed, seat_seeds
from bots.validate import validate
from dashboards.app import app as cardarena_app
from engine import GAMES

EXAMPLE = Path(__file__).resolve().parents[2] / "bots" / "examples" / "first_legal.py"
GAME = "hartenjagen" if "hartenjagen" in GAMES else GAMES[0]


def test_seeds_validate_deals_differ_run_to_run_and_seed_replays() -> None:
    src = bot_source(EXAMPLE)
    runs = [validate(src, [GAME]) for _ in range(2)]
    assert all(v.ok for v in runs)
    a, b = (v.checks[0].seed for v in runs)
    assert a != b and min(a, b) > 2**32   # fresh 63-bit seeds, not 1
    again = validate(src, [GAME], seed=a)
    assert again.checks[0].seed == a and again.checks[0].moves == runs[0].checks[0].moves


def test_seeds_validate_json_shows_the_seed_and_seed_option_is_checked() -> None:
    r = CliRunner().invoke(bots_app, ["validate", str(EXAMPLE), "--games", GAME, "--json", "--seed", "42"])
    assert r.exit_code == 0, r.stderr
    assert json.loads(r.stdout)["games"][GAME]["seed"] == 42
    bad = CliRunner().invoke(bots_app, ["validate", str(EXAMPLE), "--seed", "-1"])
    assert bad.exit_code == 2


def test_seeds_play_without_seed_draws_a_fresh_one_and_prints_it() -> None:
    def play(*extra: str) -> dict[str, object]:
        r = CliRunner().invoke(cardarena_app, ["play", GAME, "--deals", "1", "--json", *extra])
        assert r.exit_code == 0, r.stderr
        out: dict[str, object] = json.loads(r.stdout)
        return out

    a, b = play(), play()
    assert a["seed"] != b["seed"]
    replay = play("--seed", str(a["seed"]))
    assert replay["moves"] == a["moves"] and replay["scores"] == a["scores"]
    text = CliRunner().invoke(cardarena_app, ["play", GAME, "--deals", "1"])
    assert text.exit_code == 0 and " seed " in text.stdout


def test_seeds_a_seat_seed_is_an_hmac_not_arithmetic() -> None:
    """The old ``Random(seed * 1_000_003 + seat)`` let a bot solve for the match seed; the HMAC gives
    unrelated seeds for neighbouring seeds and seats, stable across calls."""
    own = seat_seeds(123456789, 4)
    assert own == seat_seeds(123456789, 4) and len(set(own)) == 4
    assert all(0 <= s < 2**63 for s in own)
    assert own[1] != random.Random(123456789 * 1_000_003 + 1).getrandbits(63)
    assert seat_seed(123456790, 0) != seat_seed(123456789, 1)
    assert seat_seed(0, 1) != seat_seed(1, 0)


def test_seeds_every_seed_is_hmac_sha256_of_its_parts() -> None:
    """derive_seed and derive_seeds (a match's seat seeds: the prefix hashed once, HMAC's keyed inner
    and outer states copied per seed) give HMAC-SHA256(secret, parts joined by ``|``)'s first 63 bits,
    as ``hmac.new`` computes it, for secrets of every length around SHA-256's 64-byte block (a longer
    key is hashed first) and for no parts at all; the schedule's seat seeds are bot_seed's."""
    import hashlib
    import hmac

    from bots.match import derive_seed, derive_seeds
    from tournaments.schedule import Match, bot_seed, match_seat_seeds

    def ref(secret: bytes, *parts: object) -> int:
        digest = hmac.new(secret, "|".join(map(str, parts)).encode(), hashlib.sha256).digest()
        return int.from_bytes(digest[:8], "big") >> 1

    rng = random.Random(7)
    for size in (0, 1, 16, 32, 63, 64, 65, 128, 200):
        for _ in range(8):
            secret = rng.randbytes(size)
            parts = ("bot", GAME, rng.randrange(1000), f"{rng.getrandbits(64):016x}")
            assert derive_seeds(secret, parts, range(5)) == [ref(secret, *parts, s) for s in range(5)]
            assert derive_seed(secret, *parts) == ref(secret, *parts)
            assert derive_seed(secret) == ref(secret)
            assert derive_seeds(secret, (), ["x", 3]) == [ref(secret, "x"), ref(secret, 3)]
    secret = rng.randbytes(32)
    m = Match("0123456789abcdef", "g", GAME, 3, 1, ("a", "b", "c", "d"), 5)
    assert match_seat_seeds(secret, m) == tuple(bot_seed(secret, GAME, 3, m.match_id, s) for s in range(4))
    assert bot_seed(secret, GAME, 3, m.match_id, 2) == ref(secret, "bot", GAME, 3, m.match_id, 2)
