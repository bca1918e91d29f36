#include "region_order.h"

#include <algorithm>
#include <limits>

#include "cell_region.h"

namespace geoidx
{

namespace
{

constexpr double kInf = std::numeric_limits<double>::infinity();

/* The heap's order: the smaller chord on top, the lower child among equals. */
struct Farther
{
	bool
	operator()(const RegionSlot &a, const RegionSlot &b) const
	{
		return a.raw > b.raw || (a.raw == b.raw && a.child > b.child);
	}
};

bool
sorted_before(const RegionSlot &a, const RegionSlot &b)
{
	return a.metres < b.metres || (a.metres == b.metres && a.child < b.child);
}

/* region_lower_bound's metres of a squared chord, less the slack. */
double
metres_of(const RegionOrder *o, double raw)
{
	if (raw == kInf)
		return kInf;
	return std::max(0.0, metres_lower_bound(chord2_to_angle(raw), o->use_spheroid) - o->slack);
}

/* Insert s into the sorted list's pending part, keeping it in order. */
void
insert_sorted(RegionOrder *o, const RegionSlot &s)
{
	size_t i = o->sorted_n++;
	while (i > o->sorted_next && sorted_before(s, o->sorted[i - 1]))
	{
		o->sorted[i] = o->sorted[i - 1];
		i--;
	}
	o->sorted[i] = s;
}

} // namespace

Box3
region_hull(const Box3 *boxes, size_t n)
{
	Box3 h = box_empty();
	for (size_t i = 0; i < n; i++)
		box_extend(&h, boxes[i]);
	return h;
}

void
region_order_start(RegionOrder *o, const RegionRef *regions, size_t count, const Vec3 *q,
				   bool use_spheroid, double slack, RegionSlot *near, RegionSlot *sorted)
{
	o->regions = regions;
	o->q = q != nullptr ? *q : Vec3{};
	o->use_spheroid = use_spheroid;
	o->slack = slack;
	o->near = near;
	o->near_n = 0;
	o->sorted = sorted;
	o->sorted_next = 0;
	o->sorted_n = 0;
	o->picked = -1;
	o->box_reads = 0;
	for (size_t i = 0; i < count; i++)
	{
		RegionSlot s{0.0, 0.0, (uint32_t) i, 2};
		const RegionRef &r = regions[i];
		if (q != nullptr && r.known)
		{
			s.raw = min_chord2(r.hull, *q);
			if (s.raw < kMonotoneChord2)
			{
				s.stage = r.n > 1 ? 0 : 1;
				if (s.stage == 1)
					s.raw = region_chord2(r.boxes, r.n, *q);
				o->near[o->near_n++] = s;
				continue;
			}
			o->box_reads++;
			s.raw = region_chord2(r.boxes, r.n, *q);
			s.metres = metres_of(o, s.raw);
		}
		insert_sorted(o, s);
	}
	std::make_heap(o->near, o->near + o->near_n, Farther());
}

bool
region_order_next(RegionOrder *o, size_t *child, double *bound)
{
	while (o->near_n > 0 && o->near[0].stage < 2)
	{
		RegionSlot s = o->near[0];
		std::pop_heap(o->near, o->near + o->near_n, Farther());
		o->near_n--;
		if (s.stage == 0)
		{
			/* the hull's chord came up: the boxes' own, never nearer */
			o->box_reads++;
			s.raw = region_chord2(o->regions[s.child].boxes, o->regions[s.child].n, o->q);
			s.stage = 1;
			if (!(s.raw < kMonotoneChord2))
			{
				s.metres = metres_of(o, s.raw);
				s.stage = 2;
				insert_sorted(o, s);
				continue;
			}
		}
		else
		{
			s.metres = metres_of(o, s.raw);
			s.stage = 2;
		}
		o->near[o->near_n++] = s;
		std::push_heap(o->near, o->near + o->near_n, Farther());
	}
	bool have_near = o->near_n > 0, have_sorted = o->sorted_next < o->sorted_n;
	if (!have_near && !have_sorted)
	{
		o->picked = -1;
		return false;
	}
	o->picked =
		have_sorted && (!have_near || sorted_before(o->sorted[o->sorted_next], o->near[0])) ? 1 : 0;
	const RegionSlot &s = o->picked == 1 ? o->sorted[o->sorted_next] : o->near[0];
	*child = s.child;
	*bound = s.metres;
	return true;
}

void
region_order_take(RegionOrder *o)
{
	if (o->picked == 1)
		o->sorted_next++;
	else if (o->picked == 0)
	{
		std::pop_heap(o->near, o->near + o->near_n, Farther());
		o->near_n--;
	}
	o->picked = -1;
}

} // namespace geoidx
