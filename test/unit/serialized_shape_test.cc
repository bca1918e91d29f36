/*
 * The GSERIALIZED walk against values PostGIS 3.3 itself wrote: each fixture
 * is the bytes of a heap tuple's geometry (or geography) after its varlena
 * header, read with pageinspect from a table PostGIS filled from the WKT
 * beside it. What the walk reports is compared with that WKT, written out by
 * hand. Then every truncation of every fixture, and random damage, must be
 * refused or walked without reading past the end (this runs under ASan).
 */
#include <gtest/gtest.h>

#include <cstdio>
#include <random>
#include <string>
#include <vector>

#include "serialized_shape.h"

namespace
{

using namespace geoidx;

struct Fixture
{
	const char *wkt;
	bool geography;
	const char *hex;
	const char *events; /* nullptr: refused as unsupported_type */
	int32_t srid;
	int ndims;
	uint32_t type;
};

const Fixture kFixtures[] = {
	{"POINT(1.5 -2.25)", false, "0010e6400100000001000000000000000000f83f00000000000002c0",
	 "pt(1.5 -2.25)", 4326, 2, kPointType},
	{"LINESTRING(0 0,1 1,2 0.5)", false,
	 "0010e6440000000000000040000000000000803f02000000030000000000000000000000000000000000000000000"
	 "0000000f03f000000000000f03f0000000000000040000000000000e03f",
	 "line(0 0,1 1,2 0.5)", 4326, 2, kLineType},
	{"POLYGON((0 0,4 0,4 4,0 4,0 0),(1 1,2 1,2 2,1 1))", false,
	 "0010e6440000000000008040000000000000804003000000020000000500000004000000000000000000000000000"
	 "000000000000000000000001040000000000000000000000000000010400000000000001040000000000000000000"
	 "0000000000104000000000000000000000000000000000000000000000f03f000000000000f03f000000000000004"
	 "0000000000000f03f00000000000000400000000000000040000000000000f03f000000000000f03f",
	 "{outer(0 0,4 0,4 4,0 4,0 0)inner(1 1,2 1,2 2,1 1)}", 4326, 2, kPolygonType},
	{"MULTIPOINT((1 2),(3 4))", false,
	 "0010e6440000803f00004040000000400000804004000000020000000100000001000000000000000000f03f00000"
	 "00000000040010000000100000000000000000008400000000000001040",
	 "pt(1 2)pt(3 4)", 4326, 2, kMultiPointType},
	{"MULTIPOLYGON(((0 0,1 0,1 1,0 0)),((10 10,11 10,11 11,10 10)))", false,
	 "0010e6440000000000003041000000000000304106000000020000000300000001000000040000000000000000000"
	 "000000000000000000000000000000000000000f03f0000000000000000000000000000f03f000000000000f03f00"
	 "000000000000000000000000000000030000000100000004000000000000000000000000002440000000000000244"
	 "000000000000026400000000000002440000000000000264000000000000026400000000000002440000000000000"
	 "2440",
	 "{outer(0 0,1 0,1 1,0 0)}{outer(10 10,11 10,11 11,10 10)}", 4326, 2, kMultiPolygonType},
	{"GEOMETRYCOLLECTION(POINT(5 6),LINESTRING(0 0,1 1),GEOMETRYCOLLECTION(POINT EMPTY))", false,
	 "0010e644000000000000a040000000000000c04007000000030000000100000001000000000000000000144000000"
	 "00000001840020000000200000000000000000000000000000000000000000000000000f03f000000000000f03f07"
	 "000000010000000100000000000000",
	 "pt(5 6)line(0 0,1 1)pt()", 4326, 2, kCollectionType},
	{"POINT Z (1 2 3)", false,
	 "0010e6410100000001000000000000000000f03f00000000000000400000000000000840", "pt(1 2)", 4326, 3,
	 kPointType},
	{"LINESTRING M (1 2 3,4 5 6)", false,
	 "0010e6420200000002000000000000000000f03f00000000000000400000000000000840000000000000104000000"
	 "000000014400000000000001840",
	 "line(1 2,4 5)", 4326, 3, kLineType},
	{"POLYGON EMPTY", false, "0010e6400300000000000000", "{}", 4326, 2, kPolygonType},
	{"CIRCULARSTRING(0 0,1 1,2 0)", false,
	 "0010e6440000000000000040000000000000803f08000000030000000000000000000000000000000000000000000"
	 "0000000f03f000000000000f03f00000000000000400000000000000000",
	 nullptr, 4326, 2, kCircularStringType},
	{"MULTILINESTRING((0 0,1 1),(2 2,3 3,4 4))", false,
	 "000000440000000000008040000000000000804005000000020000000200000002000000000000000000000000000"
	 "00000000000000000000000f03f000000000000f03f02000000030000000000000000000040000000000000004000"
	 "00000000000840000000000000084000000000000010400000000000001040",
	 "line(0 0,1 1)line(2 2,3 3,4 4)", 0, 2, kMultiLineType},
	{"POINT ZM (1 2 3 4)", false,
	 "0010e6430100000001000000000000000000f03f000000000000004000000000000008400000000000001040",
	 "pt(1 2)", 4326, 4, kPointType},
	{"POLYGON((0 0,1 0,0 1,0 0))", false,
	 "0010e644000000000000803f000000000000803f03000000010000000400000000000000000000000000000000000"
	 "00000000000000000000000f03f00000000000000000000000000000000000000000000f03f000000000000000000"
	 "00000000000000",
	 "{outer(0 0,1 0,0 1,0 0)}", 4326, 2, kPolygonType},
	{"TRIANGLE((0 0,1 0,0 1,0 0))", false,
	 "0010e644000000000000803f000000000000803f0e000000040000000000000000000000000000000000000000000"
	 "0000000f03f00000000000000000000000000000000000000000000f03f00000000000000000000000000000000",
	 nullptr, 4326, 2, kTriangleType},
	{"MULTIPOLYGON EMPTY", false, "0010e6400600000000000000", "", 4326, 2, kMultiPolygonType},
	{"LINESTRING(0 0,1 1)", true,
	 "0010e648020000000200000000000000000000000000000000000000000000000000f03f000000000000f03f",
	 "line(0 0,1 1)", 4326, 2, kLineType},
	{"POLYGON((0 0,4 0,4 4,0 0))", true,
	 "0010e64c1ac17e3f0000803f000000a47cdc8e3d000000a47cdc8e3d0300000001000000040000000000000000000"
	 "000000000000000000000000000000000000000104000000000000000000000000000001040000000000000104000"
	 "000000000000000000000000000000",
	 "{outer(0 0,4 0,4 4,0 0)}", 4326, 2, kPolygonType},
};

std::vector<uint8_t>
bytes_of(const char *hex)
{
	std::vector<uint8_t> out;
	for (const char *p = hex; p[0] && p[1]; p += 2)
	{
		unsigned v = 0;
		std::sscanf(p, "%2x", &v);
		out.push_back(static_cast<uint8_t>(v));
	}
	return out;
}

/* Writes what it is told as text: pt(x y), line(...), outer(...), inner(...), {...} for a polygon.
 */
class Recorder
{
public:
	std::string text;
	long coords_read = 0;

