/* test_client_flamegraph.c: the SVG flame graph of a hand-made tree reply:
 * well-formed enough, names escaped, one frame per visible node with widths
 * in proportion, tiny frames pruned without changing their parents' width,
 * frame kinds and the differential colouring rule. */

/* The checks are asserts: keep them in release builds. */
#undef NDEBUG

#include <assert.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "profctl.h"

/* root 1s: a<b>&"c 0.6s (runtime.mallocgc 0.5s), main.main 0.4s (a 1ns
 * child too narrow to draw), and a kernel frame of 0.0005s. */
static const char tree_json[] =
"{\"scope\": \"svc-a\", \"metric\": {\"type\": \"cpu\", \"unit\": "
"\"nanoseconds\"}, \"unit\": \"nanoseconds\", \"total\": 1000000000,"
" \"profiles\": 1, \"root\": {\"name\": \"root\", \"self\": 0, \"total\":"
" 1000000000, \"children\": ["
"  {\"name\": \"a<b>&\\\"c\", \"self\": 99500000, \"total\": 600000000,"
"   \"children\": ["
"    {\"name\": \"do_syscall_64_[k]\", \"self\": 500000, \"total\": 500000,"
"     \"children\": []},"
"    {\"name\": \"runtime.mallocgc\", \"self\": 500000000, \"total\":"
"     500000000, \"children\": []}]},"
"  {\"name\": \"main.main\", \"self\": 399999999, \"total\": 400000000,"
"   \"file\": \"/src/main.go\", \"line\": 12, \"kind\": \"user\","
"   \"children\": ["
"    {\"name\": \"tiny.fn\", \"self\": 1, \"total\": 1, \"children\": []}"
"  ]}]}}";

/* base: main.main had 3/4 of 1s; current: 1/2 of 2s (it shrank), and
 * grow.fn went from 1/4 to 1/2 (it grew). */
static const char diff_json[] =
"{\"scope\": \"svc-a\", \"unit\": \"nanoseconds\", \"root\": {\"name\":"
" \"root\", \"base\": 1000000000, \"current\": 2000000000, \"children\": ["
"  {\"name\": \"grow.fn\", \"base\": 250000000, \"current\": 1000000000,"
"   \"children\": []},"
"  {\"name\": \"main.main\", \"base\": 750000000, \"current\": 1000000000,"
"   \"children\": []}]}}";

static json_t *
parse(const char *s)
{
	json_error_t	 e;
	json_t		*j;

	if ((j = json_loads(s, 0, &e)) == NULL) {
		fprintf(stderr, "fixture: %s at %d\n", e.text, e.position);
		abort();
	}
	return j;
}

static char *
render(json_t *j, const struct flamegraph_opts *o)
{
	FILE	*f;
	char	*buf = NULL, *cause = NULL;
	size_t	 len = 0;

	assert((f = open_memstream(&buf, &len)) != NULL);
	assert(flamegraph_render(f, j, o, &cause) == 0);
	assert(fclose(f) == 0);
	return buf;
}

static size_t
count(const char *s, const char *sub)
{
	size_t	 n = 0;

	while ((s = strstr(s, sub)) != NULL) {
		n++;
		s += strlen(sub);
	}
	return n;
}

/* The frame group of an escaped name: from its <g to its </g>. */
static const char *
frame(const char *svg, const char *escaped)
{
	char		 key[256];
	const char	*p;

	snprintf(key, sizeof key, "<g class=\"f\" data-n=\"%s\"", escaped);
	p = strstr(svg, key);
	return p;
}

static double
attr(const char *p, const char *name)
{
	char		 key[64];
	const char	*a;

	assert(p != NULL);
	snprintf(key, sizeof key, " %s=\"", name);
	assert((a = strstr(p, key)) != NULL);
	assert(a < strstr(p, "</g>"));
	return strtod(a + strlen(key), NULL);
}

static void
fill(const char *p, char *buf, size_t len)
{
	const char	*a;
	size_t		 n;

	assert(p != NULL);
	assert((a = strstr(p, " fill=\"")) != NULL);
	a += 7;
	n = strcspn(a, "\"");
	assert(n < len);
	memcpy(buf, a, n);
	buf[n] = '\0';
}

