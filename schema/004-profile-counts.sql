-- profd store, version 4: why a profile's samples were not stored.
-- A decoder reports named counts (e.g. Perfetto samples whose interned
-- state a wrapped ring buffer lost: unknown_callstack_iid); until now only
-- their sum, profile.dropped_samples, was kept.  One row per non-zero count.

CREATE TABLE profile_count (
	profile_id	INTEGER NOT NULL REFERENCES profile (id) ON DELETE CASCADE,
	name		TEXT NOT NULL,
	n		INTEGER NOT NULL,
	PRIMARY KEY (profile_id, name)
) WITHOUT ROWID;

-- The public view gains `dropped`, the counts as one JSON object (text), as
-- in the push reply; the columns of version 2 keep their order.  Built by
-- hand: json_group_object is not innocuous, and views run with
-- trusted_schema off.
DROP VIEW profiles;
CREATE VIEW profiles AS
SELECT p.id AS profile_id,
	sc.name AS scope,
	p.format AS format,
	p.name AS name,
	p.time_ns AS time_ns,
	p.duration_ns AS duration_ns,
	p.imported_ns AS imported_ns,
	p.samples AS samples,
	p.dropped_samples AS dropped_samples,
	p.period AS period,
	p.bytes AS bytes,
	'{' || ifnull((SELECT group_concat('"' || replace(replace(c.name,
	    '\', '\\'), '"', '\"') || '":' || c.n, ',')
	    FROM (SELECT name, n FROM profile_count
	    WHERE profile_id = p.id ORDER BY name) c), '') || '}' AS dropped
FROM profile p
JOIN scope sc ON sc.id = p.scope_id;

CREATE VIEW profile_counts AS
SELECT profile_id AS profile_id,
	name AS reason,
	n AS count
FROM profile_count;
