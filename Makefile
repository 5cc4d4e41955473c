# Pushlab: the two commands of the quick start are `make serve` and `make test`.
SWIFT ?= swift
BIN_DIR = $(shell $(SWIFT) build --show-bin-path)

.PHONY: deps build serve test unit-test integration-test fuzz bench bench-durability certs clean

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

certs:
	certs/generate.sh

clean:
	rm -rf .build .build-release .build-fuzz Tests/Integration/.venv
