-- One player's variations of a list revision, as stored (the engine's doubles, and the FSI
-- variations' exact hundredths).
SELECT tournament_id, tournament_version, sequence, wave, own_rating, games, score, expected,
       k, raw_variation, applied_variation, raw_hundredths, applied_hundredths, note, era_from
FROM list_variation
WHERE system = $system AND scenario = 'official' AND list_date = $list_date
  AND revision = $revision AND player_id = $player_id
ORDER BY tournament_id
