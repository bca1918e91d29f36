/*
 * amvalidate: checks that an operator class of geoidx has what the access
 * method calls, with the signatures it assumes. Every fault is reported as an
 * INFO message (as the built-in access methods do) and makes the result false.
 */
#include "geoidx.h"

extern "C"
{
#include "access/amvalidate.h"
#include "access/htup_details.h"
#include "catalog/pg_amop.h"
#include "catalog/pg_amproc.h"
#include "catalog/pg_opclass.h"
#include "catalog/pg_opfamily.h"
#include "catalog/pg_type.h"
#include "utils/regproc.h"
#include "utils/syscache.h"
}

namespace
{

/* Report one fault of an operator family as INFO; return false. */
bool
fault(const char *family, const char *fmt, const char *detail)
{
	ereport(INFO, (errcode(ERRCODE_INVALID_OBJECT_DEFINITION),
				   errmsg("operator family \"%s\" of access method geoidx %s", family, fmt),
				   detail ? errdetail("%s", detail) : 0));
	return false;
}

/*
 * Validate an operator class of a column after the point: btree-like comparison
 * operators (1 <, 2 <=, 3 =, 4 >=, 5 >, and 6 <@ array: "is one of") returning boolean, evaluated
 * on the stored value through their functions; no support functions; = is required.
 */
bool
validate_scalar(Oid opfamilyoid, Oid opcintype, const char *family)
{
	bool ok = true, have_eq = false;
	CatCList *procs = SearchSysCacheList1(AMPROCNUM, ObjectIdGetDatum(opfamilyoid));
	for (int i = 0; i < procs->n_members; i++)
	{
		Form_pg_amproc p = (Form_pg_amproc) GETSTRUCT(&procs->members[i]->tuple);
		ok = fault(family, "has a support function, which the columns after the point never call",
				   format_procedure(p->amproc));
	}
	CatCList *ops = SearchSysCacheList1(AMOPSTRATEGY, ObjectIdGetDatum(opfamilyoid));
	for (int i = 0; i < ops->n_members; i++)
	{
		Form_pg_amop op = (Form_pg_amop) GETSTRUCT(&ops->members[i]->tuple);
		const char *name = format_operator(op->amopopr);
		if (op->amopstrategy < 1 || op->amopstrategy > GEOIDX_SCALAR_STRATEGIES)
			ok = fault(family, "has an operator with an invalid strategy number",
					   psprintf("%s has strategy %d; a column after the point has 1 to 6 "
								"(<, <=, =, >=, >, <@ array)",
								name, op->amopstrategy));
		else if (op->amopstrategy == GEOIDX_SCALAR_IN && op->amoprighttype != ANYARRAYOID)
			ok = fault(family, "has an operator 6 whose right operand is not anyarray", name);
		else if (op->amoppurpose != AMOP_SEARCH)
			ok = fault(family, "has an ordering operator for a column after the point", name);
		else if (!check_amop_signature(op->amopopr, BOOLOID, op->amoplefttype, op->amoprighttype))
			ok = fault(family, "has a search operator that does not return boolean", name);
		else if (op->amopstrategy == 3 && op->amoplefttype == opcintype &&
				 op->amoprighttype == opcintype)
			have_eq = true;
	}
	if (!have_eq)
		ok = fault(family, "lacks operator 3 (=) for its indexed type", NULL);
	ReleaseCatCacheList(ops);
	ReleaseCatCacheList(procs);
	return ok;
}

} // namespace

