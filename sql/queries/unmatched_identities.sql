-- What each provisional player still waiting for a merge was entered as (to match him again).
SELECT DISTINCT provisional_id, name, birth_date, birth_year, federation, fide_id, national_id
FROM unmatched_player
