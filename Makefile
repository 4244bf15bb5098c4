# redist: convenience front end over CMake/CTest. The real build is CMakeLists.txt.
#
#   make / make build     configure + build (Release) in build/
#   make check            install deps, build, run the tests of both builds (plain and
#                         ASan+UBSan) not labelled long, and the Python check
#   make check-long       the tests labelled long of both builds (CI runs both)
#   make check-once       each MPI program once, the command-line tests (CI: MPI=mpich)
#   make demo             install deps, build, run `redist demo` on 4 ranks
#   make install PREFIX=dir   (and DESTDIR=dir; docs/install.md)
#   make uninstall        remove the files of the last install from $(BUILD_DIR)
#   make deb              the Debian package $(BUILD_DIR)/redist_<version>_<arch>.deb (CPack)
#   make deb-check        as root: build the package, apt-get install it, run the consumer
#                         check (tests/consumer/) against /usr, then remove the package
#   make bench            build, then run bench/run.sh
#   make bench-nodes      build, then run bench/run_nodes.sh: node-aware against flat schedules
#                         on virtual nodes of this machine (NP, RANKS_PER_NODE, RECIPE)
#   make test             run make check's tests of build/ only (no rebuild of build-asan/;
#                         CTEST_SELECT="" for all of them)
#   make asan             build and test build-asan/ only
#   make python-check     the Python package's tests (python/tests) at 1-4 ranks (part of check)
#   make stress           long randomized runs: thousands of random cases per test and rank
#                         count, 10^4 plans (scripts/stress.sh; STRESS_* knobs below)
#   make fuzz             build the libFuzzer targets (clang) in build-fuzz/, run each for
#                         FUZZ_SECONDS (60) on its corpus (tests/fuzz/; scripts/fuzz.sh)
#   make valgrind         build, then valgrind (memcheck) on every serial test and some MPI
#                         tests (scripts/valgrind.sh); VALGRIND_SHORT=1 for CI's short run
#   make tsan             ThreadSanitizer (clang, LLVM's OpenMP and its Archer tool) on the
#                         threaded tests, in build-tsan/
#   make format           clang-format -i every C file
#   make clean
#
# Knobs: JOBS, CTEST_JOBS, WERROR (ON/OFF), MPI_NPROCS / ASAN_MPI_NPROCS (rank counts for
# MPI tests, e.g. MPI_NPROCS="1 2 4"), CMAKE_ARGS, ASAN_CMAKE_ARGS, PREFIX, DESTDIR, and
# MPI (openmpi, the default: the system's mpicc and mpiexec; or mpich: Debian's MPICH,
# mpicc.mpich and mpiexec.mpich, in its own trees build-mpich/ and build-asan-mpich/, e.g.
# `make check MPI=mpich`).

SHELL := /bin/bash
MAKEFLAGS += --no-print-directory
.SHELLFLAGS := -o pipefail -c

MPI            ?= openmpi
ifeq ($(MPI),openmpi)
MPI_CMAKE_ARGS :=
else ifeq ($(MPI),mpich)
BUILD_DIR      ?= build-mpich
ASAN_DIR       ?= build-asan-mpich
MPICH_BINDIR   ?= /usr/bin
MPI_CMAKE_ARGS := -DMPI_C_COMPILER=$(MPICH_BINDIR)/mpicc.mpich \
                  -DMPI_Fortran_COMPILER=$(MPICH_BINDIR)/mpif90.mpich \
                  -DMPIEXEC_EXECUTABLE=$(MPICH_BINDIR)/mpiexec.mpich
else
$(error MPI=$(MPI): use MPI=openmpi or MPI=mpich)
endif