static void
test_tree(void)
{
	json_t		*j = parse(tree_json);
	char		*svg, *tail, rgb[64], want[64];
	const char	*root, *esc, *mall, *mainf;
	double		 rw;

	svg = render(j, NULL);
	assert(strncmp(svg, "<?xml ", 6) == 0);
	assert(strstr(svg, "<svg ") != NULL);
	tail = svg + strlen(svg) - strlen("</svg>\n");
	assert(strcmp(tail, "</svg>\n") == 0);
	assert(count(svg, "<svg") == 1);
	assert(count(svg, "<g") == count(svg, "</g>"));
	assert(count(svg, "<title>") == count(svg, "</title>"));
	assert(count(svg, "<text") == count(svg, "</text>"));
	assert(count(svg, "<![CDATA[") == 1 && count(svg, "]]>") == 1);

	/* Escaped in the data, the tooltip and the label; never raw. */
	assert(strstr(svg, "a<b>") == NULL);
	esc = "a&lt;b&gt;&amp;&quot;c";
	assert(count(svg, esc) == 3);

	/* A frame per visible node; the 1ns one is pruned. */
	assert(count(svg, "<g class=\"f\"") == 5);
	assert(strstr(svg, "tiny.fn") == NULL);
	root = frame(svg, "root");
	mainf = frame(svg, "main.main");
	mall = frame(svg, "runtime.mallocgc");
	rw = attr(root, "width");
	assert(rw == 1180);
	assert(attr(frame(svg, esc), "width") == 0.6 * rw);
	assert(attr(mall, "width") == 0.5 * rw);
	/* main.main keeps its pruned child's value in its width. */
	assert(attr(mainf, "data-v") == 400000000);
	assert(attr(mainf, "width") == 0.4 * rw);
	/* x by cumulative position, y by depth with the root at the bottom. */
	assert(attr(frame(svg, esc), "x") == attr(root, "x"));
	assert(attr(mainf, "x") == attr(root, "x") + 0.6 * rw);
	assert(attr(mainf, "data-s") == 600000000);
	assert(attr(mall, "y") < attr(mainf, "y"));
	assert(attr(mainf, "y") < attr(root, "y"));

	/* Tooltip: name, value in the unit, share of the total. */
	assert(strstr(svg, "<title>runtime.mallocgc (500ms, 50.00%)</title>")
	    != NULL);
	assert(strstr(svg, "<title>root (1s, 100%)</title>") != NULL);

	/* Kinds: given, or from the name; colours by kind and name. */
	assert(strstr(mainf, "data-k=\"user\"") < strstr(mainf, "</g>"));
	assert(strstr(mall, "data-k=\"runtime\"") < strstr(mall, "</g>"));
	assert(strstr(frame(svg, "do_syscall_64_[k]"), "data-k=\"kernel\"")
	    != NULL);
	fill(mall, rgb, sizeof rgb);
	flamegraph_color("runtime", "runtime.mallocgc", want, sizeof want);
	assert(strcmp(rgb, want) == 0);

	/* The interactive parts. */
	assert(strstr(svg, "id=\"unzoom\"") != NULL);
	assert(strstr(svg, ">Reset Zoom<") != NULL);
	assert(strstr(svg, ">Search<") != NULL);
	assert(strstr(svg, "id=\"matched\"") != NULL);
	assert(strstr(svg, "Matched: ") != NULL);
	/* Self-contained: the namespace is the only URL. */
	assert(count(svg, "http") == 1);
	free(svg);

	/* A wider minimum prunes the kernel frame (0.59 px) too. */
	{
		struct flamegraph_opts	 o = { "T<1>", 0, 1.0 };

		svg = render(j, &o);
		assert(count(svg, "<g class=\"f\"") == 4);
		assert(strstr(svg, "do_syscall_64") == NULL);
		assert(strstr(svg, ">T&lt;1&gt;</text>") != NULL);
		free(svg);
	}
	json_decref(j);
}

static void
test_kind(void)
{
	assert(strcmp(flamegraph_kind("main.main", NULL), "user") == 0);
	assert(strcmp(flamegraph_kind("do_syscall_64_[k]", NULL),
	    "kernel") == 0);
	assert(strcmp(flamegraph_kind("tcp_sendmsg", "[kernel.kallsyms]"),
	    "kernel") == 0);
	assert(strcmp(flamegraph_kind("schedule", "/boot/vmlinux-6.1"),
	    "kernel") == 0);
	assert(strcmp(flamegraph_kind("runtime.gcBgMarkWorker",
	    "/usr/bin/app"), "runtime") == 0);
	assert(strcmp(flamegraph_kind("std::__detail::_Map_base", NULL),
	    "runtime") == 0);
	assert(strcmp(flamegraph_kind("std::vector<int>::push_back", NULL),
	    "user") == 0);
	assert(strcmp(flamegraph_kind("runtimeFoo", NULL), "user") == 0);
}

