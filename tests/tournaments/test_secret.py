"""Secret deals (issue 11 item 2): every deal and bot seed of a tournament derives from its secret
(HMAC-SHA256), kept beside the manifest and never given to a bot; duplicate boards stay identical,
a resumed run deals as the first one did, and a tournament replays from its own directory."""
from __future__ import annotations

import hashlib
import json
import random
import stat
from pathlib import Path
from typing import Any

import pyarrow.parquet as pq
import pytest

from bots.api import bot_source
from bots.builtin.random import Bot as RandomBot
from bots.match import play, play_match, seat_seed
from bots.sandbox import Limits, start_players
from engine import load_game
from tests.bots.toygame import toy
from tests.tournaments.conftest import FOUR, fastest_game, raw_spec
from tournaments.ledger import read_manifest, read_secret, write_secret
from tournaments.paths import manifest_path, secret_path
from tournaments.runner import BatchResult
from tournaments.runners import Summary, TournamentError, prepare, run_tournament
from tournaments.schedule import bot_seed, deal_seed, new_secret, plan, secret_from_seed
from tournaments.spec import SpecError, parse_spec

CRACKER = Path(__file__).resolve().parents[1] / "bots" / "adversarial" / "seed_cracker.py"
FAST = Limits(move_time=0.5, time_bank=0.5, start_time=15.0, memory=512 << 20, group_memory=768 << 20)


def spec(tmp_path: Path, out: str = "out", **over: Any) -> Any:
    return parse_spec(raw_spec(tmp_path, **{"matches_per_seating": 2, "run": {"batch_s": 0.01},
                                            "output": str(tmp_path / out), **over}))


def old_board_seed(t: int, game: str, board: int) -> int:
    """The formula before the secret: a hash of the (small) tournament seed."""
    return int(hashlib.sha256(f"board|{t}|{game}|{board}".encode()).hexdigest()[:16], 16) >> 1


def old_seat_seed(seed: int, seat: int) -> int:
    return random.Random(seed * 1_000_003 + seat).getrandbits(63)


def logged(root: Path) -> list[dict[str, Any]]:
    return pq.read_table(root / "matches").to_pylist()


# ------------------------------------------------------------------------------------------ the attack
def test_secret_brute_forcing_small_tournament_seeds_does_not_find_the_deal(tmp_path: Path) -> None:
    """What a bot receives (its own seed, its hand) does not lead back to the deal: the brute force
    over small tournament seeds that recovers the old formula's deal finds nothing."""
    gid = fastest_game()
    sp = spec(tmp_path, seed=2024)
    m = next(iter(plan(sp)[0].matches()))
    seat = 1
    mine = m.seat_seeds[seat]
    hand = sorted(load_game(gid).new_match(seed=m.seed, players=len(m.seats)).observation(seat)["hand"])

    def crack(own: int) -> int | None:
        for t in range(5000):
            for b in range(2):
                if old_seat_seed(old_board_seed(t, gid, b), seat) == own:
                    return t
                if bot_seed(secret_from_seed(t), gid, b, m.match_id, seat) == own:
                    return t
        return None

    assert crack(old_seat_seed(old_board_seed(2024, gid, 1), seat)) == 2024   # the old seeds fall
    assert crack(mine) is None
    assert mine not in {seat_seed(m.seed, s) for s in range(4)} | {old_seat_seed(m.seed, seat)}
    # the hand the bot holds is not the hand of any small seed's deal, old or seed-derived
    game = load_game(gid)
    for t in range(150):
        for cand in (old_board_seed(t, gid, m.board), deal_seed(secret_from_seed(t), gid, m.board), t):
            assert sorted(game.new_match(seed=cand, players=len(m.seats)).observation(seat)["hand"]) != hand


def test_secret_an_adversarial_bot_cannot_crack_its_seed_in_the_sandbox() -> None:
    """tests/bots/adversarial/seed_cracker.py crashes on purpose when it recovers its match's seed:
    it does with the old formulas (the control), not with seeds from a fresh secret."""
    def run(seed: int, own: list[int]) -> Any:
        box = start_players([(bot_source(CRACKER), False, 0)], "toy", [own[1]], FAST, [1])[0]
        players: list[Any] = [RandomBot("toy", s, own[s]) for s in range(4)]
        players[1] = box
        try:
            return play_match(toy(), players, seed, seeds=own)
        finally:
            box.close()

    old = old_board_seed(7, "toy", 1)
    cracked = run(old, [old_seat_seed(old, s) for s in range(4)])
    assert cracked.outcomes[1] == "crash"
    assert "cracked: old formulas, tournament seed 7" in cracked.faults[0].reason
    secret = new_secret()
    deal = deal_seed(secret, "toy", 1)
    safe = run(deal, [bot_seed(secret, "toy", 1, "0123456789abcdef", s) for s in range(4)])
    assert safe.outcomes == ["ok"] * 4, [f.line() for f in safe.faults]


