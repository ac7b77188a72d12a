-- How many players one revision of a list holds, and how many of them are in its national
-- ranking
SELECT count(*)::INTEGER AS players, count(*) FILTER (WHERE in_ranking)::INTEGER AS in_ranking
FROM list_entry
WHERE system = $system AND scenario = $scenario AND list_date = $list_date AND revision = $revision
