-- Version 6: per profile and metric, how many sample rows it has in
-- samples (raw rows under their raw name), which the fleet's views read
-- for the profile count of a window and for the metrics a scope has
-- (docs/FLEET.md "What reads what") instead of the rows: a profile's
-- few rows here against its thousands there.  SummingMergeTree fed as
-- samples_hourly is (a materialized view on samples); the readers count
-- distinct (host, profile), so a repeat or a part not merged yet counts
-- once.  Day partitions as samples', dropped with them
-- (fleet-retain.c).
CREATE TABLE IF NOT EXISTS {db}.samples_profiles (
	date Date,
	scope String,
	metric String,
	host String,
	time DateTime,
	profile UInt64,
	rows UInt64
) ENGINE = SummingMergeTree(rows) PARTITION BY date
ORDER BY (scope, metric, time, host, profile);

-- The rows shipped before this version: once, while the table is empty
-- (a step run again after a crash adds nothing), then the view, as
-- 005-hourly.sql does (README.md: the window between the two).
INSERT INTO {db}.samples_profiles SELECT date, scope, metric, host, time,
	profile, count() AS rows
FROM {db}.samples
WHERE (SELECT count() FROM {db}.samples_profiles) = 0
GROUP BY date, scope, metric, host, time, profile;

CREATE MATERIALIZED VIEW IF NOT EXISTS {db}.samples_profiles_mv
TO {db}.samples_profiles AS SELECT date, scope, metric, host, time,
	profile, count() AS rows
FROM {db}.samples
GROUP BY date, scope, metric, host, time, profile;

-- With a cluster, as version 3's tables (made at every first connect).
CREATE TABLE IF NOT EXISTS {db}.samples_profiles_all AS {db}.samples_profiles
ENGINE = Distributed({cluster}, {db}, samples_profiles);
