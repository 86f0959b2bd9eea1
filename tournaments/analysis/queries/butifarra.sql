-- Butifarra, RULES.md 2.7 (48 cards, no tens; the 9 is the manille), checked from the logged actions:
-- the manille family's common rules (_manille.sql).

-- include: _manille.sql p=bf