# ------------------------------------------------------------------------------------------ the directory
def test_secret_is_fresh_kept_beside_the_manifest_and_duplicate_boards_stay_identical(tmp_path: Path) -> None:
    a = run_tournament(spec(tmp_path, "a"), executor="inline", progress=False)
    b = run_tournament(spec(tmp_path, "b"), executor="inline", progress=False)
    assert a.complete and b.complete
    ka, kb = read_secret(tmp_path / "a", "t"), read_secret(tmp_path / "b", "t")
    assert ka is not None and kb is not None and len(ka) == 32 and ka != kb
    assert stat.S_IMODE(secret_path(tmp_path / "a", "t").stat().st_mode) == 0o600
    man = read_manifest(tmp_path / "a", "t")
    assert man is not None and man["secret"] == "fresh"
    assert man["secret_sha256"] == hashlib.sha256(ka).hexdigest()[:16]
    assert ka.hex() not in manifest_path(tmp_path / "a", "t").read_text()
    ra, rb = logged(tmp_path / "a"), logged(tmp_path / "b")
    # same spec, same match ids, different deals
    assert sorted(r["match_id"] for r in ra) == sorted(r["match_id"] for r in rb)
    assert {r["seed"] for r in ra}.isdisjoint({r["seed"] for r in rb})
    # every rotation and arrangement of a board plays one deal, the deal of the directory's secret
    gid = fastest_game()
    for board in (0, 1):
        seeds = {r["seed"] for r in ra if r["board"] == board}
        assert seeds == {deal_seed(ka, gid, board)}
        rots = {r["rotation"] for r in ra if r["board"] == board}
        assert rots == set(range(len(FOUR)))
    assert deal_seed(ka, gid, 0) != deal_seed(ka, gid, 1)


def test_secret_resume_deals_the_same_and_the_directory_replays_every_match(tmp_path: Path) -> None:
    sp = spec(tmp_path)

    def stop_after_two(r: BatchResult, s: Summary) -> None:
        if s.done_now >= 2:
            raise KeyboardInterrupt

    first = run_tournament(sp, executor="inline", progress=False, on_batch=stop_after_two)
    assert first.stopped and not first.complete
    key = read_secret(tmp_path / "out", "t")
    again = run_tournament(sp, resume=True, executor="inline", progress=False)
    assert again.complete and again.done_before == first.done_now
    assert read_secret(tmp_path / "out", "t") == key and key is not None
    rows = logged(tmp_path / "out")
    assert len(rows) == again.total
    moves = pq.read_table(tmp_path / "out" / "moves").to_pylist()
    for r in rows:   # from the directory alone: the secret gives every seat's seed, the log the rest
        assert r["seed"] == deal_seed(key, r["game"], r["board"])
        own = [bot_seed(key, r["game"], r["board"], r["match_id"], s) for s in range(r["players"])]
        res = play(r["game"], r["bot_refs"], r["seed"], r["max_deals"], seeds=own, **json.loads(r["options"]))
        mine = [x["action"] for x in sorted((x for x in moves if x["match_id"] == r["match_id"]),
                                             key=lambda x: x["ply"])]
        assert res.state.history == mine and res.placement == r["ranking"]


def test_secret_resume_refuses_a_missing_replaced_or_absent_secret(tmp_path: Path) -> None:
    sp = spec(tmp_path)
    prepare(sp).release()
    root = tmp_path / "out"
    key = read_secret(root, "t")
    assert key is not None
    secret_path(root, "t").unlink()
    with pytest.raises(TournamentError, match="secret of tournament 't' is missing"):
        prepare(sp, resume=True)
    write_secret(root, "t", new_secret())
    with pytest.raises(TournamentError, match="not the one it started with"):
        prepare(sp, resume=True)
    secret_path(root, "t").write_text("junk\n")
    with pytest.raises(TournamentError, match="cannot be read"):
        prepare(sp, resume=True)
    write_secret(root, "t", key)
    p = prepare(sp, resume=True)
    assert p.secret == key and key.hex() not in repr(p)
    p.release()
    man = json.loads(manifest_path(root, "t").read_text())
    del man["secret_sha256"]
    manifest_path(root, "t").write_text(json.dumps(man))
    with pytest.raises(TournamentError, match="started without a tournament secret"):
        prepare(sp, resume=True)


def test_secret_from_the_seed_only_when_the_spec_asks(tmp_path: Path) -> None:
    fresh, seeded = spec(tmp_path), spec(tmp_path, secret="seed")
    assert fresh.secret == "fresh" and seeded.secret == "seed"
    assert fresh.spec_hash() != seeded.spec_hash()
    assert fresh.spec_hash() == parse_spec(raw_spec(tmp_path, matches_per_seating=2, run={"batch_s": 0.01},
                                                    output=str(tmp_path / "out"), secret="fresh")).spec_hash()
    p = prepare(seeded)
    try:
        assert p.secret == secret_from_seed(11)
    finally:
        p.release()
    with pytest.raises(SpecError, match="secret: expected"):
        spec(tmp_path, secret="123")
