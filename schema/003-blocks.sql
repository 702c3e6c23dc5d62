-- profd store, version 3: sample values packed into blocks, and rollups.
-- (docs/DESIGN-STORAGE.md describes both.)  The rows of the old sample
-- table are converted by profd itself (store-samples.c) right after this
-- script, in the same transaction; sample becomes a virtual table over the
-- blocks, so the samples view keeps its columns and rows.

-- A profile's sample values: one or more blocks of rows keyed by (label
-- set, callsite, bucket) with a value per metric.  metrics: the ids of the
-- metrics with a non-zero value in the block (varints).  Buckets inside
-- data are relative to bucket_min.
CREATE TABLE sample_block (
	id		INTEGER PRIMARY KEY,
	profile_id	INTEGER NOT NULL REFERENCES profile (id) ON DELETE CASCADE,
	scope_id	INTEGER NOT NULL REFERENCES scope (id),
	bucket_min	INTEGER NOT NULL,
	bucket_max	INTEGER NOT NULL,
	nrows		INTEGER NOT NULL,
	metrics		BLOB NOT NULL,
	data		BLOB NOT NULL
);
CREATE INDEX sample_block_profile ON sample_block (profile_id);
CREATE INDEX sample_block_scope ON sample_block (scope_id, bucket_max);

-- The sum of the sample values of a scope over one window of time (span
-- seconds from start: 3600 and 86400), per (label set, callsite) and
-- metric, with the number of rows summed, in the same encoding.
CREATE TABLE rollup (
	id		INTEGER PRIMARY KEY,
	scope_id	INTEGER NOT NULL REFERENCES scope (id),
	span		INTEGER NOT NULL,
	start		INTEGER NOT NULL,
	entries		INTEGER NOT NULL,
	data		BLOB NOT NULL,
	UNIQUE (scope_id, span, start)
);

DROP VIEW samples;
ALTER TABLE sample RENAME TO sample_v2;
CREATE VIRTUAL TABLE sample USING profd_sample;

-- As in version 2.
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
