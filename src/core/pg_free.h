/*
 * Guard included first by every core header: the core is plain C++ that must
 * compile and be unit tested without PostgreSQL, and PostgreSQL's macros
 * (Max, Min, elog, ...) must never leak into it.
 */
#pragma once

#ifdef POSTGRES_H
#error "src/core must not see PostgreSQL headers: include the core header before postgres.h"
#endif
