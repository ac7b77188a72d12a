-- The unidentified players the warehouse holds, one row per provisional id and description
-- (the fields the id is made of): transforms.matching.provisional_aliases keeps their ids.
SELECT DISTINCT provisional_id, name, birth_date, birth_year, federation, fide_id
FROM player_match
