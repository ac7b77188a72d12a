-- The code that last computed or checked each official list of `system` at $list_dates: the
-- input checksum at $code_path of the latest succeeded official list run (a quarterly, a
-- replay) whose input checksums name that list ($keys, parallel to $list_dates). A list no
-- such run names, or named only by runs written before the code was recorded, has none.
WITH wanted AS (
    SELECT unnest($list_dates::DATE[]) AS list_date, unnest($keys::VARCHAR[]) AS key
),
runs AS (
    SELECT ended_at, input_checksums::JSON AS checksums
    FROM run_record
    WHERE status = 'succeeded'
      AND flow IN ('quarterly', 'recalculate')
      AND json_extract_string(parameters, '$.system') = $system
      -- a quarterly names no scenario: it writes official lists
      AND coalesce(json_extract_string(parameters, '$.scenario'), 'official') = 'official'
)
SELECT w.list_date, arg_max(json_extract_string(r.checksums, $code_path), r.ended_at) AS code
FROM wanted w
JOIN runs r ON json_exists(r.checksums, '$."' || w.key || '"')
GROUP BY w.list_date