/* Validate an operator class of geoidx (amvalidate). */
bool
geoidx_validate(Oid opclassoid)
{
	bool ok = true;

	HeapTuple classtup = SearchSysCache1(CLAOID, ObjectIdGetDatum(opclassoid));
	if (!HeapTupleIsValid(classtup))
		elog(ERROR, "cache lookup failed for operator class %u", opclassoid);
	Form_pg_opclass classform = (Form_pg_opclass) GETSTRUCT(classtup);
	Oid opfamilyoid = classform->opcfamily;
	Oid opcintype = classform->opcintype;

	HeapTuple familytup = SearchSysCache1(OPFAMILYOID, ObjectIdGetDatum(opfamilyoid));
	if (!HeapTupleIsValid(familytup))
		elog(ERROR, "cache lookup failed for operator family %u", opfamilyoid);
	Form_pg_opfamily familyform = (Form_pg_opfamily) GETSTRUCT(familytup);
	const char *family = pstrdup(NameStr(familyform->opfname));

	Oid geography = geoidx_geography_type();
	if (opcintype != geoidx_geometry_type() && (!OidIsValid(geography) || opcintype != geography))
	{
		ok = validate_scalar(opfamilyoid, opcintype, family);
		ReleaseSysCache(familytup);
		ReleaseSysCache(classtup);
		return ok;
	}

	bool have_within = false, have_distance = false, have_decode = false;

	CatCList *procs = SearchSysCacheList1(AMPROCNUM, ObjectIdGetDatum(opfamilyoid));
	for (int i = 0; i < procs->n_members; i++)
	{
		Form_pg_amproc p = (Form_pg_amproc) GETSTRUCT(&procs->members[i]->tuple);
		if (p->amprocnum != GEOIDX_DECODE_PROC)
		{
			ok = fault(family, "has a support function with an invalid number",
					   psprintf("function %s is number %d; geoidx has only number 1 (decode)",
								format_procedure(p->amproc), p->amprocnum));
			continue;
		}
		if (!check_amproc_signature(p->amproc, INTERNALOID, true, 1, 1, INTERNALOID))
			ok = fault(family, "has a decode function with the wrong signature",
					   psprintf("%s must take (internal) and return internal",
								format_procedure(p->amproc)));
		else if (p->amproclefttype == opcintype)
			have_decode = true;
	}

	CatCList *ops = SearchSysCacheList1(AMOPSTRATEGY, ObjectIdGetDatum(opfamilyoid));
	for (int i = 0; i < ops->n_members; i++)
	{
		Form_pg_amop op = (Form_pg_amop) GETSTRUCT(&ops->members[i]->tuple);
		const char *name = format_operator(op->amopopr);
		switch (op->amopstrategy)
		{
			case GEOIDX_STRATEGY_WITHIN:
				if (op->amoppurpose != AMOP_SEARCH || OidIsValid(op->amopsortfamily))
					ok = fault(family, "has a search operator used for ordering", name);
				else if (!check_amop_signature(op->amopopr, BOOLOID, op->amoplefttype,
											   op->amoprighttype))
					ok = fault(family, "has a search operator that does not return boolean", name);
				else if (op->amoplefttype == opcintype)
					have_within = true;
				break;
			case GEOIDX_STRATEGY_DISTANCE:
			case GEOIDX_STRATEGY_PLANAR_DISTANCE:
			case GEOIDX_STRATEGY_SPHERE_DISTANCE:
				if (op->amoppurpose != AMOP_ORDER || !OidIsValid(op->amopsortfamily))
					ok = fault(family, "has a distance operator that is not FOR ORDER BY", name);
				else if (!check_amop_signature(op->amopopr, FLOAT8OID, op->amoplefttype,
											   op->amoprighttype))
					ok = fault(family, "has a distance operator that does not return float8", name);
				else if (op->amoplefttype == opcintype &&
						 op->amopstrategy == GEOIDX_STRATEGY_DISTANCE)
					have_distance = true;
				break;
			case GEOIDX_STRATEGY_COVERS:
			case GEOIDX_STRATEGY_COVEREDBY:
			case GEOIDX_STRATEGY_INTERSECTS:
			case GEOIDX_STRATEGY_PLANAR_CONTAINS:
			case GEOIDX_STRATEGY_PLANAR_COVERS:
			case GEOIDX_STRATEGY_PLANAR_INTERSECTS:
			case GEOIDX_STRATEGY_BOX_OVERLAPS:
			case GEOIDX_STRATEGY_BOX_WITHIN:
			case GEOIDX_STRATEGY_BOX_CONTAINS:
				if (op->amoppurpose != AMOP_SEARCH || OidIsValid(op->amopsortfamily))
					ok = fault(family, "has a search operator used for ordering", name);
				else if (op->amoplefttype != op->amoprighttype ||
						 !check_amop_signature(op->amopopr, BOOLOID, op->amoplefttype,
											   op->amoprighttype))
					ok = fault(family,
							   "has a shape operator that does not compare two values of one type "
							   "as a boolean",
							   name);
				break;
			default:
				ok = fault(family, "has an operator with an invalid strategy number",
						   psprintf("%s has strategy %d; a point column has 1 (within), 2 "
									"(distance), 3 to 5 (covers, covered by, intersects), 6 to 8 "
									"(planar contains, covers, intersects), 9 to 11 (PostGIS's "
									"&&, @ and ~), 12 and 13 (PostGIS's <->, planar and sphere)",
									name, op->amopstrategy));
		}
	}

	if (!have_within)
		ok = fault(family, "lacks operator 1 (within a circle) for its indexed type", NULL);
	if (!have_distance)
		ok = fault(family, "lacks operator 2 (distance, FOR ORDER BY) for its indexed type", NULL);
	if (!have_decode)
		ok = fault(family, "lacks support function 1 (decode) for its indexed type", NULL);

	ReleaseCatCacheList(ops);
	ReleaseCatCacheList(procs);
	ReleaseSysCache(familytup);
	ReleaseSysCache(classtup);
	return ok;
}
