/* SPDX-License-Identifier: MIT */
/*
 * report-svg-labels.c — edge labels moved apart after Graphviz's layout.
 *
 * dot places an edge's label where its layout left room for it, and does
 * not look again: the labels of a self-loop, of an edge that places
 * nothing (constraint=false) and of the two directions of a pair land on
 * each other, on a cluster's title or across a thick edge (the first
 * finding's own waits, drawn heaviest, are exactly those). We read the
 * SVG dot wrote, and place every edge's label again, heaviest edge first:
 * beside its own edge, at the first of a few points along it (the middle
 * first, dot's own spot before any), on its left or right, where the
 * label's box touches no label already placed, no vertex, no other text,
 * no arrowhead and no stroke, inside the picture. Travelling in opposite
 * directions, the two edges of a pair see their left on opposite sides.
 * When no spot is free, the least crowded one is taken.
 *
 * Text extents are estimated from Helvetica's metrics (the font the
 * picture asks for; Arial and Liberation Sans have the same widths). The
 * input is dot's own SVG, one element a line; a line this file does not
 * recognise is copied as it is, and a picture it cannot read at all is
 * written unchanged. Numbers are read and written without the C library's
 * locale-dependent conversions (a plugin host's LC_NUMERIC).
 */
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "report-format.h"

struct box {
	double x0, y0, x1, y1;
};

/* One <text> line of an edge's label. */
struct text_line {
	size_t off, len;        /* the line in the SVG */
	double x, y;            /* its anchor, as dot wrote it */
	size_t label;           /* the label it belongs to */
	bool first;             /* its first line: the edge's weight */
};

/* A point of an edge's drawn stroke, and half the stroke's width. */
struct sample {
	double x, y, half;
};

struct label {
	size_t edge;                    /* the edge group, in document order */
	size_t samples, n_samples;      /* its stroke, in svg_scene.samples */
	double stroke;                  /* its width: heaviest placed first */
	struct box box;                 /* where dot put it */
	struct box first;               /* its first line's */
	size_t n_lines;
	double dx, dy;                  /* where it moves */
	bool placed;
	bool weight_only;               /* no room for all: its first line alone */
};

struct svg_scene {
	struct text_line *lines;
	size_t n_lines;
	struct label *labels;
	size_t n_labels;
	struct box *obstacles;          /* vertices, other texts */
	size_t n_obstacles;
	struct box *arrows;             /* arrowheads */
	size_t n_arrows;
	struct sample *samples;
	size_t n_samples;
	struct box bounds;              /* the picture's background */
	bool has_bounds;
	bool oom;
};

#define GAP 1.5          /* pt between a label and anything else */
#define COVERS 1e6       /* the cost of covering a vertex or a text ... */
#define COVERS_LABEL 1e7 /* ... and another label: worse */

/* Room for item n of an array that holds 16 items, then twice as many
 * each time n reaches a power of two; false when out of memory. */
static bool grow(void **items, size_t n, size_t size, bool *oom)
{
	if (n != 0 && (n < 16 || (n & (n - 1)) != 0))
		return true;
	void *p = realloc(*items, (n ? 2 * n : 16) * size);

	if (!p) {
		*oom = true;
		return false;
	}
	*items = p;
	return true;
}

#define PUSH(sc, arr, cnt, val)                                                        \
	do {                                                                           \
		if (grow((void **)&(sc)->arr, (sc)->cnt, sizeof *(sc)->arr, &(sc)->oom)) \
			(sc)->arr[(sc)->cnt++] = (val);                                \
	} while (0)

/* A decimal number ("-12.5") at *s, without strtod's locale; *s moves
 * past it. false when there is none. */
static bool read_number(const char **s, double *out)
{
	const char *p = *s;
	double v = 0, scale = 1;
	bool neg = false, digits = false;

	if (*p == '-' || *p == '+')
		neg = *p++ == '-';
	for (; *p >= '0' && *p <= '9'; p++, digits = true)
		v = v * 10 + (*p - '0');
	if (*p == '.')
		for (p++; *p >= '0' && *p <= '9'; p++, digits = true)
			v += (*p - '0') * (scale /= 10);
	if (!digits)
		return false;
	if (*p == 'e' || *p == 'E')     /* dot never writes one */
		return false;
	*s = p;
	*out = neg ? -v : v;
	return true;
}

