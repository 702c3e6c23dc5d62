/* fleet_schema.h: the SQL of schema/clickhouse, compiled in (see
 * schema/embed.cmake); each step's statements end in ";" at a line's
 * end, {db} stands for the fleet database. */
#ifndef PROFD_FLEET_SCHEMA_H
#define PROFD_FLEET_SCHEMA_H

#include "schema.h"

extern const struct schema_step fleet_schema_steps[];
extern const int fleet_schema_nsteps;

#endif
