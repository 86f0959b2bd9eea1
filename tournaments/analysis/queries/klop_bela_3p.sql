-- Klop / Bela / Clobyosh, 3 players: RULES.md 2.16 (KB1-KB16, KT1-KT5), checked from the logged actions and events:
-- the family's checks (_klop_bela.sql), with the trick strengths from the engine's card tables.

-- include: _klop_bela.sql players=3 p=kt
