-- The warehouse's own tables, for a standby to catch up on (flows/warehouse.py).
SELECT table_name
FROM duckdb_tables()
WHERE database_name = current_database() AND schema_name = 'main' AND NOT temporary
ORDER BY table_name
