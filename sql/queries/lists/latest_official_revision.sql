-- The latest official revision of a list date (NULL when there is none).
SELECT max(revision) FROM list_revision
WHERE system = $system AND scenario = 'official' AND list_date = $list_date
