-- The official list an explanation is checked against: the revision in force of a system's
-- list date (the latest list date when $list_date is NULL), and what it was computed from.
SELECT system, list_date, revision, source, rulebook_hash, era_from, inputs_hash,
       previous_list_date, previous_revision, received_after, received_up_to
FROM list_revision_current
WHERE system = $system
  AND list_date = coalesce($list_date, (SELECT max(list_date) FROM list_revision_current
                                        WHERE system = $system))
