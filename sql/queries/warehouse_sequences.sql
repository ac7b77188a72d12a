-- The warehouse's sequences and the last value each gave (NULL: none yet).
SELECT sequence_name, last_value, increment_by
FROM duckdb_sequences()
WHERE database_name = current_database() AND schema_name = 'main'
ORDER BY sequence_name
