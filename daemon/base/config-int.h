/* config-int.h: the settings table shared by config-options.c (the table,
 * parsing and formatting one value), config.c (defaults, files, the
 * command line), config-print.c (--help, --print-config) and
 * config-scrape.c (the [scrape NAME] sections).  Calls go config-print ->
 * config -> config-scrape, config-options. */
#ifndef PROFD_CONFIG_INT_H
#define PROFD_CONFIG_INT_H

#include <stddef.h>
#include <stdint.h>

#include "config.h"

enum opt_type {
	T_PATH,			/* a path */
	T_OPTPATH,		/* a path, or "none" for nothing */
	T_BOOL,
	T_INT,			/* a small count */
	T_SIZE,			/* bytes, with k/M/G */
	T_COUNT,		/* a size_t count */
	T_U32,			/* a count or bytes, with k/M/G */
	T_U64,			/* bytes, with k/M/G */
	T_DURATION,		/* seconds, with s/m/h/d */
	T_LEVEL,		/* a log level */
	T_TEXT,			/* one line of text, "none": unset */
	T_HOSTS,		/* host names; repeatable, each adds one */
};

struct opt {
	const char *name;
	enum opt_type type;
	size_t off;
	uint64_t min, max;
	int restart;		/* a change needs a restart */
	const char *help;
};

extern const struct opt config_opts[];
extern const size_t config_nopts;

/* Parse and store one value of o, range-checked. */
int config_opt_set(struct config *, const struct opt *o, const char *value,
    struct error *);
int config_parse_bytes(const char *, uint64_t *);
int config_parse_duration(const char *, uint64_t *);
/* One setting's value as text, as the config file takes it. */
void config_opt_format(const struct config *, const struct opt *o,
    char *out, size_t n);
void config_format_duration(uint64_t seconds, char *out, size_t n);
void config_format_bytes(uint64_t bytes, char *out, size_t n);
/* config-scrape.c: a [scrape NAME] section begun (an error if the name
 * is taken or not a scope name), one of its keys, the defaults applied
 * and checked at the end of a file; whether it scrapes a profile. */
struct scrape_target *config_scrape_begin(struct config *, const char *name,
    const char *file, int line, struct error *);
int config_scrape_set(struct scrape_target *, const char *key,
    const char *value, struct error *);
int config_scrape_finish(struct config *, struct error *);

/* Is this a system instance (root or run by systemd)? */
int config_system_instance(void);

#endif
