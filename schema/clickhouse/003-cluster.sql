-- Version 3: with --fleet-cluster, Distributed tables over the cluster,
-- through which fleet queries read every shard's tables: {table}_all
-- beside each table, on every node a profd ships to (each profd makes
-- them on its own node).  Each shard holds what the profd shipping to it
-- wrote; the Distributed tables are for reading only (inserts go to the
-- local tables).  Statements naming {cluster} run only when a cluster is
-- set, and then at every first connect (IF NOT EXISTS): a cluster set
-- after this version was recorded still gets its tables.
CREATE TABLE IF NOT EXISTS {db}.samples_all AS {db}.samples
ENGINE = Distributed({cluster}, {db}, samples);
CREATE TABLE IF NOT EXISTS {db}.stacks_all AS {db}.stacks
ENGINE = Distributed({cluster}, {db}, stacks);
CREATE TABLE IF NOT EXISTS {db}.stack_frames_all AS {db}.stack_frames
ENGINE = Distributed({cluster}, {db}, stack_frames);
CREATE TABLE IF NOT EXISTS {db}.profiles_all AS {db}.profiles
ENGINE = Distributed({cluster}, {db}, profiles);
