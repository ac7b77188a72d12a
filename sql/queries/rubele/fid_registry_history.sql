-- Every FID registry snapshot up to a day (the caller reads the one in force at each date).
SELECT as_of, player_id, name, sex, birth_date, country, category_italiana,
       category_internazionale, capital_italiana, capital_internazionale
FROM fid_registry_snapshot
WHERE as_of <= $day
