"""Adversarial bots: each misbehaves in one way; tests/bots/test_adversarial.py checks that the
sandbox contains it, attributes the fault to it, and lets the other seats' match complete."""
