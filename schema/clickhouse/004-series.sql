-- Version 4: what the fleet's views need to combine a window's profiles
-- as the local ones do (docs/TIME.md, docs/FLEET.md "Aggregates"): per
-- shipped profile its series and, per metric, its kind, how it counts
-- and its values' sum as given.  A table of its own, as version 2's:
-- 18.16 has no ADD COLUMN IF NOT EXISTS, and a step must be safe to run
-- again after a crash before its version was recorded.  Its rows go in
-- with the profiles rows (after the samples), so ReplacingMergeTree:
-- a repeat merges away, and readers group by (host, scope, profile).
--
-- series: the store's profile.series, a hash of the push labels; a
-- series is (host, scope, series): hosts hash their own labels.
-- kinds: 0 delta, 1 cumulative, 2 gauge (base/kind.h); counted: 0 whole,
-- 1 difference, 2 none (the store's profile_metric.counted); raw_totals:
-- the metric's values summed as the file gave them (profile_metric.total),
-- which aggregate=max compares.  Parallel to metrics (TYPE/UNIT).
--
-- The values as given of a metric counted otherwise than whole are
-- sample rows too, in samples under the metric's name followed by a NUL
-- and "raw" (a name no metric of profd can have): in the same INSERT
-- block as the profile's other rows, so exactly once as they are, and in
-- a key range of their own, which the default views never read.
--
-- Profiles shipped before version 4 have no row here and no raw rows:
-- their kind reads as delta, and avg, last and max leave them out.
CREATE TABLE IF NOT EXISTS {db}.profile_metrics (
	date Date DEFAULT toDate(time),
	host String,
	scope String,
	profile UInt64,
	time DateTime,
	time_ns Int64,
	series UInt64,
	metrics Array(String),
	kinds Array(UInt8),
	counted Array(UInt8),
	raw_totals Array(Int64)
) ENGINE = ReplacingMergeTree PARTITION BY date
ORDER BY (host, scope, profile);
-- With a cluster, as version 3's tables (made at every first connect).
CREATE TABLE IF NOT EXISTS {db}.profile_metrics_all AS {db}.profile_metrics
ENGINE = Distributed({cluster}, {db}, profile_metrics);
