"""Tries to reach the network: a TCP connection to the port named in CARDARENA_TEST_PORT (or 80)
on 127.0.0.1, and a DNS lookup; prints what happened and keeps playing."""
import socket
import sys
from typing import Any

PORT = 0  # the test writes the port of its listening socket here
seen: dict[str, bool] = {"first_move": True}


def act(observation: dict[str, Any]) -> str:
    if seen.pop("first_move", False):
        for target in (("127.0.0.1", PORT or 80), ("example.com", 80)):
            try:
                with socket.create_connection(target, timeout=1):
                    print(f"connected to {target}")
            except OSError as e:
                print(f"no connection to {target}: {type(e).__name__}: {e}")
        sys.stdout.flush()
    return str(observation["legal_actions"][0])
