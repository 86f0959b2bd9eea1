-- Family file of Klop / Bela (klop_bela, klop_bela_3p; RULES.md 2.15, 2.16): the play checked from
-- the logged actions and events.  {players} players, 9 cards each from 32; every card of a hand is
-- played unless a claim (KB7) stops the deal, so a seat's holding at a trick is what it plays later in
-- that deal.  Trump is the suit of the deal's one `trump X` action (deals made by an accepted schmeiss
-- have none and are skipped).  Card orders: the engine's card tables (card_ranks).

-- setup
CREATE OR REPLACE TEMP VIEW {p}_trump AS
SELECT match_id, deal, any_value(substr(action, 7, 1)) AS trump, count(*) AS n
FROM moves WHERE game = '{game}' AND starts_with(action, 'trump ') GROUP BY ALL;

CREATE OR REPLACE TEMP VIEW {p}_plays AS
SELECT mv.match_id, mv.deal, mv.ply, mv.seat, substr(mv.action, 6, 2) AS card,
       substr(mv.action, 7, 1) AS suit, substr(mv.action, 6, 1) AS rank, t.trump,
       row_number() OVER (PARTITION BY mv.match_id, mv.deal ORDER BY mv.ply) - 1 AS k
FROM moves mv JOIN {p}_trump t ON t.match_id = mv.match_id AND t.deal = mv.deal
WHERE mv.game = '{game}' AND starts_with(mv.action, 'play ');

-- include: _tricks.sql

-- invariant: {game}_one_trump_per_deal
-- KB12: a deal has at most one `trump X` (the first acceptance ends round 1; the first suit named
-- ends round 2), and round 2 never names the turned suit, so the suit named is never refused twice.
SELECT match_id, 'deal ' || deal || ': ' || n || ' trump actions' AS detail
FROM {p}_trump WHERE n > 1;

-- invariant: {game}_follow_suit
-- Follow suit if able: a seat that did not follow plays no card of the led suit later in the deal
-- (on a trump lead, but the Jas it may hold back as its only trump, KB10).
SELECT t.match_id, 'deal ' || t.deal || ' trick ' || (t.trick + 1) || ': seat ' || t.seat || ' played '
       || t.card || ' on a ' || t.led || ' lead but still held ' || t.led AS detail
FROM {p}_tricks t
WHERE t.pos > 0 AND t.suit <> t.led
  AND EXISTS (SELECT 1 FROM {p}_plays l WHERE l.match_id = t.match_id AND l.deal = t.deal
              AND l.seat = t.seat AND l.suit = t.led AND l.k > t.k
              AND NOT (t.led = t.trump AND l.rank = 'J'));

-- invariant: {game}_trump_when_void
-- Void in a plain led suit, a seat plays a trump if it holds one; only the bare Jas may be kept back
-- (KB10), so a later trump other than the Jas shows a trump was held.
SELECT t.match_id, 'deal ' || t.deal || ' trick ' || (t.trick + 1) || ': seat ' || t.seat || ' discarded '
       || t.card || ' on a ' || t.led || ' lead but still held a trump' AS detail
FROM {p}_tricks t
WHERE t.pos > 0 AND t.led <> t.trump AND t.suit <> t.led AND t.suit <> t.trump
  AND EXISTS (SELECT 1 FROM {p}_plays l WHERE l.match_id = t.match_id AND l.deal = t.deal
              AND l.seat = t.seat AND l.suit = l.trump AND l.rank <> 'J' AND l.k > t.k);

-- invariant: {game}_overtrump_on_trump_lead
-- KB11 / 003:L294: trump led, a seat that plays a trump under the best trump so far holds no trump above it.
SELECT t.match_id, 'deal ' || t.deal || ' trick ' || (t.trick + 1) || ': seat ' || t.seat || ' played '
       || t.card || ' under the best trump but held a higher one' AS detail
FROM {p}_tricks t
WHERE t.pos > 0 AND t.led = t.trump AND t.suit = t.trump AND t.val < t.best_before
  AND EXISTS (SELECT 1 FROM {p}_tricks l WHERE l.match_id = t.match_id AND l.deal = t.deal
              AND l.seat = t.seat AND l.suit = l.trump AND l.k > t.k AND l.val > t.best_before);

-- invariant: {game}_claim_ends_the_match
-- KB7: a claim (right or wrong) is the last action of its match, with a claim_500_midhand event at its ply.
SELECT m.match_id, 'claim at ply ' || c.ply || ' but the match has ' || m.moves || ' moves'
       || CASE WHEN e.match_id IS NULL THEN ' and no claim_500_midhand event' ELSE '' END AS detail
FROM matches m
JOIN (SELECT * FROM moves WHERE game = '{game}' AND action = 'declare claim') c USING (match_id)
LEFT JOIN (SELECT * FROM events WHERE event = '{game}.claim_500_midhand') e
  ON e.match_id = c.match_id AND e.ply = c.ply
WHERE m.game = '{game}' AND (c.ply <> m.moves - 1 OR e.match_id IS NULL);

-- invariant: {game}_sequence_after_the_first_trick
-- KB6: at most one sequence_meld per deal, emitted when the first trick is complete (at its {players}th card).
SELECT e.match_id, 'deal ' || e.deal || ': sequence_meld at ply ' || e.ply
       || ' but the first trick ends at ply ' || coalesce(p.ply::VARCHAR, '?') AS detail
FROM (SELECT * FROM events WHERE event = '{game}.sequence_meld') e
LEFT JOIN (SELECT m.match_id, m.deal, m.ply FROM moves m WHERE m.game = '{game}' AND starts_with(m.action, 'play ')
           QUALIFY row_number() OVER (PARTITION BY m.match_id, m.deal ORDER BY m.ply) = {players}) p
  ON p.match_id = e.match_id AND p.deal = e.deal
WHERE p.ply IS NULL OR p.ply <> e.ply
   OR (SELECT count(*) FROM events x WHERE x.match_id = e.match_id AND x.deal = e.deal
       AND x.event = '{game}.sequence_meld') > 1;
