SELECT DISTINCT player_id FROM membership_at($day) WHERE year = $year
