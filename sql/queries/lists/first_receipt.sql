-- The receipt date of the first accepted tournament of a system (latest versions), or NULL:
-- a system's first list must take it, or follow an imported list.
SELECT min(received_on) FROM tournament WHERE system = $system AND status = 'accepted'
