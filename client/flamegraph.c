/* flamegraph.c: a GET /v1/tree (or /v1/diff) reply as a self-contained,
 * interactive SVG flame graph in the manner of flamegraph.pl and inferno:
 * root at the bottom, one rectangle per call-tree node, width by value,
 * colour by kind of frame, and an inline script for zoom, search and
 * details. No network, no HTTP here: everything works on a parsed reply.
 *
 * Differential mode (nodes carrying "base" and "current"): the width is the
 * current value; red means the node's share of the total grew, blue that it
 * shrank, stronger with the relative change. */
#include <inttypes.h>
#include <math.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "alloc.h"
#include "profctl.h"

#define FG_WIDTH	1200.0	/* image width, px */
#define FG_MIN_PX	0.1	/* narrower frames are left out */
#define FG_XPAD		10.0
#define FG_FRAME_H	16.0	/* a row, including a 1px gap */
#define FG_TOP		60.0	/* title, subtitle and controls */
#define FG_BOTTOM	34.0	/* details line and "Matched" */
#define FG_FONT_SIZE	12.0
#define FG_FONT_W	0.59	/* average glyph width per font size */

struct flamegraph {
	FILE		*f;
	const char	*unit;
	int		 diff;
	int64_t		 total;		/* root value (current in diff) */
	int64_t		 base_total;	/* diff only */
	double		 scale;		/* px per unit of value */
	double		 min_px;
	double		 width;
	int		 max_depth;
	double		 height;
	size_t		 frames;
};

/* The value a node is drawn with: current in diff mode, else total. */
static int64_t
flamegraph_value(const struct flamegraph *g, json_t *node)
{
	json_t	*v;

	v = json_object_get(node, g->diff ? "current" : "total");
	if (!json_is_integer(v))
		return 0;
	return (int64_t)json_integer_value(v);
}

static int
flamegraph_has_prefix(const char *s, const char *prefix)
{
	return strncmp(s, prefix, strlen(prefix)) == 0;
}

static int
flamegraph_has_suffix(const char *s, const char *suffix)
{
	size_t	 n = strlen(s), m = strlen(suffix);

	return n >= m && strcmp(s + n - m, suffix) == 0;
}

/*
 * The kind of a frame when the daemon did not say:
 *  kernel:  names ending in "_[k]" (perf's marker), or a mapping that is
 *           the kernel ("[kernel.kallsyms]", "[vdso]", ".../vmlinux*");
 *  runtime: Go's runtime ("runtime.", "runtime/", "internal/runtime/"),
 *           C++ library internals ("std::__", "__gnu_cxx::",
 *           "__cxxabiv1::") and glibc's ("__libc_", "_dl_", "__GI_");
 *  user:    everything else.
 */
const char *
flamegraph_kind(const char *name, const char *mapping)
{
	static const char	*runtime[] = {
		"runtime.", "runtime/", "internal/runtime/", "std::__",
		"__gnu_cxx::", "__cxxabiv1::", "__libc_", "_dl_", "__GI_",
		NULL
	};
	const char		*base;
	size_t			 i;

	if (flamegraph_has_suffix(name, "_[k]"))
		return "kernel";
	if (mapping != NULL) {
		base = strrchr(mapping, '/');
		base = base != NULL ? base + 1 : mapping;
		if (flamegraph_has_prefix(mapping, "[kernel") ||
		    strcmp(mapping, "[vdso]") == 0 ||
		    flamegraph_has_prefix(base, "vmlinux"))
			return "kernel";
	}
	for (i = 0; runtime[i] != NULL; i++) {
		if (flamegraph_has_prefix(name, runtime[i]))
			return "runtime";
	}
	return "user";
}

/* FNV-1a: the same name gets the same shade in every graph. */
static uint32_t
flamegraph_hash(const char *s)
{
	uint32_t	 h = 2166136261u;

	for (; *s != '\0'; s++) {
		h ^= (unsigned char)*s;
		h *= 16777619u;
	}
	return h;
}

