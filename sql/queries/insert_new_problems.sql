-- Problems not recorded before: the id hashes what was found, so re-runs add nothing. The file
-- is identified by its bytes, not its name: a name says where the file was found (the inbox
-- folder given), and the same inbox read from another folder is the same file.
INSERT INTO input_problem (problem_id, severity, run_id, source, file_name, file_sha256, line_no,
                           field, value, reason, tournament_id, recorded_at)
WITH identified AS (
    SELECT sha256(concat_ws('|', severity, source, coalesce(file_sha256, file_name, ''),
                            coalesce(line_no::VARCHAR, ''), coalesce(field, ''),
                            coalesce(value, ''), reason, coalesce(tournament_id, ''))) AS problem_id,
           *
    FROM _incoming_problems
)
SELECT DISTINCT ON (problem_id)
       problem_id, severity, $run_id, source, file_name, file_sha256, line_no, field, value,
       reason, tournament_id, current_timestamp
FROM identified
WHERE problem_id NOT IN (SELECT problem_id FROM input_problem)
