-- The fleet tables in ClickHouse, version 1.  profd runs each statement
-- (split on ";" at a line's end) with {db} replaced by --fleet-database,
-- then records the version in {db}.schema_version.  Written for
-- ClickHouse 18.16 (Debian 12): no TTL clause (19.6), no
-- insert_deduplication_token (22.x), no LowCardinality without an
-- experimental setting; see README.md beside this file for the choices.

CREATE DATABASE IF NOT EXISTS {db};

-- Applied versions.  ReplacingMergeTree: two profd racing on a fresh
-- database may both record a version; the duplicate merges away and
-- max(version) is what is read.
CREATE TABLE IF NOT EXISTS {db}.schema_version (
	version UInt32,
	applied DateTime
) ENGINE = ReplacingMergeTree ORDER BY version;

-- One row per stack: the frames from the leaf up (pprof's order), each a
-- function name, file and line.  Keyed by a 64-bit hash of the frames, so
-- every host writing the same stack writes the same row; duplicates merge
-- away and readers take any() per hash.
CREATE TABLE IF NOT EXISTS {db}.stacks (
	stack_hash UInt64,
	functions Array(String),
	files Array(String),
	lines Array(Int64)
) ENGINE = ReplacingMergeTree ORDER BY stack_hash;

-- One row per (profile, metric, stack, label set): the summed value.
-- Scans select a scope and a metric over a time range, so those lead the
-- key; host next so per-host filters skip granules.  Day partitions make
-- retention a DROP PARTITION.  profile is the per-profile deduplication
-- key (README.md): the rows of one profile are inserted in one block.
CREATE TABLE IF NOT EXISTS {db}.samples (
	date Date DEFAULT toDate(time),
	scope String,
	metric String,
	host String,
	time DateTime,
	profile UInt64,
	stack_hash UInt64,
	label_keys Array(String),
	label_values Array(String),
	value Int64
) ENGINE = MergeTree PARTITION BY date
ORDER BY (scope, metric, time, host, stack_hash);

-- One row per shipped profile, written after its samples: what it held
-- (its sample rows and their sum, per metric), for checking a fleet's
-- totals against each host's, and the labels given at push time.
CREATE TABLE IF NOT EXISTS {db}.profiles (
	date Date DEFAULT toDate(time),
	host String,
	scope String,
	profile UInt64,
	time DateTime,
	time_ns Int64,
	duration_ns Int64,
	name String,
	metrics Array(String),
	rows Array(UInt64),
	totals Array(Int64),
	label_keys Array(String),
	label_values Array(String)
) ENGINE = ReplacingMergeTree PARTITION BY date
ORDER BY (host, scope, profile);
