-- Raw input files not archived before (by checksum), stored with the run that first read them.
INSERT INTO raw_file (sha256, file_name, kind, size_bytes, content, first_run_id, archived_at)
SELECT sha256, file_name, kind, size_bytes, content, $run_id, current_timestamp
FROM _incoming_files
WHERE sha256 NOT IN (SELECT sha256 FROM raw_file)
