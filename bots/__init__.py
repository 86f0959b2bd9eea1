"""Players: the bot interface of CONTRACT.md, loading, built-in bots and the match loop."""
