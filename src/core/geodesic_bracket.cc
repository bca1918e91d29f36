#include "geodesic_bracket.h"

#include <algorithm>
#include <cmath>

namespace geoidx
{

namespace
{

constexpr double kE2 = (kWgs84A * kWgs84A - kWgs84B * kWgs84B) / (kWgs84A * kWgs84A);
/* The smallest radius of curvature on the ellipsoid: the meridian's at the equator. */
constexpr double kRho = kWgs84B * kWgs84B / kWgs84A;
/*
 * Metres: PostGIS's same-point rule hides up to 9.05e-6 m; rounding, PROJ and
 * the chord's own arithmetic (~1e-8 m) are far below the rest.
 */
constexpr double kAbsSlack = 1e-5;
constexpr double kRelSlack = 1e-9;

} // namespace

/* The ellipsoid point of geodetic unit vector v: the prime vertical radius N scales it. */
Ecef
ecef_of(const Vec3 &v)
{
	double n = kWgs84A / std::sqrt(1.0 - kE2 * v.z * v.z);
	return Ecef{n * v.x, n * v.y, n * (1.0 - kE2) * v.z};
}

/* Bracket the geodesic between the chord and the Schur bound. */
bool
geodesic_bracket(const Ecef &pa, const Ecef &pb, Bracket *out)
{
	double dx = pa.x - pb.x, dy = pa.y - pb.y, dz = pa.z - pb.z;
	double c = std::sqrt(dx * dx + dy * dy + dz * dz);
	if (!(c <= kBracketMaxChord))
		return false;
	out->lo = std::max(0.0, c * (1.0 - kRelSlack) - kAbsSlack);
	out->hi = 2.0 * kRho * std::asin(c / (2.0 * kRho)) * (1.0 + kRelSlack) + kAbsSlack;
	return true;
}

/*
 * The inverses of the bracket's two ends, each moved 1e-12 of itself inwards
 * for the rounding of the chord the bracket is computed from and of these.
 */
bool
bracket_chord_thresholds(double radius, double *far, double *near)
{
	if (!(radius >= 0.0) || !(radius < kBracketMaxChord))
		return false;
	*far = (radius + kAbsSlack) / (1.0 - kRelSlack) * (1.0 + 1e-12);
	double s = (radius - kAbsSlack) / (1.0 + kRelSlack);
	*near = s > 0.0 ? 2.0 * kRho * std::sin(s / (2.0 * kRho)) * (1.0 - 1e-12) : -1.0;
	return true;
}

} // namespace geoidx