/* Where attribute name="..." begins its value in line (up to end), or NULL. */
static const char *attr_value(const char *line, const char *end, const char *name)
{
	size_t n = strlen(name);

	for (const char *p = line + 1; p + n + 2 < end; p++)
		if (p[-1] == ' ' && !strncmp(p, name, n) && p[n] == '=' && p[n + 1] == '"')
			return p + n + 2;
	return NULL;
}

/* The number in attribute name="...". */
static bool attr_number(const char *line, const char *end, const char *name, double *out)
{
	const char *v = attr_value(line, end, name);

	return v && read_number(&v, out);
}

static void box_add(struct box *b, bool *any, double x, double y)
{
	if (!*any) {
		*b = (struct box){ x, y, x, y };
		*any = true;
		return;
	}
	b->x0 = fmin(b->x0, x);
	b->y0 = fmin(b->y0, y);
	b->x1 = fmax(b->x1, x);
	b->y1 = fmax(b->y1, y);
}

/* The box of every number pair in an attribute value (points="x,y x,y",
 * d="Mx,yCx,y ..."), up to its closing quote. */
static bool pairs_box(const char *v, struct box *b)
{
	bool any = false;
	double x, y;

	while (*v && *v != '"') {
		if (!((*v >= '0' && *v <= '9') || *v == '-' || *v == '.')) {
			v++;
			continue;
		}
		if (!read_number(&v, &x) || *v != ',')
			return any;
		v++;
		if (!read_number(&v, &y))
			return any;
		box_add(b, &any, x, y);
	}
	return any;
}

/* Helvetica's advance widths (1/1000 em), ' ' to '~'. */
static const unsigned short helvetica[95] = {
	278, 278, 355, 556, 556, 889, 667, 191, 333, 333, 389, 584, 278, 333, 278, 278,
	556, 556, 556, 556, 556, 556, 556, 556, 556, 556, 278, 278, 584, 584, 584, 556,
	1015, 667, 667, 722, 722, 667, 611, 778, 722, 278, 500, 667, 556, 833, 722, 778,
	667, 778, 722, 667, 611, 722, 667, 944, 667, 667, 611, 278, 278, 278, 469, 556,
	333, 556, 556, 500, 556, 556, 278, 556, 556, 222, 222, 500, 222, 833, 556, 556,
	556, 556, 333, 500, 278, 556, 500, 722, 500, 500, 500, 334, 260, 334, 584,
};

/* The width in em of a text element's content (XML-escaped UTF-8). */
static double text_em(const char *s, const char *end)
{
	double w = 0;

	while (s < end) {
		unsigned char c = (unsigned char)*s;
		if (c == '&') {                 /* an entity: one character */
			const char *semi = memchr(s, ';', (size_t)(end - s));
			w += s[1] == '#' && semi && semi - s == 4 && s[2] == '4' && s[3] == '5' ?
			     0.333 : 0.667;     /* &#45; is dot's '-' */
			s = semi ? semi + 1 : end;
			continue;
		}
		if (c >= 0x80) {                /* one code point, its lead byte */
			w += 0.667;
			for (s++; s < end && ((unsigned char)*s & 0xc0) == 0x80; s++)
				;
			continue;
		}
		w += c >= ' ' && c <= '~' ? helvetica[c - ' '] / 1000.0 : 0.667;
		s++;
	}
	return w;
}

/* The box of a <text> line: Helvetica's ascent and descent around its
 * baseline, its width by its anchor. false when it has no position. */