/* A fill colour for a frame of this kind and name, "rgb(r,g,b)". */
void
flamegraph_color(const char *kind, const char *name, char *buf, size_t len)
{
	uint32_t	 h = flamegraph_hash(name);
	double		 a, b, c;
	int		 r, g, bl;

	a = (double)(h & 0xff) / 255.0;
	b = (double)((h >> 8) & 0xff) / 255.0;
	c = (double)((h >> 16) & 0xff) / 255.0;
	if (strcmp(kind, "kernel") == 0) {		/* blue-ish */
		r = 70 + (int)(50 * a);
		g = 130 + (int)(60 * b);
		bl = 215 + (int)(40 * c);
	} else if (strcmp(kind, "runtime") == 0) {	/* green-ish */
		r = 60 + (int)(70 * a);
		g = 175 + (int)(55 * b);
		bl = 60 + (int)(50 * c);
	} else if (strcmp(kind, "other") == 0) {	/* pruned: grey */
		r = g = bl = 190 + (int)(20 * a);
	} else {					/* warm */
		r = 205 + (int)(50 * a);
		g = 60 + (int)(170 * b);
		bl = (int)(55 * c);
	}
	snprintf(buf, len, "rgb(%d,%d,%d)", r, g, bl);
}

/*
 * The relative change of a node's share of its total between base and
 * current, in [-1, 1]: (c - b) / max(b, c) of the normalised values.
 */
double
flamegraph_diff_change(int64_t base, int64_t base_total, int64_t current,
    int64_t current_total)
{
	double	 b = 0, c = 0, m;

	if (base_total != 0)
		b = fabs((double)base / (double)base_total);
	if (current_total != 0)
		c = fabs((double)current / (double)current_total);
	m = b > c ? b : c;
	if (m == 0)
		return 0;
	return (c - b) / m;
}

/* Red for growth, blue for shrinkage, near white for no change; the
 * stronger the relative change the deeper the colour. */
void
flamegraph_diff_color(int64_t base, int64_t base_total, int64_t current,
    int64_t current_total, char *buf, size_t len)
{
	double	 d;
	int	 v;

	d = flamegraph_diff_change(base, base_total, current, current_total);
	v = 235 - (int)lround(fabs(d) * 190);
	if (fabs(d) < 0.005)
		snprintf(buf, len, "rgb(235,235,235)");
	else if (d > 0)
		snprintf(buf, len, "rgb(255,%d,%d)", v, v);
	else
		snprintf(buf, len, "rgb(%d,%d,255)", v, v);
}

/* Safe text (termsafe.c: no control characters, which XML 1.0 does not
 * allow either, and valid UTF-8) for XML content and attribute values. */
static void
flamegraph_escape(FILE *f, const char *s)
{
	for (; *s != '\0'; s++) {
		switch (*s) {
		case '&':
			fputs("&amp;", f);
			break;
		case '<':
			fputs("&lt;", f);
			break;
		case '>':
			fputs("&gt;", f);
			break;
		case '"':
			fputs("&quot;", f);
			break;
		case '\'':
			fputs("&#39;", f);
			break;
		default:
			fputc(*s, f);
		}
	}
}

/* The label that fits w px: the name, or its start and "..", or nothing.
 * Counts characters, not bytes, and never splits one. */
static void
flamegraph_label(FILE *f, const char *name, double w)
{
	double	 cw = FG_FONT_SIZE * FG_FONT_W;
	size_t	 fit, chars = 0, i, keep = 0;
	char	*s;

	if (w < 3 * cw)
		return;
	fit = (size_t)((w - 6) / cw);
	if (fit < 3)
		return;
	for (i = 0; name[i] != '\0'; i++) {
		if (((unsigned char)name[i] & 0xc0) != 0x80) {
			if (chars == fit - 2)
				keep = i;
			chars++;
		}
	}
	if (chars <= fit) {
		flamegraph_escape(f, name);
		return;
	}
	s = xmalloc(keep + 3);
	memcpy(s, name, keep);
	memcpy(s + keep, "..", 3);
	flamegraph_escape(f, s);
	free(s);
}

static const char *
flamegraph_name(json_t *node)
{
	const char	*name;

	name = json_string_value(json_object_get(node, "name"));
	return name != NULL ? name : "?";
}

static const char *
flamegraph_node_kind(json_t *node, int depth)
{
	const char	*kind;

	if (depth == 0)
		return "other";
	if (json_is_true(json_object_get(node, "other")))
		return "other";
	kind = json_string_value(json_object_get(node, "kind"));
	if (kind != NULL && (strcmp(kind, "user") == 0 ||
	    strcmp(kind, "kernel") == 0 || strcmp(kind, "runtime") == 0))
		return kind;
	return flamegraph_kind(flamegraph_name(node),
	    json_string_value(json_object_get(node, "mapping")));
}

