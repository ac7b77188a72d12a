SELECT revision, content_hash
FROM list_revision
WHERE system = $system AND scenario = $scenario AND list_date = $list_date
ORDER BY revision DESC
LIMIT 1
