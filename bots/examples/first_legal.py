"""The smallest bot: a module-level ``act`` that plays the first legal action.

Check it, then submit it::

    cardarena bots validate bots/examples/first_legal.py
    cardarena bots submit bots/examples/first_legal.py --name first-legal
"""
from typing import Any


def act(observation: dict[str, Any]) -> str:
    return str(observation["legal_actions"][0])
