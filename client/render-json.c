/* render-json.c: a reply as --json prints it, jansson's text indented by
 * two (render_json), and the same text made as a reply streams in
 * (render_json_stream_*): the top object or array and the containers in
 * it are followed with jstream, and each value in those is printed by
 * jansson on its own, its lines indented for the depth it is at. So the
 * text is render_json's byte for byte, and what is held is one value (a
 * row of /v1/query, a trace), never the reply. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "alloc.h"
#include "profctl.h"

#define RENDER_JSON_FLAGS	JSON_INDENT(2)

/* Containers this deep and deeper are taken whole: a reply's large arrays
 * are members of its top object (rows, traces), their values small. */
#define RENDER_JSON_WHOLE	2

struct render_json_stream {
	FILE		*f;
	struct jstream	*js;
	size_t		*items;		/* per open container: values */
	size_t		 cap;
	char		*error;		/* the top object's "error" */
	char		*detail;	/* ... and "detail" */
};

static int
render_json_safe_cb(const char *p, size_t n, void *arg)
{
	termsafe_out_write(arg, p, n);
	return 0;
}

/* A reply as --json prints it: indented by two, then a newline. DEL and
 * the C1 controls, which JSON allows raw in a string, as \u escapes
 * (termsafe.c): the same value, shown on a terminal, not obeyed. */
void
render_json(FILE *f, json_t *reply)
{
	struct termsafe_out	 o;

	termsafe_out_init(&o, f, TERMSAFE_TEXT);
	json_dump_callback(reply, render_json_safe_cb, &o, RENDER_JSON_FLAGS);
	termsafe_out_end(&o);
	fputc('\n', f);
}

static void
render_json_indent(FILE *f, size_t depth)
{
	while (depth-- > 0)
		fputs("  ", f);
}

/* What jansson writes before a value of the container at depth. */
static void
render_json_item(struct render_json_stream *s, size_t depth)
{
	fputs(s->items[depth]++ == 0 ? "\n" : ",\n", s->f);
	render_json_indent(s->f, depth + 1);
}

/* jansson's text of a value on its own, its lines indented for the depth
 * it is at: jansson escapes a newline in a string, so every newline it
 * writes begins a line of the indent. Shown safe as render_json's. */
struct render_json_out {
	struct termsafe_out	 safe;
	size_t			 depth;
};

static int
render_json_out_cb(const char *p, size_t n, void *arg)
{
	struct render_json_out	*o = arg;
	const char		*nl;

	while ((nl = memchr(p, '\n', n)) != NULL) {
		termsafe_out_write(&o->safe, p, (size_t)(nl + 1 - p));
		render_json_indent(o->safe.f, o->depth);
		n -= (size_t)(nl + 1 - p);
		p = nl + 1;
	}
	termsafe_out_write(&o->safe, p, n);
	return 0;
}

static int
render_json_value(struct render_json_stream *s, json_t *v, size_t depth,
    char **cause)
{
	struct render_json_out	 o;
	int			 rc;

	termsafe_out_init(&o.safe, s->f, TERMSAFE_TEXT);
	o.depth = depth;
	rc = json_dump_callback(v, render_json_out_cb, &o,
	    RENDER_JSON_FLAGS | JSON_ENCODE_ANY);
	termsafe_out_end(&o.safe);
	if (rc != 0) {
		xasprintf(cause, "a value of the reply nests too deep to "
		    "print");
		return -1;
	}
	return 0;
}

/* Keep a string member of the top object (error, detail). */
static void
render_json_keep(char **to, json_t *v)
{
	if (!json_is_string(v))
		return;
	free(*to);
	*to = xstrdup(json_string_value(v));
}

static int
render_json_whole_cb(void *arg, size_t depth, json_t *key, int c)
{
	(void)arg;
	(void)key;
	(void)c;
	return depth >= RENDER_JSON_WHOLE;
}

static int
render_json_event_cb(void *arg, const struct jstream_event *e, char **cause)
{
	struct render_json_stream	*s = arg;
	const char			*key;

	switch (e->ev) {
	case JSTREAM_OBJECT:
	case JSTREAM_ARRAY:
		if (e->depth > 0 && e->key == NULL)
			render_json_item(s, e->depth - 1);
		fputc(e->ev == JSTREAM_OBJECT ? '{' : '[', s->f);
		if (e->depth >= s->cap) {
			s->cap = e->depth + 8;
			s->items = xreallocarray(s->items, s->cap,
			    sizeof *s->items);
		}
		s->items[e->depth] = 0;
		return 0;
	case JSTREAM_OBJECT_END:
	case JSTREAM_ARRAY_END:
		if (s->items[e->depth] > 0) {
			fputc('\n', s->f);
			render_json_indent(s->f, e->depth);
		}
		fputc(e->ev == JSTREAM_OBJECT_END ? '}' : ']', s->f);
		if (e->depth == 0)
			fputc('\n', s->f);
		return 0;
	case JSTREAM_KEY:
		render_json_item(s, e->depth - 1);
		if (render_json_value(s, e->key, e->depth, cause) != 0)
			return -1;
		fputs(": ", s->f);
		return 0;
	case JSTREAM_VALUE:
		if (e->depth > 0 && e->key == NULL)
			render_json_item(s, e->depth - 1);
		if (e->depth == 1 && e->key != NULL) {
			key = json_string_value(e->key);
			if (strcmp(key, "error") == 0)
				render_json_keep(&s->error, e->value);
			else if (strcmp(key, "detail") == 0)
				render_json_keep(&s->detail, e->value);
		}
		return render_json_value(s, e->value, e->depth, cause);
	}
	return 0;
}

struct render_json_stream *
render_json_stream_new(FILE *f)
{
	struct render_json_stream	*s;

	s = xcalloc(1, sizeof *s);
	s->f = f;
	s->js = jstream_new(render_json_whole_cb, render_json_event_cb, s);
	return s;
}

void
render_json_stream_free(struct render_json_stream *s)
{
	if (s == NULL)
		return;
	jstream_free(s->js);
	free(s->items);
	free(s->error);
	free(s->detail);
	free(s);
}

/* A client_feed_fn: the next n bytes of the reply, or its end (n 0). */
int
render_json_stream_feed(void *arg, const char *p, size_t n, char **cause)
{
	struct render_json_stream	*s = arg;

	if (n == 0)
		return jstream_end(s->js, cause);
	return jstream_feed(s->js, p, n, cause);
}

/* A reply that ended in an error (its top object's "error" string): 1,
 * with it and its detail (or ""), else 0. */
int
render_json_stream_error(const struct render_json_stream *s,
    const char **error, const char **detail)
{
	if (s->error == NULL)
		return 0;
	*error = s->error;
	*detail = s->detail != NULL ? s->detail : "";
	return 1;
}
