# mk/reliability.mk -- "no input crashes the host, no change is lost", as make targets (included by the Makefile).
#
#   make fuzz         every libFuzzer target in fuzz/ for FUZZ_TIME seconds (12: 72 s for the six, plus the
#                     build); fails on any crash, sanitizer report, broken invariant or disagreement
#   make sanitize     swift test under ASan and (TSAN_RUNS times) under TSan; the C test drivers and C examples
#                     against an ASan-built and a TSan-built liblinkrouter.so
#   make valgrind     memcheck over the C examples and C test drivers with the release .so: zero errors, no
#                     definite or possible leaks (suppressions: valgrind/linkrouter.supp)
#   make stress       Tests/C/test_stress.c, longer than in `make test`, STRESS_RUNS times
#   make badinput     the bad-input suites: C (Tests/C/test_badinput.c, test_extremes.c), Swift (BadInputTests,
#                     ExtremesTests), Python
#   make reliability  all of the above
#
# Instrumented builds use their own SwiftPM scratch paths (.build-fuzz, .build-asan, .build-tsan), so they never
# disturb the release build in .build. Timings on 2 vCPUs are in fuzz/README.md.

FUZZ_TIME    ?= 12
FUZZ_TARGETS := resolve pattern rewrite differential table open
FUZZ_FLAGS   ?=
TSAN_RUNS    ?= 3
STRESS_RUNS  ?= 3
STRESS_SCALE ?= 3

