#include "choose.h"

namespace geoidx
{

/* Pick the subtree for a box: covering with least margin, else least enlargement. */
int
choose_entry_box(const Box3 *first, size_t stride, size_t n, const Box3 *box, bool *covers)
{
	const unsigned char *base = reinterpret_cast<const unsigned char *>(first);
	int best = -1;
	double best_growth = 0.0, best_margin = 0.0;
	bool best_covers = false;
	for (size_t i = 0; i < n; i++)
	{
		const Box3 &b = *reinterpret_cast<const Box3 *>(base + i * stride);
		bool c = box == nullptr || box_contains(b, *box);
		double growth = c ? 0.0 : box_enlargement(b, *box);
		double margin = box_margin(b);
		if (best < 0 || (c && !best_covers) ||
			(c == best_covers &&
			 (growth < best_growth || (growth == best_growth && margin < best_margin))))
		{
			best = static_cast<int>(i);
			best_growth = growth;
			best_margin = margin;
			best_covers = c;
		}
	}
	*covers = best_covers;
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