	void
	begin_polygon()
	{
		text += "{";
	}
	void
	end_polygon()
	{
		text += "}";
	}
	void
	chain(ChainKind kind, const uint8_t *coords, uint32_t npoints, int ndims)
	{
		static const char *const names[] = {"pt", "line", "outer", "inner"};
		text += names[static_cast<int>(kind)];
		text += "(";
		for (uint32_t i = 0; i < npoints; i++)
		{
			double x, y;
			serialized_xy(coords, ndims, i, &x, &y);
			char buf[64];
			std::snprintf(buf, sizeof buf, "%s%g %g", i ? "," : "", x, y);
			text += buf;
			coords_read++;
		}
		text += ")";
	}
};

bool
walk(const std::vector<uint8_t> &b, size_t len, Recorder *r, WalkError *err)
{
	SerializedHeader h;
	return read_serialized_header(b.data(), len, &h, err) && walk_serialized(b.data(), h, r, err);
}

TEST(SerializedShape, WalksWhatPostGISWrote)
{
	for (const Fixture &f : kFixtures)
	{
		const std::vector<uint8_t> b = bytes_of(f.hex);
		SerializedHeader h;
		WalkError err{};
		ASSERT_TRUE(read_serialized_header(b.data(), b.size(), &h, &err)) << f.wkt;
		EXPECT_EQ(h.srid, f.srid) << f.wkt;
		EXPECT_EQ(h.ndims, f.ndims) << f.wkt;
		EXPECT_EQ(h.type, f.type) << f.wkt;
		EXPECT_EQ(h.geodetic, f.geography) << f.wkt;
		Recorder r;
		const bool ok = walk_serialized(b.data(), h, &r, &err);
		if (f.events == nullptr)
		{
			EXPECT_FALSE(ok) << f.wkt;
			EXPECT_EQ(err.status, WalkStatus::unsupported_type) << f.wkt;
			EXPECT_EQ(err.type, f.type) << f.wkt;
			EXPECT_STREQ(geom_type_name(err.type),
						 f.type == kTriangleType ? "Triangle" : "CircularString");
		}
		else
		{
			EXPECT_TRUE(ok) << f.wkt << ": status " << static_cast<int>(err.status);
			EXPECT_EQ(r.text, f.events) << f.wkt;
		}
	}
}

TEST(SerializedShape, EveryTruncationIsRefused)
{
	long refused = 0;
	for (const Fixture &f : kFixtures)
	{
		if (f.events == nullptr)
			continue;
		const std::vector<uint8_t> full = bytes_of(f.hex);
		for (size_t len = 0; len < full.size(); len++)
		{
			/* a copy of exactly len bytes, so that ASan sees any read past it */
			std::vector<uint8_t> cut(full.begin(), full.begin() + len);
			Recorder r;
			WalkError err{};
			SerializedHeader h;
			bool ok = read_serialized_header(cut.data(), cut.size(), &h, &err) &&
					  walk_serialized(cut.data(), h, &r, &err);
			EXPECT_FALSE(ok) << f.wkt << " cut to " << len << " bytes was walked: " << r.text;
			EXPECT_EQ(err.status, WalkStatus::truncated) << f.wkt << " cut to " << len;
			refused++;
		}
	}
	EXPECT_GT(refused, 1000);
}

TEST(SerializedShape, RefusesOtherVersionsMembersAndDepths)
{
	/* a v1 value: the version bit clear */
	std::vector<uint8_t> v1 = bytes_of(kFixtures[0].hex);
	v1[3] &= static_cast<uint8_t>(~0x40);
	Recorder r;
	WalkError err{};
	EXPECT_FALSE(walk(v1, v1.size(), &r, &err));
	EXPECT_EQ(err.status, WalkStatus::not_version_2);

	/* MULTIPOINT((1 2),(3 4)) with its second member's type rewritten to LineString */
	std::vector<uint8_t> mp = bytes_of(kFixtures[3].hex);
	const size_t second = 4 + 16 + 8 + 8 + 16; /* header, box, multi words, first member */
	ASSERT_EQ(mp[second], kPointType);
	mp[second] = kLineType;
	err = WalkError{};
	EXPECT_FALSE(walk(mp, mp.size(), &r, &err));
	EXPECT_EQ(err.status, WalkStatus::bad_member);
	EXPECT_EQ(err.type, static_cast<uint32_t>(kLineType));
	EXPECT_EQ(err.offset, second);

	/* collections nested past the limit: GEOMETRYCOLLECTION(GEOMETRYCOLLECTION(... POINT EMPTY)) */
	auto nested = [](int depth)
	{
		std::vector<uint8_t> b = {0x00, 0x10, 0xe6, 0x40};
		auto word = [&b](uint32_t w)
		{
			for (int i = 0; i < 4; i++)
				b.push_back(static_cast<uint8_t>(w >> (8 * i)));
		};
		for (int i = 0; i < depth; i++)
		{
			word(kCollectionType);
			word(1);
		}
		word(kPointType);
		word(0);
		return b;
	};
	std::vector<uint8_t> ok_depth = nested(kMaxDepth), deep = nested(kMaxDepth + 1);
	r = Recorder{};
	EXPECT_TRUE(walk(ok_depth, ok_depth.size(), &r, &err));
	EXPECT_EQ(r.text, "pt()");
	EXPECT_FALSE(walk(deep, deep.size(), &r, &err));
	EXPECT_EQ(err.status, WalkStatus::too_deep);

	/* a count of members no value could hold is refused before any is read */
	std::vector<uint8_t> huge = bytes_of(kFixtures[4].hex); /* the MULTIPOLYGON */
	const size_t count = 4 + 16 + 4;
	huge[count + 3] = 0x7f;
	EXPECT_FALSE(walk(huge, huge.size(), &r, &err));
	EXPECT_EQ(err.status, WalkStatus::truncated);

	/* a negative SRID survives the 21-bit field: -1 is 0x1FFFFF */
	std::vector<uint8_t> neg = bytes_of(kFixtures[0].hex);
	neg[0] = 0x1f;
	neg[1] = 0xff;
	neg[2] = 0xff;
	SerializedHeader h;
	ASSERT_TRUE(read_serialized_header(neg.data(), neg.size(), &h, &err));
	EXPECT_EQ(h.srid, -1);
}

TEST(SerializedShape, RandomDamageIsRefusedOrWalkedInBounds)
{
	std::mt19937_64 rng(20261202);
	long walked = 0, refused = 0;
	for (int round = 0; round < 20000; round++)
	{
		const Fixture &f = kFixtures[rng() % (sizeof kFixtures / sizeof kFixtures[0])];
		std::vector<uint8_t> b = bytes_of(f.hex);
		const int flips = 1 + static_cast<int>(rng() % 4);
		for (int i = 0; i < flips; i++)
			b[4 + rng() % (b.size() - 4)] = static_cast<uint8_t>(rng());
		Recorder r;
		WalkError err{};
		if (walk(b, b.size(), &r, &err))
		{
			walked++;
			/* whatever was walked was inside the value */
			EXPECT_LE(r.coords_read * 16, static_cast<long>(b.size()));
		}
		else
			refused++;
	}
	EXPECT_GT(walked, 0);
	EXPECT_GT(refused, 0);
}

} // namespace
