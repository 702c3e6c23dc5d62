-- Version 8: top's per-function sums (issue 41), so that a fleet top of
-- whole hours and days adds up a few thousand sums instead of summing
-- and walking every stack of the window (docs/FLEET.md "What reads
-- what").  The shipper computes them per profile and metric as top does
-- (flat to the leaf, cum once per stack to every function on it, each
-- caller -> callee edge once per stack; daemon/fleet/fleet-fsum.c) and
-- inserts them into function_rows, right after the profile's samples
-- and for the same profiles (those step 1 of a batch did not find): a
-- profile's rows are one block, which the views below sum as it lands.
-- Null: the rows themselves are not kept.  kind 0: a function (a
-- flat, b cum); 1: an edge (a its weight, b the profiles on which the
-- callee was not inlined on every stack through it); 2: the profile
-- (a: the sum of |value| over its stacks, top's total).  A function or
-- edge is fn, a 64-bit key (SHA-256 of kind, caller and name, the first
-- 8 bytes, as stacks are keyed), its names in function_names: the sums
-- are numbers, which readers group and receive faster than names, and
-- the names are read once (profd keeps them).  A profile with a
-- negative value (its sums would not add up to the window's) has none
-- of a metric: readers use the sums only when every profile of the
-- window's whole hours has its kind 2 row (fleet-sql-sums.c), so a
-- profile shipped before this
-- version, or by a profd without it, or whose rows a crash cut off,
-- makes its windows read the stacks as before, never a wrong sum.
CREATE TABLE IF NOT EXISTS {db}.function_rows (
	date Date DEFAULT toDate(time),
	scope String,
	metric String,
	host String,
	time DateTime,
	profile UInt64,
	kind UInt8,
	fn UInt64,
	a Int64,
	b Int64
) ENGINE = Null;

-- A key's names: the caller ('' for a function) and the name (the
-- callee's for an edge).  Inserted before the batch's sums, so that a
-- reader that finds a key finds its names; ReplacingMergeTree: a key
-- sent again merges away.  Not partitioned, as stacks: it keeps its
-- rows (names no sum has any more are few and small).
CREATE TABLE IF NOT EXISTS {db}.function_names (
	fn UInt64,
	caller String,
	name String
) ENGINE = ReplacingMergeTree ORDER BY fn;

-- Per hour and host, as samples_hourly (SummingMergeTree: readers
-- sum() GROUP BY, merges are never complete).
CREATE TABLE IF NOT EXISTS {db}.functions_hourly (
	date Date,
	scope String,
	metric String,
	host String,
	hour DateTime,
	kind UInt8,
	fn UInt64,
	a Int64,
	b Int64
) ENGINE = SummingMergeTree((a, b)) PARTITION BY date
ORDER BY (scope, metric, hour, host, kind, fn);

CREATE MATERIALIZED VIEW IF NOT EXISTS {db}.functions_hourly_mv
TO {db}.functions_hourly AS SELECT date, scope, metric, host,
	toStartOfHour(time) AS hour, kind, fn, sum(a) AS a, sum(b) AS b
FROM {db}.function_rows
WHERE kind < 2
GROUP BY date, scope, metric, host, hour, kind, fn;

-- Per day over every host, as samples_daily: the whole days of a window
-- asked of every host.
CREATE TABLE IF NOT EXISTS {db}.functions_daily (
	date Date,
	scope String,
	metric String,
	kind UInt8,
	fn UInt64,
	a Int64,
	b Int64
) ENGINE = SummingMergeTree((a, b)) PARTITION BY date
ORDER BY (scope, metric, date, kind, fn);

CREATE MATERIALIZED VIEW IF NOT EXISTS {db}.functions_daily_mv
TO {db}.functions_daily AS SELECT date, scope, metric, kind, fn,
	sum(a) AS a, sum(b) AS b
FROM {db}.function_rows
WHERE kind < 2
GROUP BY date, scope, metric, kind, fn;

-- The profiles summed, with their totals: what readers count against
-- samples_profiles before they trust the sums.
CREATE TABLE IF NOT EXISTS {db}.functions_profiles (
	date Date,
	scope String,
	metric String,
	host String,
	time DateTime,
	profile UInt64,
	total Int64
) ENGINE = SummingMergeTree(total) PARTITION BY date
ORDER BY (scope, metric, time, host, profile);

CREATE MATERIALIZED VIEW IF NOT EXISTS {db}.functions_profiles_mv
TO {db}.functions_profiles AS SELECT date, scope, metric, host, time,
	profile, sum(a) AS total
FROM {db}.function_rows
WHERE kind = 2
GROUP BY date, scope, metric, host, time, profile;

-- With a cluster, as version 3's tables (made at every first connect).
CREATE TABLE IF NOT EXISTS {db}.functions_hourly_all AS {db}.functions_hourly
ENGINE = Distributed({cluster}, {db}, functions_hourly);
CREATE TABLE IF NOT EXISTS {db}.functions_daily_all AS {db}.functions_daily
ENGINE = Distributed({cluster}, {db}, functions_daily);
CREATE TABLE IF NOT EXISTS {db}.functions_profiles_all AS {db}.functions_profiles
ENGINE = Distributed({cluster}, {db}, functions_profiles);
CREATE TABLE IF NOT EXISTS {db}.function_names_all AS {db}.function_names
ENGINE = Distributed({cluster}, {db}, function_names);
