/* fuzz_fleet_retain.c: ClickHouse's answer to the shipper's "which day
 * partitions are past the age" (fleet_retain_next after
 * fleet_retain_start): any bytes.  Beside not crashing: a reply taken
 * yields one DROP PARTITION per line, each of samples or profiles and of
 * a 'YYYY-MM-DD' day that is in the reply, and then the pass ends; a
 * reply refused sets the error and drops nothing. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "config.h"
#include "fleet-retain.h"
#include "fuzz.h"

int LLVMFuzzerTestOneInput(const uint8_t *, size_t);

/* A DROP PARTITION of one of the tables retention drops from
 * (fleet-retain.c's list, which a copy here once missed tables of). */
static int
fuzz_retain_drop(const char *sql)
{
	char want[96];
	size_t i;

	for (i = 0; i < fleet_retain_ntables; i++) {
		snprintf(want, sizeof want, "ALTER TABLE db.%s DROP "
		    "PARTITION '", fleet_retain_tables[i]);
		if (strncmp(sql, want, strlen(want)) == 0)
			return 1;
	}
	return 0;
}

int
LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	struct retention pol = { .max_age = 86400, .interval = 60 };
	struct fleet_retain r = { 0 };
	struct error err = { 0 };
	char *copy, *sql, *day;
	size_t lines = 0, drops = 0, i;

	fleet_retain_set(&r, &pol);
	if ((sql = fleet_retain_start(&r, "db", 1700000000000000000LL)) ==
	    NULL)
		abort();
	free(sql);
	/* Unterminated, as libevent's buffer hands it over. */
	copy = malloc(size ? size : 1);
	memcpy(copy, data, size);
	for (i = 0; i < size; i++)
		if (copy[i] == '\n' && (i + 1 < size))
			lines++;
	if (size > 0)
		lines++;
	sql = fleet_retain_next(&r, "db", copy, size, &err);
	while (sql != NULL) {
		drops++;
		if (!fuzz_retain_drop(sql))
			abort();
		day = strchr(sql, '\'');
		if (strlen(day) != 12 || memmem(copy, size, day + 1, 10) ==
		    NULL)
			abort();
		free(sql);
		sql = fleet_retain_next(&r, "db", "", 0, &err);
		if (err.kind != ERR_NONE)
			abort();
	}
	if (err.kind != ERR_NONE ? drops != 0 : drops != lines ||
	    r.dropped != drops)
		abort();
	fleet_retain_clear(&r);
	free(copy);
	return 0;
}