static bool text_box(const char *line, const char *end, struct box *b, double *x, double *y)
{
	const char *gt = memchr(line, '>', (size_t)(end - line));
	const char *close = end - 7;    /* dot ends the line with the element */
	const char *anchor = attr_value(line, end, "text-anchor");
	double size = 14, w;

	if (!gt || close < gt || memcmp(close, "</text>", 7) != 0 ||
	    !attr_number(line, gt, "x", x) || !attr_number(line, gt, "y", y))
		return false;
	attr_number(line, gt, "font-size", &size);
	w = text_em(gt + 1, close) * size;
	b->y0 = *y - 0.80 * size;
	b->y1 = *y + 0.25 * size;
	if (anchor && !strncmp(anchor, "middle\"", 7))
		b->x0 = *x - w / 2;
	else if (anchor && !strncmp(anchor, "end\"", 4))
		b->x0 = *x - w;
	else
		b->x0 = *x;
	b->x1 = b->x0 + w;
	return true;
}

/* A cubic Bézier chain (M p0 C p1 p2 p3 ...) as points of the stroke. */
static void add_samples(struct svg_scene *sc, const char *d, double half)
{
	double pt[2 * 400];
	size_t n = 0;

	while (*d && *d != '"' && n + 2 <= sizeof pt / sizeof *pt) {
		if (!((*d >= '0' && *d <= '9') || *d == '-' || *d == '.')) {
			d++;
			continue;
		}
		if (!read_number(&d, &pt[n]))
			return;
		n++;
	}
	n /= 2;
	if (n == 0)
		return;
	if ((n - 1) % 3 != 0) {         /* not cubic: the points themselves */
		for (size_t i = 0; i < n; i++)
			PUSH(sc, samples, n_samples, ((struct sample){ pt[2 * i], pt[2 * i + 1], half }));
		return;
	}
	for (size_t i = 0; i + 3 < n; i += 3) {
		const double *p = &pt[2 * i];
		for (int k = i ? 1 : 0; k <= 16; k++) {
			double t = k / 16.0, u = 1 - t;
			double a = u * u * u, b = 3 * u * u * t, c = 3 * u * t * t, e = t * t * t;
			struct sample s = { a * p[0] + b * p[2] + c * p[4] + e * p[6],
					    a * p[1] + b * p[3] + c * p[5] + e * p[7], half };
			PUSH(sc, samples, n_samples, s);
		}
	}
}

enum group { G_GRAPH, G_NODE, G_EDGE, G_CLUSTER };

#define MAX_DEPTH 32

