/* test_client_render_timeline.c: render-timeline.c: GET /v1/timeline as a sparkline
 * (binning into columns, the block characters), on canned replies. */
#include "clienttest.h"

static char *
spark(const double *v, size_t n)
{
	FILE	*f;
	char	*out = NULL;
	size_t	 len = 0;

	f = open_memstream(&out, &len);
	render_timeline_sparkline(f, v, n);
	fclose(f);
	return out;
}

static void
test_sparkline(void)
{
	double	 zeros[4] = { 0, 0, 0, 0 }, one[1] = { 5 };
	double	 ramp[8] = { 0, 1, 2, 3, 4, 5, 6, 7 };
	double	 tiny[3] = { 1000, 1, 0 }, cols[RENDER_TIMELINE_COLUMNS];
	double	 many[250];
	char	*s;
	size_t	 i, n;

	s = spark(zeros, 4);
	expect_str("all zeros", s, "▁▁▁▁\n");
	free(s);
	s = spark(one, 1);
	expect_str("one point", s, "█\n");
	free(s);
	s = spark(ramp, 8);
	expect_str("ramp", s, "▁▂▃▄▅▆▇█\n");
	free(s);
	/* A non-zero value too small to scale still shows. */
	s = spark(tiny, 3);
	expect_str("tiny", s, "█▂▁\n");
	free(s);
	s = spark(NULL, 0);
	expect_str("empty", s, "\n");
	free(s);

	/* Binning: fewer points than columns are kept, more are summed. */
	n = render_timeline_bin(ramp, 8, cols, RENDER_TIMELINE_COLUMNS);
	assert(n == 8 && cols[7] == 7);
	for (i = 0; i < 250; i++)
		many[i] = 1;
	n = render_timeline_bin(many, 250, cols, RENDER_TIMELINE_COLUMNS);
	assert(n == RENDER_TIMELINE_COLUMNS);
	{
		double	 sum = 0;

		for (i = 0; i < n; i++) {
			assert(cols[i] == 2 || cols[i] == 3);
			sum += cols[i];
		}
		assert(sum == 250);
	}
	n = render_timeline_bin(many, 240, cols, RENDER_TIMELINE_COLUMNS);
	assert(n == 120 && cols[0] == 2 && cols[119] == 2);
}

static void
test_timeline(void)
{
	char	*s;

	s = render(render_timeline_json, "{\"metric\": {\"type\": \"cpu\", "
	    "\"unit\": \"nanoseconds\"}, \"unit\": \"nanoseconds\", "
	    "\"step_s\": 10, \"total\": 4000000000, \"points\": ["
	    "{\"time\": \"2026-01-01T00:00:00Z\", \"time_ns\": 1, \"value\": 0},"
	    "{\"time\": \"2026-01-01T00:00:10Z\", \"time_ns\": 2, "
	    "\"value\": 1000000000},"
	    "{\"time\": \"2026-01-01T00:00:20Z\", \"time_ns\": 3, "
	    "\"value\": 3000000000}]}", 0);
	expect_str("timeline", s, "▁▃█\n"
	    "2026-01-01T00:00:00Z .. 2026-01-01T00:00:20Z  max 3s "
	    "(3 points, step 10s)\n");
	free(s);
	s = render(render_timeline_json, "{\"unit\": \"count\", \"points\": "
	    "[]}", 0);
	expect_str("empty timeline", s, "no samples\n");
	free(s);
	s = render(render_timeline_json, "{\"points\": []}", -1);
	free(s);
}

int
main(void)
{
	test_sparkline();
	test_timeline();
	return finish();
}
