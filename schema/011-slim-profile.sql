-- profd store, version 11: one index fewer per profile metric (issue 29).
-- profile_metric (metric_id) cost 11 bytes and a cell per row of every
-- profile (40 bytes a profile of 1-minute CPU profiles) and served one
-- lookup, the metrics of a type in a scope (store.c
-- S_SCOPE_METRIC_FIND), which reads as few rows from the scope's
-- profiles (profile_scope_time) and the metrics' primary key: a scope
-- has the metrics of its profiles, the index held every scope's.
DROP INDEX profile_metric_metric;
