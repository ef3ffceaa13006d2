# make bench runs the performance benchmarks and prints the measured ratios
# against the bare baselines (see BENCHMARKS.md).
.PHONY: bench
bench:
	./bench/run.sh
