-- The tournaments of its period that a list revision does not apply, with why.
SELECT tournament_id, reason
FROM list_exclusion
WHERE system = $system AND scenario = $scenario AND list_date = $list_date
  AND revision = $revision
ORDER BY tournament_id
