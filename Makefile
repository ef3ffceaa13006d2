# make bench runs the performance benchmarks and prints the measured ratios
# against the bare baselines (see BENCHMARKS.md).
.PHONY: bench
bench:
	./bench/run.sh

# make test-all runs every module's tests, nested modules included (see README).
.PHONY: test-all
test-all:
	go run ./internal/tools/testall
