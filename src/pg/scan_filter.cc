/*
 * The conditions on the columns after the point (filtered k-NN, INCLUDE
 * columns), tested on each entry's payload while the index is searched, so
 * that no row that fails them reaches the heap or the k-NN frontier.
 *
 * Integer and boolean comparisons of one type with itself (the usual filter:
 * category = 7) are done inline; every other condition calls its operator's
 * function, and col <@ array looks the value up in a sorted copy of the array.
 */
#include "scan_filter.h"

extern "C"
{
#include "access/tupmacs.h"
}

namespace
{

/* Read an integer or boolean datum as the inline comparison sees it. */
inline int64
fast_value(int8 fast, Datum d)
{
	switch (fast & ~kGeoidxFastOpMask)
	{
		case kGeoidxFast2:
			return DatumGetInt16(d);
		case kGeoidxFast4:
			return DatumGetInt32(d);
		case kGeoidxFastBool:
			return DatumGetBool(d) ? 1 : 0;
		default:
			return DatumGetInt64(d);
	}
}

/* Tell whether key can be compared inline, and how: 0 when its operator must be called. */
int8
fast_kind(ScanKey key, TupleDesc payload_desc)
{
	if (key->sk_strategy < BTLessStrategyNumber || key->sk_strategy > BTGreaterStrategyNumber ||
		(key->sk_flags & (SK_ISNULL | SK_SEARCHARRAY)))
		return 0;
	Oid type = TupleDescAttr(payload_desc, key->sk_attno - 2)->atttypid;
	if (key->sk_subtype != type && key->sk_subtype != InvalidOid)
		return 0;
	int8 width = geoidx_fast_width(type);
	return width != 0 ? (int8) (width | key->sk_strategy) : 0;
}

/*
 * Where column attno (of the payload) starts in the data of a payload with no
 * NULL, as index_getattr would find it: after the fixed-width columns before
 * it, each aligned; -1 behind a variable-width one.
 */
int16
fixed_offset(TupleDesc payload_desc, int attno)
{
	int off = 0;
	for (int i = 0; i < attno; i++)
	{
		Form_pg_attribute att = TupleDescAttr(payload_desc, i);
		if (att->attlen <= 0)
			return -1;
		off = att_align_nominal(off, att->attalign);
		if (i == attno - 1)
			return (int16) off;
		off += att->attlen;
	}
	return -1;
}

} // namespace

/* Prepare one condition on a column after the point: an IN list, an inline comparison, or a call.
 */
void
geoidx_scalar_key_init(GeoidxScalarKey *sk, ScanKey key, TupleDesc payload_desc, MemoryContext cxt)
{
	sk->key = key;
	sk->inlist =
		key->sk_strategy == GEOIDX_SCALAR_IN
			? geoidx_in_list_make(DatumGetArrayTypeP(key->sk_argument), key->sk_collation, cxt)
			: NULL;
	sk->fast = sk->inlist ? 0 : fast_kind(key, payload_desc);
	sk->fast_arg = sk->fast ? fast_value(sk->fast, key->sk_argument) : 0;
	sk->null_test = 0;
	sk->fixed_off = sk->fast ? fixed_offset(payload_desc, key->sk_attno - 1) : -1;
}

/* Make the key of col IS NULL (or IS NOT NULL) on a column after the point. */
void
geoidx_null_key_init(GeoidxScalarKey *sk, ScanKey key)
{
	sk->key = key;
	sk->inlist = NULL;
	sk->fast = 0;
	sk->fast_arg = 0;
	sk->null_test = (key->sk_flags & SK_SEARCHNULL) ? GEOIDX_IS_NULL : GEOIDX_IS_NOT_NULL;
	sk->fixed_off = -1;
}

/* Decide whether every key of the scan can be read at a fixed offset (geoidx_payload_passes). */
void
geoidx_fixed_filter_init(GeoidxScanOpaqueData *so)
{
	so->fixed_filter = so->nscalar > 0;
	so->fixed_end = 0;
	for (int k = 0; k < so->nscalar && so->fixed_filter; k++)
	{
		const GeoidxScalarKey *sk = &so->scalar[k];
		if (sk->fixed_off < 0)
		{
			so->fixed_filter = false;
			break;
		}
		int width = TupleDescAttr(so->payload_desc, sk->key->sk_attno - 2)->attlen;
		so->fixed_end = (int16) Max(so->fixed_end, sk->fixed_off + width);
	}
}