/* The lines of the SVG, read once: what each group draws. */
static void read_scene(const char *svg, size_t len, struct svg_scene *sc)
{
	enum group stack[MAX_DEPTH];
	int depth = 0;
	size_t edges = 0;
	struct box node = { 0 };
	bool node_any = false;
	long label = -1;                /* the current edge's label */
	size_t first = 0, n = 0;        /* the current edge's stroke */
	double stroke = 0;

	for (size_t off = 0; off < len && !sc->oom;) {
		const char *line = svg + off, *nl = memchr(line, '\n', len - off);
		const char *end = nl ? nl : svg + len;
		size_t next = (size_t)(end - svg) + (nl != NULL);
		enum group in = depth > 0 ? stack[(depth < MAX_DEPTH ? depth : MAX_DEPTH) - 1] :
				G_GRAPH;
		struct box b;
		double x, y, sw = 1;
		const char *v;

		if (!strncmp(line, "<g ", 3) || !strncmp(line, "<g>", 3)) {
			enum group g = in;
			v = attr_value(line, end, "class");
			if (v && (!strncmp(v, "node\"", 5) || !strncmp(v, "node ", 5)))
				g = G_NODE, node_any = false;
			else if (v && (!strncmp(v, "edge\"", 5) || !strncmp(v, "edge ", 5)))
				g = G_EDGE, edges++, label = -1, n = 0, stroke = 0;
			else if (v && !strncmp(v, "cluster", 7))
				g = G_CLUSTER;
			if (depth < MAX_DEPTH)
				stack[depth] = g;
			depth++;
		} else if (!strncmp(line, "</g>", 4)) {
			if (depth > 0 && depth <= MAX_DEPTH && stack[depth - 1] == G_NODE &&
			    (depth < 2 || stack[depth - 2] != G_NODE) && node_any)
				PUSH(sc, obstacles, n_obstacles, node);
			depth -= depth > 0;
		} else if (!strncmp(line, "<text", 5) && text_box(line, end, &b, &x, &y)) {
			if (in == G_EDGE) {
				if (label < 0) {
					struct label l = { .edge = edges - 1, .samples = first,
							   .n_samples = n, .stroke = stroke };
					l.box = l.first = b;
					PUSH(sc, labels, n_labels, l);
					if (sc->oom)
						return;
					label = (long)sc->n_labels - 1;
				}
				struct label *l = &sc->labels[label];
				l->box = (struct box){ fmin(l->box.x0, b.x0), fmin(l->box.y0, b.y0),
						       fmax(l->box.x1, b.x1), fmax(l->box.y1, b.y1) };
				PUSH(sc, lines, n_lines, ((struct text_line){ off, (size_t)(end - line), x,
						y, (size_t)label, l->n_lines++ == 0 }));
			} else if (in == G_NODE) {
				box_add(&node, &node_any, b.x0, b.y0);
				box_add(&node, &node_any, b.x1, b.y1);
			} else {
				PUSH(sc, obstacles, n_obstacles, b);
			}
		} else if (in == G_NODE && !strncmp(line, "<ellipse", 8) &&
			   attr_number(line, end, "cx", &x) && attr_number(line, end, "cy", &y)) {
			double rx = 0, ry = 0;
			attr_number(line, end, "rx", &rx);
			attr_number(line, end, "ry", &ry);
			box_add(&node, &node_any, x - rx, y - ry);
			box_add(&node, &node_any, x + rx, y + ry);
		} else if (in == G_NODE && (!strncmp(line, "<polygon", 8) || !strncmp(line, "<path", 5) ||
					    !strncmp(line, "<polyline", 9))) {
			v = attr_value(line, end, line[1] == 'p' && line[2] == 'a' ? "d" : "points");
			if (v && pairs_box(v, &b)) {
				box_add(&node, &node_any, b.x0, b.y0);
				box_add(&node, &node_any, b.x1, b.y1);
			}
		} else if (in == G_EDGE && !strncmp(line, "<path", 5) &&
			   (v = attr_value(line, end, "d"))) {
			attr_number(line, end, "stroke-width", &sw);
			first = sc->n_samples;
			add_samples(sc, v, sw / 2);
			n = sc->n_samples - first;
			stroke = sw;
			if (label >= 0) {       /* dot writes the stroke first; in case not */
				sc->labels[label].samples = first;
				sc->labels[label].n_samples = n;
				sc->labels[label].stroke = sw;
			}
		} else if (in == G_EDGE && !strncmp(line, "<polygon", 8) &&
			   (v = attr_value(line, end, "points")) && pairs_box(v, &b)) {
			PUSH(sc, arrows, n_arrows, b);
		} else if (in == G_GRAPH && !sc->has_bounds && !strncmp(line, "<polygon", 8) &&
			   (v = attr_value(line, end, "points")) && pairs_box(v, &b)) {
			sc->bounds = b;         /* the background, drawn first */
			sc->has_bounds = true;
		}
		off = next;
	}
}

static struct box moved(const struct box *b, double dx, double dy)
{
	return (struct box){ b->x0 + dx, b->y0 + dy, b->x1 + dx, b->y1 + dy };
}

/* How much of a and b (grown by gap) overlap: an area, 0 when apart. */
static double covered(const struct box *a, const struct box *b, double gap)
{
	double w = fmin(a->x1, b->x1 + gap) - fmax(a->x0, b->x0 - gap);
	double h = fmin(a->y1, b->y1 + gap) - fmax(a->y0, b->y0 - gap);

	return w > 0 && h > 0 ? w * h : 0;
}

/* How crowded box b is: what it covers, the worst first. Any overlap
 * with a label, a vertex or a text costs more than every stroke it could
 * cross; among overlaps, the smallest area wins. */
