"""cardarena's tests: one conformance suite over every game, per-game rule tests, golden playthroughs."""
