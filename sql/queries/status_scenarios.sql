-- The what-if scenarios a warehouse holds, per system: how many list dates, from when to when.
SELECT system, scenario, count(DISTINCT list_date) AS dates, min(list_date) AS first_date,
       max(list_date) AS last_date
FROM list_revision
WHERE scenario <> 'official'
GROUP BY ALL
ORDER BY ALL
