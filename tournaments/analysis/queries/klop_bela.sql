-- Klop / Bela / Clobyosh, 2 players: RULES.md 2.15 (KB1-KB16), checked from the logged actions and events:
-- the family's checks (_klop_bela.sql), with the trick strengths from the engine's card tables.

-- include: _klop_bela.sql players=2 p=kb
