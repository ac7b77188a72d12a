-- The as-of dates of the registry snapshots up to a day that list players (each list date
-- reads the latest on or before it: flows/elo/history.py reads that one alone).
SELECT DISTINCT as_of FROM registry_snapshot WHERE as_of <= $day ORDER BY as_of
