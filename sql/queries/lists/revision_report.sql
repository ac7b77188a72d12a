-- The report stored with one revision of a list
SELECT report
FROM list_revision
WHERE system = $system AND scenario = $scenario AND list_date = $list_date AND revision = $revision
