-- profd store, version 14: a rollup run's id is never used again
-- (AUTOINCREMENT), so a run is known by its id alone: the function sums
-- a reading connection keeps of a run (store-fsum.c, docs/DESIGN-
-- STORAGE.md "Function sums") are the sums of the run with that id,
-- whatever was merged or deleted since, and a read that holds them needs
-- neither the run's bytes nor a comparison of them.  Until this step a
-- run written after the run of the highest id was deleted took its id.
--
-- The table is made again with its rows and ids; sqlite_sequence starts
-- at the highest id kept.
CREATE TABLE rollup_v14 (
	id		INTEGER PRIMARY KEY AUTOINCREMENT,
	scope_id	INTEGER NOT NULL REFERENCES scope (id),
	span		INTEGER NOT NULL,
	start		INTEGER NOT NULL,
	level		INTEGER NOT NULL,
	entries		INTEGER NOT NULL,
	profiles	BLOB NOT NULL,
	data		BLOB NOT NULL
);
INSERT INTO rollup_v14 (id, scope_id, span, start, level, entries,
    profiles, data)
    SELECT id, scope_id, span, start, level, entries, profiles, data
    FROM rollup ORDER BY id;
DROP TABLE rollup;
ALTER TABLE rollup_v14 RENAME TO rollup;
CREATE INDEX rollup_window ON rollup (scope_id, span, start, level);