static void
test_diff(void)
{
	json_t		*j = parse(diff_json), *base, *cur, *m;
	char		 rgb[64], *svg, *dump;
	const char	*g;

	/* The rule: shares of the totals, red grew, blue shrank. */
	assert(flamegraph_diff_change(250, 1000, 1000, 2000) == 0.5);
	assert(flamegraph_diff_change(750, 1000, 1000, 2000) == -1.0 / 3);
	assert(flamegraph_diff_change(5, 10, 10, 20) == 0);
	flamegraph_diff_color(250, 1000, 1000, 2000, rgb, sizeof rgb);
	assert(strcmp(rgb, "rgb(255,140,140)") == 0);
	flamegraph_diff_color(750, 1000, 1000, 2000, rgb, sizeof rgb);
	assert(strncmp(rgb, "rgb(", 4) == 0 &&
	    strcmp(rgb + strlen(rgb) - 5, ",255)") == 0);
	flamegraph_diff_color(5, 10, 10, 20, rgb, sizeof rgb);
	assert(strcmp(rgb, "rgb(235,235,235)") == 0);
	/* New: full red; gone: full blue. */
	flamegraph_diff_color(0, 10, 10, 20, rgb, sizeof rgb);
	assert(strcmp(rgb, "rgb(255,45,45)") == 0);
	flamegraph_diff_color(10, 10, 0, 20, rgb, sizeof rgb);
	assert(strcmp(rgb, "rgb(45,45,255)") == 0);

	svg = render(j, NULL);
	assert(strstr(svg, ">Differential Flame Graph<") != NULL);
	assert(strstr(svg, "data-diff=\"1\"") != NULL);
	g = frame(svg, "grow.fn");
	fill(g, rgb, sizeof rgb);
	assert(strcmp(rgb, "rgb(255,140,140)") == 0);
	assert(attr(g, "width") == 590);	/* current: half */
	fill(frame(svg, "main.main"), rgb, sizeof rgb);
	assert(strstr(rgb, ",255)") != NULL);
	assert(strstr(svg, "+50.0%") != NULL);
	free(svg);
	json_decref(j);

	/* Two trees merged by path into base/current. */
	base = parse("{\"unit\": \"count\", \"root\": {\"name\": \"root\","
	    " \"total\": 4, \"children\": [{\"name\": \"a\", \"total\": 3,"
	    " \"children\": []}, {\"name\": \"gone\", \"total\": 1,"
	    " \"children\": []}]}}");
	cur = parse("{\"unit\": \"count\", \"root\": {\"name\": \"root\","
	    " \"total\": 8, \"children\": [{\"name\": \"a\", \"total\": 2,"
	    " \"children\": []}, {\"name\": \"new\", \"total\": 6,"
	    " \"children\": []}]}}");
	m = flamegraph_diff_merge(base, cur);
	g = dump = json_dumps(m, JSON_SORT_KEYS | JSON_COMPACT);
	assert(strstr(g, "\"base\":4,\"children\"") != NULL);
	assert(strstr(g, "{\"base\":3,\"children\":[],\"current\":2,"
	    "\"name\":\"a\"") != NULL);
	assert(strstr(g, "{\"base\":0,\"children\":[],\"current\":6,"
	    "\"name\":\"new\"") != NULL);
	assert(strstr(g, "{\"base\":1,\"children\":[],\"current\":0,"
	    "\"name\":\"gone\"") != NULL);
	free(dump);
	svg = render(m, NULL);
	assert(strstr(svg, "data-n=\"gone\"") == NULL);	/* no width */
	assert(count(svg, "<g class=\"f\"") == 3);
	free(svg);
	json_decref(m);
	json_decref(base);
	json_decref(cur);
}

static void
test_empty(void)
{
	json_t	*j;
	char	*svg, *cause = NULL;
	FILE	*f;

	j = parse("{\"unit\": \"bytes\", \"root\": {\"name\": \"root\","
	    " \"self\": 0, \"total\": 0, \"children\": []}}");
	svg = render(j, NULL);
	assert(strstr(svg, ">No samples<") != NULL);
	assert(count(svg, "<g class=\"f\"") == 0);
	assert(count(svg, "<g") == count(svg, "</g>"));
	free(svg);
	json_decref(j);

	j = parse("{\"error\": \"x\"}");
	assert((f = fopen("/dev/null", "w")) != NULL);
	assert(flamegraph_render(f, j, NULL, &cause) == -1);
	assert(cause != NULL);
	free(cause);
	fclose(f);
	json_decref(j);
}

int
main(void)
{
	test_kind();
	test_tree();
	test_diff();
	test_empty();
	printf("test_client_flamegraph: ok\n");
	return 0;
}
