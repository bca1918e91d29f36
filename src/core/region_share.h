/*
 * The rules of the planner's estimates for a region (src/core/region.h) that
 * need no statistics: what a bound alone says about the share of rows in the
 * region, how the share of a region follows from the share of its disc, and
 * what to assume when nothing is known. The statistics lookups (PostGIS's &&
 * estimator on the search box) are the glue's (src/pg/selectivity.cc).
 *
 * Every rule follows from what the predicate answers for a row: distances are
 * finite and >= 0; the distance comparisons take any float8 bound with
 * PostgreSQL's float8 order (NaN above every number); a disc's radius must be
 * >= 0 and not NaN, else the call raises an error.
 */
#pragma once

#include "pg_free.h"
#include "region.h"

namespace geoidx
{

/* The share assumed where nothing better is known (a generic plan's parameters, a bad radius). */
constexpr double kDefaultShare = 0.005;

/* What a disc's radius alone says about the share of rows within it. */
enum class DiscRadius
{
	invalid,    /* NaN or negative: the call raises an error, no share is right */
	estimate,   /* ask the statistics */
	everything, /* at least half the circumference: every point is within */
};

DiscRadius classify_disc_radius(double radius);

/*
 * Whether the bound of a region decides every row alike, and if so the share
 * (0 or 1) in *share: a distance comparison with a NaN or negative bound. A
 * disc's or its complement's radius never does (a bad one is an error).
 */
bool bound_decides_share(RegionMode mode, double bound, double *share);

/* The share of rows in the region, from the share within its disc. */
double region_share_of_disc(RegionMode mode, double disc_share);

/* The share of rows in a ring, from the shares within its outer and inner discs. */
double ring_share(double outer_disc_share, double inner_disc_share);

/*
 * The share to assume of a region whose centre or bound is unknown at planning
 * time (a generic plan's parameters): few rows in a disc or ring, almost all
 * beyond a bound or outside a disc. Guessing a paging key as selective as a
 * radius would make the generic plan look dearer than the custom ones, and
 * each execution would then plan again.
 */
double unknown_region_share(bool outer);

/* An estimate as a share: NaN and negatives are 0, above 1 is 1. */
double clamp_share(double s);

} // namespace geoidx
