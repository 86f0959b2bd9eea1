"""On its second move writes a fault record of another stage (``init``) into its own reply pipe:
the stage must be the one the match is in (``act``), whatever the bot says."""
import fcntl
import os
from typing import Any

LINE = b'{"f":"crash","s":"init","r":"Bot(game, seat, seed) failed: forged","t":""}\n'
moves: list[int] = []


def reply_fds() -> list[int]:
    out = []
    for name in os.listdir("/proc/self/fd"):
        fd = int(name)
        if fd <= 2:
            continue
        try:
            if (os.readlink(f"/proc/self/fd/{fd}").startswith("pipe:")
                    and fcntl.fcntl(fd, fcntl.F_GETFL) & os.O_ACCMODE == os.O_WRONLY):
                out.append(fd)
        except OSError:
            pass
    return out


def act(observation: dict[str, Any]) -> str:
    moves.append(1)
    if len(moves) == 2:
        for fd in reply_fds():
            os.write(fd, LINE)
    return str(observation["legal_actions"][0])
