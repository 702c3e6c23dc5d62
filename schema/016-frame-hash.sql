-- profd store, version 16: frame's unique index on every column replaced
-- by an index on a 23-bit hash of them (issue 41, store growth).
-- (docs/DESIGN-STORAGE.md, "Callsite chunks", "Frames found by hash".)
-- frame_key repeated all six columns of a frame beside its row: ~24 bytes
-- a frame, as much as the row, and a drifting CPU series brings a few
-- dozen frames a profile.  The writer (store.c, S_FRAME_GET) looks a frame
-- up by the same expression over its parameters, then by every column, as
-- it did, and inserts it only when it is not there: frames stay unique.
-- The expression is plain SQL arithmetic (no function of profd's), so any
-- sqlite3 can read, check and write the store; an entry is ~11 bytes.
-- The address's low 24 bits only: the sum cannot overflow for any
-- function id or line a profile has (and were it to, it would turn into
-- the same real number on both sides).
DROP INDEX frame_key;
CREATE INDEX frame_hash ON frame ((((ifnull(function_id, 0) * 8191 +
    line) * 8191 + (address & 16777215)) & 8388607));
