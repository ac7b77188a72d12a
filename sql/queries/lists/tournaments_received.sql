-- How many tournaments of a system were received, accepted or quarantined (latest versions).
SELECT count(*) FROM tournament WHERE system = $system
