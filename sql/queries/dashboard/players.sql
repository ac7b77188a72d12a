-- Every player on any official list, with the name of the latest list and the systems that
-- rate the player: what the Player page searches.
SELECT player_id, arg_max(name, list_date) AS name,
       string_agg(DISTINCT system, ', ' ORDER BY system) AS systems,
       max(list_date) AS last_list_date
FROM rating_list
GROUP BY player_id
ORDER BY name, player_id
