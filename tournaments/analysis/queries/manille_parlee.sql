-- Manille Parlee, RULES.md (32 cards; the 10 is the manille), checked from the logged actions:
-- the manille family's common rules (_manille.sql).

-- include: _manille.sql p=mp
