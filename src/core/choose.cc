#include "choose.h"

namespace geoidx
{

/*
 * Pick the subtree for a box: covering with least margin, else least
 * enlargement. An insert's box is usually covered already (a moved point
 * goes back near where it was), and then only the covering entries' margins
 * count: the enlargement of every entry of the page is worked out only when
 * none covers it (bench/PROFILES.md, W1).
 */
int
choose_entry_box(const Box3 *first, size_t stride, size_t n, const Box3 *box, bool *covers)
{
	const unsigned char *base = reinterpret_cast<const unsigned char *>(first);
	auto entry = [&](size_t i) -> const Box3 &
	{ return *reinterpret_cast<const Box3 *>(base + i * stride); };
	int best = -1;
	double best_margin = 0.0;
	for (size_t i = 0; i < n; i++)
	{
		const Box3 &b = entry(i);
		if (box != nullptr && !box_contains(b, *box))
			continue;
		double margin = box_margin(b);
		if (best < 0 || margin < best_margin)
		{
			best = static_cast<int>(i);
			best_margin = margin;
		}
	}
	*covers = best >= 0;
	if (best >= 0)
		return best;
	double best_growth = 0.0;
	for (size_t i = 0; i < n; i++)
	{
		const Box3 &b = entry(i);
		double growth = box_enlargement(b, *box);
		double margin = box_margin(b);
		if (best < 0 || growth < best_growth || (growth == best_growth && margin < best_margin))
		{
			best = static_cast<int>(i);
			best_growth = growth;
			best_margin = margin;
		}
	}
	return best;
}

int
choose_entry(const Box3 *first, size_t stride, size_t n, const Vec3 *v, bool *covers)
{
	if (v == nullptr)
		return choose_entry_box(first, stride, n, nullptr, covers);
	Box3 b = box_of(*v);
	return choose_entry_box(first, stride, n, &b, covers);
}

} // namespace geoidx