static double crowding(const struct svg_scene *sc, const struct box *b, size_t self)
{
	double cost = 0, a;

	if (sc->has_bounds) {
		struct box in = sc->bounds;
		a = (b->x1 - b->x0) * (b->y1 - b->y0) - covered(b, &in, 0);
		cost += a > 0.01 ? COVERS + a * 1e3 : 0;
	}
	for (size_t i = 0; i < sc->n_labels; i++) {
		const struct label *l = &sc->labels[i];
		if (i != self && l->placed) {
			struct box o = moved(&l->box, l->dx, l->dy);
			a = covered(b, &o, GAP);
			cost += a > 0 ? COVERS_LABEL + a * 1e3 : 0;
		}
	}
	for (size_t i = 0; i < sc->n_obstacles; i++) {
		a = covered(b, &sc->obstacles[i], GAP);
		cost += a > 0 ? COVERS + a * 1e3 : 0;
	}
	for (size_t i = 0; i < sc->n_arrows; i++)
		cost += covered(b, &sc->arrows[i], GAP) > 0 ? 1e4 : 0;
	for (size_t i = 0; i < sc->n_samples; i++) {
		const struct sample *s = &sc->samples[i];
		double m = s->half + GAP;
		cost += s->x > b->x0 - m && s->x < b->x1 + m && s->y > b->y0 - m && s->y < b->y1 + m ?
			1e2 : 0;
	}
	return cost;
}

/* The point at fraction f of a label's own stroke (by sample count, which
 * follows its length closely enough here), and its direction. */
static bool stroke_point(const struct svg_scene *sc, const struct label *l, double f,
			 double *x, double *y, double *tx, double *ty)
{
	if (l->n_samples < 2)
		return false;
	size_t i = (size_t)(f * (double)(l->n_samples - 1));
	const struct sample *a = &sc->samples[l->samples + (i ? i - 1 : 0)];
	const struct sample *b = &sc->samples[l->samples + (i + 1 < l->n_samples ? i + 1 : i)];
	double n = hypot(b->x - a->x, b->y - a->y);

	*x = sc->samples[l->samples + i].x;
	*y = sc->samples[l->samples + i].y;
	if (n <= 0)
		return false;
	*tx = (b->x - a->x) / n;
	*ty = (b->y - a->y) / n;
	return true;
}

/* The least crowded spot for box (label i's, or its first line's):
 * dot's own when it is free, else beside its stroke, nearest the middle
 * first and on the left of its direction before the right. Its cost;
 * the move in *dx, *dy. */
static double search(const struct svg_scene *sc, size_t i, const struct box *box, double *dx,
		     double *dy)
{
	static const double fractions[] = { 0.5, 0.4, 0.6, 0.3, 0.7, 0.2, 0.8, 0.12, 0.88 };
	static const double away[] = { 1, 8, 16 };       /* pt beyond the stroke */
	const struct label *l = &sc->labels[i];
	double hw = (box->x1 - box->x0) / 2, hh = (box->y1 - box->y0) / 2;
	double cx = (box->x0 + box->x1) / 2, cy = (box->y0 + box->y1) / 2;
	double best = crowding(sc, box, i), rank = 0;

	*dx = *dy = 0;
	for (size_t f = 0; f < sizeof fractions / sizeof *fractions && best >= 1; f++) {
		double px, py, tx, ty;

		if (!stroke_point(sc, l, fractions[f], &px, &py, &tx, &ty))
			break;
		for (size_t far = 0; far < sizeof away / sizeof *away; far++)
			for (int side = 1; side >= -1; side -= 2) {
				/* The normal on this side, left of the direction
				 * first (y grows downwards), and how far along it
				 * the box's edge is from its centre. */
				double nx = side * ty, ny = -side * tx;
				double reach = fmin(fabs(nx) > 1e-9 ? hw / fabs(nx) : 1e9,
						    fabs(ny) > 1e-9 ? hh / fabs(ny) : 1e9);
				double d = reach + l->stroke / 2 + GAP + away[far];
				double mx = px + nx * d - cx, my = py + ny * d - cy;
				struct box b = moved(box, mx, my);
				double c = crowding(sc, &b, i) + ++rank * 1e-3;

				if (c < best) {
					best = c;
					*dx = mx;
					*dy = my;
				}
			}
	}
	return best;
}

/* Where label i goes. When it covers a label, a vertex or a text
 * wherever it goes, its first line alone (the weight; the edge's tooltip
 * has the rest) where that is less crowded. */
