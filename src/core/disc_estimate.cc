#include "disc_estimate.h"

#include <cmath>

namespace geoidx
{

namespace
{
/* Samples per axis of the patch: 8^2 = 64 points, about a microsecond per box. */
constexpr int kSamplesPerAxis = 8;
} // namespace

DiscEstimate
disc_estimate(GeoPoint centre, double radius, bool use_spheroid)
{
	DiscEstimate d;
	d.test = radius_test(centre, radius, use_spheroid);
	d.q = unit_vector(centre);
	double angle = std::fmin(radius / kSphereRadius, M_PI);
	double chord = 2.0 * std::sin(angle / 2.0);
	d.c2 = chord * chord;
	return d;
}

double
box_share_in_disc(const DiscEstimate &d, const Box3 &b)
{
	if (box_is_empty(b))
		return 0.0;
	switch (classify_box(d.test, b))
	{
		case Verdict::outside:
			return 0.0;
		case Verdict::inside:
			return 1.0;
		case Verdict::maybe:
			break;
	}
	/*
	 * Sample the patch itself: a grid over the box's two widest axes, each
	 * sample lifted onto the sphere along the third, kept where it lands
	 * inside the box (both lifts where both do). The patch is flattest seen
	 * along its narrowest axis, so the grid is close to even by area.
	 */
	double extent[3];
	for (int a = 0; a < 3; a++)
		extent[a] = b.hi[a] - b.lo[a];
	int n = 0; /* the narrowest axis */
	for (int a = 1; a < 3; a++)
		if (extent[a] < extent[n])
			n = a;
	const int u = (n + 1) % 3, w = (n + 2) % 3;
	int in = 0, all = 0;
	for (int i = 0; i < kSamplesPerAxis; i++)
		for (int j = 0; j < kSamplesPerAxis; j++)
		{
			double c[3];
			c[u] = b.lo[u] + (i + 0.5) / kSamplesPerAxis * extent[u];
			c[w] = b.lo[w] + (j + 0.5) / kSamplesPerAxis * extent[w];
			double rest = 1.0 - c[u] * c[u] - c[w] * c[w];
			if (rest < 0.0)
				continue; /* off the sphere */
			double lift = std::sqrt(rest);
			for (double side : {lift, -lift})
			{
				if (side < b.lo[n] || side > b.hi[n] || (side == -lift && lift == 0.0))
					continue;
				c[n] = side;
				all++;
				in += vector_in_disc(d, Vec3{c[0], c[1], c[2]}) ? 1 : 0;
			}
		}
	if (in > 0 && all > 0)
		return static_cast<double>(in) / all;
	/*
	 * A disc smaller than the grid's spacing: the ratio of the disc's area
	 * (pi chord^2 on the unit sphere, for small discs) to the patch's, taken
	 * as the area of the plane patch the box's three projections bound.
	 */
	const double *e = extent;
	double patch = std::sqrt(e[0] * e[0] * e[1] * e[1] + e[1] * e[1] * e[2] * e[2] +
							 e[0] * e[0] * e[2] * e[2]);
	double disc = M_PI * d.c2;
	return patch > disc ? disc / patch : 1.0;
}

} // namespace geoidx
