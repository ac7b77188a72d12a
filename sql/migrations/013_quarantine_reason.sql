-- Why a tournament version is quarantined, as its latest check found (draughts): a FID registry
-- snapshot loaded after the delivery checks it again and may leave fewer reasons standing.
-- Versions written before keep none: their reason is read from their rejections.
ALTER TABLE tournament_version ADD COLUMN IF NOT EXISTS quarantine_reason VARCHAR;
