-- The systems with official lists, with their number of list dates.
SELECT system, count(DISTINCT list_date) AS list_dates
FROM list_revision
WHERE scenario = 'official'
GROUP BY ALL
