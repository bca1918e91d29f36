/*
 * The inline half of the payload filters (scan_filter.cc): the comparisons of
 * integers and booleans done with no call, and the test a search runs on
 * every entry it passes when each condition is such a comparison of a column
 * at a fixed place in the payload (category = 7 on (pos, category)). A
 * filtered k-NN tests every payload of the leaves it reads, ~2,500 a query
 * for 10 rows of a 1 % category, and that test was a fifth of its backend
 * (bench/PROFILES.md).
 */
#pragma once

#include "geoidx.h"

extern "C"
{
#include "access/stratnum.h"
#include "catalog/pg_type_d.h"
}

/* GeoidxScalarKey.fast: the strategy in the low bits, the type's width above. */
constexpr int8 kGeoidxFastOpMask = 0x0F;
constexpr int8 kGeoidxFast2 = 0x10, kGeoidxFast4 = 0x20, kGeoidxFast8 = 0x40,
			   kGeoidxFastBool = 0x30;

/* The width code of a type the inline comparisons read (integers, boolean), or 0. */
static inline int8
geoidx_fast_width(Oid type)
{
	switch (type)
	{
		case INT2OID:
			return kGeoidxFast2;
		case INT4OID:
			return kGeoidxFast4;
		case INT8OID:
			return kGeoidxFast8;
		case BOOLOID:
			return kGeoidxFastBool;
		default:
			return 0;
	}
}

/* Compare a and b as the key's operator would: the same answer, without the call. */
static inline bool
geoidx_fast_compare(int8 fast, int64 a, int64 b)
{
	switch (fast & kGeoidxFastOpMask)
	{
		case BTLessStrategyNumber:
			return a < b;
		case BTLessEqualStrategyNumber:
			return a <= b;
		case BTEqualStrategyNumber:
			return a == b;
		case BTGreaterEqualStrategyNumber:
			return a >= b;
		default:
			return a > b;
	}
}

/* Read a column of a fast key's type where it is stored (no alignment assumed). */
static inline int64
geoidx_fast_stored(int8 fast, const char *p)
{
	switch (fast & ~kGeoidxFastOpMask)
	{
		case kGeoidxFast2:
		{
			int16 v;
			memcpy(&v, p, sizeof(v));
			return v;
		}
		case kGeoidxFast4:
		{
			int32 v;
			memcpy(&v, p, sizeof(v));
			return v;
		}
		case kGeoidxFastBool:
			return *p != 0 ? 1 : 0;
		default:
		{
			int64 v;
			memcpy(&v, p, sizeof(v));
			return v;
		}
	}
}

/*
 * Test the conditions on the columns after the point on an entry's payload.
 * A payload with no NULL holds its fixed-width columns at fixed offsets, so
 * where every condition is inline (so->fixed_filter) they are read from
 * there; anything else (NULLs, a short tuple, a call) takes the general test.
 */
static inline bool
geoidx_payload_passes(const GeoidxScanOpaqueData *so, IndexTuple payload)
{
	if (so->nscalar == 0)
		return true;
	if (so->fixed_filter && payload != NULL && !IndexTupleHasNulls(payload) &&
		IndexTupleSize(payload) >= MAXALIGN(sizeof(IndexTupleData)) + (Size) so->fixed_end)
	{
		const char *data = (const char *) payload + MAXALIGN(sizeof(IndexTupleData));
		for (int k = 0; k < so->nscalar; k++)
		{
			const GeoidxScalarKey *sk = &so->scalar[k];
			if (!geoidx_fast_compare(sk->fast, geoidx_fast_stored(sk->fast, data + sk->fixed_off),
									 sk->fast_arg))
				return false;
		}
		return true;
	}
	return geoidx_scalar_keys_match(so, payload);
}
