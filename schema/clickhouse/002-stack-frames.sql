-- Version 2: what else fleet queries need of a stack's frames (leaf
-- first, as in stacks): whether each was inlined into its caller
-- (pprof's locations are a run of inlined frames ended by one that is
-- not: frame filters match whole locations, top labels "(inline)"), its
-- function's start line and its mapping file (the tree's nodes show
-- both).  A table of its own rather than columns of stacks: 18.16 has no
-- ADD COLUMN IF NOT EXISTS, and a step must be safe to run again after a
-- crash before its version was recorded.  ReplacingMergeTree keyed as
-- stacks.  Stacks shipped before version 2 have no row here: read as not
-- inlined, start line 0, no mapping.
CREATE TABLE IF NOT EXISTS {db}.stack_frames (
	stack_hash UInt64,
	inlined Array(UInt8),
	start_lines Array(Int64),
	mappings Array(String)
) ENGINE = ReplacingMergeTree ORDER BY stack_hash;
