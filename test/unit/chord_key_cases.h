/*
 * Shared by the chord model's tests: the keys a scan builds chord tests from,
 * and points on their circle, where the tests have the most to decide.
 */
#pragma once

#include <cmath>
#include <vector>

#include "geodesy.h"
#include "region.h"

namespace geoidx
{

/* How many kinds chord_key_case builds; the last is a key around another centre. */
constexpr int kChordKeyCases = 5;

/*
 * Keys of kind `which` around cg (centre c, degrees): paging beyond a
 * distance (> and >=), a ring, a radius, and (the last) a paging key with a
 * radius key around another centre, which the chord tests leave out.
 */
inline std::vector<RegionTest>
chord_key_case(int which, LonLat c, GeoPoint cg, double radius)
{
	std::vector<RegionTest> regions;
	switch (which)
	{
		case 0:
			regions.push_back(region_test(cg, radius, true, RegionMode::dist_gt));
			break;
		case 1:
			regions.push_back(region_test(cg, radius, true, RegionMode::dist_ge));
			break;
		case 2:
			regions.push_back(region_test(cg, radius, true, RegionMode::outside));
			regions.push_back(region_test(cg, radius * 2.0, true, RegionMode::within, true));
			break;
		case 3:
			regions.push_back(region_test(cg, radius, true, RegionMode::dist_le));
			break;
		default:
			regions.push_back(region_test(cg, radius, true, RegionMode::dist_gt));
			regions.push_back(region_test(geographic_point(LonLat{c.lon, c.lat * 0.5}), 1e7, true,
										  RegionMode::within));
			break;
	}
	return regions;
}

/* The point (radians) at radius metres from cg on the sphere, at the bearing (radians). */
inline LonLat
point_on_circle(GeoPoint cg, double radius, double bearing)
{
	double angle = radius / 6371008.8;
	double lat = std::asin(std::sin(cg.lat) * std::cos(angle) +
						   std::cos(cg.lat) * std::sin(angle) * std::cos(bearing));
	double lon = cg.lon + std::atan2(std::sin(bearing) * std::sin(angle) * std::cos(cg.lat),
									 std::cos(angle) - std::sin(cg.lat) * std::sin(lat));
	return LonLat{std::remainder(lon, 2.0 * M_PI), lat};
}

} // namespace geoidx
