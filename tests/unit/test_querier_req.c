/* test_querier_req.c: querier.v1's requests (decode/querier-req.c) in
 * both encodings: the same request as protobuf (written with pbw) and as
 * proto3 JSON (with the .proto's names and the lowerCamelCase ones,
 * int64 as strings and numbers, enums by name and number) decodes to the
 * same fields; unknown fields are skipped; the fields profd does not
 * serve are named; bad input is refused saying what and where. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "pbw.h"
#include "querier-req.h"
#include "testlib.h"

static const char cpu[] = "process_cpu:cpu:nanoseconds:cpu:nanoseconds";

static void
check_series(const struct querier_req *r)
{
	CHECK(r->method == QM_SELECT_SERIES);
	CHECK(STREQ(r->profile_type, cpu));
	CHECK(STREQ(r->label_selector, "{service_name=\"svc-a\"}"));
	CHECK(r->start_ms == 1700000000000 && r->end_ms == 1700000600000);
	CHECK(r->group_by.n == 2 && STREQ(r->group_by.v[0], "service_name") &&
	    STREQ(r->group_by.v[1], "env"));
	CHECK(r->step_s == 15.5);
	CHECK(r->has_aggregation && r->aggregation == 1);
	CHECK(r->has_limit && r->limit == 3);
	CHECK(r->unsupported == NULL);
}

static void
test_select_series(void)
{
	struct querier_req r;
	struct error err = { 0 };
	struct buf b = { 0 };
	uint64_t bits;
	double step = 15.5;
	const char *json = "{\"profileTypeID\": \"process_cpu:cpu:nanoseconds"
	    ":cpu:nanoseconds\", \"label_selector\": \"{service_name=\\\""
	    "svc-a\\\"}\", \"start\": \"1700000000000\", \"end\": "
	    "1700000600000, \"groupBy\": [\"service_name\", \"env\"], "
	    "\"step\": 15.5, \"aggregation\": \"TIME_SERIES_AGGREGATION_TYPE_"
	    "AVERAGE\", \"limit\": \"3\", \"exemplarType\": "
	    "\"EXEMPLAR_TYPE_NONE\", \"someday\": {\"a\": 1}}";

	pbw_str(&b, 1, cpu);
	pbw_str(&b, 2, "{service_name=\"svc-a\"}");
	pbw_int(&b, 3, 1700000000000);
	pbw_int(&b, 4, 1700000600000);
	pbw_str(&b, 5, "service_name");
	pbw_str(&b, 5, "env");
	memcpy(&bits, &step, sizeof bits);
	pbw_fixed64(&b, 6, bits);
	pbw_int(&b, 7, 1);
	pbw_int(&b, 9, 3);
	pbw_int(&b, 10, 2);
	pbw_str(&b, 99, "a field of a later version");
	CHECK(querier_req_decode(QM_SELECT_SERIES, b.p, b.n, &r, &err) == 0);
	check_series(&r);
	querier_req_clear(&r);
	CHECK(querier_req_decode_json(QM_SELECT_SERIES,
	    (const uint8_t *)json, strlen(json), &r, &err) == 0);
	check_series(&r);
	querier_req_clear(&r);
	buf_free(&b);
}

static void
test_stacks(void)
{
	struct querier_req r;
	struct error err = { 0 };
	struct buf b = { 0 };
	size_t mark;
	const char *json = "{\"profile_typeID\": \"x:y:z:u:v\", "
	    "\"maxNodes\": 16, \"format\": 1, \"stackTraceSelector\": "
	    "{\"callSite\": [{\"name\": \"main\"}]}}";

	pbw_str(&b, 1, cpu);
	pbw_int(&b, 5, 8);
	pbw_int(&b, 6, QF_FLAMEGRAPH);
	CHECK(querier_req_decode(QM_SELECT_STACKS, b.p, b.n, &r, &err) == 0);
	CHECK(r.has_max_nodes && r.max_nodes == 8 && r.format == 1);
	CHECK(r.unsupported == NULL && r.start_ms == 0);
	querier_req_clear(&r);
	/* A stack trace selector changes the answer: named, not ignored. */
	mark = pbw_begin(&b, 7);
	pbw_str(&b, 1, "main");
	pbw_end(&b, mark);
	CHECK(querier_req_decode(QM_SELECT_STACKS, b.p, b.n, &r, &err) == 0);
	CHECK(STREQ(r.unsupported, "stack_trace_selector"));
	querier_req_clear(&r);
	CHECK(querier_req_decode_json(QM_SELECT_STACKS,
	    (const uint8_t *)json, strlen(json), &r, &err) == 0);
	CHECK(r.max_nodes == 16 && r.format == QF_FLAMEGRAPH);
	CHECK(STREQ(r.unsupported, "stack_trace_selector"));
	querier_req_clear(&r);
	buf_free(&b);
}