BUILD_DIR      ?= build
ASAN_DIR       ?= build-asan
PREFIX         ?= /usr/local
JOBS           ?= $(shell nproc 2>/dev/null || echo 2)
CTEST_JOBS     ?= $(JOBS)
WERROR         ?= ON
# The plain build registers every MPI test at all these rank counts, the sanitizer build (3
# to 5 times slower per test) at 1 to 4; make check runs them at the CHECK_NPROCS counts
# (plain) and ASAN_CHECK_NPROCS (sanitizer), make check-long at the others.
MPI_NPROCS     ?= 1 2 3 4 5 7 8
ASAN_MPI_NPROCS ?= 1 2 3 4
CHECK_NPROCS   ?= 1 2 3
ASAN_CHECK_NPROCS ?= 2
CMAKE          ?= cmake
CTEST          ?= ctest
CLANG_FORMAT   ?= clang-format
CMAKE_ARGS     ?=
ASAN_CMAKE_ARGS ?=
DEMO_NP        ?= 4
# The target times on a 2-core machine (CI's kind) of make check, check-long and check-once:
# each fails when it takes more than twice its target on a machine with 2 or more cores, and
# prints its SLOWEST tests.
CHECK_TARGET_SECONDS ?= 720
CHECK_LONG_TARGET_SECONDS ?= 900
CHECK_ONCE_TARGET_SECONDS ?= 600
SLOWEST        ?= 15
CTEST_SELECT   ?= -LE long

empty :=
space := $(empty) $(empty)
semi_list = $(subst $(space),;,$(strip $(1)))

CONFIGURE      = $(CMAKE) -S . -B $(BUILD_DIR) -DCMAKE_BUILD_TYPE=Release \
                 -DREDIST_WERROR=$(WERROR) "-DREDIST_MPI_NPROCS=$(call semi_list,$(MPI_NPROCS))" \
                 "-DREDIST_CHECK_NPROCS=$(call semi_list,$(CHECK_NPROCS))" \
                 $(MPI_CMAKE_ARGS) $(CMAKE_ARGS)
CONFIGURE_ASAN = $(CMAKE) -S . -B $(ASAN_DIR) -DCMAKE_BUILD_TYPE=Debug "-DCMAKE_C_FLAGS_DEBUG=-g -O1" \
                 -DREDIST_SANITIZE=ON -DREDIST_BUILD_BENCH=OFF -DREDIST_WERROR=$(WERROR) \
                 "-DREDIST_MPI_NPROCS=$(call semi_list,$(ASAN_MPI_NPROCS))" \
                 "-DREDIST_CHECK_NPROCS=$(call semi_list,$(ASAN_CHECK_NPROCS))" $(MPI_CMAKE_ARGS) \
                 $(ASAN_CMAKE_ARGS)

# include/redist.h is hand-formatted and owned by the API; not reformatted by default.
FORMAT_DIRS    ?= src tools tests bench examples
C_FILES = $(shell find $(FORMAT_DIRS) -type f \( -name '*.c' -o -name '*.h' \) 2>/dev/null)

.PHONY: all build deps check check-long check-once run-check test asan asan-build tsan demo \
        install bench bench-nodes format format-check clean python-check

all: build

build:
	$(CONFIGURE)
	$(CMAKE) --build $(BUILD_DIR) -j$(JOBS)

deps:
	@bash scripts/install-deps.sh

asan-build:
	$(CONFIGURE_ASAN)
	$(CMAKE) --build $(ASAN_DIR) -j$(JOBS)

# Runs ctest in directory $(1) on the tests $(CTEST_SELECT) picks; leaves ctest's "N% tests
# passed" line in $(1)/ctest-summary.txt.
define run_ctest
	@echo "== ctest $(CTEST_SELECT) in $(1)"
	@rm -f $(1)/ctest-summary.txt
	@cd $(1) && set +e; $(CTEST) --output-on-failure -j$(CTEST_JOBS) $(CTEST_SELECT) 2>&1 | tee ctest.log; \
	  rc=$${PIPESTATUS[0]}; \
	  line=$$(grep -E 'tests passed|No tests were found' ctest.log | tail -n 1); \
	  echo "$${line:-ctest did not report a result} (exit $$rc)" > ctest-summary.txt; \
	  exit $$rc
endef

test:
	$(call run_ctest,$(BUILD_DIR))

asan: asan-build
	$(call run_ctest,$(ASAN_DIR))

