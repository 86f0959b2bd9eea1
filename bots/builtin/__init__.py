"""Built-in players.  Each module defines a class ``Bot(game, seat, seed)`` with ``act(observation)``."""