static void
test_labels(void)
{
	struct querier_req r;
	struct error err = { 0 };
	const char *json = "{\"name\": \"env\", \"matchers\": [\"{}\", "
	    "\"{a=\\\"b\\\"}\"], \"start\": null}";
	const char *series = "{\"labelNames\": [\"env\"], \"label_names\": "
	    "[\"x\"]}";

	CHECK(querier_req_decode_json(QM_LABEL_VALUES, (const uint8_t *)json,
	    strlen(json), &r, &err) == 0);
	CHECK(STREQ(r.name, "env") && r.matchers.n == 2 &&
	    STREQ(r.matchers.v[1], "{a=\"b\"}") && r.start_ms == 0);
	querier_req_clear(&r);
	/* Both names of a field add to the one list. */
	CHECK(querier_req_decode_json(QM_SERIES, (const uint8_t *)series,
	    strlen(series), &r, &err) == 0);
	CHECK(r.label_names.n == 2);
	querier_req_clear(&r);
	/* An empty body is the empty message in protobuf. */
	CHECK(querier_req_decode(QM_PROFILE_TYPES, (const uint8_t *)"", 0, &r,
	    &err) == 0);
	CHECK(r.start_ms == 0 && r.end_ms == 0);
	querier_req_clear(&r);
}

static void
refused(enum querier_method m, int json, const void *p, size_t n,
    enum error_kind kind, const char *says)
{
	struct querier_req r;
	struct error err = { 0 };
	int rc;

	rc = json ? querier_req_decode_json(m, p, n, &r, &err) :
	    querier_req_decode(m, p, n, &r, &err);
	if (rc != -1 || err.kind != kind || !HAS(err.msg, says)) {
		fprintf(stderr, "not refused as \"%s\": %s\n", says, err.msg);
		CHECK(0);
	}
}

static void
test_refused(void)
{
	struct buf b = { 0 };
	char *big;
	size_t i;

#define J(m, s, k, says) refused(m, 1, s, strlen(s), k, says)
	J(QM_SELECT_SERIES, "[]", ERR_INPUT, "not a JSON object");
	J(QM_SELECT_SERIES, "{\"start\": \"12x\"}", ERR_INPUT,
	    "\"start\": not a 64-bit integer");
	J(QM_SELECT_SERIES, "{\"start\": 1.5}", ERR_INPUT, "not an integer");
	J(QM_SELECT_SERIES, "{\"step\": \"fast\"}", ERR_INPUT,
	    "\"step\": not a number");
	J(QM_SELECT_SERIES, "{\"aggregation\": \"MOST\"}", ERR_INPUT,
	    "not a value of its enum");
	J(QM_SELECT_SERIES, "{\"groupBy\": \"env\"}", ERR_INPUT,
	    "\"groupBy\": not an array");
	J(QM_LABEL_NAMES, "{\"matchers\": [1]}", ERR_INPUT, "not a string");
	J(QM_LABEL_NAMES, "{\"matchers\": [\"a\\u0000b\"]}", ERR_INPUT,
	    "\\u0000 is not allowed");
	J(QM_LABEL_NAMES, "{\"start\": 1, \"start\": 2}", ERR_INPUT,
	    "LabelNamesRequest: JSON: duplicate");
	J(QM_LABEL_NAMES, "{\"matchers\": [", ERR_INPUT, "JSON");
#undef J
	/* A string of the wrong wire type, a varint cut short. */
	pbw_int(&b, 1, 5);
	refused(QM_SELECT_STACKS, 0, b.p, b.n, ERR_INPUT,
	    "profile_typeID (field 1) at byte 0: sent as varint, not length");
	b.n = 0;
	buf_add(&b, "\x18\xff", 2);
	refused(QM_SELECT_STACKS, 0, b.p, b.n, ERR_INPUT,
	    "SelectMergeStacktracesRequest");
	b.n = 0;
	pbw_bytes(&b, 2, "\xff\xfe", 2);
	refused(QM_SELECT_STACKS, 0, b.p, b.n, ERR_INPUT, "not UTF-8");
	/* Past the bounds. */
	b.n = 0;
	for (i = 0; i <= QUERIER_REQ_MAX_LIST; i++)
		pbw_str(&b, 1, "{}");
	refused(QM_LABEL_NAMES, 0, b.p, b.n, ERR_TOO_LARGE, "more than 256");
	big = malloc(QUERIER_REQ_MAX_STR + 2);
	memset(big, 'a', QUERIER_REQ_MAX_STR + 1);
	big[QUERIER_REQ_MAX_STR + 1] = '\0';
	b.n = 0;
	pbw_str(&b, 1, big);
	refused(QM_LABEL_VALUES, 0, b.p, b.n, ERR_TOO_LARGE, "at most 16384");
	free(big);
	buf_free(&b);
}

int
main(void)
{
	test_select_series();
	test_stacks();
	test_labels();
	test_refused();
	printf("test_querier_req: %u checks\n", checks);
	return 0;
}