# make check and its two companions (docs/architecture.md, "Tests and their time"), one
# recipe: CHECK_NAME, which tests (CTEST_SELECT), whether the sanitizer build and the Python
# check run, and the target time, whose double fails the run. Every stage runs even if an
# earlier test stage failed, so one run shows all failures.
CHECK_NAME     ?= check
CHECK_ASAN     ?= 1
CHECK_PYTHON   ?= 1
run-check:
	@start=$$(date +%s); status=0; \
	rm -f $(BUILD_DIR)/ctest-summary.txt $(ASAN_DIR)/ctest-summary.txt $(BUILD_DIR)/python-check.log; \
	bash scripts/install-deps.sh || { echo "make $(CHECK_NAME): FAILED (missing dependencies)"; exit 1; }; \
	$(MAKE) --no-print-directory build || { echo "make $(CHECK_NAME): FAILED (build in $(BUILD_DIR) failed)"; exit 1; }; \
	$(MAKE) --no-print-directory test || status=1; \
	if [ "$(CHECK_ASAN)" = 1 ]; then $(MAKE) --no-print-directory asan || status=1; fi; \
	if [ "$(CHECK_PYTHON)" = 1 ]; then \
	  $(MAKE) --no-print-directory python-check > $(BUILD_DIR)/python-check.log 2>&1 || status=1; \
	  cat $(BUILD_DIR)/python-check.log; \
	fi; \
	secs=$$(( $$(date +%s) - start )); \
	echo ""; \
	echo "== the $(SLOWEST) slowest tests"; \
	logs="$(BUILD_DIR)=$(BUILD_DIR)/ctest.log"; \
	if [ "$(CHECK_ASAN)" = 1 ]; then logs="$$logs $(ASAN_DIR)=$(ASAN_DIR)/ctest.log"; fi; \
	bash scripts/slowest.sh $(SLOWEST) $$logs; \
	echo ""; \
	echo "== $(CHECK_NAME) summary"; \
	echo "   $(BUILD_DIR):      $$(cat $(BUILD_DIR)/ctest-summary.txt 2>/dev/null || echo "not run")"; \
	if [ "$(CHECK_ASAN)" = 1 ]; then \
	  echo "   $(ASAN_DIR): $$(cat $(ASAN_DIR)/ctest-summary.txt 2>/dev/null || echo "not run (build failed?)")"; \
	fi; \
	if [ "$(CHECK_PYTHON)" = 1 ]; then \
	  echo "   python:     $$(tail -n 1 $(BUILD_DIR)/python-check.log 2>/dev/null)"; \
	fi; \
	if [ $$(nproc) -ge 2 ] && [ $$secs -gt $$(( 2 * $(CHECK_TARGET_SECONDS) )) ]; then \
	  echo "make $(CHECK_NAME): TOO SLOW: $${secs}s is more than twice its target of" \
	       "$(CHECK_TARGET_SECONDS)s on this $$(nproc)-core machine, and CI's limit cuts a slow" \
	       "suite off. The slowest tests are above; docs/architecture.md, \"Tests and their" \
	       "time\", says where a test belongs."; \
	  status=1; \
	fi; \
	if [ $$status -eq 0 ]; then echo "make $(CHECK_NAME): PASSED in $${secs}s"; \
	else echo "make $(CHECK_NAME): FAILED in $${secs}s"; fi; \
	exit $$status

# What every change runs: both builds, the tests not labelled `long`, the Python check.
check:
	@$(MAKE) --no-print-directory run-check CHECK_NAME=check CTEST_SELECT="-LE long"

# The rest of the suite (CI runs it after make check): the tests labelled `long` of both
# builds: MPI programs at more ranks than make check's, threaded runs at the counts of their
# `threads:` lines, the sanitizer build's other rank counts, its whole unit tests and its
# command-line tests, the Debian package.
check-long:
	@$(MAKE) --no-print-directory run-check CHECK_NAME=check-long CTEST_SELECT="-L long" \
	  CHECK_PYTHON=0 CHECK_TARGET_SECONDS=$(CHECK_LONG_TARGET_SECONDS)

