-- profd store, version 1.
-- Interned rows (strings, mappings, functions, frames, callsites, metrics,
-- label sets) are shared by every profile of every scope; a profile adds only
-- its own row, its metrics, its labels and its aggregated sample values.

CREATE TABLE scope (
	id		INTEGER PRIMARY KEY,
	name		TEXT NOT NULL UNIQUE,
	created_ns	INTEGER NOT NULL
);

CREATE TABLE string (
	id		INTEGER PRIMARY KEY,
	s		BLOB NOT NULL UNIQUE
);

CREATE TABLE metric (
	id		INTEGER PRIMARY KEY,
	type		TEXT NOT NULL,
	unit		TEXT NOT NULL,
	UNIQUE (type, unit)
);

CREATE TABLE mapping (
	id		INTEGER PRIMARY KEY,
	memory_start	INTEGER NOT NULL,
	memory_limit	INTEGER NOT NULL,
	file_offset	INTEGER NOT NULL,
	filename_id	INTEGER NOT NULL REFERENCES string (id),
	build_id_id	INTEGER NOT NULL REFERENCES string (id),
	flags		INTEGER NOT NULL,
	UNIQUE (memory_start, memory_limit, file_offset, filename_id,
	    build_id_id, flags)
);

CREATE TABLE function (
	id		INTEGER PRIMARY KEY,
	name_id		INTEGER NOT NULL REFERENCES string (id),
	system_name_id	INTEGER NOT NULL REFERENCES string (id),
	filename_id	INTEGER NOT NULL REFERENCES string (id),
	start_line	INTEGER NOT NULL,
	UNIQUE (name_id, system_name_id, filename_id, start_line)
);

-- One frame per (function, line) of a location; flags: 1 = inlined into
-- the next frame toward the root, 2 = folded (pprof Location.is_folded).
-- function_id/mapping_id are NULL when unknown.
CREATE TABLE frame (
	id		INTEGER PRIMARY KEY,
	function_id	INTEGER REFERENCES function (id),
	mapping_id	INTEGER REFERENCES mapping (id),
	address		INTEGER NOT NULL,
	line		INTEGER NOT NULL,
	col		INTEGER NOT NULL,
	flags		INTEGER NOT NULL
);
CREATE UNIQUE INDEX frame_key ON frame (ifnull(function_id, 0),
    ifnull(mapping_id, 0), address, line, col, flags);

-- The callsite prefix tree: a stack is the id of its leaf callsite.
CREATE TABLE callsite (
	id		INTEGER PRIMARY KEY,
	parent_id	INTEGER REFERENCES callsite (id),
	frame_id	INTEGER NOT NULL REFERENCES frame (id),
	depth		INTEGER NOT NULL
);
CREATE UNIQUE INDEX callsite_key ON callsite (ifnull(parent_id, 0), frame_id);

-- A label set is identified by its canonical encoding (sorted labels).
CREATE TABLE labelset (
	id		INTEGER PRIMARY KEY,
	canon		BLOB NOT NULL UNIQUE
);
CREATE TABLE label (
	labelset_id	INTEGER NOT NULL REFERENCES labelset (id),
	key_id		INTEGER NOT NULL REFERENCES string (id),
	str_id		INTEGER REFERENCES string (id),
	num		INTEGER,
	num_unit_id	INTEGER REFERENCES string (id)
);
CREATE INDEX label_set ON label (labelset_id);
CREATE INDEX label_key ON label (key_id, str_id);

CREATE TABLE profile (
	id		INTEGER PRIMARY KEY,
	scope_id	INTEGER NOT NULL REFERENCES scope (id),
	format		TEXT NOT NULL,
	name		TEXT NOT NULL,
	hash		BLOB NOT NULL,
	bytes		INTEGER NOT NULL,
	imported_ns	INTEGER NOT NULL,
	time_ns		INTEGER NOT NULL,
	duration_ns	INTEGER NOT NULL,
	period		INTEGER NOT NULL,
	period_metric_id INTEGER REFERENCES metric (id),
	default_metric_id INTEGER REFERENCES metric (id),
	doc_url		TEXT NOT NULL,
	samples		INTEGER NOT NULL,
	dropped_samples	INTEGER NOT NULL,
	UNIQUE (scope_id, hash)
);
CREATE INDEX profile_scope_time ON profile (scope_id, time_ns);

-- The sample types of a profile, in the order the profile gave them.
CREATE TABLE profile_metric (
	profile_id	INTEGER NOT NULL REFERENCES profile (id) ON DELETE CASCADE,
	idx		INTEGER NOT NULL,
	metric_id	INTEGER NOT NULL REFERENCES metric (id),
	total		INTEGER NOT NULL,
	PRIMARY KEY (profile_id, idx)
) WITHOUT ROWID;
CREATE INDEX profile_metric_metric ON profile_metric (metric_id);

-- Labels given at push time (k=v).
CREATE TABLE profile_label (
	profile_id	INTEGER NOT NULL REFERENCES profile (id) ON DELETE CASCADE,
	key		TEXT NOT NULL,
	value		TEXT NOT NULL,
	PRIMARY KEY (profile_id, key)
) WITHOUT ROWID;

CREATE TABLE profile_comment (
	profile_id	INTEGER NOT NULL REFERENCES profile (id) ON DELETE CASCADE,
	idx		INTEGER NOT NULL,
	text		TEXT NOT NULL,
	PRIMARY KEY (profile_id, idx)
) WITHOUT ROWID;

-- Aggregated sample values: one row per (profile, metric, stack, label set,
-- time bucket). bucket is the start of the sample's time bucket, in seconds
-- since the epoch (bucket size: 1 s unless the push asked for another).
CREATE TABLE sample (
	profile_id	INTEGER NOT NULL REFERENCES profile (id) ON DELETE CASCADE,
	metric_id	INTEGER NOT NULL REFERENCES metric (id),
	callsite_id	INTEGER NOT NULL,
	labelset_id	INTEGER NOT NULL,
	bucket		INTEGER NOT NULL,
	value		INTEGER NOT NULL,
	PRIMARY KEY (profile_id, metric_id, callsite_id, labelset_id, bucket)
) WITHOUT ROWID;
