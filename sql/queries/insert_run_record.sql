-- One flow run's record: what it was asked, with which rules and code, on which inputs, and
-- how it ended.
INSERT INTO run_record (run_id, flow, parameters, rulebook_hash, code_version,
    input_checksums, started_at, ended_at, status, counts, report)
VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?)