# Each MPI test program once (its run labelled `once`: at 3 ranks, or the nearest count it
# allows), the examples at 3 ranks and the command-line tests, in the plain build: CI's stage
# with the other MPI (make check-once MPI=mpich).
check-once:
	@$(MAKE) --no-print-directory run-check CHECK_NAME=check-once CTEST_SELECT="-L 'once|cli'" \
	  CHECK_ASAN=0 CHECK_PYTHON=0 CHECK_TARGET_SECONDS=$(CHECK_ONCE_TARGET_SECONDS)

# The Python package's tests (python/tests) at 1 to 4 ranks, from the build tree.
python-check: build
	@bash scripts/python-check.sh "$(BUILD_DIR)"

demo:
	@bash scripts/install-deps.sh
	@$(MAKE) --no-print-directory build
	@source $(BUILD_DIR)/mpiexec.env && set -x && \
	  "$$MPIEXEC" $$MPIEXEC_NUMPROC_FLAG $(DEMO_NP) $$MPIEXEC_PREFLAGS $(BUILD_DIR)/redist demo

install: build
	DESTDIR="$(DESTDIR)" $(CMAKE) --install $(BUILD_DIR) --prefix "$(PREFIX)"

# Removes every file listed in $(BUILD_DIR)/install_manifest.txt (the last install from this
# tree), under the DESTDIR that install used (install_manifest_destdir.txt), then the record.
.PHONY: uninstall deb deb-check
uninstall:
	$(CMAKE) --build $(BUILD_DIR) --target uninstall

# The Debian package (CPack, settings at the end of CMakeLists.txt): built from $(BUILD_DIR)
# against Open MPI, installing into /usr.
deb: build
	@if [ "$(MPI)" != openmpi ]; then echo "deb: the Debian package is built against Open MPI (MPI=openmpi), not $(MPI)"; exit 1; fi
	rm -f $(BUILD_DIR)/redist_*.deb
	@# cpack's install rewrites the tree's record of the last install (make uninstall): keep it.
	@source tests/install/keep_install_record.sh && keep_install_record $(BUILD_DIR) && \
	  trap restore_install_record EXIT && cd $(BUILD_DIR) && cpack -G DEB
	@ls -l $(BUILD_DIR)/redist_*.deb

# Installs the package on this machine with apt-get, runs the consumer check against /usr
# and removes the package again (apt-get remove --purge: no record of it is left), whatever
# the check's outcome.
deb-check:
	@if [ "$$(id -u)" != 0 ]; then echo "deb-check: needs root (it installs the package with apt-get install and removes it afterwards); run it as root, or run make deb and install $(BUILD_DIR)/redist_*.deb yourself"; exit 1; fi
	@if dpkg-query -W -f='$${Status}' redist 2>/dev/null | grep -q 'ok installed'; then echo "deb-check: a package redist is installed already; remove it first (apt-get remove redist)"; exit 1; fi
	@bash scripts/install-deps.sh
	@$(MAKE) --no-print-directory deb
	@status=0; \
	apt-get install -y ./$(BUILD_DIR)/redist_*.deb || { echo "deb-check: FAILED: apt-get install"; exit 1; }; \
	BUILD_DIR="$(abspath $(BUILD_DIR))" bash tests/consumer/check.sh /usr || status=1; \
	for f in /usr/bin/redist /usr/share/man/man1/redist.1.gz /usr/share/man/man3/redist.3.gz; do \
	  test -e $$f || { echo "deb-check: $$f is not installed"; status=1; }; done; \
	/usr/bin/redist --version || status=1; \
	apt-get remove -y --purge redist || status=1; \
	if dpkg-query -W -f='$${Status}' redist 2>/dev/null | grep -q 'ok installed'; then echo "deb-check: the package is still installed"; status=1; fi; \
	if [ $$status -eq 0 ]; then echo "deb-check: PASSED (installed, consumer check against /usr, removed)"; \
	else echo "deb-check: FAILED"; fi; \
	exit $$status

