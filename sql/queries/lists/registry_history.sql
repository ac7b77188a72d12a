-- Every registry snapshot up to a date (the caller reads the one in force at each date).
SELECT as_of, player_id, name, sex, birth_date, country, fide_id, fide_standard, fide_rapid,
       category, k_override, last_fide_tournament
FROM registry_snapshot
WHERE as_of <= $day
