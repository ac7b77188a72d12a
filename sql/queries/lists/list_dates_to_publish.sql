-- Received tournaments of a system: the receipt dates decide which lists they feed.
SELECT received_on
FROM tournament
WHERE system = $system AND received_on IS NOT NULL
