# Pushlab: the two commands of the quick start are `make serve` and `make test`.
SWIFT ?= swift
BIN_DIR = $(shell $(SWIFT) build --show-bin-path)

.PHONY: deps build serve test unit-test integration-test fuzz bench bench-durability bench-scale certs clean

deps:
	@scripts/install-deps.sh

build: deps
	$(SWIFT) build

## Start Pushlab with its embedded defaults (development :2197, production :2196).
serve: build
	$(BIN_DIR)/pushlab serve $(ARGS)

## The whole test suite: Swift unit and socket tests, then real clients against the binary,
## then a bounded fuzz run of the parsers of untrusted input.
test: build
	$(SWIFT) test
	PUSHLAB_BIN=$(BIN_DIR)/pushlab Tests/Integration/run.sh
	Fuzz/run.sh --seconds 15

unit-test: build
	$(SWIFT) test

integration-test: build
	PUSHLAB_BIN=$(BIN_DIR)/pushlab Tests/Integration/run.sh

## libFuzzer over JSON, provider tokens, certificates, requests, scenarios and control API bodies (ARGS: --seconds N, targets).
fuzz:
	Fuzz/run.sh $(ARGS)

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
	rm -rf .build .build-release .build-fuzz Tests/Integration/.venv