/* The deepest row that has a frame wide enough to draw. */
static void
flamegraph_measure(struct flamegraph *g, json_t *node, int depth)
{
	json_t	*kid;
	size_t	 i;

	if ((double)flamegraph_value(g, node) * g->scale < g->min_px)
		return;
	if (depth > g->max_depth)
		g->max_depth = depth;
	json_array_foreach(json_object_get(node, "children"), i, kid)
		flamegraph_measure(g, kid, depth + 1);
}

static void
flamegraph_trim(char *s)
{
	char	*p = s;

	while (*p == ' ')
		p++;
	memmove(s, p, strlen(p) + 1);
}

/* The tooltip: name, value in the unit and its share of the total; in
 * diff mode base, current and the change of the share. */
static void
flamegraph_tooltip(struct flamegraph *g, json_t *node, int64_t v)
{
	char	 a[UNITS_LABEL_MAX], b[UNITS_LABEL_MAX];
	char	 pa[UNITS_PERCENT_MAX], pb[UNITS_PERCENT_MAX];
	int64_t	 base;
	double	 d;

	flamegraph_escape(g->f, flamegraph_name(node));
	units_percentage(v, g->total, pa, sizeof pa);
	flamegraph_trim(pa);
	if (!g->diff) {
		fprintf(g->f, " (%s, %s)", units_scaled_label(v, g->unit,
		    "auto", a, sizeof a), pa);
		return;
	}
	base = render_get_int(node, "base");
	units_percentage(base, g->base_total, pb, sizeof pb);
	flamegraph_trim(pb);
	d = flamegraph_diff_change(base, g->base_total, v, g->total);
	fprintf(g->f, " (base %s, %s; current %s, %s; %+.1f%%)",
	    units_scaled_label(base, g->unit, "auto", a, sizeof a), pb,
	    units_scaled_label(v, g->unit, "auto", b, sizeof b), pa, d * 100);
}

static void
flamegraph_frame(struct flamegraph *g, json_t *node, int depth, int64_t start)
{
	const char	*name = flamegraph_name(node), *kind;
	char		 fill[64];
	json_t		*kid;
	int64_t		 v, at;
	double		 x, y, w;
	size_t		 i;

	v = flamegraph_value(g, node);
	w = (double)v * g->scale;
	if (w < g->min_px)
		return;
	x = FG_XPAD + (double)start * g->scale;
	y = g->height - FG_BOTTOM - (double)(depth + 1) * FG_FRAME_H;
	kind = flamegraph_node_kind(node, depth);
	if (g->diff)
		flamegraph_diff_color(render_get_int(node, "base"),
		    g->base_total, v, g->total, fill, sizeof fill);
	else
		flamegraph_color(kind, name, fill, sizeof fill);

	fputs("<g class=\"f\" data-n=\"", g->f);
	flamegraph_escape(g->f, name);
	fprintf(g->f, "\" data-s=\"%" PRId64 "\" data-v=\"%" PRId64 "\" "
	    "data-k=\"%s\"><title>", start, v, kind);
	flamegraph_tooltip(g, node, v);
	fprintf(g->f, "</title><rect x=\"%.2f\" y=\"%.1f\" width=\"%.2f\" "
	    "height=\"%.1f\" fill=\"%s\" rx=\"2\" ry=\"2\"/>"
	    "<text x=\"%.2f\" y=\"%.1f\">", x, y, w, FG_FRAME_H - 1, fill,
	    x + 3, y + FG_FRAME_H - 4.5);
	flamegraph_label(g->f, name, w);
	fputs("</text></g>\n", g->f);
	g->frames++;

	at = start;
	json_array_foreach(json_object_get(node, "children"), i, kid) {
		flamegraph_frame(g, kid, depth + 1, at);
		if (flamegraph_value(g, kid) > 0)
			at = profctl_add(at, flamegraph_value(g, kid));
	}
}

/* The script: zoom on click, search, details on hover. It reads only the
 * data-* attributes above, so names never pass through JavaScript
 * source. */
