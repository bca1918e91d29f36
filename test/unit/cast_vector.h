/* Shared by the planar tests: a point's unit vector where the geography cast puts it. */
#pragma once

#include "geodesy.h"
#include "sphere_bounds.h"

namespace geoidx
{

/* What a point entry's box holds for raw coordinates (x, y): the cast's place, then its vector. */
inline Vec3
cast_vector(double x, double y)
{
	LonLat ll;
	(void) normalize_like_geography(x, y, &ll);
	return unit_vector(geographic_point(ll));
}

} // namespace geoidx