bench: build
	@if [ -f bench/run.sh ]; then \
	  source $(BUILD_DIR)/mpiexec.env && \
	  export MPIEXEC MPIEXEC_NUMPROC_FLAG MPIEXEC_PREFLAGS MPIEXEC_POSTFLAGS && \
	  BUILD_DIR="$(abspath $(BUILD_DIR))" REDIST="$(abspath $(BUILD_DIR))/redist" \
	    bash bench/run.sh; \
	else echo "bench: no bench/run.sh; benchmark programs are in $(BUILD_DIR)/"; fi

# node-aware on virtual nodes (docs/performance.md, "Many nodes"): calibrate on them, then
# bench_nodes with that machine file. Knobs as bench/run_nodes.sh reads them: NP (8),
# RANKS_PER_NODE (2), RECIPE (hosts: virtual hosts, shared memory on a node and TCP between;
# tcp: REDIST_RANKS_PER_NODE and every message through TCP), QUICK=1.
bench-nodes: build
	@BUILD_DIR="$(abspath $(BUILD_DIR))" NP="$(NP)" RANKS_PER_NODE="$(RANKS_PER_NODE)" \
	  RECIPE="$(RECIPE)" QUICK="$(QUICK)" bash bench/run_nodes.sh

# libFuzzer targets (tests/fuzz/): their own tree, built with clang, MPI-free. Knobs:
# FUZZ_SECONDS per target, FUZZ_TARGETS (e.g. "spec pattern"; default all), FUZZ_ARGS
# (libFuzzer flags), FUZZ_DIR, FUZZ_CC. CI: make fuzz FUZZ_SECONDS=10.
FUZZ_DIR       ?= build-fuzz
FUZZ_CC        ?= clang
FUZZ_SECONDS   ?= 60
FUZZ_TARGETS   ?=
FUZZ_ARGS      ?=

.PHONY: fuzz
fuzz:
	@command -v $(FUZZ_CC) >/dev/null || { echo "fuzz: $(FUZZ_CC) not found (apt-get install clang)"; exit 1; }
	$(CMAKE) -S . -B $(FUZZ_DIR) -DCMAKE_C_COMPILER=$(FUZZ_CC) -DCMAKE_BUILD_TYPE=Debug \
	  "-DCMAKE_C_FLAGS_DEBUG=-g -O1" -DREDIST_FUZZ=ON -DREDIST_BUILD_TESTS=OFF \
	  -DREDIST_BUILD_TOOLS=OFF -DREDIST_BUILD_BENCH=OFF -DREDIST_BUILD_EXAMPLES=OFF \
	  -DREDIST_WERROR=$(WERROR)
	$(CMAKE) --build $(FUZZ_DIR) -j$(JOBS) --target redist_fuzz
	@FUZZ_DIR="$(FUZZ_DIR)" FUZZ_SECONDS="$(FUZZ_SECONDS)" FUZZ_TARGETS="$(FUZZ_TARGETS)" \
	  FUZZ_ARGS="$(FUZZ_ARGS)" bash scripts/fuzz.sh

# Long randomized runs (scripts/stress.sh): test_window, test_gen_block and test_batch with
# STRESS_CASES random cases (new seed each run, printed) at every rank count of
# STRESS_NPROCS, and test_stress with STRESS_PLANS plans; then every MPI test program once
# at each rank count of STRESS_WIDE_NPROCS (oversubscribed; empty: none), with threads, and
# with the emulated device's memory (STRESS_DEVICE_CASES cases at STRESS_DEVICE_NPROCS; other
# STRESS_* knobs: scripts/stress.sh). CI's short version (.ci/run): make stress
# STRESS_CASES=300 STRESS_NPROCS="2 3 5 8" STRESS_PLANS=2000 STRESS_DEVICE_CASES=30
# STRESS_THREADS=3 STRESS_THREAD_NPROCS=3 STRESS_WIDE_SKIP="test_lbp96 test_scalapack_leak".
STRESS_CASES   ?= 2000
STRESS_NPROCS  ?= $(MPI_NPROCS)
STRESS_WIDE_NPROCS ?= 16
STRESS_WIDE_SKIP ?=
STRESS_PLANS   ?= 10000
STRESS_DEVICE_CASES ?= 100
STRESS_THREADS ?= 2 3
STRESS_THREAD_NPROCS ?= 1 3 4

