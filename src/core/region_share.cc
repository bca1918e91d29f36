#include "region_share.h"

#include "geodesy.h"

#include <cmath>

namespace geoidx
{

namespace
{

/* Return whether the region of a mode is the complement of a disc. */
bool
outer_region(RegionMode mode)
{
	return mode == RegionMode::outside || mode == RegionMode::dist_gt ||
		   mode == RegionMode::dist_ge;
}

} // namespace

/* Return what a disc's radius alone says about its share of rows. */
DiscRadius
classify_disc_radius(double radius)
{
	if (std::isnan(radius) || radius < 0.0)
		return DiscRadius::invalid;
	/* half the sphere's circumference exceeds every spheroid distance too (half a meridian) */
	if (radius >= M_PI * kSphereRadius)
		return DiscRadius::everything;
	return DiscRadius::estimate;
}

/* Return whether a bound alone decides the share of rows, and the share. */
bool
bound_decides_share(RegionMode mode, double bound, double *share)
{
	if (mode == RegionMode::within || mode == RegionMode::outside)
		return false;
	bool outer = outer_region(mode);
	if (std::isnan(bound))
	{
		*share = outer ? 0.0 : 1.0; /* d > NaN never holds, d < NaN always */
		return true;
	}
	if (bound < 0.0)
	{
		*share = outer ? 1.0 : 0.0;
		return true;
	}
	return false;
}

/* Return the share of rows in a region from the share within its disc. */
double
region_share_of_disc(RegionMode mode, double disc_share)
{
	return outer_region(mode) ? 1.0 - disc_share : disc_share;
}

/* Return the share of rows in a ring from its two discs'. */
double
ring_share(double outer_disc_share, double inner_disc_share)
{
	double s = outer_disc_share - inner_disc_share;
	return s < 0.0 ? 0.0 : s;
}

/* Return the share to assume of a region that is not known at planning time. */
double
unknown_region_share(bool outer)
{
	return outer ? 1.0 - kDefaultShare : kDefaultShare;
}

/* Return an estimate clamped to a share of rows. */
double
clamp_share(double s)
{
	if (!(s >= 0.0))
		return 0.0;
	return s > 1.0 ? 1.0 : s;
}

} // namespace geoidx
