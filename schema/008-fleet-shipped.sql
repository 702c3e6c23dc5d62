-- profd store, version 8: the fleet shipping cursor (issue 16).  A
-- profile's shipped_ns is 0 until ClickHouse acknowledged its rows, then
-- the time it did.  A flag on each profile, not a "last shipped id": the
-- profile table has no AUTOINCREMENT, so once retention deletes the
-- newest profile its id is given again, and an id cursor would skip the
-- new one.  The partial index holds only the backlog: listing it is
-- cheap however many profiles have shipped.
ALTER TABLE profile ADD COLUMN shipped_ns INTEGER NOT NULL DEFAULT 0;
CREATE INDEX profile_unshipped ON profile (id) WHERE shipped_ns = 0;