# The clang that comes with Swift (its sanitizer runtimes match the ones Swift links).
REL_CLANG    ?= $(dir $(shell readlink -f "$$(command -v $(SWIFT))"))clang
REL_SWIFTLIB := $(abspath $(dir $(REL_CLANG))../lib/swift/linux)
REL_OUT      := $(BUILD)/reliability
# The C drivers for the sanitizer builds: not those that replace malloc themselves (alloc_count.h), since ASan and
# TSan replace it too.
REL_SAN_TESTS = $(shell grep -L 'alloc_count\.h' Tests/C/*.c)
REL_C_SRCS    = $(REL_SAN_TESTS) $(wildcard examples/c/*.c)
LSAN_SUPP    := $(abspath mk/lsan.supp)
TSAN_SUPP    := $(abspath mk/tsan.supp)
VALGRIND     ?= valgrind
# somalloc=nouserintercepts: valgrind leaves a malloc the executable defines itself in place (test_zero_alloc's
# counter, Tests/C/alloc_count.h; by default it replaces it, so nothing was counted and every count read 0);
# memcheck still sees every block through glibc's __libc_malloc, which that counter calls.
VALGRIND_OPTS = --error-exitcode=99 --leak-check=full --show-leak-kinds=definite,possible \
                --errors-for-leak-kinds=definite,possible --fair-sched=yes \
                --soname-synonyms=somalloc=nouserintercepts \
                --suppressions=$(abspath valgrind/linkrouter.supp) --quiet

# Swift's runtime crash handler gets in the way of the sanitizers' reports.
REL_ENV := SWIFT_BACKTRACE=enable=no

.PHONY: reliability fuzz fuzz-build $(addprefix fuzz-run-,$(FUZZ_TARGETS)) sanitize sanitize-swift-asan \
        sanitize-swift-tsan sanitize-c-asan sanitize-c-tsan valgrind stress badinput

reliability: badinput stress valgrind sanitize fuzz
	@echo "make reliability: all passed"

# ---- Fuzzing -------------------------------------------------------------------------------------------------

# Per target: input size, dictionary, leak checking. Leak checking stays on for fuzz_resolve, whose router lives
# for the whole run; the targets that build a router per input run without it (per-thread snapshot caches make
# every such input a leak candidate, and LSan's scans cut their speed five-fold). `make sanitize` and `make
# valgrind` check leaks on every path the tests take.
FUZZ_OPTS_resolve      := -max_len=4096 -dict=fuzz/url.dict -detect_leaks=1
FUZZ_OPTS_pattern      := -max_len=512 -dict=fuzz/url.dict -detect_leaks=0
FUZZ_OPTS_rewrite      := -max_len=1024 -dict=fuzz/regex.dict -detect_leaks=0
FUZZ_OPTS_differential := -max_len=160 -detect_leaks=0
FUZZ_OPTS_table        := -max_len=4096 -dict=fuzz/table.dict -detect_leaks=0
FUZZ_OPTS_open         := -max_len=1024 -dict=fuzz/url.dict -detect_leaks=0

fuzz-build: deps
	$(SWIFT) build -c release --scratch-path .build-fuzz -Xswiftc -sanitize=fuzzer,address --product linkrouter
	@mkdir -p $(REL_OUT)/fuzz
	@for t in $(FUZZ_TARGETS); do \
	    echo "$(REL_CLANG) ... fuzz/fuzz_$$t.c -> $(REL_OUT)/fuzz/fuzz_$$t"; \
	    $(REL_CLANG) -g -O1 -fsanitize=fuzzer,address -fuse-ld=lld -Wall -Wextra -Werror $(FUZZ_FLAGS) -IInclude -ITests/C \
	        fuzz/fuzz_$$t.c -o $(REL_OUT)/fuzz/fuzz_$$t -L.build-fuzz/release -llinkrouter \
	        -Wl,-rpath,$(abspath .build-fuzz/release) -lpcre2-8 || exit 1; \
	done

# Each target starts from its committed seeds (fuzz/corpus/<t>) plus what earlier runs found (fuzz/corpus-work,
# ignored by git).
fuzz: $(addprefix fuzz-run-,$(FUZZ_TARGETS))
	@echo "make fuzz: no crash in $(FUZZ_TARGETS)"

$(addprefix fuzz-run-,$(FUZZ_TARGETS)): fuzz-run-%: fuzz-build
	@mkdir -p $(REL_OUT)/fuzz/artifacts fuzz/corpus-work/$*
	@echo "== fuzz_$* for $(FUZZ_TIME) s"
	@$(REL_ENV) $(REL_OUT)/fuzz/fuzz_$* $(FUZZ_OPTS_$*) -max_total_time=$(FUZZ_TIME) -timeout=10 \
	    -rss_limit_mb=2048 -print_final_stats=1 \
	    -artifact_prefix=$(REL_OUT)/fuzz/artifacts/$*- fuzz/corpus-work/$* fuzz/corpus/$* \
	    > $(REL_OUT)/fuzz/$*.log 2>&1; \
	rc=$$?; grep -E '^stat::(number_of_executed_units|average_exec_per_sec|peak_rss_mb)' $(REL_OUT)/fuzz/$*.log; \
	if [ $$rc != 0 ]; then \
	    grep -vE '^#[0-9]|NEW_FUNC' $(REL_OUT)/fuzz/$*.log | tail -60; \
	    echo "fuzz_$* FAILED: reproducer in $(REL_OUT)/fuzz/artifacts/ (rerun: $(REL_OUT)/fuzz/fuzz_$* <file>)"; \
	    exit 1; \
	fi

# ---- Sanitizers ----------------------------------------------------------------------------------------------

sanitize: sanitize-swift-asan sanitize-swift-tsan sanitize-c-asan sanitize-c-tsan
	@echo "make sanitize: all passed"

# XCTest leaks a few objects of its own: mk/lsan.supp names them.
sanitize-swift-asan: deps
	$(REL_ENV) LSAN_OPTIONS=suppressions=$(LSAN_SUPP):print_suppressions=0 \
	    $(SWIFT) test --sanitize=address --scratch-path .build-asan

# TSan reports a race and still exits 0 unless halt_on_error is set; one run may miss a race, so several.
sanitize-swift-tsan: deps
	$(SWIFT) build --build-tests --sanitize=thread --scratch-path .build-tsan
	@for i in $$(seq $(TSAN_RUNS)); do \
	    echo "== swift test under TSan, run $$i of $(TSAN_RUNS)"; \
	    $(REL_ENV) TSAN_OPTIONS=halt_on_error=1:suppressions=$(TSAN_SUPP) \
	        $(SWIFT) test --skip-build --sanitize=thread --scratch-path .build-tsan \
	        || exit 1; \
	done

# The C drivers and examples linked with -fsanitize=address against an ASan-built .so; leaks checked too.
sanitize-c-asan: deps
	$(SWIFT) build -c release --scratch-path .build-asan -Xswiftc -sanitize=address --product linkrouter
	@mkdir -p $(REL_OUT)/asan
	@for src in $(REL_C_SRCS); do \
	    name=$$(basename $$src .c); \
	    $(REL_CLANG) -g -O1 -fsanitize=address -fno-omit-frame-pointer -fuse-ld=lld -D_POSIX_C_SOURCE=200809L -IInclude \
	        $$src -o $(REL_OUT)/asan/$$name -L.build-asan/release -llinkrouter \
	        -Wl,-rpath,$(abspath .build-asan/release) -lpthread || exit 1; \
	    echo "== $$name (ASan)"; \
	    $(REL_ENV) ASAN_OPTIONS=detect_leaks=1:abort_on_error=1 \
	        LSAN_OPTIONS=suppressions=$(LSAN_SUPP):print_suppressions=0 \
	        $(REL_OUT)/asan/$$name > $(REL_OUT)/asan/$$name.out 2>&1 \
	        || { tail -60 $(REL_OUT)/asan/$$name.out; exit 1; }; \
	    tail -1 $(REL_OUT)/asan/$$name.out; \
	done

# The same against a TSan-built .so; the threaded drivers run TSAN_RUNS times.
sanitize-c-tsan: deps
	$(SWIFT) build -c release --scratch-path .build-tsan -Xswiftc -sanitize=thread --product linkrouter
	@mkdir -p $(REL_OUT)/tsan
	@for src in $(REL_SAN_TESTS); do \
	    name=$$(basename $$src .c); \
	    $(REL_CLANG) -g -O1 -fsanitize=thread -fuse-ld=lld -D_POSIX_C_SOURCE=200809L -IInclude $$src -o $(REL_OUT)/tsan/$$name \
	        -L.build-tsan/release -llinkrouter -Wl,-rpath,$(abspath .build-tsan/release) \
	        -L$(REL_SWIFTLIB) -ldispatch -lBlocksRuntime -Wl,-rpath,$(REL_SWIFTLIB) -lpthread || exit 1; \
	    runs=1; case $$name in test_stress|test_abi|test_memory) runs=$(TSAN_RUNS);; esac; \
	    for i in $$(seq $$runs); do \
	        echo "== $$name (TSan, run $$i of $$runs)"; \
	        $(REL_ENV) TSAN_OPTIONS=halt_on_error=1:suppressions=$(TSAN_SUPP) LR_STRESS_SCALE=0.5 \
	            $(REL_OUT)/tsan/$$name > $(REL_OUT)/tsan/$$name.out 2>&1 \
	            || { tail -60 $(REL_OUT)/tsan/$$name.out; exit 1; }; \
	        tail -1 $(REL_OUT)/tsan/$$name.out; \
	    done; \
	done

# ---- valgrind ------------------------------------------------------------------------------------------------

# The release .so as shipped (build/lib), the C examples, the seeds' C programs and every C test driver (the stress test scaled down:
# valgrind runs one thread at a time).
valgrind: lib examples $(SEED_C) $(C_TESTS)
	@command -v $(VALGRIND) >/dev/null || { echo "valgrind is not installed (apt-get install valgrind)"; exit 1; }
	@for x in $(EXAMPLES) $(SEED_C) $(C_TESTS); do \
	    echo "== valgrind $$x"; \
	    LR_STRESS_SCALE=0.05 $(VALGRIND) $(VALGRIND_OPTS) $$x > $(BUILD)/valgrind.out 2>&1 \
	        || { tail -80 $(BUILD)/valgrind.out; echo "valgrind: $$x FAILED"; exit 1; }; \
	    tail -1 $(BUILD)/valgrind.out; \
	done

# ---- Stress and bad input ------------------------------------------------------------------------------------

stress: $(BUILD)/tests/test_stress
	@for i in $$(seq $(STRESS_RUNS)); do \
	    echo "== test_stress, LR_STRESS_SCALE=$(STRESS_SCALE), run $$i of $(STRESS_RUNS)"; \
	    LR_STRESS_SCALE=$(STRESS_SCALE) $(BUILD)/tests/test_stress || exit 1; \
	done

badinput: $(BUILD)/tests/test_badinput $(BUILD)/tests/test_extremes deps
	$(BUILD)/tests/test_badinput
	$(BUILD)/tests/test_extremes
	$(SWIFT) test --filter 'BadInputTests|ExtremesTests'
	@$(PYTHON) -m pytest --version >/dev/null 2>&1 || $(PYTHON) -m pip install -q pytest
	LINKROUTER_LIBRARY=$(abspath $(BUILD)/lib/liblinkrouter.so) $(PYTHON) -m pytest -q \
	    bindings/python/tests/test_bad_input.py
