"""Tests of the bots: the sandbox against adversarial bots, the match loop, the CLI, the built-ins."""
