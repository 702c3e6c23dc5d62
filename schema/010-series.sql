-- profd store, version 10: cumulative metrics counted as differences
-- (issue 27, docs/TIME.md).
--
-- A series is the profiles of one producer instance: (scope, push
-- labels), and per metric those of that metric.  profile.series is a
-- hash of the push labels (the importer's, series_hash()); profiles
-- stored before get it at the upgrade (store-migrate.c).
ALTER TABLE profile ADD COLUMN series INTEGER NOT NULL DEFAULT 0;
CREATE INDEX profile_series ON profile (scope_id, series, time_ns);

-- How a profile's metric counts over a window: 0 whole (its values as
-- given: delta and gauge metrics, a series' first profile, the first
-- after a restart, every profile stored before version 10); 1 the
-- difference to the series' previous profile (the metric's block
-- column holds the differences, the values as given are kept under the
-- metric's raw tag, store.h STORE_RAW_TAG); 2 nothing (a profile older
-- than its series' newest: its successor's difference covers it; the
-- values are kept under the raw tag).
ALTER TABLE profile_metric ADD COLUMN counted INTEGER NOT NULL DEFAULT 0
    CHECK (counted IN (0, 1, 2));

DROP VIEW profile_metrics;
CREATE VIEW profile_metrics AS
SELECT pm.profile_id AS profile_id,
	m.type AS metric,
	m.unit AS unit,
	CASE pm.kind WHEN 1 THEN 'cumulative' WHEN 2 THEN 'gauge'
	    ELSE 'delta' END AS kind,
	pm.total AS total,
	CASE pm.counted WHEN 1 THEN 'difference' WHEN 2 THEN 'none'
	    ELSE 'whole' END AS counted
FROM profile_metric pm
JOIN metric m ON m.id = pm.metric_id;
