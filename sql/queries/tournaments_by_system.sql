SELECT system, status, count(*) AS tournaments, sum(players) AS entries,
       sum(played_games) AS played_games, min(received_on) AS first_received,
       max(received_on) AS last_received
FROM tournament
GROUP BY ALL
ORDER BY system NULLS LAST, status
