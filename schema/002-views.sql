-- profd store, version 2: the public schema of POST /v1/query.
-- Views only: the tables of 001 stay internal and may change; these keep
-- their names, columns and meaning (docs/SQL.md).  Interned strings are
-- BLOBs in the tables; the views cast them to TEXT, and give NULL where a
-- name, file or line is unknown.

CREATE VIEW scopes AS
SELECT sc.name AS scope,
	count(p.id) AS profiles,
	min(p.time_ns) AS first_time_ns,
	max(p.time_ns) AS last_time_ns
FROM scope sc
LEFT JOIN profile p ON p.scope_id = sc.id
GROUP BY sc.id;

CREATE VIEW profiles AS
SELECT p.id AS profile_id,
	sc.name AS scope,
	p.format AS format,
	p.name AS name,
	p.time_ns AS time_ns,
	p.duration_ns AS duration_ns,
	p.imported_ns AS imported_ns,
	p.samples AS samples,
	p.dropped_samples AS dropped_samples,
	p.period AS period,
	p.bytes AS bytes
FROM profile p
JOIN scope sc ON sc.id = p.scope_id;

CREATE VIEW profile_labels AS
SELECT profile_id AS profile_id,
	key AS key,
	value AS value
FROM profile_label;

CREATE VIEW metrics AS
SELECT id AS metric_id,
	type AS type,
	unit AS unit
FROM metric;

CREATE VIEW labels AS
SELECT l.labelset_id AS labelset_id,
	CAST(k.s AS TEXT) AS key,
	CAST(v.s AS TEXT) AS value,
	l.num AS num,
	nullif(CAST(u.s AS TEXT), '') AS unit
FROM label l
JOIN string k ON k.id = l.key_id
LEFT JOIN string v ON v.id = l.str_id
LEFT JOIN string u ON u.id = l.num_unit_id;

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

-- One row per stored sample value.  An empty stack has callsite_id 0 and
-- no callsite row, hence the LEFT JOINs.
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
