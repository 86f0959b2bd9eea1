-- Family file of the Kruisjas play (K6, K7: kruisjassen, schutjassen), over the views of _kruisjas.sql.

-- invariant: {game}_follow_suit
-- Follow suit if able (trumping instead is allowed on a plain lead): a seat that played neither
-- the led suit nor a trump plays no card of the led suit later in the deal.
SELECT t.match_id, 'deal ' || t.deal || ' trick ' || (t.trick + 1) || ': seat ' || t.seat || ' played '
       || t.card || ' on a ' || t.led || ' lead but still held ' || t.led AS detail
FROM {p}_tricks t
WHERE t.pos > 0 AND t.suit <> t.led AND (t.suit <> t.trump OR t.led = t.trump)
  AND EXISTS (SELECT 1 FROM {p}_plays p WHERE p.match_id = t.match_id AND p.deal = t.deal
              AND p.seat = t.seat AND p.k > t.k AND p.suit = t.led);

-- invariant: {game}_k6_no_undertrump
-- K6: on a plain lead no trump below a trump already in the trick, unless only trumps are held
-- (so a seat that undertrumped plays only trumps for the rest of the deal).
SELECT t.match_id, 'deal ' || t.deal || ' trick ' || (t.trick + 1) || ': seat ' || t.seat || ' undertrumped with '
       || t.card || ' while holding a non-trump' AS detail
FROM {p}_tricks t
WHERE t.pos > 0 AND t.suit = t.trump AND t.led <> t.trump AND t.best_before > 100 AND t.val < t.best_before
  AND EXISTS (SELECT 1 FROM {p}_plays p WHERE p.match_id = t.match_id AND p.deal = t.deal
              AND p.seat = t.seat AND p.k > t.k AND p.suit <> p.trump);
