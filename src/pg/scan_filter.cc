/*
 * The conditions on the columns after the point (filtered k-NN, INCLUDE
 * columns), tested on each entry's payload while the index is searched, so
 * that no row that fails them reaches the heap or the k-NN frontier.
 *
 * Integer and boolean comparisons of one type with itself (the usual filter:
 * category = 7) are done inline; every other condition calls its operator's
 * function, and col <@ array looks the value up in a sorted copy of the array.
 */
#include "geoidx.h"

extern "C"
{
#include "access/stratnum.h"
#include "catalog/pg_type_d.h"
}

namespace
{

/* GeoidxScalarKey.fast: the strategy in the low bits, the type's width above. */
constexpr int8 kFastOpMask = 0x0F;
constexpr int8 kFast2 = 0x10, kFast4 = 0x20, kFast8 = 0x40, kFastBool = 0x30;

/* Read an integer or boolean datum as the inline comparison sees it. */
inline int64
fast_value(int8 fast, Datum d)
{
	switch (fast & ~kFastOpMask)
	{
		case kFast2:
			return DatumGetInt16(d);
		case kFast4:
			return DatumGetInt32(d);
		case kFastBool:
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
	switch (type)
	{
		case INT2OID:
			return (int8) (kFast2 | key->sk_strategy);
		case INT4OID:
			return (int8) (kFast4 | key->sk_strategy);
		case INT8OID:
			return (int8) (kFast8 | key->sk_strategy);
		case BOOLOID:
			return (int8) (kFastBool | key->sk_strategy);
		default:
			return 0;
	}
}

/* Compare a and b as the key's operator would: the same answer, without the call. */
inline bool
fast_compare(int8 fast, int64 a, int64 b)
{
	switch (fast & kFastOpMask)
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
			if (!fast_compare(sk->fast, fast_value(sk->fast, v), sk->fast_arg))
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
