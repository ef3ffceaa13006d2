package main

import (
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"
)

// twoRounds is the output of two invocations appended, as bench/run.sh
// writes it.
const twoRounds = `goos: linux
goarch: amd64
pkg: github.com/mwallet/mwallet-go
cpu: Intel(R) Xeon(R) Processor
BenchmarkSignedPOST-2              	   13438	     40000 ns/op	   12759 B/op	     150 allocs/op
BenchmarkBareNetHTTPSignedPOST-2   	   15884	     40000 ns/op	   10504 B/op	     100 allocs/op
PASS
pkg: github.com/mwallet/mwallet-go/simulator
BenchmarkAssets/simulator-2  	   18662	     30000 ns/op	    7560 B/op	      83 allocs/op
BenchmarkAssets/bare-2       	   22106	     15000 ns/op	    5465 B/op	      70 allocs/op
BenchmarkCardTransactionsPage/first-1k-2    5166	    200000 ns/op	   80615 B/op	    1109 allocs/op
pkg: github.com/mwallet/mwallet-go
BenchmarkSignedPOST-2              	   13438	     60000 ns/op	   12759 B/op	     150 allocs/op
BenchmarkBareNetHTTPSignedPOST-2   	   15884	     40000 ns/op	   10504 B/op	     100 allocs/op
pkg: github.com/mwallet/mwallet-go/simulator
BenchmarkAssets/simulator-2  	   18662	     30000 ns/op	    7560 B/op	      83 allocs/op
BenchmarkAssets/bare-2       	   22106	     12000 ns/op	    5465 B/op	      70 allocs/op
`

func TestParseAndEvaluate(t *testing.T) {
	t.Parallel()
	all := samples{}
	if err := parse(strings.NewReader(twoRounds), all); err != nil {
		t.Fatal(err)
	}
	if got := len(all["root/BenchmarkSignedPOST"]); got != 2 {
		t.Fatalf("SignedPOST samples = %d, want 2", got)
	}
	if _, ok := all["simulator/BenchmarkCardTransactionsPage/first-1k"]; !ok {
		t.Fatalf("sub-benchmark name with a dash lost: %v", all)
	}
	tests := []struct {
		t      target
		value  float64
		lo, hi float64
		met    bool
	}{
		// Per-round ratios 1.0 and 1.5: the median is 1.25.
		{target{ours: "root/BenchmarkSignedPOST", base: "root/BenchmarkBareNetHTTPSignedPOST", kind: timeRatioMax, limit: 1.3}, 1.25, 1, 1.5, true},
		{target{ours: "root/BenchmarkSignedPOST", base: "root/BenchmarkBareNetHTTPSignedPOST", kind: allocRatioMax, limit: 1.4}, 1.5, 1.5, 1.5, false},
		// Requests per second: 15/30 and 12/30.
		{target{ours: "simulator/BenchmarkAssets/simulator", base: "simulator/BenchmarkAssets/bare", kind: throughputMin, limit: 0.5}, 0.45, 0.4, 0.5, false},
		{target{ours: "root/BenchmarkSignedPOST", kind: nsMax, limit: 50000}, 50000, 40000, 60000, true},
	}
	for _, tt := range tests {
		r := evaluate(tt.t, all)
		got := []float64{r.value, r.lo, r.hi}
		if diff := cmp.Diff([]float64{tt.value, tt.lo, tt.hi}, got); diff != "" || r.met != tt.met || !r.ok {
			t.Errorf("%s vs %s: value, lo, hi = %v, met %v; want %v, %v", tt.t.ours, tt.t.base, got, r.met, []float64{tt.value, tt.lo, tt.hi}, tt.met)
		}
	}
	if r := evaluate(target{ours: "root/BenchmarkMissing", kind: nsMax, limit: 1}, all); r.ok || r.verdict() != "no samples" {
		t.Errorf("missing benchmark: ok %v, verdict %q", r.ok, r.verdict())
	}
}
