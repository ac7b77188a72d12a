-- The list dates of a system with a revision written before revisions kept their receipt window
SELECT DISTINCT list_date
FROM list_revision
WHERE system = $system AND received_up_to IS NULL
ORDER BY list_date
