"""Defines neither act nor Bot."""
GAMES = ["hartenjagen"]


def play(observation: dict) -> str:  # wrong name
    return "play 2C"
