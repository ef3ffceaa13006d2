// Command validate-exchanges validates the exchange log of the simulator
// (written by every simulator of a process while MWALLET_SIM_EXCHANGE_LOG
// names a directory) against the OpenAPI documents embedded in the SDK's
// openapi package, with kin-openapi's openapi3filter.
//
// Usage:
//
//	validate-exchanges [-known FILE] [-min-coverage] DIR
//
// It prints the counts (exchanges, requests, responses, webhooks, per
// operation), every violation, and exits 1 when a violation is not in the
// -known list, when an entry of that list matched nothing (it is stale and
// must be removed), or, with -min-coverage, when a business operation or
// webhook of the document was never exercised.
package main

import (
	"bufio"
	"context"
	"encoding/json"
	"flag"
	"fmt"
	"os"
	"path/filepath"
	"sort"
	"strings"

	"github.com/getkin/kin-openapi/openapi3"

	"github.com/mwallet/mwallet-go/openapi/validate"
	"github.com/mwallet/mwallet-go/simulator"
)

func main() {
	known := flag.String("known", "", "file of known violations (KEY | SUBSTRING per line)")
	coverage := flag.Bool("min-coverage", false, "fail when a business operation (not a webhook) of the document was never exercised")
	verbose := flag.Bool("v", false, "also list the refused invalid requests, grouped")
	flag.Parse()
	if flag.NArg() != 1 {
		fmt.Fprintln(os.Stderr, "usage: validate-exchanges [-known FILE] [-min-coverage] DIR")
		os.Exit(2)
	}
	if err := run(flag.Arg(0), *known, *coverage, *verbose); err != nil {
		fmt.Fprintln(os.Stderr, "validate-exchanges:", err)
		os.Exit(1)
	}
}