.PHONY: stress
stress: build
	@STRESS_CASES="$(STRESS_CASES)" STRESS_NPROCS="$(STRESS_NPROCS)" STRESS_PLANS="$(STRESS_PLANS)" \
	  STRESS_WIDE_NPROCS="$(STRESS_WIDE_NPROCS)" STRESS_WIDE_SKIP="$(STRESS_WIDE_SKIP)" \
	  STRESS_DEVICE_CASES="$(STRESS_DEVICE_CASES)" \
	  STRESS_THREADS="$(STRESS_THREADS)" STRESS_THREAD_NPROCS="$(STRESS_THREAD_NPROCS)" \
	  bash scripts/stress.sh "$(abspath $(BUILD_DIR))"

# Memory checks (scripts/valgrind.sh; docs/architecture.md, "Memory checks"): valgrind's
# memcheck on every serial test of $(BUILD_DIR) and on a set of its MPI tests, MPI's own
# reports suppressed (tests/valgrind/). Knobs: VALGRIND_SHORT=1 (CI's short version),
# VALGRIND_MPI_TESTS ("name [args];..."), VALGRIND_NPROCS, VALGRIND_SERIAL=0, VALGRIND_JOBS,
# VALGRIND_ARGS (valgrind flags). CI: make valgrind VALGRIND_SHORT=1.
VALGRIND_SHORT ?= 0

.PHONY: valgrind
valgrind:
	@bash scripts/install-deps.sh
	@$(MAKE) --no-print-directory build
	@BUILD_DIR="$(BUILD_DIR)" VALGRIND_SHORT="$(VALGRIND_SHORT)" bash scripts/valgrind.sh

# ThreadSanitizer on the threaded tests (ctest label `threads`), in $(TSAN_DIR): clang with
# LLVM's OpenMP runtime and its Archer tool, which tells TSan what OpenMP's barriers
# synchronise. (With gcc's libgomp, which TSan cannot see into, every team's join is reported
# as a race.) A report fails the test; MPI's own libraries are not instrumented, and what TSan
# would say of their locks is not ours (ignore_noninstrumented_modules).
TSAN_DIR ?= build-tsan
tsan:
	@bash scripts/install-deps.sh
	@archer=$$(dirname "$$(readlink -f "$$(command -v clang)")")/../lib/libarcher.so; \
	 [ -e "$$archer" ] || { echo "tsan: $$archer not found (apt-get install libomp-dev)"; exit 1; }; \
	 CC=clang $(CMAKE) -S . -B $(TSAN_DIR) -DCMAKE_BUILD_TYPE=RelWithDebInfo -DREDIST_BUILD_BENCH=OFF \
	   "-DCMAKE_C_FLAGS=-fsanitize=thread" "-DCMAKE_EXE_LINKER_FLAGS=-fsanitize=thread" \
	   "-DCMAKE_SHARED_LINKER_FLAGS=-fsanitize=thread" $(MPI_CMAKE_ARGS) && \
	 $(CMAKE) --build $(TSAN_DIR) -j$(JOBS) && \
	 cd $(TSAN_DIR) && OMP_TOOL_LIBRARIES="$$archer" TSAN_OPTIONS="halt_on_error=1 exitcode=66 ignore_noninstrumented_modules=1" \
	   $(CTEST) --output-on-failure -j$(CTEST_JOBS) -L threads

format:
	@command -v $(CLANG_FORMAT) >/dev/null || { echo "format: $(CLANG_FORMAT) not found (apt-get install clang-format)"; exit 1; }
	$(CLANG_FORMAT) -i $(C_FILES)

format-check:
	@command -v $(CLANG_FORMAT) >/dev/null || { echo "format-check: $(CLANG_FORMAT) not found"; exit 1; }
	$(CLANG_FORMAT) --dry-run -Werror $(C_FILES)

clean:
	rm -rf $(BUILD_DIR) $(ASAN_DIR) $(FUZZ_DIR) $(TSAN_DIR)
