-- The first rejection of a quarantined tournament's version, the row ``t`` of ``tournament``,
-- in the order of its input (its manifest or listing row, then its file line by line; a
-- line-less one, of the whole file, first), with how many more it has ('…; and 5 more
-- rejections'). Only rejections found in the files of that version, not one an earlier
-- version was corrected of. Null where it has none. Included (``-- include``) by the queries
-- that name why a tournament is not rated, so that they name it alike.
(SELECT first(r.reason ORDER BY r.file_sha256 IS DISTINCT FROM t.manifest_sha256,
              r.line_no NULLS FIRST, r.field NULLS FIRST, r.reason)
        || CASE count(*) WHEN 1 THEN ''
           WHEN 2 THEN '; and 1 more rejection'
           ELSE '; and ' || (count(*) - 1) || ' more rejections' END
 FROM rejection r
 WHERE r.tournament_id = t.tournament_id
   AND r.file_sha256 IN (t.file_sha256, t.manifest_sha256))
