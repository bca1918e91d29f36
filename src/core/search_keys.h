/*
 * The spatial conditions of one scan: a conjunction of region keys (region.h)
 * that every returned row must satisfy, and how it judges a box, a point and
 * the rows that have no point (NULL and EMPTY). The glue turns scan keys into
 * this once per rescan; the page visitor and the k-NN frontier both ask it.
 */
#pragma once

#include <cmath>
#include <cstdint>

#include "chord_model.h"
#include "pg_free.h"
#include "region.h"

namespace geoidx
{

struct SpatialKeys
{
	const RegionTest *regions; /* all must hold; the caller owns the array */
	int n;
	/*
	 * EMPTY rows satisfy every key (only 'outside' keys hold for them): then no
	 * box may rule a page out, since a page of EMPTY rows has an empty box.
	 */
	bool empty_matches;
	/* a key excludes points near its centre (outside, >, >=): the near side is tested early */
	bool near_side_keys;
};

/* Summarise n region keys (regions must outlive the result). */
SpatialKeys spatial_keys(const RegionTest *regions, int n);

/* inside: every point of the box satisfies every key; outside: no row below the box can match. */
Verdict spatial_classify(const SpatialKeys &k, const Box3 &box);

/* Exact, for a stored point as the geography cast leaves it. */
bool spatial_point_matches(const SpatialKeys &k, LonLat p);

/* The same, with the point's radians and unit vector, which the caller needs anyway. */
bool spatial_point_matches_at(const SpatialKeys &k, LonLat p, GeoPoint g, const Vec3 &v);

/*
 * The keys' tests before their trigonometric ones (point_in_region_at's), for
 * points whose squared chord to one centre is known only within a range
 * (chord_model.h): what decides most of a chunk's points without their unit
 * vectors.
 */
struct ChordTest
{
	double centre_lat_deg;
	double reject_dlat_deg;
	double reject_c2;
	double accept_c2;
	bool outer;
	/*
	 * The chord bracket's tests (a spheroid key within its range), on the
	 * squared chord between ellipsoid points over a^2 (ellipsoid_chord_model):
	 * above far_e2 the point is beyond the radius, below near_e2 within it.
	 * +Infinity and -1 where they decide nothing.
	 */
	double far_e2;
	double near_e2;
};

constexpr int kMaxChordTests = 4;

struct ChordKeys
{
	int n;
	bool never;     /* a key no point satisfies */
	bool complete;  /* every key is here: the tests can accept a point, not only reject it */
	bool ellipsoid; /* some test has the bracket's: a model of the ellipsoid chord may decide */
	ChordTest t[kMaxChordTests];
};

/* The chord tests of the keys around centre q (a key around another centre is left out). */
ChordKeys chord_keys(const SpatialKeys &k, const Vec3 &q);

/*
 * What spatial_point_matches_at answers for a point at latitude lat_deg whose
 * squared chord to q, as chord2 computes it, lies in c2, and (with_ellipsoid)
 * whose squared chord between ellipsoid points over a^2
 * (ellipsoid_chord_model) lies in e2: 1 or 0 where that decides every key, -1
 * where the point's unit vector must. The sphere's tests are
 * point_in_region_at's first ones; the ellipsoid's are the chord bracket's,
 * which it makes for a point in the band between the sphere's two. A key that
 * says a point is beyond its radius says so on every test it makes, so the
 * order of the tests does not change the verdict. The sphere's alone run for
 * every point of a cut chunk: a template, so that they pay nothing for the
 * ellipsoid's.
 */
template <bool with_ellipsoid>
inline int
chord_keys_verdict(const ChordKeys &ck, double lat_deg, Chord2Range c2, Chord2Range e2)
{
	if (ck.never)
		return 0;
	int verdict = ck.complete ? 1 : -1;
	for (int i = 0; i < ck.n; i++)
	{
		const ChordTest &t = ck.t[i];
		bool far = std::fabs(lat_deg - t.centre_lat_deg) > t.reject_dlat_deg || c2.lo > t.reject_c2;
		bool near = c2.hi < t.accept_c2 && !(c2.hi > t.reject_c2);
		if constexpr (with_ellipsoid)
		{
			far = far || e2.lo > t.far_e2;
			near = near || e2.hi < t.near_e2;
		}
		if (far)
		{
			if (!t.outer)
				return 0;
		}
		else if (near)
		{
			if (t.outer)
				return 0;
		}
		else
			verdict = -1;
	}
	return verdict;
}

inline int
chord_keys_match(const ChordKeys &ck, double lat_deg, double c2_lo, double c2_hi)
{
	return chord_keys_verdict<false>(ck, lat_deg, Chord2Range{c2_lo, c2_hi}, Chord2Range{});
}

inline int
chord_keys_match_ellipsoid(const ChordKeys &ck, double lat_deg, Chord2Range c2, Chord2Range e2)
{
	return chord_keys_verdict<true>(ck, lat_deg, c2, e2);
}

/*
 * The keys' verdict (chord_keys_match) on a stored point (degrees, as
 * stored_lonlat leaves it) from a chord model about ck's centre, and the range
 * the model gives it. Degrees become radians by a multiplication, within an
 * ulp of the exact test's division: far inside kChordModelSlack.
 */
inline int
chord_model_match(const ChordKeys &ck, const ChordModel &m, LonLat ll, Chord2Range *r)
{
	*r = chord_model_range(m, ll.lon * (M_PI / 180.0), ll.lat * (M_PI / 180.0));
	return chord_keys_match(ck, ll.lat, r->lo, r->hi);
}

/* A NULL row: every condition is strict, so it matches only when there is none. */
inline bool
spatial_null_matches(const SpatialKeys &k)
{
	return k.n == 0;
}

/* An EMPTY row: it matches when every key is one that EMPTY satisfies. */
inline bool
spatial_empty_matches(const SpatialKeys &k)
{
	return k.n == 0 || k.empty_matches;
}

/*
 * The stored coordinates of a leaf entry as the geography cast leaves them.
 * Entries hold what the heap holds; a value the cast would wrap is wrapped
 * here, and what only a corrupted entry can hold (NaN, infinities) reads as
 * (0, 0) rather than poisoning the comparisons.
 */
LonLat stored_lonlat_wrapped(double x, double y);

/* Inline: every point a search touches passes through it, and nearly all are in range. */
inline LonLat
stored_lonlat(double x, double y)
{
	if (x >= -180.0 && x <= 180.0 && y >= -90.0 && y <= 90.0)
		return LonLat{x, y};
	return stored_lonlat_wrapped(x, y);
}

} // namespace geoidx
