-- A list written again unchanged: the revision in force is recorded as current for these
-- inputs.
UPDATE list_revision SET inputs_hash = $inputs_hash
WHERE system = $system AND scenario = $scenario AND list_date = $list_date
  AND revision = $revision
