-- Invariants of every game's log (data/README.md, schema version 1).
-- Each `-- invariant: NAME` block is one query; its rows are violations, with the columns
-- match_id and detail.  `cardarena verify DIR` runs them; paste one into `cardarena query DIR` to look.

-- invariant: match_logged_once
-- Exactly once: a match id appears in one matches row only.
SELECT match_id, 'match logged ' || count(*) || ' times (' || string_agg(DISTINCT game, ', ') || ')' AS detail
FROM matches GROUP BY match_id HAVING count(*) > 1;

-- invariant: move_rows_match_count
-- matches.moves is the number of rows in moves, and the plies are 0 .. moves-1 without gaps.
WITH mv AS (SELECT match_id, count(*) AS n, min(ply) AS lo, max(ply) AS hi, count(DISTINCT ply) AS nd
            FROM moves GROUP BY match_id)
SELECT m.match_id, 'matches.moves = ' || m.moves || ' but moves has ' || coalesce(mv.n, 0)
       || ' rows, plies ' || coalesce(mv.lo, -1) || '..' || coalesce(mv.hi, -1)
       || ' (' || coalesce(mv.nd, 0) || ' distinct)' AS detail
FROM matches m LEFT JOIN mv USING (match_id)
WHERE coalesce(mv.n, 0) <> m.moves OR mv.lo <> 0 OR mv.hi <> m.moves - 1 OR mv.nd <> mv.n;

-- invariant: moves_without_match
-- Every logged move belongs to a committed match (else: an orphan part; `tournament run --resume` cleans them).
SELECT match_id, count(*) || ' moves of a match that has no matches row in game ' || game AS detail
FROM moves ANTI JOIN matches USING (game, match_id) GROUP BY match_id, game;

-- invariant: events_without_match
SELECT match_id, count(*) || ' events of a match that has no matches row in game ' || game AS detail
FROM events ANTI JOIN matches USING (game, match_id) GROUP BY match_id, game;

-- invariant: event_names_of_the_game
-- X5: events are named <game id>.<event name>.
SELECT match_id, 'event ' || event || ' at ply ' || ply || ' is not named ' || game || '.<name>' AS detail
FROM events WHERE NOT starts_with(event, game || '.');

-- invariant: per_seat_lists
-- bots, bot_refs, teams, scores, ranking and engine_ranking have one entry per seat; places are 1..players.
SELECT match_id, 'per-seat lists do not have ' || players || ' entries, or a place is outside 1..'
       || players || ': ranking ' || ranking::VARCHAR AS detail
FROM matches
WHERE len(bots) <> players OR len(bot_refs) <> players OR len(teams) <> players OR len(scores) <> players
   OR len(ranking) <> players OR len(engine_ranking) <> players
   OR list_min(ranking) < 1 OR list_max(ranking) > players
   OR list_min(engine_ranking) < 1 OR list_max(engine_ranking) > players;

-- invariant: ranking_without_faults
-- A match without faults keeps the engine's ranking.
SELECT match_id, 'status ok but ranking ' || ranking::VARCHAR || ' differs from engine_ranking '
       || engine_ranking::VARCHAR AS detail
FROM matches WHERE status = 'ok' AND ranking <> engine_ranking;

-- invariant: deals_within_match
-- Moves and events lie within deals 1 .. deals_played, and the deal limit is kept.
WITH d AS (SELECT match_id, max(deal) AS hi, min(deal) AS lo FROM moves GROUP BY match_id)
SELECT m.match_id, 'moves in deals ' || d.lo || '..' || d.hi || ' but deals_played = ' || m.deals_played
       || coalesce(', max_deals = ' || m.max_deals, '') AS detail
FROM matches m JOIN d USING (match_id)
WHERE d.lo < 1 OR d.hi > m.deals_played OR m.deals_played > coalesce(m.max_deals, m.deals_played);