static const char flamegraph_script[] =
"var svg, frames, details, matched, unzoom, searchbtn, xpad, fullw, total;\n"
"var fontw = 12 * 0.59, searching = null;\n"
"function init(evt) {\n"
"  svg = document.documentElement;\n"
"  details = document.getElementById('details').firstChild;\n"
"  matched = document.getElementById('matched');\n"
"  unzoom = document.getElementById('unzoom');\n"
"  searchbtn = document.getElementById('search');\n"
"  xpad = +svg.getAttribute('data-xpad');\n"
"  fullw = +svg.getAttribute('data-fullw');\n"
"  total = +svg.getAttribute('data-total');\n"
"  frames = Array.prototype.slice.call(document.querySelectorAll('g.f'));\n"
"  frames.forEach(function (g) {\n"
"    var r = g.querySelector('rect');\n"
"    g.fs = +g.getAttribute('data-s'); g.fv = +g.getAttribute('data-v');\n"
"    g.fy = +r.getAttribute('y'); g.fill = r.getAttribute('fill');\n"
"    g.ox = +r.getAttribute('x'); g.ow = +r.getAttribute('width');\n"
"    g.addEventListener('click', function () { zoom(g); });\n"
"    g.addEventListener('mouseover', function () {\n"
"      details.nodeValue = g.querySelector('title').textContent; });\n"
"    g.addEventListener('mouseout', function () {\n"
"      details.nodeValue = ' '; });\n"
"  });\n"
"  unzoom.addEventListener('click', reset_zoom);\n"
"  searchbtn.addEventListener('click', function () {\n"
"    if (searching !== null) { reset_search(); return; }\n"
"    var t = prompt('Search for (regular expression):', '');\n"
"    if (t) search(t);\n"
"  });\n"
"  window.addEventListener('keydown', function (e) {\n"
"    if ((e.ctrlKey && e.key === 'f') || e.key === '/') {\n"
"      e.preventDefault(); searchbtn.dispatchEvent(new Event('click'));\n"
"    } else if (e.key === 'Escape') { reset_zoom(); reset_search(); }\n"
"  });\n"
"  var q = new URLSearchParams(location.search).get('s');\n"
"  if (q) search(q);\n"
"}\n"
"function label(g, w) {\n"
"  var t = g.querySelector('text'), n = g.getAttribute('data-n');\n"
"  var chars = Array.from(n), fit = Math.floor((w - 6) / fontw);\n"
"  if (w < 3 * fontw || fit < 3) t.textContent = '';\n"
"  else if (chars.length <= fit) t.textContent = n;\n"
"  else t.textContent = chars.slice(0, fit - 2).join('') + '..';\n"
"}\n"
"function place(g, x, w) {\n"
"  var r = g.querySelector('rect');\n"
"  r.setAttribute('x', x.toFixed(2)); r.setAttribute('width', w.toFixed(2));\n"
"  g.querySelector('text').setAttribute('x', (x + 3).toFixed(2));\n"
"  label(g, w);\n"
"}\n"
"function zoom(z) {\n"
"  var s = z.fs, e = z.fs + z.fv, scale = fullw / z.fv;\n"
"  frames.forEach(function (g) {\n"
"    var ge = g.fs + g.fv;\n"
"    g.classList.remove('hide'); g.classList.remove('parent');\n"
"    if (g.fy > z.fy) {\n"
"      if (g.fs <= s && ge >= e) { g.classList.add('parent');\n"
"        place(g, xpad, fullw); }\n"
"      else g.classList.add('hide');\n"
"    } else if (g.fs >= s && ge <= e && (g.fy < z.fy || g === z)) {\n"
"      place(g, xpad + (g.fs - s) * scale, g.fv * scale);\n"
"    } else g.classList.add('hide');\n"
"  });\n"
"  unzoom.classList.remove('hide');\n"
"}\n"
"function reset_zoom() {\n"
"  frames.forEach(function (g) {\n"
"    g.classList.remove('hide'); g.classList.remove('parent');\n"
"    place(g, g.ox, g.ow);\n"
"  });\n"
"  unzoom.classList.add('hide');\n"
"}\n"
"function search(term) {\n"
"  var re;\n"
"  try { re = new RegExp(term); } catch (err) { alert(err); return; }\n"
"  reset_search();\n"
"  var hits = [];\n"
"  frames.forEach(function (g) {\n"
"    if (re.test(g.getAttribute('data-n'))) {\n"
"      g.querySelector('rect').setAttribute('fill', 'rgb(230,0,230)');\n"
"      hits.push(g);\n"
"    }\n"
"  });\n"
"  /* A matched frame inside a matched frame is counted once. */\n"
"  hits.sort(function (a, b) { return a.fs - b.fs || b.fv - a.fv; });\n"
"  var sum = 0, end = -Infinity;\n"
"  hits.forEach(function (g) {\n"
"    if (g.fs >= end) { sum += g.fv; end = g.fs + g.fv; }\n"
"  });\n"
"  var pct = total > 0 ? 100 * sum / total : 0;\n"
"  matched.firstChild.nodeValue = 'Matched: ' +\n"
"    (pct >= 99.95 ? '100' : pct.toFixed(1)) + '%';\n"
"  matched.classList.remove('hide');\n"
"  searchbtn.firstChild.nodeValue = 'Reset Search';\n"
"  searching = term;\n"
"}\n"
"function reset_search() {\n"
"  frames.forEach(function (g) {\n"
"    g.querySelector('rect').setAttribute('fill', g.fill); });\n"
"  matched.classList.add('hide');\n"
"  searchbtn.firstChild.nodeValue = 'Search';\n"
"  searching = null;\n"
"}\n";

