# mk/bindings.mk -- the Go and Java bindings, as make targets (included by the Makefile; `make test` runs both).
#
#   make test-go     bindings/go (cgo): gofmt, go vet, go test (the semantics table, API, bad input, threads), the
#                    threaded tests again under the race detector, and examples/go, whose output must be
#                    examples/c/demo.expected byte for byte
#   make test-java   bindings/java (JNA): the JUnit suite through Maven, offline (Debian's /usr/share/maven-repo
#                    is the only repository), and examples/java, whose output must be examples/c/demo.expected
#
# Each installs its Debian packages first when one is missing (as scripts/deps.sh does for the library). Nothing
# is fetched from the network at build time: Go has no module dependencies (GOPROXY=off), and Maven resolves from
# Debian's packages only.

GO       ?= go
MVN      ?= mvn
JAVA     ?= java
JAVAC    ?= javac

GO_DEBS   := golang-go
JAVA_DEBS := maven openjdk-17-jdk-headless libjna-java junit5 libsurefire-java libmaven-compiler-plugin-java \
             libmaven-resources-plugin-java

# Go builds inside the source tree: its caches go to build/go, and it may not download anything.
GO_ENV := GO111MODULE=on GOFLAGS=-mod=mod GOPROXY=off GOTOOLCHAIN=local CGO_ENABLED=1 \
          GOCACHE=$(abspath $(BUILD)/go/cache) GOPATH=$(abspath $(BUILD)/go/path)

# Maven with Debian's repository as its only mirror (a file: URL, allowed in offline mode), a local repository in
# build/java, and the library found through LINKROUTER_LIBRARY.
JAVA_LIB  := $(abspath $(BUILD)/lib/liblinkrouter.so)
MVN_FLAGS := -B -ntp -Dstyle.color=never -o -Daether.offline.protocols=file -s bindings/java/maven-settings.xml \
             -Dmaven.repo.local=$(abspath $(BUILD)/java/m2) -f bindings/java/pom.xml
JNA_JAR   := /usr/share/java/jna.jar

# The threaded tests, run again under the race detector; each must be seen to pass (`go test -run` with a name
# that matches nothing runs nothing and passes).
GO_RACE_TESTS := TestResolvesDuringAddsAndRemoves TestCloseDuringCalls TestLoadDuringResolves TestJSONIsLazyAndShared
go_empty :=
go_space := $(go_empty) $(go_empty)
GO_RACE_RUN := ^($(subst $(go_space),|,$(strip $(GO_RACE_TESTS))))$$

.PHONY: test-go test-java deps-go deps-java

# Installs the Debian packages named in $(1) that are not installed yet (root, or sudo).
define install_debs
missing=""; for p in $(1); do \
    dpkg-query -W -f='$${Status}' $$p 2>/dev/null | grep -q 'ok installed' || missing="$$missing $$p"; \
done; \
if [ -n "$$missing" ]; then \
    sudo=""; if [ "$$(id -u)" != 0 ]; then sudo="sudo"; fi; \
    echo "deps: installing$$missing" >&2; \
    $$sudo apt-get update -qq && DEBIAN_FRONTEND=noninteractive $$sudo apt-get install -y -qq $$missing >/dev/null \
        || exit 1; \
fi
endef

deps-go:
	@$(call install_debs,$(GO_DEBS))

deps-java:
	@$(call install_debs,$(JAVA_DEBS))

test-go: lib deps-go
	@mkdir -p $(BUILD)/go $(BUILD)/examples
	@unformatted="$$(gofmt -l bindings/go examples/go)"; \
	if [ -n "$$unformatted" ]; then echo "gofmt would change: $$unformatted"; exit 1; fi
	cd bindings/go && $(GO_ENV) $(GO) vet ./...
	cd bindings/go && $(GO_ENV) $(GO) test -count=1 ./...
	cd bindings/go && $(GO_ENV) $(GO) test -count=1 -race -v -run '$(GO_RACE_RUN)' ./... > $(abspath $(BUILD)/go/race.out) 2>&1 \
	    || { cat $(BUILD)/go/race.out; exit 1; }
	@for t in $(GO_RACE_TESTS); do \
	    grep -q "^--- PASS: $$t " $(BUILD)/go/race.out || { cat $(BUILD)/go/race.out; echo "go test -race: $$t did not run"; exit 1; }; \
	done; echo "== go test -race: $(words $(GO_RACE_TESTS)) tests passed ($(GO_RACE_TESTS))"
	cd examples/go && $(GO_ENV) $(GO) vet . && $(GO_ENV) $(GO) build -o $(abspath $(BUILD)/examples/go-demo) .
	@echo "== $(BUILD)/examples/go-demo"
	@$(BUILD)/examples/go-demo > $(BUILD)/examples/go-demo.out 2>&1 || { cat $(BUILD)/examples/go-demo.out; exit 1; }
	@diff -u examples/c/demo.expected $(BUILD)/examples/go-demo.out && echo "== go-demo: the same output as demo.c"

test-java: lib deps-java
	@mkdir -p $(BUILD)/java $(BUILD)/examples/java
	LINKROUTER_LIBRARY=$(JAVA_LIB) $(MVN) $(MVN_FLAGS) test
	$(JAVAC) -Xlint:all -Werror -encoding UTF-8 -cp $(BUILD)/java/target/classes:$(JNA_JAR) \
	    -d $(BUILD)/examples/java examples/java/Demo.java
	@echo "== java Demo"
	@LINKROUTER_LIBRARY=$(JAVA_LIB) $(JAVA) -cp $(BUILD)/examples/java:$(BUILD)/java/target/classes:$(JNA_JAR) Demo \
	    > $(BUILD)/examples/java-demo.out 2>&1 || { cat $(BUILD)/examples/java-demo.out; exit 1; }
	@diff -u examples/c/demo.expected $(BUILD)/examples/java-demo.out && echo "== java Demo: the same output as demo.c"
