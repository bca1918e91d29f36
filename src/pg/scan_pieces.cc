/*
 * What a large shape's pieces (src/core/shape_pieces.h; the _PIECES entry
 * kinds of format.h) decide in a scan where the shape's one box does not: a
 * row whose every piece lies outside a radius is ruled out, one whose every
 * piece lies beyond it is in a ring's outside, and the nearest-first search
 * orders the row by its nearest piece rather than by its box.
 *
 * Only keys of geodesic regions use them: a radius or ring, a candidate disc
 * (whose operator asks the same of a heap value: geoidx_value_pieces), the
 * candidate disc of a geodesic shape operator's g. A box key asks of
 * PostGIS's degree box of the whole shape, and the planar keys and PostGIS's
 * planar <-> of its straight edges in degrees, which a piece does not hold:
 * they keep to the box.
 */
#include "shape_pieces.h"

#include "geoidx.h"

/* Read e's pieces into ep on the first call; whether it has any. */
bool
geoidx_pieces_of(GeoidxEntryPieces *ep, Page page, const GeoidxLeafEntry *e)
{
	if (!ep->read)
	{
		ep->read = true;
		ep->has = geoidx_entry_pieces(page, e, &ep->p, ep->grids);
	}
	return ep->has;
}

/*
 * The verdict on a shape entry of a scan with no shape operator's key: its
 * box against every region, then its pieces against a region the box leaves
 * undecided (*by_box: the box alone decided). As spatial_classify, outside
 * stays maybe when an EMPTY row would match (no shape entry is EMPTY, but the
 * rule is the keys').
 */
geoidx::Verdict
geoidx_shape_verdict(GeoidxScanOpaque so, Page page, const GeoidxLeafEntry *e, bool *by_box)
{
	const geoidx::Box3 box = GeoidxEntryShapeBox(e);
	const geoidx::Verdict box_verdict = geoidx::spatial_classify(so->keys, box);
	*by_box = true;
	if (box_verdict != geoidx::Verdict::maybe || !GeoidxEntryHasPieces(e) || so->keys.empty_matches)
		return box_verdict;
	*by_box = false;
	GeoidxEntryPieces ep;
	ep.read = false;
	geoidx::Verdict all = geoidx::Verdict::inside;
	for (int i = 0; i < so->nregions; i++)
	{
		const geoidx::RegionTest &t = so->regions[i];
		geoidx::Verdict v = geoidx::classify_region(t, box);
		if (v == geoidx::Verdict::maybe && geoidx_pieces_of(&ep, page, e))
			v = geoidx::pieces_classify(t, ep.p);
		if (v == geoidx::Verdict::outside)
		{
			geoidx_count_piece_decision();
			return v;
		}
		if (v == geoidx::Verdict::maybe)
			all = v;
	}
	if (all == geoidx::Verdict::inside)
		geoidx_count_piece_decision();
	return all;
}

/*
 * The lower bound of a shape entry's distance for the nearest-first search:
 * every point of the shape lies in some piece, so its distance is at least
 * the least of the pieces' bounds, and at least its box's.
 */
double
geoidx_shape_knn_bound(GeoidxScanOpaque so, Page page, const GeoidxLeafEntry *e)
{
	const double by_box = geoidx::knn_box_bound(&so->knn, GeoidxEntryShapeBox(e));
	if (so->knn.planar || !GeoidxEntryHasPieces(e))
		return by_box;
	GeoidxEntryPieces ep;
	ep.read = false;
	if (!geoidx_pieces_of(&ep, page, e))
		return by_box;
	double least = geoidx::knn_box_bound(&so->knn, ep.p.box[0]);
	for (int i = 1; i < ep.p.n; i++)
		least = std::min(least, geoidx::knn_box_bound(&so->knn, ep.p.box[i]));
	return std::max(by_box, least);
}