/*
 * The tags of one key on the first column after the point: of the value an
 * equality asks for, or of each value of an IN list of the column's own
 * type, with *exact false if a value is not its own tag; false for any other
 * key, which rules no entry out.
 */
static bool
tags_of(const GeoidxScalarKey *sk, TupleDesc payload_desc, geoidx::TagSet *tags, bool *exact)
{
	if (sk->key->sk_attno != 2)
		return false;
	auto add = [&](int64 v)
	{
		geoidx::tag_set_add(tags, geoidx::value_tag(v));
		*exact = *exact && geoidx::value_tag_exact(v);
	};
	if (sk->fast != 0)
	{
		if ((sk->fast & kGeoidxFastOpMask) != BTEqualStrategyNumber)
			return false;
		add(sk->fast_arg);
		return true;
	}
	if (sk->inlist == NULL)
		return false;
	Oid type = TupleDescAttr(payload_desc, 0)->atttypid;
	if (ARR_ELEMTYPE((ArrayType *) sk->inlist->source) != type)
		return false;
	int8 fast = geoidx_fast_width(type);
	if (fast == 0)
		return false;
	/* an element that is NULL equals no value: a list of NULLs only rules every entry out */
	for (int i = 0; i < sk->inlist->n; i++)
		if (!sk->inlist->nulls[i])
			add(fast_value(fast, sk->inlist->elems[i]));
	return true;
}

/*
 * Decide whether the scan can skip entries by their tags: when a key asks
 * the first column after the point for a value or a list of them (the keys
 * are ANDed, so one such key is enough; the first is taken).
 */
void
geoidx_tag_filter_init(GeoidxScanOpaqueData *so)
{
	so->tag_filter = false;
	so->tags_decide = false;
	so->tag_one = -1;
	so->tag_set = geoidx::TagSet{{0, 0, 0, 0}};
	bool exact = true;
	for (int k = 0; k < so->nscalar && !so->tag_filter; k++)
		so->tag_filter = tags_of(&so->scalar[k], so->payload_desc, &so->tag_set, &exact);
	if (!so->tag_filter)
		return;
	so->tags_decide = exact && so->nscalar == 1;
	/* one tag asked for is compared 32 at a time; more are looked up in the set */
	int ntags = 0;
	for (int w = 0; w < 4; w++)
	{
		ntags += pg_popcount64(so->tag_set.bits[w]);
		if (so->tag_set.bits[w] != 0)
			so->tag_one = (int16) (w * 64 + pg_rightmost_one_pos64(so->tag_set.bits[w]));
	}
	if (ntags != 1)
		so->tag_one = -1;
}

/* Test every condition on the columns after the point on an entry's payload (none fails NULL). */
bool
geoidx_scalar_keys_match(const GeoidxScanOpaqueData *so, IndexTuple payload)
{
	if (so->nscalar == 0)
		return true;
	for (int k = 0; k < so->nscalar; k++)
	{
		const GeoidxScalarKey *sk = &so->scalar[k];
		bool isnull = true;
		/* no payload: every column after the point is NULL */
		Datum v = payload == NULL
					  ? (Datum) 0
					  : index_getattr(payload, sk->key->sk_attno - 1, so->payload_desc, &isnull);
		if (sk->null_test != 0)
		{
			if (isnull != (sk->null_test == GEOIDX_IS_NULL))
				return false;
			continue;
		}
		if (isnull)
			return false;
		if (sk->fast != 0)
		{
			if (!geoidx_fast_compare(sk->fast, fast_value(sk->fast, v), sk->fast_arg))
				return false;
		}
		else if (sk->inlist != NULL)
		{
			if (geoidx_in_list_test(sk->inlist, v) <= 0)
				return false;
		}
		else if (!DatumGetBool(FunctionCall2Coll(&sk->key->sk_func, sk->key->sk_collation, v,
												 sk->key->sk_argument)))
			return false;
	}
	return true;
}
