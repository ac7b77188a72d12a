-- The differences recorded for a revision against another (a scenario's list against an
-- official revision), in the columns transforms.diffs.list_diff gives.
SELECT * EXCLUDE (system, scenario, list_date, revision, against_scenario, against_revision,
                  run_id)
FROM list_diff
WHERE system = $system AND scenario = $scenario AND list_date = $list_date
  AND revision = $revision AND against_scenario = $against_scenario
  AND against_revision = $against_revision
