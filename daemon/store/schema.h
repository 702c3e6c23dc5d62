/* schema.h: the SQL of schema/, compiled in (see schema/embed.cmake). */
#ifndef PROFD_SCHEMA_H
#define PROFD_SCHEMA_H

struct schema_step {
	int version;		/* PRAGMA user_version after this step */
	const char *name;
	const char *sql;
};

extern const struct schema_step schema_steps[];
extern const int schema_nsteps;

#endif
