# LinkRouter: build, test, install, demo.
#
#   make              the library (build/lib/liblinkrouter.so), the CLI (build/bin/linkrouter), the C examples
#   make demo         resolve real-looking deep links and web links through the library, then a shop app's table
#                     file (examples/tables/shop.json): check, load, resolve, build URLs, explain; then one scenario
#                     of each seed system (examples/<seed>, mk/seeds.mk)
#   make test         every test: Swift unit tests, C ABI tests, examples (run, output checked), exports, the
#                     linkrouter tool's commands and exit codes, the seed examples, make install + pkg-config,
#                     Python, Go, Java
#   make install      PREFIX=/usr/local: library, header, linkrouter.pc, CLI
#   make bench        LinkRouter (C, Swift, Python) against its peers; writes docs/BENCHMARKS.md and docs/bench.png
#   make reliability  fuzzing, ASan and TSan, valgrind, stress and bad-input suites (mk/reliability.mk); CI runs it
#
# Every target installs what is missing first (scripts/deps.sh: libpcre2-dev, pkg-config).

PREFIX  ?= /usr/local
SWIFT   ?= swift
CC      ?= cc
PYTHON  ?= python3
BUILD   := build
VERSION := $(shell sed -n 's/^\#define LR_VERSION_STRING "\(.*\)"/\1/p' Include/linkrouter.h)

# A self-contained .so: the Swift runtime linked in statically, so it needs libpcre2-8 and the C/C++ runtimes
# (libc, libm, libstdc++, libgcc_s), no Swift library.
RELEASE := -c release -Xswiftc -static-stdlib
CFLAGS  ?= -O2
C_WARN  := -std=c99 -Wall -Wextra -Werror -pedantic
C_LINK  := -L$(BUILD)/lib -llinkrouter -Wl,-rpath,$(abspath $(BUILD)/lib)

