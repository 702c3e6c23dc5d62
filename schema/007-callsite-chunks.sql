-- profd store, version 7: callsites as chunks of packed rows, not a row
-- each.  (docs/DESIGN-STORAGE.md "Callsite chunks" describes them.)  The
-- rows of the old table are converted by profd itself (store-cs.c) right
-- after this script, in the same transaction; callsite becomes a virtual
-- table over the chunks (eponymous, registered on every connection), so
-- the callsites and samples views keep their columns and rows.

-- The callsites of one or more imports, ids ascending: first_id..last_id
-- (not every id between: collection removes some), count of them, data
-- the varints of daemon/store/cschunk.h.  Keyed by last_id: the chunk of
-- an id is the first with last_id >= it.
CREATE TABLE callsite_chunk (
	last_id		INTEGER PRIMARY KEY,
	first_id	INTEGER NOT NULL,
	count		INTEGER NOT NULL,
	data		BLOB NOT NULL
);

-- The views name callsite and go on naming it: renamed the legacy way,
-- the table leaves them as they are (the modern way would make them name
-- callsite_v6), and callsite is then the virtual table.
DROP INDEX callsite_key;
PRAGMA legacy_alter_table = ON;
ALTER TABLE callsite RENAME TO callsite_v6;
PRAGMA legacy_alter_table = OFF;
