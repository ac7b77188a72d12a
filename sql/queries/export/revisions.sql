-- Every revision written of a system's lists, official and what-if scenarios: what an export or
-- a reconciliation may name (and what a refusal lists when it names something else).
SELECT scenario, list_date, revision, source
FROM list_revision
WHERE system = $system
ORDER BY scenario, list_date, revision
