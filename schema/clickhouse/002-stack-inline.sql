-- Version 2: which frames of a stack were inlined into their caller
-- (pprof's locations: a run of inlined frames ended by one that is not),
-- which fleet queries need for pprof's frame filters (they match whole
-- locations) and its "(inline)" labels.  A table of its own rather than a
-- column of stacks: 18.16 has no ADD COLUMN IF NOT EXISTS, and a step must
-- be safe to run again after a crash before its version was recorded.
-- Stacks shipped before version 2 have no row here: read as not inlined.
CREATE TABLE IF NOT EXISTS {db}.stack_inline (
	stack_hash UInt64,
	inlined Array(UInt8)
) ENGINE = ReplacingMergeTree ORDER BY stack_hash;
