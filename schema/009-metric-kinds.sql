-- profd store, version 9: what each metric of a profile means over time
-- (issue 27, docs/TIME.md): 0 delta, 1 cumulative, 2 gauge (the values
-- of daemon/base/kind.h).  Per profile, not per metric: alloc_space is
-- cumulative in a heap snapshot and a delta in a ?seconds=N fetch, and
-- both may be in one scope.  The importer infers it or takes the push's;
-- profiles stored before get the importer's rule at the upgrade
-- (store-migrate.c), since SQL does not know it.
ALTER TABLE profile_metric ADD COLUMN kind INTEGER NOT NULL DEFAULT 0
    CHECK (kind IN (0, 1, 2));

-- The public view of a profile's metrics with their kinds (docs/SQL.md).
CREATE VIEW profile_metrics AS
SELECT pm.profile_id AS profile_id,
	m.type AS metric,
	m.unit AS unit,
	CASE pm.kind WHEN 1 THEN 'cumulative' WHEN 2 THEN 'gauge'
	    ELSE 'delta' END AS kind,
	pm.total AS total
FROM profile_metric pm
JOIN metric m ON m.id = pm.metric_id;
