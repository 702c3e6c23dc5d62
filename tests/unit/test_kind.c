/* test_kind.c: a metric's kind (base/kind.c): its names, and the rule the
 * importer infers it by (docs/TIME.md): Go's counters are cumulative and
 * its states gauges in a profile without a duration; a duration, another
 * format or any other sample type adds up. */
#include <string.h>

#include "kind.h"
#include "nitems.h"
#include "testlib.h"

static void
test_names(void)
{
	enum metric_kind k;
	int i;

	for (i = 0; i < KIND_COUNT; i++) {
		CHECK(kind_parse(kind_name(i), strlen(kind_name(i)), &k) == 0);
		CHECK((int)k == i);
	}
	CHECK(strcmp(kind_name(KIND_CUMULATIVE), "cumulative") == 0);
	CHECK(strcmp(kind_name(-1), "delta") == 0);
	CHECK(strcmp(kind_name(KIND_COUNT), "delta") == 0);
	/* Exactly a name: no prefix, no case folding, no empty one. */
	CHECK(kind_parse("gaug", 4, &k) == -1);
	CHECK(kind_parse("gauges", 6, &k) == -1);
	CHECK(kind_parse("Gauge", 5, &k) == -1);
	CHECK(kind_parse("", 0, &k) == -1);
	CHECK(kind_parse("gauge;", 5, &k) == 0 && k == KIND_GAUGE);
}

static void
test_infer(void)
{
	static const struct {
		const char *format, *type;
		int64_t duration_ns;
		enum metric_kind want;
	} c[] = {
		/* Go's CPU profile has a duration. */
		{ "pprof", "samples", 10000000000, KIND_DELTA },
		{ "pprof", "cpu", 10000000000, KIND_DELTA },
		/* A heap snapshot holds both kinds. */
		{ "pprof", "alloc_objects", 0, KIND_CUMULATIVE },
		{ "pprof", "alloc_space", 0, KIND_CUMULATIVE },
		{ "pprof", "inuse_objects", 0, KIND_GAUGE },
		{ "pprof", "inuse_space", 0, KIND_GAUGE },
		/* Mutex and block, plain fetches. */
		{ "pprof", "contentions", 0, KIND_CUMULATIVE },
		{ "pprof", "delay", 0, KIND_CUMULATIVE },
		{ "pprof", "goroutine", 0, KIND_GAUGE },
		{ "pprof", "threadcreate", 0, KIND_GAUGE },
		/* A ?seconds=N fetch is a difference already: every metric. */
		{ "pprof", "alloc_space", 30000000000, KIND_DELTA },
		{ "pprof", "inuse_space", 30000000000, KIND_DELTA },
		{ "pprof", "delay", 1, KIND_DELTA },
		/* Without a duration, CPU and anything unknown add up. */
		{ "pprof", "cpu", 0, KIND_DELTA },
		{ "pprof", "wall", 0, KIND_DELTA },
		{ "pprof", "alloc_in_new_tlab_bytes", 0, KIND_DELTA },
		{ "pprof", "Alloc_space", 0, KIND_DELTA },
		/* Other formats' samples happen in time. */
		{ "folded", "inuse_space", 0, KIND_DELTA },
		{ "folded", "samples", 0, KIND_DELTA },
		{ "perfetto", "goroutine", 0, KIND_DELTA },
		{ NULL, "alloc_space", 0, KIND_DELTA },
	};
	size_t i;

	for (i = 0; i < NITEMS(c); i++) {
		if (kind_infer(c[i].format, c[i].type, c[i].duration_ns) !=
		    c[i].want)
			fprintf(stderr, "case %zu: %s %s\n", i, c[i].format ?
			    c[i].format : "(null)", c[i].type);
		CHECK(kind_infer(c[i].format, c[i].type, c[i].duration_ns) ==
		    c[i].want);
	}
}

/* The Go types the rule knows, listed with their kinds without a
 * duration, for a producer that says what became of them. */
static void
test_go_types(void)
{
	enum metric_kind kind;
	const char *type;
	size_t i;

	for (i = 0; (type = kind_go_type(i, &kind)) != NULL; i++)
		CHECK(kind == kind_infer("pprof", type, 0) &&
		    kind != KIND_DELTA);
	CHECK(i == 8);
	CHECK(kind_go_type(i + 1, &kind) == NULL);
	CHECK(strcmp(kind_go_type(0, &kind), "alloc_objects") == 0 &&
	    kind == KIND_CUMULATIVE);
}

int
main(void)
{
	test_names();
	test_infer();
	test_go_types();
	printf("test_kind: %u checks passed\n", checks);
	return 0;
}
