-- Every registry row of every snapshot (the caller keeps each player's latest identity).
SELECT as_of, player_id, name, sex, birth_date, country, fide_id
FROM registry_snapshot