EXAMPLES := $(patsubst examples/c/%.c,$(BUILD)/examples/%,$(wildcard examples/c/*.c))
C_TESTS  := $(patsubst Tests/C/%.c,$(BUILD)/tests/%,$(wildcard Tests/C/*.c))

.PHONY: all deps lib examples demo bench bench-instructions bench-steps test test-swift test-c test-examples test-exports test-install test-python python-ext test-tool \
        install uninstall clean

all: lib examples

deps:
	@bash scripts/deps.sh

# One SwiftPM build makes the library and the CLI; copies go to build/ so everything else has fixed paths.
lib: deps
	$(SWIFT) build $(RELEASE)
	@mkdir -p $(BUILD)/lib $(BUILD)/bin
	@mkdir -p $(BUILD)/examples
	@# Copy to a temporary name, then rename: a process that has the old library mapped keeps it (an in-place
	@# copy would rewrite pages under it and kill it with SIGBUS).
	@bin="$$($(SWIFT) build $(RELEASE) --show-bin-path)"; \
	for f in "liblinkrouter.so:lib/liblinkrouter.so" "linkrouter-cli:bin/linkrouter" "swift-example:examples/swift-example"; do \
	    src="$$bin/$${f%%:*}"; dst="$(BUILD)/$${f#*:}"; \
	    cp "$$src" "$$dst.tmp" && mv -f "$$dst.tmp" "$$dst" || exit 1; \
	done

examples: $(EXAMPLES)

$(BUILD)/examples/%: examples/c/%.c examples/c/check.h Include/linkrouter.h $(BUILD)/lib/liblinkrouter.so
	@mkdir -p $(BUILD)/examples
	$(CC) $(C_WARN) $(CFLAGS) -IInclude $< -o $@ $(C_LINK)

$(BUILD)/tests/%: Tests/C/%.c Include/linkrouter.h $(BUILD)/lib/liblinkrouter.so
	@mkdir -p $(BUILD)/tests
	$(CC) $(C_WARN) -D_POSIX_C_SOURCE=200809L $(CFLAGS) -IInclude $< -o $@ $(C_LINK) -lpthread -rdynamic

$(BUILD)/lib/liblinkrouter.so: lib

demo: all
	@$(BUILD)/examples/demo
	@echo
	@echo "== the same kind of table as a file, examples/tables/shop.json"
	@$(BUILD)/examples/tables
	@$(MAKE) --no-print-directory demo-seeds

# Kept out of `make` and `make test`: it installs peers (apt libr3-dev, a venv from PyPI) and takes minutes.
bench: lib
	bash bench/run.sh

# Instructions per lookup, resolve and open under callgrind: deterministic, for changes smaller than the noise.
bench-instructions: lib
	bash bench/instructions.sh

bench-steps: lib
	bash bench/steps.sh

test: all test-swift test-c test-examples test-seeds test-exports test-install test-tool test-python test-go test-java
	@echo "make test: all passed"

test-swift: deps
	$(SWIFT) test

test-c: $(C_TESTS)
	@for t in $(C_TESTS); do echo "== $$t"; $$t || exit 1; done

# Each example runs, and its output must equal its .expected file.
test-examples: $(EXAMPLES) lib
	@for e in $(EXAMPLES) $(BUILD)/examples/swift-example; do \
	    name=$$(basename $$e); \
	    expected=$$(ls examples/*/$$name.expected); \
	    echo "== $$e"; \
	    $$e > $(BUILD)/examples/$$name.out 2>&1 || { cat $(BUILD)/examples/$$name.out; exit 1; }; \
	    diff -u $$expected $(BUILD)/examples/$$name.out || exit 1; \
	done

# Installs into a temporary prefix and builds the FFRouter seed's C program from the installed header, library
# and linkrouter.pc alone (examples/c only for check.h).
test-install: lib
	@rm -rf $(BUILD)/install && $(MAKE) --no-print-directory install PREFIX=$(abspath $(BUILD)/install) >/dev/null
	@PKG_CONFIG_PATH=$(abspath $(BUILD)/install/lib/pkgconfig) sh -c '$(CC) $(C_WARN) examples/ffrouter/c/main.c -Iexamples/c \
	    $$(pkg-config --cflags linkrouter) -o $(BUILD)/install/ffrouter $$(pkg-config --libs linkrouter) \
	    -Wl,-rpath,$(abspath $(BUILD)/install/lib) -lpthread'
	@$(BUILD)/install/ffrouter 2>&1 | diff -u examples/ffrouter/c.expected - && echo "== make install + pkg-config: ok"

# The linkrouter tool: every command's output and exit status against Tests/tool/expected.
test-tool: lib
	bash Tests/tool/run.sh

test-exports: lib
	bash scripts/check-exports.sh $(BUILD)/lib/liblinkrouter.so Include/linkrouter.h

# The Python suite runs twice: through the C extension (built in place first, into bindings/python/linkrouter,
# with the C warnings as errors; a failed build fails the target, and LINKROUTER_EXPECT_BINDING makes a silent
# fallback to ctypes fail a test),
# then through the ctypes path (LINKROUTER_PURE=1).
PY_TEST_ENV := LINKROUTER_LIBRARY=$(abspath $(BUILD)/lib/liblinkrouter.so)
python-ext: lib
	@echo "== Python: building the C extension in place"; \
	(cd bindings/python && CFLAGS="$(CFLAGS) $(C_WARN)" LINKROUTER_REQUIRE_EXTENSION=1 \
	    $(PYTHON) setup.py -q build_ext --inplace --force --build-temp $(abspath $(BUILD))/python-ext)

# A missing bindings/python/tests fails the run (pytest: no such directory), as does one that collects no test.
test-python: lib python-ext
	@$(PYTHON) -m pytest --version >/dev/null 2>&1 || $(PYTHON) -m pip install -q pytest
	@echo "== Python tests through the C extension"
	@$(PY_TEST_ENV) LINKROUTER_EXPECT_BINDING=c-extension $(PYTHON) -m pytest -q bindings/python/tests
	@echo "== Python tests through ctypes (LINKROUTER_PURE=1)"
	@$(PY_TEST_ENV) LINKROUTER_PURE=1 LINKROUTER_EXPECT_BINDING=ctypes $(PYTHON) -m pytest -q bindings/python/tests

install: lib
	install -d $(DESTDIR)$(PREFIX)/lib $(DESTDIR)$(PREFIX)/include $(DESTDIR)$(PREFIX)/lib/pkgconfig $(DESTDIR)$(PREFIX)/bin
	install -m 755 $(BUILD)/lib/liblinkrouter.so $(DESTDIR)$(PREFIX)/lib/liblinkrouter.so
	install -m 644 Include/linkrouter.h $(DESTDIR)$(PREFIX)/include/linkrouter.h
	sed -e 's|@PREFIX@|$(PREFIX)|' -e 's|@VERSION@|$(VERSION)|' linkrouter.pc.in \
	    > $(DESTDIR)$(PREFIX)/lib/pkgconfig/linkrouter.pc
	install -m 755 $(BUILD)/bin/linkrouter $(DESTDIR)$(PREFIX)/bin/linkrouter

uninstall:
	rm -f $(DESTDIR)$(PREFIX)/lib/liblinkrouter.so $(DESTDIR)$(PREFIX)/include/linkrouter.h \
	      $(DESTDIR)$(PREFIX)/lib/pkgconfig/linkrouter.pc $(DESTDIR)$(PREFIX)/bin/linkrouter

clean:
	rm -rf $(BUILD) .build

include mk/seeds.mk
include mk/reliability.mk
include mk/bindings.mk