static void
flamegraph_header(struct flamegraph *g, const char *title, json_t *reply)
{
	const char	*scope, *mtype;
	char		 a[UNITS_LABEL_MAX], b[UNITS_LABEL_MAX];
	double		 mid = g->width / 2;
	int64_t		 n;

	fprintf(g->f, "<?xml version=\"1.0\" encoding=\"UTF-8\" "
	    "standalone=\"no\"?>\n"
	    "<svg version=\"1.1\" xmlns=\"http://www.w3.org/2000/svg\" "
	    "width=\"%.0f\" height=\"%.0f\" viewBox=\"0 0 %.0f %.0f\" "
	    "onload=\"init(evt)\" data-xpad=\"%.0f\" data-fullw=\"%.2f\" "
	    "data-total=\"%" PRId64 "\" data-diff=\"%d\">\n",
	    g->width, g->height, g->width, g->height, FG_XPAD,
	    g->width - 2 * FG_XPAD, g->total, g->diff);
	fputs("<style type=\"text/css\">\n"
	    "text { font-family: Verdana, sans-serif; font-size: 12px; "
	    "fill: #000; }\n"
	    "g.f text { pointer-events: none; }\n"
	    "g.f:hover rect { stroke: #000; stroke-width: 0.5; cursor: "
	    "pointer; }\n"
	    "g.parent { opacity: 0.5; }\n"
	    ".hide { display: none; }\n"
	    "#title { font-size: 17px; text-anchor: middle; }\n"
	    "#subtitle { fill: #555; text-anchor: middle; }\n"
	    "#unzoom, #search { cursor: pointer; fill: #333; }\n"
	    "#search, #matched { text-anchor: end; }\n"
	    "</style>\n<script type=\"text/ecmascript\"><![CDATA[\n", g->f);
	fputs(flamegraph_script, g->f);
	fputs("]]></script>\n", g->f);
	fprintf(g->f, "<rect x=\"0\" y=\"0\" width=\"%.0f\" height=\"%.0f\" "
	    "fill=\"%s\"/>\n", g->width, g->height,
	    g->diff ? "#fafafa" : "#fdf6e8");

	fprintf(g->f, "<text id=\"title\" x=\"%.1f\" y=\"22\">", mid);
	flamegraph_escape(g->f, title);
	fprintf(g->f, "</text>\n<text id=\"subtitle\" x=\"%.1f\" y=\"40\">",
	    mid);
	scope = json_string_value(json_object_get(reply, "scope"));
	mtype = json_string_value(json_object_get(json_object_get(reply,
	    "metric"), "type"));
	if (scope != NULL) {
		fputs("scope ", g->f);
		flamegraph_escape(g->f, scope);
	}
	if (mtype != NULL) {
		fputs(", metric ", g->f);
		flamegraph_escape(g->f, mtype);
	}
	if (g->diff)
		fprintf(g->f, ", base %s, current %s",
		    units_scaled_label(g->base_total, g->unit, "auto", a,
		    sizeof a),
		    units_scaled_label(g->total, g->unit, "auto", b,
		    sizeof b));
	else
		fprintf(g->f, ", total %s", units_scaled_label(g->total,
		    g->unit, "auto", a, sizeof a));
	n = render_get_int(reply, "profiles");
	if (n > 0)
		fprintf(g->f, ", %" PRId64 " profile%s", n, n > 1 ? "s" : "");
	fputs("</text>\n", g->f);

	fprintf(g->f, "<text id=\"unzoom\" class=\"hide\" x=\"%.0f\" "
	    "y=\"22\">Reset Zoom</text>\n", FG_XPAD);
	fprintf(g->f, "<text id=\"search\" x=\"%.0f\" y=\"22\">Search</text>\n",
	    g->width - FG_XPAD);
	fprintf(g->f, "<text id=\"details\" x=\"%.0f\" y=\"%.0f\"> </text>\n",
	    FG_XPAD, g->height - 12);
	fprintf(g->f, "<text id=\"matched\" class=\"hide\" x=\"%.0f\" "
	    "y=\"%.0f\"> </text>\n", g->width - FG_XPAD, g->height - 12);
}