func run(dir, knownFile string, coverage, verbose bool) error {
	ctx := context.Background()
	docs, err := validate.Load(ctx)
	if err != nil {
		return err
	}
	c, err := validate.NewChecker(docs)
	if err != nil {
		return err
	}
	var k *validate.Known
	if knownFile != "" {
		f, err := os.Open(knownFile)
		if err != nil {
			return err
		}
		k, err = validate.ParseKnown(f)
		f.Close()
		if err != nil {
			return fmt.Errorf("%s: %w", knownFile, err)
		}
	}
	files, err := filepath.Glob(filepath.Join(dir, "*.ndjson"))
	if err != nil {
		return err
	}
	if len(files) == 0 {
		return fmt.Errorf("no *.ndjson exchange log in %s", dir)
	}
	sort.Strings(files)
	for _, name := range files {
		if err := readLog(ctx, c, name); err != nil {
			return err
		}
	}

	for _, d := range []struct {
		name string
		doc  *openapi3.T
	}{{"mwallet.yaml", docs.Business}, {"mwallet-sim.yaml", docs.Control}} {
		ops := 0
		for _, item := range d.doc.Paths.Map() {
			ops += len(item.Operations())
		}
		fmt.Printf("%s: %d paths, %d operations, %d component schemas, %d webhooks\n",
			d.name, d.doc.Paths.Len(), ops, len(d.doc.Components.Schemas), len(d.doc.Webhooks))
	}
	n := c.Counts
	fmt.Printf("exchange log: %d files, %d exchanges\n", len(files), n.Exchanges)
	fmt.Printf("requests validated: %d (refused as the document requires, being invalid: %d)\n", n.Requests, n.RefusedInvalid)
	fmt.Printf("  of which accepted with a lenient parameter's invalid value (x-lenient): %d\n", n.LenientAccepted)
	fmt.Printf("  JSON bodies without Content-Type (refused by the simulator; bodies validated as JSON): %d\n", n.NoContentType)
	fmt.Printf("  bodies over 1 MiB, only their answer validated: %d\n", n.Oversized)
	fmt.Printf("  HEAD requests, validated as the GET of their path: %d\n", n.Head)
	fmt.Printf("responses validated: %d (closed world)\n", n.Responses)
	fmt.Printf("webhook deliveries validated: %d\n", n.Webhooks)
	fmt.Printf("dropped connections (request only): %d\n", n.Dropped)
	fmt.Printf("requests outside both documents (answers checked as not_found envelopes): %d\n", n.NoRoute)
	fmt.Printf("  of which answered by an injected fault (checked as error envelopes): %d\n", n.FaultNoRoute)
	fmt.Printf("  of which refused by the control API's guard (Host, control token): %d\n", n.GuardRefused)
	if verbose {
		fmt.Println("refused invalid requests, grouped:")
		keys := make([]string, 0, len(c.Refused))
		for k := range c.Refused {
			keys = append(keys, k)
		}
		sort.Strings(keys)
		for _, k := range keys {
			fmt.Printf("  %5d  %s\n", c.Refused[k], k)
		}
	}
	fmt.Println("per operation:")
	ops := append(c.BusinessOperations(), c.ControlOperations()...)
	seen := map[string]bool{}
	var unexercised []string
	for _, op := range ops {
		seen[op] = true
		fmt.Printf("  %6d  %s\n", n.PerOperation[op], op)
	}
	for _, op := range c.BusinessOperations() {
		// Webhooks the suites do not send are covered by the tour's test.
		if n.PerOperation[op] == 0 && !strings.HasPrefix(op, "webhook ") {
			unexercised = append(unexercised, op)
		}
	}

	var known, unknown []validate.Violation
	for _, v := range c.Violations() {
		if k.Match(v) {
			known = append(known, v)
		} else {
			unknown = append(unknown, v)
		}
	}
	failed := false
	if len(known) > 0 {
		fmt.Printf("known violations (listed in %s, owned elsewhere): %d\n", knownFile, len(known))
		printGrouped(known)
	}
	if stale := k.Unused(); len(stale) > 0 {
		failed = true
		fmt.Printf("STALE entries of %s (the mismatch no longer occurs: remove them): %d\n", knownFile, len(stale))
		for _, s := range stale {
			fmt.Println("  " + s)
		}
	}
	if coverage && len(unexercised) > 0 {
		failed = true
		fmt.Printf("business operations never exercised: %d\n", len(unexercised))
		for _, op := range unexercised {
			fmt.Println("  " + op)
		}
	}
	fmt.Printf("violations: %d\n", len(unknown))
	if len(unknown) > 0 {
		failed = true
		for _, v := range unknown {
			fmt.Println("  " + v.String())
		}
	}
	if failed {
		return fmt.Errorf("the simulator's exchanges disagree with the documents")
	}
	return nil
}

func readLog(ctx context.Context, c *validate.Checker, name string) error {
	f, err := os.Open(name)
	if err != nil {
		return err
	}
	defer f.Close()
	sc := bufio.NewScanner(f)
	sc.Buffer(nil, 64<<20)
	line := 0
	for sc.Scan() {
		line++
		var x simulator.Exchange
		if err := json.Unmarshal(sc.Bytes(), &x); err != nil {
			return fmt.Errorf("%s:%d: %w", name, line, err)
		}
		c.Check(ctx, &x, fmt.Sprintf("%s:%d", filepath.Base(name), line))
	}
	return sc.Err()
}

// printGrouped prints known violations once per key and detail, with a count.
func printGrouped(vs []validate.Violation) {
	type g struct {
		v validate.Violation
		n int
	}
	groups := map[string]*g{}
	var order []string
	for _, v := range vs {
		id := v.Key + "\x00" + v.Kind + "\x00" + v.Detail
		if groups[id] == nil {
			groups[id] = &g{v: v}
			order = append(order, id)
		}
		groups[id].n++
	}
	for _, id := range order {
		x := groups[id]
		fmt.Printf("  %4dx %s [%s] e.g. %s: %s\n", x.n, x.v.Key, x.v.Kind, x.v.Where, x.v.Detail)
	}
}
