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

-- The views name callsite; renaming the table would rewrite them to name
-- the old one, so they go first and are made again as they were.
DROP VIEW callsites;
DROP VIEW samples;
DROP INDEX callsite_key;
ALTER TABLE callsite RENAME TO callsite_v6;

-- As in version 2.
CREATE VIEW callsites AS
SELECT c.id AS callsite_id,
	c.parent_id AS parent_id,
	c.depth AS depth,
	nullif(CAST(fn_name.s AS TEXT), '') AS function,
	nullif(CAST(fn_sys.s AS TEXT), '') AS system_name,
	nullif(CAST(fn_file.s AS TEXT), '') AS file,
	nullif(f.line, 0) AS line,
	f.address AS address,
	nullif(CAST(m_file.s AS TEXT), '') AS mapping,
	nullif(CAST(m_build.s AS TEXT), '') AS build_id,
	f.flags & 1 AS inlined
FROM callsite c
JOIN frame f ON f.id = c.frame_id
LEFT JOIN function fn ON fn.id = f.function_id
LEFT JOIN string fn_name ON fn_name.id = fn.name_id
LEFT JOIN string fn_sys ON fn_sys.id = fn.system_name_id
LEFT JOIN string fn_file ON fn_file.id = fn.filename_id
LEFT JOIN mapping m ON m.id = f.mapping_id
LEFT JOIN string m_file ON m_file.id = m.filename_id
LEFT JOIN string m_build ON m_build.id = m.build_id_id;

-- As in version 3.
CREATE VIEW samples AS
SELECT sc.name AS scope,
	s.profile_id AS profile_id,
	s.bucket * 1000000000 AS time_ns,
	m.type AS metric,
	m.unit AS unit,
	s.value AS value,
	s.callsite_id AS callsite_id,
	nullif(CAST(fn_name.s AS TEXT), '') AS function,
	nullif(CAST(fn_file.s AS TEXT), '') AS file,
	nullif(f.line, 0) AS line,
	c.depth AS depth,
	s.labelset_id AS labelset_id
FROM sample s
JOIN profile p ON p.id = s.profile_id
JOIN scope sc ON sc.id = p.scope_id
JOIN metric m ON m.id = s.metric_id
LEFT JOIN callsite c ON c.id = s.callsite_id
LEFT JOIN frame f ON f.id = c.frame_id
LEFT JOIN function fn ON fn.id = f.function_id
LEFT JOIN string fn_name ON fn_name.id = fn.name_id
LEFT JOIN string fn_file ON fn_file.id = fn.filename_id;
