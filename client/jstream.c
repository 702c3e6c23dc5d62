/* jstream.c: a JSON reply read as it arrives, a piece at a time, for
 * replies too large to hold (POST /v1/query's rows, GET /v1/traces). It
 * follows the containers itself and hands each scalar, and each container
 * its user takes whole (a row, a trace), to a callback as a jansson value
 * parsed from that value's text alone: what is held is one such value and
 * the keys of the open containers, never the reply. jansson judges every
 * value; the structure between them is checked here as jansson checks
 * it, so a text is refused here when json_loadb refuses it whole. */
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "alloc.h"
#include "profctl.h"

/* What comes next outside a token. */
enum jstream_state {
	JSTREAM_S_VALUE,	/* a value (the top one, after ':' or ',') */
	JSTREAM_S_VALUE_END,	/* ... or ']' (after '[') */
	JSTREAM_S_KEY,		/* a key (after ',' in an object) */
	JSTREAM_S_KEY_END,	/* ... or '}' (after '{') */
	JSTREAM_S_COLON,
	JSTREAM_S_NEXT,		/* ',' or the container's end */
	JSTREAM_S_DONE,		/* the top value is complete: blanks only */
	JSTREAM_S_TOKEN		/* in a token: tok holds it so far */
};

enum jstream_tok {
	JSTREAM_T_KEY,		/* a string that is a member's key */
	JSTREAM_T_STRING,
	JSTREAM_T_SCALAR,	/* a number, true, false, null (or junk) */
	JSTREAM_T_WHOLE		/* a container read whole */
};

/* An open container. */
struct jstream_frame {
	int	 close;		/* ']' or '}' */
	json_t	*key;		/* the key it is the value of, or NULL */
	json_t	*member;	/* an object's: the current member's key */
};

struct jstream {
	jstream_whole_fn	 whole;
	jstream_event_fn	 event;
	void			*arg;
	enum jstream_state	 state;
	struct jstream_frame	*stack;
	size_t			 depth, cap;
	enum jstream_tok	 tok_kind;
	char			*tok;
	size_t			 tok_n, tok_cap;
	uint64_t		 tok_at;	/* where the token began */
	size_t			 tok_depth;	/* WHOLE: containers open */
	int			 tok_str;	/* WHOLE: in a string */
	int			 tok_esc;	/* in a string, after '\' */
	uint64_t		 at;		/* bytes read */
};

/* A token larger than this is freed once done, so that one large value
 * does not keep its memory for the rest of the reply. */
#define JSTREAM_TOK_KEEP	(1024 * 1024)

struct jstream *
jstream_new(jstream_whole_fn whole, jstream_event_fn event, void *arg)
{
	struct jstream	*js;

	js = xcalloc(1, sizeof *js);
	js->whole = whole;
	js->event = event;
	js->arg = arg;
	js->state = JSTREAM_S_VALUE;
	return js;
}

void
jstream_free(struct jstream *js)
{
	if (js == NULL)
		return;
	while (js->depth > 0) {
		js->depth--;
		if (js->stack[js->depth].key != NULL)
			json_decref(js->stack[js->depth].key);
		if (js->stack[js->depth].member != NULL)
			json_decref(js->stack[js->depth].member);
	}
	free(js->stack);
	free(js->tok);
	free(js);
}

static int
jstream_error(char **cause, const char *what, uint64_t at)
{
	xasprintf(cause, "unexpected reply from profd (not JSON: %s at byte "
	    "%llu)", what, (unsigned long long)at);
	return -1;
}

static void
jstream_tok_add(struct jstream *js, const char *p, size_t n)
{
	if (n == 0)
		return;
	if (js->tok_cap - js->tok_n < n) {
		if (js->tok_cap == 0)
			js->tok_cap = 256;
		while (js->tok_cap - js->tok_n < n)
			js->tok_cap *= 2;
		js->tok = xreallocarray(js->tok, js->tok_cap, 1);
	}
	memcpy(js->tok + js->tok_n, p, n);
	js->tok_n += n;
}

static void
jstream_tok_start(struct jstream *js, enum jstream_tok kind, char c)
{
	js->state = JSTREAM_S_TOKEN;
	js->tok_kind = kind;
	js->tok_n = 0;
	js->tok_at = js->at;
	js->tok_depth = kind == JSTREAM_T_WHOLE;
	js->tok_str = 0;
	js->tok_esc = 0;
	jstream_tok_add(js, &c, 1);
}

