-- profd store, version 6: rollups as runs of a log-structured merge, with
-- the profiles they count; per-bucket totals for timelines; a covering
-- index for listing blocks by time.  (docs/DESIGN-STORAGE.md describes
-- them.)  The rollups and totals are rebuilt from the sample blocks by
-- profd itself (store-rollup.c) right after this script, in the same
-- transaction.

-- A window (span seconds from start: 3600 and 86400) of a scope has one
-- or more runs: each import adds a run of level 0 (its own rows), and runs
-- of one level are merged into one of the next.  The window's rollup is
-- the sum of its runs.  entries -1: a marker, no rollup (read the blocks).
-- profiles: per metric, the sorted ids of the profiles with a row of the
-- metric in the window (varints: metric, count, id deltas).
DROP TABLE rollup;
CREATE TABLE rollup (
	id		INTEGER PRIMARY KEY,
	scope_id	INTEGER NOT NULL REFERENCES scope (id),
	span		INTEGER NOT NULL,
	start		INTEGER NOT NULL,
	level		INTEGER NOT NULL,
	entries		INTEGER NOT NULL,
	profiles	BLOB NOT NULL,
	data		BLOB NOT NULL
);
CREATE INDEX rollup_window ON rollup (scope_id, span, start, level);

-- Per profile, metric and bucket with a row of the metric: the sum of its
-- values (of the rows with a callsite), for timelines without filters.
-- One B-tree, no index by profile: a profile's rows are deleted by its
-- scope, metrics and buckets (store_profile_delete), a scope's by scope.
CREATE TABLE sample_total (
	scope_id	INTEGER NOT NULL,
	metric_id	INTEGER NOT NULL,
	bucket		INTEGER NOT NULL,
	profile_id	INTEGER NOT NULL,
	value		INTEGER NOT NULL,
	PRIMARY KEY (scope_id, metric_id, bucket, profile_id)
) WITHOUT ROWID;

-- Blocks by time, answered from the index alone.
DROP INDEX sample_block_scope;
CREATE INDEX sample_block_time ON sample_block (scope_id, bucket_max,
    bucket_min);
