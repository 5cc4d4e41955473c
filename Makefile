# Pushlab: the two commands of the quick start are `make serve` and `make test`.
SWIFT ?= swift
BIN_DIR = $(shell $(SWIFT) build --show-bin-path)
# The pushlab that make test drives: the Swift runtime linked in, as a release ships it, so that
# it also runs in a stock Debian root. Its own scratch path: SwiftPM does not rebuild what was
# compiled for the other linkage, so the two cannot share .build; and swift-testing has no static
# build, so the Swift tests keep the usual one.
STATIC_BUILD = --static-swift-stdlib --scratch-path .build-static
TEST_BIN = $(CURDIR)/.build-static/debug/pushlab

.PHONY: deps build serve cluster cluster-down test test-all unit-test integration-test fuzz dist image bench bench-durability bench-scale certs clean

deps:
	@scripts/install-deps.sh

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

## The test suite a contributor waits for: the Swift tests, then real clients against the built
## binary, the release tarball in a stock Debian root and the container image. The Swift build
## and the integration tests' venvs are made at once (one waits on the processor, the other on
## the network); both are kept while their inputs are unchanged.
test: deps
	@Tests/Integration/setup.sh >.build-setup.log 2>&1 & setup=$$!; \
	$(SWIFT) build --build-tests && $(SWIFT) build $(STATIC_BUILD) --product pushlab; built=$$?; \
	wait $$setup; prepared=$$?; \
	if [ $$prepared -ne 0 ]; then cat .build-setup.log; fi; \
	[ $$built -eq 0 ] && [ $$prepared -eq 0 ]
	$(SWIFT) test --skip-build
	PUSHLAB_BIN=$(TEST_BIN) PUSHLAB_DIST_BIN=$(TEST_BIN) Tests/Integration/run.sh

## Everything: `make test`, then what is too long for it: a bounded fuzz run of the parsers of
## untrusted input (a second, instrumented build). CI runs this.
test-all: test
	Fuzz/run.sh --seconds 15

unit-test: build
	$(SWIFT) test

integration-test: deps
	$(SWIFT) build $(STATIC_BUILD) --product pushlab
	PUSHLAB_BIN=$(TEST_BIN) PUSHLAB_DIST_BIN=$(TEST_BIN) Tests/Integration/run.sh

## libFuzzer over JSON, provider tokens, certificates, requests, scenarios and control API bodies (ARGS: --seconds N, targets).
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
	rm -rf .build .build-static .build-release .build-fuzz .build-dist dist Tests/Integration/.venv Tests/Integration/.venvs