/*
 * Write the SVG of a tree reply ({"unit", "root": {"name", "total" or
 * "base"/"current", "children": [...]}}) to f. Returns 0, or -1 with
 * *cause set if the reply is not a tree.
 */
int
flamegraph_render(FILE *f, json_t *reply, const struct flamegraph_opts *o,
    char **cause)
{
	struct flamegraph	 g;
	json_t		*root;
	char		*title;

	/* The names are a profile's: the SVG is shown, and XML takes no
	 * control characters and nothing but valid UTF-8. */
	termsafe_json(reply);
	root = json_object_get(reply, "root");
	if (!json_is_object(root) || !json_is_array(json_object_get(root,
	    "children"))) {
		*cause = xstrdup("the reply has no tree (no \"root\")");
		return -1;
	}
	memset(&g, 0, sizeof g);
	g.f = f;
	g.diff = json_is_integer(json_object_get(root, "current"));
	if ((g.unit = render_unit(reply)) == NULL)
		g.unit = "count";
	g.total = flamegraph_value(&g, root);
	if (g.diff)
		g.base_total = render_get_int(root, "base");
	g.width = o != NULL && o->width > 0 ? o->width : FG_WIDTH;
	g.min_px = o != NULL && o->min_px > 0 ? o->min_px : FG_MIN_PX;
	g.scale = g.total > 0 ? (g.width - 2 * FG_XPAD) / (double)g.total : 0;
	g.max_depth = -1;
	if (g.scale > 0)
		flamegraph_measure(&g, root, 0);
	g.height = FG_TOP + (double)(g.max_depth + 1) * FG_FRAME_H + FG_BOTTOM;

	title = termsafe(o != NULL && o->title != NULL ? o->title : g.diff ?
	    "Differential Flame Graph" : "Flame Graph", 0);
	flamegraph_header(&g, title, reply);
	free(title);
	fputs("<g id=\"frames\">\n", f);
	if (g.scale > 0)
		flamegraph_frame(&g, root, 0, 0);
	fputs("</g>\n", f);
	if (g.frames == 0)
		fprintf(f, "<text x=\"%.0f\" y=\"%.0f\">No samples</text>\n",
		    FG_XPAD, FG_TOP);
	fputs("</svg>\n", f);
	return 0;
}

static json_t *
flamegraph_find_kid(json_t *node, const char *name)
{
	json_t	*kid;
	size_t	 i;

	json_array_foreach(json_object_get(node, "children"), i, kid) {
		if (strcmp(flamegraph_name(kid), name) == 0)
			return kid;
	}
	return NULL;
}

/* One node of the union of two trees; either side may be NULL. */
static json_t *
flamegraph_merge_node(json_t *b, json_t *c)
{
	json_t		*o, *kids, *kid, *src;
	int64_t		 bt, ct;
	size_t		 i;

	src = c != NULL ? c : b;
	bt = b != NULL ? render_get_int(b, "total") : 0;
	ct = c != NULL ? render_get_int(c, "total") : 0;
	o = json_deep_copy(src);
	json_object_del(o, "children");
	json_object_set_new(o, "base", json_integer(bt));
	json_object_set_new(o, "current", json_integer(ct));
	json_object_set_new(o, "total", json_integer(ct));
	kids = json_array();
	if (c != NULL) {
		json_array_foreach(json_object_get(c, "children"), i, kid)
			json_array_append_new(kids, flamegraph_merge_node(
			    flamegraph_find_kid(b, flamegraph_name(kid)), kid));
	}
	if (b != NULL) {
		json_array_foreach(json_object_get(b, "children"), i, kid) {
			if (flamegraph_find_kid(c, flamegraph_name(kid)) ==
			    NULL)
				json_array_append_new(kids,
				    flamegraph_merge_node(kid, NULL));
		}
	}
	json_object_set_new(o, "children", kids);
	return o;
}

/* A diff reply made of two tree replies: nodes matched by their path of
 * names, with "base" and "current" (0 where one side lacks the node). */
json_t *
flamegraph_diff_merge(json_t *base, json_t *current)
{
	json_t	*o;

	o = json_deep_copy(current);
	json_object_set_new(o, "root", flamegraph_merge_node(
	    json_object_get(base, "root"), json_object_get(current, "root")));
	return o;
}
