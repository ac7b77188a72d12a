-- What must be the same in two generations of the warehouse before one catches up on the
-- other: the migrations applied and every table's columns, in order.
SELECT 'migration' AS kind, name AS object, NULL AS detail, NULL AS position
FROM schema_migration
UNION ALL
SELECT 'column', table_name || '.' || column_name, data_type, column_index
FROM duckdb_columns()
WHERE database_name = current_database() AND schema_name = 'main'
ORDER BY kind, object, position
