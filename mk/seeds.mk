# mk/seeds.mk -- the five systems LinkRouter comes from (../shared/seeds), reproduced as examples, each in C,
# Swift and Python, run by `make test-seeds` (part of `make test`) with their output checked.
#
#   examples/<seed>/README.md          which scenarios of the seed it reproduces, and how to run it
#   examples/<seed>/c/main.c           -> build/examples/seed-<seed>-c     its output: examples/<seed>/c.expected
#   examples/<seed>/swift/main.swift   -> the SwiftPM target seed-<seed>   its output: examples/<seed>/swift.expected
#   examples/<seed>/python/main.py     -> the in-tree binding               its output: examples/<seed>/python.expected
#                                         run twice: through the C extension (built first) and through ctypes
#                                         (LINKROUTER_PURE=1), each checked to be the binding it claims
#
# The seeds are the five named here; check-seeds fails the run unless the folders of examples/ with a README.md
# and Package.swift's `seeds` name exactly these (a seed that lost its README, or was renamed, or a new one not
# listed, is not dropped or skipped in silence). All three programs and expected outputs must be there (a missing
# one fails the run). Programs run from the repository root, so a seed reads its own files as examples/<seed>/....

SEEDS  := dcurlrouter ffrouter router-objc urlmediator xksquare
SEED_C := $(foreach s,$(SEEDS),$(BUILD)/examples/seed-$(s)-c)
SEED_DIRS        := $(sort $(patsubst examples/%/README.md,%,$(wildcard examples/*/README.md)))
SEEDS_IN_PACKAGE := $(sort $(shell sed -n 's/^let seeds = \[\(.*\)\]$$/\1/p' Package.swift | tr -d '",'))

.PHONY: test-seeds demo-seeds check-seeds

check-seeds:
	@[ "$(SEED_DIRS)" = "$(sort $(SEEDS))" ] || { echo "seeds: the folders of examples/ with a README.md are \
	'$(SEED_DIRS)', expected '$(sort $(SEEDS))' (mk/seeds.mk)"; exit 1; }
	@[ "$(SEEDS_IN_PACKAGE)" = "$(sort $(SEEDS))" ] || { echo "seeds: Package.swift's seeds are \
	'$(SEEDS_IN_PACKAGE)', expected '$(sort $(SEEDS))' (mk/seeds.mk)"; exit 1; }

# `make demo`'s last part: each seed's C program run with `demo` plays its headline scenario (still checked).
demo-seeds: check-seeds $(SEED_C)
	@for s in $(SEEDS); do \
	    echo; echo "== seed $$s: examples/$$s (C; its Swift and Python programs print the same)"; \
	    $(BUILD)/examples/seed-$$s-c demo || exit 1; \
	done

$(BUILD)/examples/seed-%-c: examples/%/c/main.c examples/c/check.h Include/linkrouter.h $(BUILD)/lib/liblinkrouter.so
	@mkdir -p $(BUILD)/examples
	$(CC) $(C_WARN) -D_POSIX_C_SOURCE=200809L $(CFLAGS) -IInclude -Iexamples/c $< -o $@ $(C_LINK) -lpthread

SEED_PY_ENV := LINKROUTER_LIBRARY=$(abspath $(BUILD)/lib/liblinkrouter.so) PYTHONPATH=$(abspath bindings/python)

test-seeds: check-seeds lib python-ext $(SEED_C)
	@bin="$$($(SWIFT) build $(RELEASE) --show-bin-path)"; \
	for pure in "" 1; do \
	    want=c-extension; [ -n "$$pure" ] && want=ctypes; \
	    $(SEED_PY_ENV) LINKROUTER_PURE=$$pure $(PYTHON) -c 'import sys, linkrouter as l; \
	        sys.exit(None if l.binding == sys.argv[1] else "Python seeds: binding %s, not %s" % (l.binding, sys.argv[1]))' \
	        $$want || exit 1; \
	done; \
	for s in $(SEEDS); do \
	    for lang in c swift python python-ctypes; do \
	        expected=examples/$$s/$${lang%-ctypes}.expected; out=$(BUILD)/examples/seed-$$s-$$lang.out; pure=; \
	        case $$lang in \
	            c) cmd="$(BUILD)/examples/seed-$$s-c";; \
	            swift) cmd="$$bin/seed-$$s";; \
	            python) cmd="$(PYTHON) examples/$$s/python/main.py";; \
	            python-ctypes) cmd="$(PYTHON) examples/$$s/python/main.py"; pure=1;; \
	        esac; \
	        echo "== seed $$s ($$lang)"; \
	        [ -f "$$expected" ] || { echo "seed $$s: $$expected is missing"; exit 1; }; \
	        $(SEED_PY_ENV) LINKROUTER_PURE=$$pure $$cmd > $$out 2>&1 || { cat $$out; echo "seed $$s ($$lang) failed"; exit 1; }; \
	        diff -u $$expected $$out || exit 1; \
	    done; \
	done