static void place(struct svg_scene *sc, size_t i)
{
	struct label *l = &sc->labels[i];
	double dx, dy, cost = search(sc, i, &l->box, &l->dx, &l->dy);

	if (cost >= COVERS && l->n_lines > 1 && search(sc, i, &l->first, &dx, &dy) < cost) {
		l->weight_only = true;
		l->box = l->first;
		l->dx = dx;
		l->dy = dy;
	}
	l->placed = true;
}

/* A coordinate as dot writes them, two decimals, without printf's locale. */
static void put_coordinate(FILE *out, double v)
{
	long long h = (long long)(v * 100 + (v >= 0 ? 0.5 : -0.5));
	unsigned long long a = h < 0 ? (unsigned long long)-h : (unsigned long long)h;

	fprintf(out, "%s%llu.%02llu", h < 0 ? "-" : "", a / 100, a % 100);
}

/* A label line with its x and y moved. */
static void write_moved_line(FILE *out, const char *line, size_t len, const struct text_line *t,
			     const struct label *l)
{
	const char *end = line + len, *gt = memchr(line, '>', len);
	const char *xv = attr_value(line, gt ? gt : end, "x");
	const char *yv = attr_value(line, gt ? gt : end, "y");
	const char *xe = xv ? strchr(xv, '"') : NULL, *ye = yv ? strchr(yv, '"') : NULL;

	if (!xe || !ye || xv > yv || ye > end) {
		fwrite(line, 1, len, out);
		return;
	}
	fwrite(line, 1, (size_t)(xv - line), out);
	put_coordinate(out, t->x + l->dx);
	fwrite(xe, 1, (size_t)(yv - xe), out);
	put_coordinate(out, t->y + l->dy);
	fwrite(ye, 1, (size_t)(end - ye), out);
}

static void scene_free(struct svg_scene *sc)
{
	free(sc->lines);
	free(sc->labels);
	free(sc->obstacles);
	free(sc->arrows);
	free(sc->samples);
}

/* Heaviest stroke first, then document order. */
static int by_stroke(const void *a, const void *b)
{
	const struct label *const *x = a, *const *y = b;

	if ((*x)->stroke != (*y)->stroke)
		return (*x)->stroke < (*y)->stroke ? 1 : -1;
	return (*x)->edge < (*y)->edge ? -1 : (*x)->edge > (*y)->edge;
}

int wperf_fmt_svg_place_labels(const char *svg, size_t len, FILE *out)
{
	struct svg_scene sc = { 0 };
	struct label **order = NULL;
	size_t li = 0;

	read_scene(svg, len, &sc);
	order = sc.oom || !sc.n_labels ? NULL : malloc(sc.n_labels * sizeof *order);
	if (!order) {                   /* nothing to move, or no memory: as dot wrote it */
		scene_free(&sc);
		return fwrite(svg, 1, len, out) == len ? 0 : -1;
	}
	for (size_t i = 0; i < sc.n_labels; i++)
		order[i] = &sc.labels[i];
	qsort(order, sc.n_labels, sizeof *order, by_stroke);
	for (size_t i = 0; i < sc.n_labels; i++)
		place(&sc, (size_t)(order[i] - sc.labels));
	free(order);
	for (size_t off = 0; off < len;) {
		const char *nl = memchr(svg + off, '\n', len - off);
		size_t end = nl ? (size_t)(nl - svg) : len;

		if (li < sc.n_lines && sc.lines[li].off == off) {
			const struct text_line *t = &sc.lines[li++];
			const struct label *l = &sc.labels[t->label];

			off = end + (nl != NULL);
			if (l->weight_only && !t->first)
				continue;       /* the line, and its newline, left out */
			write_moved_line(out, svg + t->off, end - t->off, t, l);
			if (nl)
				fputc('\n', out);
			continue;
		} else {
			fwrite(svg + off, 1, end - off, out);
		}
		if (nl)
			fputc('\n', out);
		off = end + (nl != NULL);
	}
	scene_free(&sc);
	return ferror(out) ? -1 : 0;
}