/* The key of the value that comes at this point, NULL in an array. */
static json_t *
jstream_key(const struct jstream *js)
{
	if (js->depth == 0 || js->stack[js->depth - 1].close != '}')
		return NULL;
	return js->stack[js->depth - 1].member;
}

static int
jstream_emit(struct jstream *js, enum jstream_ev ev, size_t depth,
    json_t *key, json_t *value, char **cause)
{
	struct jstream_event	 e;

	e.ev = ev;
	e.depth = depth;
	e.key = key;
	e.value = value;
	*cause = NULL;
	return js->event(js->arg, &e, cause);
}

/* A value is complete: the top one, or one in a container. */
static void
jstream_after_value(struct jstream *js)
{
	js->state = js->depth == 0 ? JSTREAM_S_DONE : JSTREAM_S_NEXT;
}

/* The byte that begins a value (after blanks). */
static int
jstream_value(struct jstream *js, char c, char **cause)
{
	struct jstream_frame	*fr;
	json_t			*key = jstream_key(js);

	if (js->depth == 0 && c != '[' && c != '{')
		return jstream_error(cause, "'[' or '{' expected", js->at);
	/* jansson counts the values around a value, the top one 1. */
	if (js->depth + 1 > JSON_PARSER_MAX_DEPTH)
		return jstream_error(cause, "maximum parsing depth reached",
		    js->at);
	if (c == '"') {
		jstream_tok_start(js, JSTREAM_T_STRING, c);
		return 0;
	}
	if (c == ',' || c == ':' || c == ']' || c == '}')
		return jstream_error(cause, "value expected", js->at);
	if (c != '[' && c != '{') {
		jstream_tok_start(js, JSTREAM_T_SCALAR, c);
		return 0;
	}
	if (js->whole(js->arg, js->depth, key, c)) {
		jstream_tok_start(js, JSTREAM_T_WHOLE, c);
		return 0;
	}
	if (js->depth == js->cap) {
		js->cap = js->cap == 0 ? 8 : js->cap * 2;
		js->stack = xreallocarray(js->stack, js->cap,
		    sizeof *js->stack);
	}
	fr = &js->stack[js->depth++];
	fr->close = c == '[' ? ']' : '}';
	fr->key = key;
	if (key != NULL)
		json_incref(key);
	fr->member = NULL;
	js->state = c == '[' ? JSTREAM_S_VALUE_END : JSTREAM_S_KEY_END;
	return jstream_emit(js, c == '[' ? JSTREAM_ARRAY : JSTREAM_OBJECT,
	    js->depth - 1, key, NULL, cause);
}

/* The end of the innermost container. */
static int
jstream_close(struct jstream *js, char **cause)
{
	struct jstream_frame	 fr;
	int			 rc;

	fr = js->stack[--js->depth];
	jstream_after_value(js);
	rc = jstream_emit(js, fr.close == ']' ? JSTREAM_ARRAY_END :
	    JSTREAM_OBJECT_END, js->depth, fr.key, NULL, cause);
	if (fr.key != NULL)
		json_decref(fr.key);
	if (fr.member != NULL)
		json_decref(fr.member);
	return rc;
}

/* One byte outside a token, not a blank. */
static int
jstream_byte(struct jstream *js, char c, char **cause)
{
	int	 close;

	switch (js->state) {
	case JSTREAM_S_DONE:
		return jstream_error(cause, "end of file expected", js->at);
	case JSTREAM_S_COLON:
		if (c != ':')
			return jstream_error(cause, "':' expected", js->at);
		js->state = JSTREAM_S_VALUE;
		return 0;
	case JSTREAM_S_NEXT:
		close = js->stack[js->depth - 1].close;
		if (c == ',') {
			js->state = close == '}' ? JSTREAM_S_KEY :
			    JSTREAM_S_VALUE;
			return 0;
		}
		if (c == close)
			return jstream_close(js, cause);
		return jstream_error(cause, close == '}' ?
		    "',' or '}' expected" : "',' or ']' expected", js->at);
	case JSTREAM_S_KEY_END:
		if (c == '}')
			return jstream_close(js, cause);
		/* FALLTHROUGH */
	case JSTREAM_S_KEY:
		if (c != '"')
			return jstream_error(cause, js->state ==
			    JSTREAM_S_KEY_END ? "string or '}' expected" :
			    "string expected", js->at);
		jstream_tok_start(js, JSTREAM_T_KEY, c);
		return 0;
	case JSTREAM_S_VALUE_END:
		if (c == ']')
			return jstream_close(js, cause);
		/* FALLTHROUGH */
	case JSTREAM_S_VALUE:
		return jstream_value(js, c, cause);
	case JSTREAM_S_TOKEN:
		break;
	}
	return jstream_error(cause, "internal error", js->at);
}

