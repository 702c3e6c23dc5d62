/* main.c: profd's command line. */
#include <errno.h>
#include <getopt.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "log.h"
#include "server.h"
#include "util.h"

static void
usage(FILE *f)
{
	struct config d;

	config_defaults(&d);
	fprintf(f,
"usage: profd [options]\n"
"\n"
"The profile ingestion daemon: takes pprof profiles over HTTP on a Unix\n"
"socket, keeps them in one SQLite file and answers queries about them.\n"
"\n"
"  --socket PATH          Unix socket to listen on (default %s)\n"
"  --db PATH              the SQLite store (default %s)\n"
"  --foreground, -f       stay in the foreground, log to stderr\n"
"  --log-level LEVEL      error, warning, notice, info (default), debug\n"
"  --query-threads N      read-only query threads (default %d)\n"
"  --max-body BYTES       largest pushed blob (default %zu)\n"
"  --max-inflated BYTES   largest blob after gunzip (default %zu)\n"
"  --max-inflate-ratio N  inflated/compressed bound (default %u)\n"
"  --max-stack-depth N    frames in one stack (default %u)\n"
"  --max-strings N        strings in one profile (default %u)\n"
"  --max-string-len BYTES longest string (default %u)\n"
"  --max-upload BYTES     largest chunked upload (default %llu)\n"
"  --help, -h             this text\n"
"  --version, -V          print the version\n"
"\n"
"Defaults: as root /run/profd/profd.sock and /var/lib/profd/profd.db;\n"
"otherwise $XDG_RUNTIME_DIR/profd/profd.sock and\n"
"$XDG_STATE_HOME/profd/profd.db (~/.local/state when unset).\n",
	    d.socket_path, d.db_path, d.query_threads, d.limits.max_body,
	    d.limits.max_inflated, d.limits.max_inflate_ratio,
	    d.limits.max_stack_depth, d.limits.max_strings,
	    d.limits.max_string_len,
	    (unsigned long long)d.limits.max_upload);
	config_clear(&d);
}

static unsigned long long
parse_num(const char *opt, const char *s, unsigned long long max)
{
	unsigned long long v;
	char *end;

	errno = 0;
	v = strtoull(s, &end, 10);
	if (*s == '\0' || *s == '-' || errno != 0 || v > max) {
		fprintf(stderr, "profd: %s: \"%s\" is not a number up to "
		    "%llu\n", opt, s, max);
		exit(2);
	}
	/* 64k, 256M, 1G */
	switch (*end) {
	case 'k': case 'K': v <<= 10; end++; break;
	case 'm': case 'M': v <<= 20; end++; break;
	case 'g': case 'G': v <<= 30; end++; break;
	}
	if (*end != '\0' || v > max) {
		fprintf(stderr, "profd: %s: \"%s\" is not a number up to "
		    "%llu\n", opt, s, max);
		exit(2);
	}
	return v;
}

enum {
	OPT_SOCKET = 256, OPT_DB, OPT_LOG_LEVEL, OPT_QUERY_THREADS,
	OPT_MAX_BODY, OPT_MAX_INFLATED, OPT_MAX_RATIO, OPT_MAX_DEPTH,
	OPT_MAX_STRINGS, OPT_MAX_STRING_LEN, OPT_MAX_UPLOAD,
};

int
main(int argc, char **argv)
{
	static const struct option opts[] = {
		{ "socket", required_argument, NULL, OPT_SOCKET },
		{ "db", required_argument, NULL, OPT_DB },
		{ "foreground", no_argument, NULL, 'f' },
		{ "log-level", required_argument, NULL, OPT_LOG_LEVEL },
		{ "query-threads", required_argument, NULL, OPT_QUERY_THREADS },
		{ "max-body", required_argument, NULL, OPT_MAX_BODY },
		{ "max-inflated", required_argument, NULL, OPT_MAX_INFLATED },
		{ "max-inflate-ratio", required_argument, NULL, OPT_MAX_RATIO },
		{ "max-stack-depth", required_argument, NULL, OPT_MAX_DEPTH },
		{ "max-strings", required_argument, NULL, OPT_MAX_STRINGS },
		{ "max-string-len", required_argument, NULL,
		    OPT_MAX_STRING_LEN },
		{ "max-upload", required_argument, NULL, OPT_MAX_UPLOAD },
		{ "help", no_argument, NULL, 'h' },
		{ "version", no_argument, NULL, 'V' },
		{ NULL, 0, NULL, 0 },
	};
	struct config cfg;
	int c, rc;

	config_defaults(&cfg);
	while ((c = getopt_long(argc, argv, "fhV", opts, NULL)) != -1) {
		switch (c) {
		case OPT_SOCKET:
			free(cfg.socket_path);
			cfg.socket_path = xstrdup(optarg);
			break;
		case OPT_DB:
			free(cfg.db_path);
			cfg.db_path = xstrdup(optarg);
			break;
		case 'f':
			cfg.foreground = 1;
			break;
		case OPT_LOG_LEVEL:
			if ((cfg.log_level = log_level_parse(optarg)) == -1) {
				fprintf(stderr, "profd: --log-level: unknown "
				    "level \"%s\"\n", optarg);
				return 2;
			}
			break;
		case OPT_QUERY_THREADS:
			cfg.query_threads = (int)parse_num("--query-threads",
			    optarg, 64);
			if (cfg.query_threads < 1)
				cfg.query_threads = 1;
			break;
		case OPT_MAX_BODY:
			cfg.limits.max_body = parse_num("--max-body", optarg,
			    SIZE_MAX / 2);
			break;
		case OPT_MAX_INFLATED:
			cfg.limits.max_inflated = parse_num("--max-inflated",
			    optarg, SIZE_MAX / 2);
			break;
		case OPT_MAX_RATIO:
			cfg.limits.max_inflate_ratio = (uint32_t)parse_num(
			    "--max-inflate-ratio", optarg, UINT32_MAX);
			break;
		case OPT_MAX_DEPTH:
			cfg.limits.max_stack_depth = (uint32_t)parse_num(
			    "--max-stack-depth", optarg, UINT32_MAX);
			break;
		case OPT_MAX_STRINGS:
			cfg.limits.max_strings = (uint32_t)parse_num(
			    "--max-strings", optarg, UINT32_MAX);
			break;
		case OPT_MAX_STRING_LEN:
			cfg.limits.max_string_len = (uint32_t)parse_num(
			    "--max-string-len", optarg, UINT32_MAX);
			break;
		case OPT_MAX_UPLOAD:
			cfg.limits.max_upload = parse_num("--max-upload",
			    optarg, UINT64_MAX / 2);
			break;
		case 'h':
			usage(stdout);
			config_clear(&cfg);
			return 0;
		case 'V':
			printf("profd %s\n", PROFD_VERSION);
			config_clear(&cfg);
			return 0;
		default:
			usage(stderr);
			config_clear(&cfg);
			return 2;
		}
	}
	if (optind < argc) {
		fprintf(stderr, "profd: unexpected argument \"%s\"\n",
		    argv[optind]);
		usage(stderr);
		config_clear(&cfg);
		return 2;
	}
	log_init(cfg.log_level, cfg.foreground);
	rc = server_run(&cfg);
	config_clear(&cfg);
	return rc;
}
