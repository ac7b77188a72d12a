-- How many input problems the warehouse holds, by severity (error, warning).
SELECT severity, count(*) FROM input_problem GROUP BY severity
