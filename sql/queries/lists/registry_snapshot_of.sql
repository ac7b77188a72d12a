-- One registry snapshot, by its as-of date.
SELECT as_of, player_id, name, sex, birth_date, country, fide_id, fide_standard, fide_rapid,
       category, k_override, last_fide_tournament
FROM registry_snapshot
WHERE as_of = $as_of
