# What a person types. The build itself is Meson + Ninja; this file only
# installs missing Debian packages and calls them.
PREFIX ?= /usr/local
DESTDIR ?=
BUILD ?= build
SAN_BUILD ?= build-san
# `make test` compiles these too, without running their suites
REL_BUILD ?= build-rel
CLANG_BUILD ?= build-clang
MESON_SETUP = meson setup --prefix=$(PREFIX)

.PHONY: all deps test check test-normal test-san demo docs screenshots install bench clean

# meson's own output goes to a log, shown in full when configuring fails.
all: deps
	@[ -f $(BUILD)/build.ninja ] || $(MESON_SETUP) $(BUILD) >$(BUILD).setup.log 2>&1 || \
		{ cat $(BUILD).setup.log; echo "make: configuring $(BUILD) failed (log: $(BUILD).setup.log)" >&2; exit 1; }
	ninja -C $(BUILD)

deps:
	@scripts/deps.sh build

test:
	@scripts/deps.sh test
	@scripts/test.sh $(BUILD) $(SAN_BUILD) $(REL_BUILD) $(CLANG_BUILD)

# a developer's quick loop: unit tests, fuzz corpora (the seeds, once), the
# quick CLI tests; 110 s for 58 tests on the 2-core development machine at
# a load average of 18-24 (bench/RESULTS.md, "make check")
check:
	@scripts/deps.sh test
	@scripts/check.sh $(BUILD)

demo: all
	@scripts/demo.sh $(BUILD)

# the options sections of docs/cmd/*.md, from the option tables
docs: all
	@scripts/docs.sh $(BUILD)/yardstick

# docs/img/report-*.png: each view of `yardstick report` at 1280 and 800
# px, in headless Chromium, and the capacity chart of load --find-max
screenshots: all
	@scripts/deps.sh test
	@scripts/screenshots.sh $(BUILD)/yardstick

install: all
	meson configure $(BUILD) -Dprefix=$(PREFIX) >/dev/null
	DESTDIR=$(DESTDIR) meson install -C $(BUILD)

bench: all
	@scripts/deps.sh bench
	bench/spawn_overhead.sh $(BUILD)/yardstick
	bench/whole_process.sh $(BUILD)/yardstick
	bench/one_invocation.sh $(BUILD)/yardstick
	bench/record_overhead.sh $(BUILD)
	bench/mem_overhead.sh $(BUILD)
	bench/mem_workloads.sh $(BUILD)
	bench/libyardstick_vs_gbench.sh $(BUILD)

clean:
	rm -rf $(BUILD) $(SAN_BUILD) $(REL_BUILD) $(CLANG_BUILD) demo.json
