-- Family file of the partnership jass games (kruisjassen, schutjassen, grevjas): the score sheet.

-- invariant: {game}_{check}
-- The match scores are the sums of the score sheet, and partners (seats 0 and 2, 1 and 3) score the same.
SELECT match_id, 'scores ' || scores::VARCHAR || ' vs sheet sums' AS detail
FROM matches
WHERE game = '{game}'
  AND (scores[1] <> scores[3] OR scores[2] <> scores[4]
       OR scores[1] <> (SELECT coalesce(sum(x[1]), 0) FROM unnest(sheet) AS u(x))
       OR scores[2] <> (SELECT coalesce(sum(x[2]), 0) FROM unnest(sheet) AS u(x)));
