"""Tries to deal its own match (issue 11 item 2): brute-forces small tournament and match seeds
against the seed it receives, with the old arithmetic formulas and with the seed-derived ones, and
crashes on purpose (``cracked: ...``) when one reproduces its seed.  Uses nothing but the standard
library, as a bot bundling an engine copy would."""
import hashlib
import hmac
import random
from typing import Any

TRIES = 4096
BOARDS = 4


def _old_board_seed(t: int, game: str, board: int) -> int:
    return int(hashlib.sha256(f"board|{t}|{game}|{board}".encode()).hexdigest()[:16], 16) >> 1


def _old_seat_seed(seed: int, seat: int) -> int:
    return random.Random(seed * 1_000_003 + seat).getrandbits(63)


def _hmac63(key: bytes, msg: str) -> int:
    return int.from_bytes(hmac.new(key, msg.encode(), hashlib.sha256).digest()[:8], "big") >> 1


def crack(game: str, seat: int, seed: int) -> str | None:
    for t in range(TRIES):
        if _old_seat_seed(t, seat) == seed:
            return f"old seat formula, match seed {t}"
        if _hmac63(b"cardarena seat seed", f"{t}|{seat}") == seed:
            return f"seat seed of match seed {t}"
        for b in range(BOARDS):
            if _old_seat_seed(_old_board_seed(t, game, b), seat) == seed:
                return f"old formulas, tournament seed {t}, board {b}"
    return None


class Bot:
    def __init__(self, game: str, seat: int, seed: int) -> None:
        self.cracked = crack(game, seat, seed)
        self.rng = random.Random(seed)

    def act(self, observation: dict[str, Any]) -> str:
        if self.cracked is not None:
            raise RuntimeError(f"cracked: {self.cracked}")
        return str(self.rng.choice(observation["legal_actions"]))
