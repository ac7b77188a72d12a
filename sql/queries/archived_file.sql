-- One archived input file by its checksum: its name and its bytes
SELECT file_name, content
FROM raw_file
WHERE sha256 = $sha256
