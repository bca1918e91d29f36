/*
 * The one place PostgreSQL's headers come in. Included after every core
 * header (src/core refuses to compile once postgres.h is seen) and wrapped in
 * extern "C": PostgreSQL is C, and its functions must keep C linkage.
 *
 * No C++ object with a destructor may live across a call that can ereport:
 * ereport longjmps and would skip it. Glue code therefore uses plain structs
 * and palloc; the core allocates nothing.
 */
#pragma once

extern "C"
{
#include "postgres.h"

#include "access/amapi.h"
#include "access/generic_xlog.h"
#include "access/genam.h"
#include "access/relscan.h"
#include "access/reloptions.h"
#include "access/tableam.h"
#include "access/xlog.h"
#include "access/xloginsert.h"
#include "catalog/index.h"
#include "commands/progress.h"
#include "commands/vacuum.h"
#include "fmgr.h"
#include "miscadmin.h"
#include "pgstat.h"
#include "storage/bufmgr.h"
#include "storage/indexfsm.h"
#include "storage/lmgr.h"
#include "utils/array.h"
#include "utils/builtins.h"
#include "utils/lsyscache.h"
#include "utils/memutils.h"
#include "utils/rel.h"
}
