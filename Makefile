# Pushlab: the two commands of the quick start are `make serve` and `make test`.
# docs/CONTRIBUTING.md says what each target runs and how long it takes.
SWIFT ?= swift
BIN_DIR = $(shell $(SWIFT) build --show-bin-path)
# The pushlab that the tests drive: the ordinary debug build, which links the Swift runtime in on
# Linux (Package.swift), as a release does, so the same binary also runs in a stock Debian root.
TEST_BIN = $(CURDIR)/.build/debug/pushlab
# Each step a phase: with PUSHLAB_PHASES set, scripts/phase notes its start and end there
# (scripts/ci-phases.sh prints them as a table).
PHASE = scripts/phase

.PHONY: deps build test-build test-build-all serve cluster cluster-down test test-all unit-test integration-test fuzz dist image bench bench-durability bench-scale certs clean

deps:
	@$(PHASE) install -- scripts/install-deps.sh

build: deps
	$(SWIFT) build

## Start Pushlab with its embedded defaults (development :2197, production :2196).
serve: build
	$(BIN_DIR)/pushlab serve $(ARGS)

## A cluster on this machine: three Redis masters with a replica each, three Pushlab nodes,
## HAProxy on 2197 (development), 2196 (production) and 2198 (control API); ARGS: --durable,
## -- serve flags (scripts/cluster.sh, docs/CLUSTER.md).
cluster: build
	scripts/cluster.sh up $(ARGS)

cluster-down:
	scripts/cluster.sh down

## What the tests need, made at once: the one Swift build (the tests and the pushlab they drive)
## and the integration tests' venvs (one waits on the processor, the other on the network); both
## are kept while their inputs are unchanged. make test needs no venv of the client matrix.
test-build: SETUP_ARGS = --quick
test-build test-build-all: deps
	@$(PHASE) venvs -- Tests/Integration/setup.sh $(SETUP_ARGS) >.build-setup.log 2>&1 & setup=$$!; \
	$(PHASE) build -- $(SWIFT) build --build-tests; built=$$?; \
	wait $$setup; prepared=$$?; \
	if [ $$prepared -ne 0 ]; then cat .build-setup.log; fi; \
	[ $$built -eq 0 ] && [ $$prepared -eq 0 ]

## The suite a contributor runs before every change: the Swift tests, then the integration
## files that take seconds (real clients against the built binary). The long files (the
## client matrix, the cluster, the crash soak, the tarball and image, the dashboard, ...:
## LONG_FILES in Tests/Integration/conftest.py) run in make test-all.
test: test-build
	$(PHASE) swift-test -- $(SWIFT) test --skip-build
	$(PHASE) integration -- env PUSHLAB_BIN=$(TEST_BIN) PUSHLAB_DIST_BIN=$(TEST_BIN) Tests/Integration/run.sh --quick

## Everything, as CI runs it (.ci/run): the Swift tests, the whole integration suite in one run
## (its long files beside the quick ones), then a bounded fuzz run of the parsers of untrusted
## input (the same build, with Pushlab's modules instrumented).
test-all: test-build-all
	$(PHASE) swift-test -- $(SWIFT) test --skip-build
	$(PHASE) integration -- env PUSHLAB_BIN=$(TEST_BIN) PUSHLAB_DIST_BIN=$(TEST_BIN) Tests/Integration/run.sh
	$(PHASE) fuzz -- Fuzz/run.sh --seconds 15

unit-test: build
	$(SWIFT) test

integration-test: deps
	$(SWIFT) build --product pushlab
	PUSHLAB_BIN=$(TEST_BIN) PUSHLAB_DIST_BIN=$(TEST_BIN) Tests/Integration/run.sh $(ARGS)

## libFuzzer over JSON, provider tokens, certificates, requests, scenarios and control API bodies
## (ARGS: --seconds N, --release for an optimized build of its own, targets).
fuzz:
	Fuzz/run.sh $(ARGS)

## A release that needs no Swift: dist/pushlab-VERSION-linux-ARCH.tar.gz (scripts/dist.sh).
dist: deps
	scripts/dist.sh

## A container image from that tarball on a debootstrapped Debian 12 (scripts/image.sh; ARGS: --tag, --archive FILE).
image: deps
	scripts/image.sh $(ARGS)

## Pushlab against nghttpd with h2load; prints the ratio table (not a test).
bench: deps
	Benchmarks/run.sh $(ARGS)

## What kill -9 loses under full load, and what --durable costs (Benchmarks/crash-window.sh).
bench-durability: deps
	Benchmarks/crash-window.sh $(ARGS)

## Issue 24's figures in one run: start-up with 1,000,000 devices and memory per device, the
## sustained rate and catch-up over 100,000 phones with the store (and memory per entry), and the crash window.
bench-scale: deps
	Benchmarks/startup.sh
	DEVICE_LOAD_COUNT=100000 DEVICE_LOAD_ALERTS=64 Benchmarks/run.sh --devices 100000 --points 10x100 --rounds 1 --duration 60
	Benchmarks/crash-window.sh --no-build

certs:
	certs/generate.sh

clean:
	rm -rf .build .build-release .build-fuzz .build-dist dist Tests/Integration/.venv Tests/Integration/.venvs
