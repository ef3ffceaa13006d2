#!/usr/bin/env bash
# bench/run.sh runs the performance benchmarks of the SDK and the simulator
# and prints every target of BENCHMARKS.md with its measured ratio.
#
# Each package runs in its own `go test` invocation (a nested module, such
# as otel/, from its own directory) that holds both sides of
# every ratio (ours and the bare baseline), so a ratio never compares two
# runs. The invocations are repeated ROUNDS times, one package after the
# other, each with -count 1: the rounds interleave, and a burst of load from
# other processes hits both sides of a pair instead of one. The result is
# the same ROUNDS samples per benchmark as -count ROUNDS; benchstat
# summarises them and bench/ratios pairs them round by round and reports
# the median ratio.
#
# Then TestMemoryBoundedUnderLoad drives LOAD requests (one million by
# default) through the simulator in process and checks that its windows
# stay bounded.
#
# Environment: ROUNDS (6), BENCHTIME (1s), LOAD (1000000), OUT (bench/out),
# PROFILE=1 to write CPU and memory profiles of the last round into OUT.
set -euo pipefail
cd "$(dirname "$0")/.."

ROUNDS=${ROUNDS:-6}
BENCHTIME=${BENCHTIME:-1s}
LOAD=${LOAD:-1000000}
OUT=${OUT:-bench/out}
mkdir -p "$OUT"
raw="$OUT/bench.txt"
: >"$raw"

# package and benchmark pattern, in pairs
suites=(
	.           '^Benchmark(SignedPOST|BareNetHTTPSignedPOST|SignedPOSTHTTP2|BareNetHTTPSignedPOSTHTTP2|Sign1KiB|BareHMAC1KiB)$'
	./money     '^Benchmark(Parse|ParseStrconvBaseline|Parse18Digits|ParseStrconvBaseline18Digits|Append|AppendBig)$'
	./webhooks  '^Benchmark(Verify|BareHMAC)(1|64)KiB$'
	./simulator '^Benchmark(Assets|SignedWrite|ConcurrentSignedDeposits|NewClose|CardTransactionsPage|RemittancesPage)$'
	./otel      '^BenchmarkSignedPOST(InMemory)?(NoObserver|OTelObserver)$'
)

{
	echo "date:    $(date -u +%Y-%m-%dT%H:%M:%SZ)"
	echo "go:      $(go version)"
	echo "cpu:     $(grep -m1 'model name' /proc/cpuinfo | cut -d: -f2- | sed 's/^ *//') ($(nproc) cores)"
	echo "load:    $(cut -d' ' -f1-3 /proc/loadavg) (1, 5, 15 min) before the run"
	echo "rounds:  $ROUNDS x -count 1, -benchtime $BENCHTIME"
} | tee "$OUT/env.txt"

for ((round = 1; round <= ROUNDS; round++)); do
	echo "== round $round of $ROUNDS" >&2
	for ((i = 0; i < ${#suites[@]}; i += 2)); do
		pkg=${suites[i]}
		pattern=${suites[i + 1]}
		prof=()
		if [[ ${PROFILE:-} == 1 && $round == "$ROUNDS" ]]; then
			name=${pkg#./}
			[[ $name == . ]] && name=root
			prof=(-cpuprofile "$OUT/$name.cpu.pprof" -memprofile "$OUT/$name.mem.pprof" -o "$OUT/$name.test")
		fi
		dir=.
		if [[ $pkg != . && -f $pkg/go.mod ]]; then
			# A nested module (otel/) runs from its own directory.
			dir=$pkg pkg=.
			if [[ ${#prof[@]} -gt 0 ]]; then
				outabs=$(cd "$OUT" && pwd)
				prof=(-cpuprofile "$outabs/$name.cpu.pprof" -memprofile "$outabs/$name.mem.pprof" -o "$outabs/$name.test")
			fi
		fi
		(cd "$dir" && go test -run '^$' -bench "$pattern" -benchmem -count 1 -benchtime "$BENCHTIME" ${prof[@]+"${prof[@]}"} "$pkg") | tee -a "$raw" >&2
	done
done

benchstat=$(command -v benchstat || echo "$(go env GOPATH)/bin/benchstat")
if [[ -x $benchstat ]]; then
	"$benchstat" "$raw" >"$OUT/benchstat.txt"
	echo "benchstat summary: $OUT/benchstat.txt"
else
	echo "benchstat not found (go install golang.org/x/perf/cmd/benchstat@latest); skipping the summary" >&2
fi

echo
go run ./bench/ratios "$raw" | tee "$OUT/ratios.txt"
go run ./bench/ratios -md "$raw" >"$OUT/ratios.md"

echo
echo "== memory under load: $LOAD requests in process"
go test -count 1 -run '^TestMemoryBoundedUnderLoad$' -v ./simulator -sim.load="$LOAD" | grep -E 'memory_test|^(ok|FAIL|---)' | tee "$OUT/memory.txt"
