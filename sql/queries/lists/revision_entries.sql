-- Every stored column of the rows of one revision of a list
SELECT * EXCLUDE (system, scenario, list_date, revision)
FROM list_entry
WHERE system = $system AND scenario = $scenario AND list_date = $list_date
  AND revision = $revision
