/*
 * Fault points: crash a backend exactly between two WAL records, for tests.
 *
 * In the spirit of PostgreSQL 17's injection points, on PostgreSQL 15: the
 * superuser-only setting geoidx.fault_point names one record boundary (see
 * GeoidxFault; every record of wal.cc passes its own). A backend that writes
 * that record right after makes it durable, logs
 *     geoidx fault point "NAME" reached by pid PID
 * and waits there, holding whatever buffer locks it holds, until the test
 * kills it with kill -9. The flush matters: a kill -9 makes the postmaster
 * reinitialise shared memory, which loses WAL still in the WAL buffers, and
 * then the crash would not land between the records it was meant to.
 *
 * Compiled in always, not only in test builds: the cost is one predictable
 * branch on an integer after each WAL record (which has just compared and
 * copied whole pages), and the tests then exercise the very binary that is
 * installed, with no second build configuration to keep working.
 */
#include "geoidx.h"

extern "C"
{
#include "postmaster/postmaster.h"
#include "storage/ipc.h"
#include "storage/pmsignal.h"
#include "utils/guc.h"
}

int geoidx_fault_point = GEOIDX_FAULT_NONE;

namespace
{

/* The names a test sets geoidx.fault_point to; README "Concurrency and WAL" lists the records. */
const struct config_enum_entry fault_names[] = {
	{"none", GEOIDX_FAULT_NONE, false},
	{"leaf-append", GEOIDX_FAULT_LEAF_APPEND, false},
	{"entry-enlarge", GEOIDX_FAULT_ENTRY_ENLARGE, false},
	{"page-split-leaf", GEOIDX_FAULT_PAGE_SPLIT_LEAF, false},
	{"page-split-internal", GEOIDX_FAULT_PAGE_SPLIT_INTERNAL, false},
	{"downlink-leaf", GEOIDX_FAULT_DOWNLINK_LEAF, false},
	{"downlink-internal", GEOIDX_FAULT_DOWNLINK_INTERNAL, false},
	{"root-split-leaf", GEOIDX_FAULT_ROOT_SPLIT_LEAF, false},
	{"root-split-internal", GEOIDX_FAULT_ROOT_SPLIT_INTERNAL, false},
	{"vacuum-leaf", GEOIDX_FAULT_VACUUM_LEAF, false},
	{NULL, 0, false},
};

} // namespace

/* Define geoidx.fault_point; called once from _PG_init. */
void
geoidx_fault_init(void)
{
	DefineCustomEnumVariable(
		"geoidx.fault_point", "For tests only: a WAL record after which a backend stops.",
		"A backend that writes this record flushes it, logs the point and its pid, and "
		"waits to be killed. Crash tests use it; never set it on a server that matters.",
		&geoidx_fault_point, GEOIDX_FAULT_NONE, fault_names, PGC_SUSET, GUC_NOT_IN_SAMPLE, NULL,
		NULL, NULL);
}

/*
 * Stop at an armed fault point: make the record that ends at lsn durable, say
 * so, and wait to be killed. Interrupts may be held off (buffer locks are
 * held): only kill -9 ends the wait, or the postmaster's death.
 */
void
geoidx_fault_reached(Relation index, GeoidxFault fault, XLogRecPtr lsn)
{
	if (RelationNeedsWAL(index))
		XLogFlush(lsn);
	ereport(LOG, (errmsg("geoidx fault point \"%s\" reached by pid %d", fault_names[fault].name,
						 MyProcPid),
				  errhidestmt(true)));
	for (;;)
	{
		if (!PostmasterIsAlive())
			proc_exit(1);
		pg_usleep(10000L);
	}
}
