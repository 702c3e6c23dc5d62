-- Version 5: per hour, the sums of the sample rows of each (scope,
-- metric, host, stack), which the fleet's views read for the whole
-- hours of a window instead of the rows (docs/FLEET.md "What reads
-- what").  SummingMergeTree: the rows of one key add up as parts merge;
-- readers sum(value) GROUP BY, as merges are never complete.  Labels are
-- summed over (not in the key): a label filter reads the rows
-- (schema/clickhouse/README.md says why); the values as given of a
-- metric counted otherwise than whole (its raw rows) are left out: the
-- aggregates reading them read the rows.  Day partitions as samples',
-- dropped with them (fleet-retain.c).
CREATE TABLE IF NOT EXISTS {db}.samples_hourly (
	date Date,
	scope String,
	metric String,
	host String,
	hour DateTime,
	stack_hash UInt64,
	value Int64
) ENGINE = SummingMergeTree(value) PARTITION BY date
ORDER BY (scope, metric, hour, host, stack_hash);

-- The rows shipped before this version: once, while the table is empty
-- (a step run again after a crash adds nothing).  Before the view, so a
-- block is never summed twice; README.md says what a batch landing
-- between the two statements does.
INSERT INTO {db}.samples_hourly SELECT date, scope, metric, host,
	toStartOfHour(time) AS hour, stack_hash, sum(value) AS value
FROM {db}.samples
WHERE NOT endsWith(metric, '\0raw')
	AND (SELECT count() FROM {db}.samples_hourly) = 0
GROUP BY date, scope, metric, host, hour, stack_hash;

-- Every block inserted into samples from now on, summed per hour as it
-- lands (ClickHouse runs the view on the block, in the INSERT).
CREATE MATERIALIZED VIEW IF NOT EXISTS {db}.samples_hourly_mv
TO {db}.samples_hourly AS SELECT date, scope, metric, host,
	toStartOfHour(time) AS hour, stack_hash, sum(value) AS value
FROM {db}.samples
WHERE NOT endsWith(metric, '\0raw')
GROUP BY date, scope, metric, host, hour, stack_hash;

-- With a cluster, as version 3's tables (made at every first connect).
CREATE TABLE IF NOT EXISTS {db}.samples_hourly_all AS {db}.samples_hourly
ENGINE = Distributed({cluster}, {db}, samples_hourly);
