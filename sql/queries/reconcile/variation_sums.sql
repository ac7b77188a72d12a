-- Per player, the variations of one revision of a list: how many tournaments, and their sum
-- (FSI: in integer hundredths, exact; draughts: CF - CI, whole capital points), the evidence
-- a one-point difference is a rounding.
SELECT player_id,
       CAST(count(*) AS INTEGER) AS tournaments,
       CAST(sum(applied_hundredths) AS BIGINT) AS applied_hundredths,
       CAST(round(sum(applied_variation)) AS BIGINT) AS applied_points
FROM list_variation
WHERE system = $system AND scenario = $scenario AND list_date = $list_date
  AND revision = $revision
GROUP BY player_id