/*
 * The bytes of the token in p[0..n): how many belong to it (a scalar ends
 * before the byte that ends it); *done once it is complete. -1 with
 * *cause when a whole container nests too deep.
 */
static ssize_t
jstream_token(struct jstream *js, const char *p, size_t n, int *done,
    char **cause)
{
	size_t	 i;
	char	 c;

	*done = 0;
	for (i = 0; i < n; i++) {
		c = p[i];
		if (js->tok_kind == JSTREAM_T_SCALAR) {
			if (c == ' ' || c == '\t' || c == '\n' || c == '\r' ||
			    c == ',' || c == ']' || c == '}' || c == ':' ||
			    c == '[' || c == '{' || c == '"') {
				*done = 1;
				break;
			}
			continue;
		}
		if (js->tok_kind == JSTREAM_T_WHOLE && !js->tok_str) {
			if (c == '"')
				js->tok_str = 1;
			else if (c == '[' || c == '{') {
				if (js->depth + ++js->tok_depth >
				    JSON_PARSER_MAX_DEPTH)
					return jstream_error(cause, "maximum "
					    "parsing depth reached",
					    js->at + i);
			} else if ((c == ']' || c == '}') &&
			    --js->tok_depth == 0) {
				*done = 1;
				i++;
				break;
			}
			continue;
		}
		/* In a string. */
		if (js->tok_esc)
			js->tok_esc = 0;
		else if (c == '\\')
			js->tok_esc = 1;
		else if (c == '"' && js->tok_kind == JSTREAM_T_WHOLE)
			js->tok_str = 0;
		else if (c == '"') {
			*done = 1;
			i++;
			break;
		}
	}
	jstream_tok_add(js, p, i);
	return (ssize_t)i;
}

/* A complete token: jansson parses it, the user has it. */
static int
jstream_token_end(struct jstream *js, char **cause)
{
	struct jstream_frame	*fr;
	json_error_t		 jerr;
	json_t			*v;
	int			 rc;

	v = json_loadb(js->tok, js->tok_n, JSON_DECODE_ANY | JSON_ALLOW_NUL,
	    &jerr);
	if (js->tok_cap > JSTREAM_TOK_KEEP) {
		free(js->tok);
		js->tok = NULL;
		js->tok_cap = 0;
	}
	js->tok_n = 0;
	if (v == NULL)
		return jstream_error(cause, jerr.text, js->tok_at);
	if (js->tok_kind == JSTREAM_T_KEY) {
		/* As jansson: a key is a C string. */
		if (strlen(json_string_value(v)) != json_string_length(v)) {
			json_decref(v);
			return jstream_error(cause, "NUL byte in object key "
			    "not supported", js->tok_at);
		}
		fr = &js->stack[js->depth - 1];
		if (fr->member != NULL)
			json_decref(fr->member);
		fr->member = v;
		js->state = JSTREAM_S_COLON;
		return jstream_emit(js, JSTREAM_KEY, js->depth, v, NULL,
		    cause);
	}
	jstream_after_value(js);
	rc = jstream_emit(js, JSTREAM_VALUE, js->depth, jstream_key(js), v,
	    cause);
	json_decref(v);
	return rc;
}

/*
 * The next n bytes of the text. Returns 0, or -1 with *cause: the text is
 * not JSON, or a callback said to stop (its *cause, maybe NULL). After
 * -1 only jstream_free.
 */
int
jstream_feed(struct jstream *js, const char *p, size_t n, char **cause)
{
	const char	*end = p + n;
	ssize_t		 k;
	int		 done;

	*cause = NULL;
	while (p < end) {
		if (js->state == JSTREAM_S_TOKEN) {
			if ((k = jstream_token(js, p, (size_t)(end - p), &done,
			    cause)) == -1)
				return -1;
			p += k;
			js->at += (uint64_t)k;
			if (done && jstream_token_end(js, cause) != 0)
				return -1;
			continue;
		}
		if (*p != ' ' && *p != '\t' && *p != '\n' && *p != '\r' &&
		    jstream_byte(js, *p, cause) != 0)
			return -1;
		p++;
		js->at++;
	}
	return 0;
}

/* The end of the text: 0 if the top value is complete, else -1. */
int
jstream_end(struct jstream *js, char **cause)
{
	*cause = NULL;
	if (js->state == JSTREAM_S_DONE)
		return 0;
	if (js->at == 0)
		return jstream_error(cause, "no text", 0);
	return jstream_error(cause, "the text ends early", js->at);
}
