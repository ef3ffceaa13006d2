// Command tour drives every business endpoint of a running mwallet-sim, with
// success and error answers, and every webhook event type (see package
// tour). Point -api at a validating proxy (Prism) in front of the
// simulator and -control at the simulator itself.
//
// Usage:
//
//	tour -api http://127.0.0.1:4010 -control http://127.0.0.1:8080 [-v]
//	tour -print-qr
package main

import (
	"context"
	"flag"
	"fmt"
	"io"
	"os"
	"sort"
	"time"

	"github.com/mwallet/mwallet-go/openapi/validate/tour"
)

func main() {
	api := flag.String("api", "http://127.0.0.1:4010", "base URL of the business API (the proxy)")
	control := flag.String("control", "http://127.0.0.1:8080", "base URL of the simulator (control API)")
	verbose := flag.Bool("v", false, "print every step")
	printQR := flag.Bool("print-qr", false, "print the tour's QR code (a 250.00 THB PromptPay bill) and exit")
	flag.Parse()
	if *printQR {
		fmt.Println(tour.QRCode)
		return
	}
	var log io.Writer
	if *verbose {
		log = os.Stdout
	}
	ctx, cancel := context.WithTimeout(context.Background(), 5*time.Minute)
	defer cancel()
	res, err := tour.Run(ctx, tour.Config{API: *api, Control: *control, Log: log})
	if res != nil {
		calls := 0
		for _, op := range res.Operations() {
			var parts []string
			statuses := make([]int, 0, len(res.Calls[op]))
			for st := range res.Calls[op] {
				statuses = append(statuses, st)
			}
			sort.Ints(statuses)
			for _, st := range statuses {
				parts = append(parts, fmt.Sprintf("%d×%d", res.Calls[op][st], st))
				calls += res.Calls[op][st]
			}
			fmt.Printf("  %-48s %v\n", op, parts)
		}
		events := 0
		for _, n := range res.Events {
			events += n
		}
		fmt.Printf("tour: %d business calls over %d operations; %d webhook deliveries of %d event types\n",
			calls, len(res.Calls), events, len(res.Events))
	}
	if err != nil {
		fmt.Fprintln(os.Stderr, "tour:", err)
		os.Exit(1)
	}
}
