#include "planar_grid.h"

#include <algorithm>
#include <cmath>
#include <limits>

namespace geoidx
{

namespace
{

constexpr double kDegrees = 180.0 / M_PI;
constexpr double kRadians = M_PI / 180.0;

/* A vertex as PostGIS's planar predicates read it (the cast did not move it: s.coerced is false).
 */
void
vertex(const CoverShape &s, const RingVectors &r, uint32_t i, double *x, double *y)
{
	const GeoPoint &g = s.geo[(r.v - s.points) + i];
	*x = g.lon * kDegrees;
	*y = g.lat * kDegrees;
}

/*
 * A bound (radians) of how far the straight edge (x1 y1)-(x2 y2), in degrees,
 * strays from the great-circle arc between its ends; infinite when it is not
 * worth bounding. With longitude and latitude linear in t, the planar edge's
 * image P(t) on the unit sphere has |P''| <= (|dlon| + |dlat|)^2 = L^2 (in
 * radians), and the arc at uniform speed |G''| = theta^2 <= L^2; P - G is 0 at
 * both ends, so |P - G| <= max |P'' - G''| / 8 <= L^2 / 4. Where that is too
 * coarse the edge is cut in kPieces: each piece strays from the arc between
 * its ends by its own L^2 / 4, and that arc from the edge's by at most its
 * ends' distance from the edge's circle (a short arc's distance from a great
 * circle peaks at an end), which is computed. A meridian's segment is exact.
 */
double
edge_deviation(double x1, double y1, double x2, double y2)
{
	constexpr int kPieces = 8;
	const double l = (std::fabs(x2 - x1) + std::fabs(y2 - y1)) * kRadians;
	/* a meridian's segment is its own arc (the box keeps the edge off the poles) */
	if (l == 0.0 || x1 == x2)
		return 0.0;
	if (l > 0.1)
		return std::numeric_limits<double>::infinity();
	const double whole = 0.25 * l * l * (1.0 + 1e-9);
	if (whole < kPlanarDeviation)
		return whole;
	const Vec3 a = covers_vector(x1, y1), b = covers_vector(x2, y2);
	Vec3 n = cross(a, b);
	const double nn = std::sqrt(dot(n, n));
	if (!(nn > 1e-12))
		return std::numeric_limits<double>::infinity();
	n = Vec3{n.x / nn, n.y / nn, n.z / nn};
	double far = 0.0;
	for (int i = 1; i < kPieces; i++)
	{
		const double t = static_cast<double>(i) / kPieces;
		const Vec3 p = covers_vector(x1 + t * (x2 - x1), y1 + t * (y2 - y1));
		/* p must lie between the ends, where its distance from the arc is that from the circle */
		if (dot(cross(a, p), n) < 0.0 || dot(cross(p, b), n) < 0.0)
			return std::numeric_limits<double>::infinity();
		far = std::max(far, std::asin(std::min(1.0, std::fabs(dot(p, n)))));
	}
	const double piece = l / kPieces;
	return far * (1.0 + 1e-9) + 1e-15 + 0.25 * piece * piece * (1.0 + 1e-9);
}

/*
 * Whether the ring winds around (x0 y0), a point far from all its edges; false
 * in *consistent when the winding number and the crossing parity disagree (a
 * ring that winds twice: PostGIS's answer then depends on which test it runs).
 */
bool
ring_holds(const CoverShape &s, const RingVectors &ring, double x0, double y0, bool *consistent)
{
	int winding = 0, crossings = 0;
	double x1, y1;
	vertex(s, ring, 0, &x1, &y1);
	for (uint32_t i = 1; i < ring.n; i++)
	{
		double x2, y2;
		vertex(s, ring, i, &x2, &y2);
		if ((y1 > y0) != (y2 > y0) && x1 + (y0 - y1) * (x2 - x1) / (y2 - y1) > x0)
		{
			crossings++;
			winding += y2 > y1 ? 1 : -1;
		}
		x1 = x2;
		y1 = y2;
	}
	if ((winding != 0) != (crossings % 2 == 1))
		*consistent = false;
	return winding != 0;
}

/* PostGIS's planar point-in-(multi)polygon at a point far from every edge: in some shell, in none
 * of its holes. */
bool
planar_holds(const CoverShape &s, double x0, double y0, bool *consistent)
{
	bool inside = false;
	for (uint32_t p = 0; p < s.npolygons; p++)
	{
		const CoverPolygon &poly = s.polygons[p];
		if (poly.nrings == 0)
			continue;
		bool in = ring_holds(s, s.rings[poly.first_ring], x0, y0, consistent);
		for (uint32_t h = 1; h < poly.nrings; h++)
			if (ring_holds(s, s.rings[poly.first_ring + h], x0, y0, consistent))
				in = false;
		inside |= in;
	}
	return inside;
}

int
find_root(int *parent, int k)
{
	while (parent[k] != k)
	{
		parent[k] = parent[parent[k]];
		k = parent[k];
	}
	return k;
}

/*
 * A point of cell k, on the sphere, in degrees: of the cell's a-b rectangle
 * the point nearest the sheet's centre (in the disc a^2 + b^2 <= 1 whenever
 * the cell holds a unit vector), lifted onto the sheet; false for a cell no
 * unit vector reaches.
 */
bool
cell_point(const GridFrame &f, int k, double *lon, double *lat)
{
	const int i = k / f.nb, j = k % f.nb;
	const double a_lo = f.box.lo[f.a] + i * f.step_a, a_hi = f.box.lo[f.a] + (i + 1) * f.step_a;
	const double b_lo = f.box.lo[f.b] + j * f.step_b, b_hi = f.box.lo[f.b] + (j + 1) * f.step_b;
	const double a = std::clamp(0.0, a_lo, std::max(a_lo, a_hi));
	const double b = std::clamp(0.0, b_lo, std::max(b_lo, b_hi));
	const double r2 = a * a + b * b;
	if (r2 > 1.0 + 1e-9)
		return false;
	double c = std::sqrt(std::max(0.0, 1.0 - r2));
	if (f.box.hi[f.c] < 0.0)
		c = -c;
	double v[3];
	v[f.a] = a;
	v[f.b] = b;
	v[f.c] = c;
	*lon = std::atan2(v[1], v[0]) * kDegrees;
	*lat = std::asin(std::clamp(v[2], -1.0, 1.0)) * kDegrees;
	return true;
}

} // namespace

bool
degree_rect_of(const Box3 &b, DegreeBox *out)
{
	/* the z axis, and the antimeridian's half plane x < 0, y = 0: no rectangle holds them */
	if (b.lo[1] <= 0.0 && b.hi[1] >= 0.0 && b.lo[0] <= 0.0)
		return false;
	double lo = std::numeric_limits<double>::infinity(), hi = -lo;
	for (double x : {b.lo[0], b.hi[0]})
		for (double y : {b.lo[1], b.hi[1]})
		{
			/* a convex set off the cut sees its extreme longitudes at corners */
			const double a = std::atan2(y, x) * kDegrees;
			lo = std::min(lo, a);
			hi = std::max(hi, a);
		}
	const double zlo = std::clamp(b.lo[2], -1.0, 1.0), zhi = std::clamp(b.hi[2], -1.0, 1.0);
	out->xmin = lo - kPlanarSlack;
	out->xmax = hi + kPlanarSlack;
	out->ymin = std::asin(zlo) * kDegrees - kPlanarSlack;
	out->ymax = std::asin(zhi) * kDegrees + kPlanarSlack;
	return std::isfinite(out->xmin) && std::isfinite(out->xmax) && std::isfinite(out->ymin) &&
		   std::isfinite(out->ymax);
}

bool
planar_grid_agrees(const CoverShape &s, const InteriorGrid &g, const GridFrame &f)
{
	DegreeBox whole;
	if (s.coerced || s.srid != 4326 || grid_is_empty(g) || !degree_rect_of(f.box, &whole))
		return false;

	/* closed rings whose straight edges stay nearer their arcs than any decided cell comes */
	for (uint32_t p = 0; p < s.npolygons; p++)
		for (uint32_t k = 0; k < s.polygons[p].nrings; k++)
		{
			const RingVectors &ring = s.rings[s.polygons[p].first_ring + k];
			if (ring.n < 4)
				return false;
			double x1, y1, xn, yn;
			vertex(s, ring, 0, &x1, &y1);
			vertex(s, ring, ring.n - 1, &xn, &yn);
			if (x1 != xn || y1 != yn)
				return false;
			for (uint32_t i = 1; i < ring.n; i++)
			{
				double x2, y2;
				vertex(s, ring, i, &x2, &y2);
				if (!(edge_deviation(x1, y1, x2, y2) < kPlanarDeviation))
					return false;
				x1 = x2;
				y1 = y2;
			}
		}

	/* face-adjacent decided cells form connected edge-free pieces, each of one planar answer */
	int parent[kGridCells];
	bool decided[kGridCells] = {};
	const int ncells = f.na * f.nb;
	for (int k = 0; k < ncells; k++)
	{
		parent[k] = k;
		double lon, lat;
		decided[k] =
			(grid_bit(g.inside, k) || grid_bit(g.outside, k)) && cell_point(f, k, &lon, &lat);
	}
	for (int k = 0; k < ncells; k++)
	{
		if (!decided[k])
			continue;
		const int i = k / f.nb, j = k % f.nb;
		const int next[2] = {i + 1 < f.na ? k + f.nb : -1, j + 1 < f.nb ? k + 1 : -1};
		for (int n : next)
			if (n >= 0 && decided[n])
				parent[find_root(parent, n)] = find_root(parent, k);
	}
	signed char answer[kGridCells];
	std::fill(answer, answer + kGridCells, static_cast<signed char>(-1));
	bool consistent = true;
	for (int k = 0; k < ncells; k++)
	{
		if (!decided[k])
			continue;
		const int root = find_root(parent, k);
		if (answer[root] < 0)
		{
			double lon, lat;
			cell_point(f, root, &lon, &lat);
			answer[root] = planar_holds(s, lon, lat, &consistent) ? 1 : 0;
		}
		if (!consistent || (answer[root] == 1) != grid_bit(g.inside, k))
			return false;
	}
	return true;
}

} // namespace geoidx
