-- profd store, version 13: a sample block's data stored once (issue 41).
-- (docs/DESIGN-STORAGE.md, "Blocks stored once".)  A profile pushed
-- again (re-timed, to another scope, a series that repeats itself) has
-- blocks byte for byte like ones stored before: the bytes are a row of
-- block_data, found by their hash (hmap_hash of the blob, never 0),
-- named by every block that has them (sample_block.data_id) and counted
-- (refs).  The trigger takes a row away with the last block naming it,
-- whatever deletes the block (a profile deleted by retention or by
-- hand, a whole scope, the cascade from profile).
--
-- The blocks stored before are moved here one row each, hash 0; profd
-- (store_bdata_migrate) hashes them right after this script, in the same
-- transaction, and merges the ones with equal bytes.
CREATE TABLE block_data (
	id		INTEGER PRIMARY KEY,
	hash		INTEGER NOT NULL,
	refs		INTEGER NOT NULL,
	data		BLOB NOT NULL
);
INSERT INTO block_data (id, hash, refs, data)
    SELECT id, 0, 1, data FROM sample_block;
ALTER TABLE sample_block ADD COLUMN data_id INTEGER NOT NULL DEFAULT 0;
UPDATE sample_block SET data_id = id;
ALTER TABLE sample_block DROP COLUMN data;
CREATE INDEX block_data_hash ON block_data (hash);

CREATE TRIGGER sample_block_unref AFTER DELETE ON sample_block
BEGIN
	UPDATE block_data SET refs = refs - 1 WHERE id = old.data_id;
	DELETE FROM block_data WHERE id = old.data_id AND refs <= 0;
END;
