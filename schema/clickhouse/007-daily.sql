-- Version 7: per day, the sums of the sample rows of each (scope,
-- metric, stack) over every host, which the fleet's views read for the
-- whole days of a window asked of every host (no host=) instead of the
-- hourly sums (docs/FLEET.md "What reads what"): a day's row a stack
-- where samples_hourly has one an hour, a host and a stack, so the
-- rows read follow the fleet's distinct stacks, not its hosts.  A day
-- is the server's, as the date of samples is (its partition).
-- SummingMergeTree fed as samples_hourly is (a materialized view on
-- samples); readers sum(value) GROUP BY.  Labels summed over and raw
-- rows left out, as in samples_hourly.  Day partitions, dropped with
-- samples' (fleet-retain.c).
CREATE TABLE IF NOT EXISTS {db}.samples_daily (
	date Date,
	scope String,
	metric String,
	stack_hash UInt64,
	value Int64
) ENGINE = SummingMergeTree(value) PARTITION BY date
ORDER BY (scope, metric, date, stack_hash);

-- The rows shipped before this version: once, while the table is empty
-- (a step run again after a crash adds nothing), then the view, as
-- 005-hourly.sql does (README.md: the window between the two).
INSERT INTO {db}.samples_daily SELECT date, scope, metric, stack_hash,
	sum(value) AS value
FROM {db}.samples
WHERE NOT endsWith(metric, '\0raw')
	AND (SELECT count() FROM {db}.samples_daily) = 0
GROUP BY date, scope, metric, stack_hash;

CREATE MATERIALIZED VIEW IF NOT EXISTS {db}.samples_daily_mv
TO {db}.samples_daily AS SELECT date, scope, metric, stack_hash,
	sum(value) AS value
FROM {db}.samples
WHERE NOT endsWith(metric, '\0raw')
GROUP BY date, scope, metric, stack_hash;

-- With a cluster, as version 3's tables (made at every first connect).
CREATE TABLE IF NOT EXISTS {db}.samples_daily_all AS {db}.samples_daily
ENGINE = Distributed({cluster}, {db}, samples_daily);
