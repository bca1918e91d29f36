# PGXS build of the geoidx extension (C++). `make`, `make install`,
# `make installcheck` (pg_regress), `make isolationcheck` (isolation specs),
# both against a running server; `make tapcheck` (TAP: they start their own
# clusters). The core's unit tests are in CMake. test/run-all runs everything.
EXTENSION = geoidx
# The release (README: versions and upgrades). The SQL version in geoidx.control
# is its major.minor; META.json and debian/changelog name the release too, and
# test/package/versions checks that they agree.
EXTVERSION = 0.2.0
MODULE_big = geoidx
# The newest SQL version whole, and an upgrade script from every released one.
DATA = geoidx--0.2.sql geoidx--0.1--0.2.sql

CORE_OBJS = $(patsubst %.cc,%.o,$(wildcard src/core/*.cc))
PG_OBJS = $(patsubst %.cc,%.o,$(wildcard src/pg/*.cc))
OBJS = $(CORE_OBJS) $(PG_OBJS)

REGRESS = $(patsubst sql/%.sql,%,$(sort $(wildcard sql/*.sql)))
REGRESS_OPTS = --load-extension=postgis --inputdir=. --outputdir=build/regress
ISOLATION_SPECS = $(patsubst test/isolation/specs/%.spec,%,$(sort $(wildcard test/isolation/specs/*.spec)))
ISOLATION_OPTS = --dbname=geoidx_isolation --load-extension=postgis --load-extension=geoidx \
	--inputdir=test/isolation --outputdir=build/isolation

PG_CONFIG ?= pg_config
# C++17; PG15's s_lock.h uses `register`, which C++17 removed; no exceptions or RTTI may
# cross into PostgreSQL, so none are compiled in. No contraction of a * b + c into one
# rounding: the geodesy repeats PostGIS's arithmetic to the last bit (src/core/geodesy.h).
PG_CPPFLAGS = -DGEOIDX_LIB_VERSION='"$(EXTVERSION)"'
PG_CXXFLAGS = -std=c++17 -Wall -Wextra -Werror -Wno-register -Wno-unused-parameter \
	-Wno-missing-field-initializers -fno-exceptions -fno-rtti -ffp-contract=off -Isrc/core
SHLIB_LINK = -lproj -lstdc++ -lm
# The LLVM bitcode rule ignores PG_CXXFLAGS; geoidx gains nothing from JIT inlining.
override with_llvm = no

PGXS := $(shell $(PG_CONFIG) --pgxs)
include $(PGXS)

PROVE_TESTS = test/t/*.pl

installcheck: | build/regress
isolationcheck: | build/isolation
build/regress build/isolation:
	mkdir -p $@

isolationcheck:
	$(pg_isolation_regress_installcheck) $(ISOLATION_OPTS) $(ISOLATION_SPECS)

tapcheck:
	$(prove_installcheck)

# The PGXN distribution (META.json): the committed tree at HEAD, without the data
# sets and the benchmark kit, which building, installing and installcheck do not use.
dist:
	mkdir -p build
	git archive --format zip --prefix=$(EXTENSION)-$(EXTVERSION)/ -o build/$(EXTENSION)-$(EXTVERSION).zip \
		HEAD -- . ':!data' ':!bench' ':!.ci'

.PHONY: isolationcheck tapcheck dist

# PGXS tracks no header dependencies: rebuild everything when a header changes.
$(OBJS): $(wildcard src/core/*.h src/pg/*.h)
