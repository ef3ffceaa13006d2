package main

// The recipes command runs the error recipes of GET /_sim/recipes: one per
// documented error code, each reaching its code over HTTP. (Not to be
// confused with trigger's event flows, which make the simulator emit
// webhook events.)

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"net/http"
	"sort"
	"strings"
	"time"

	"github.com/mwallet/mwallet-go/simulator"
)

func init() {
	commands["recipes"] = command{summary: "run the error recipes: every documented error code over HTTP (recipes -list for the codes)",
		synopsis: "mwallet-sim recipes [-list] [-run CODE[,CODE...]] [-url URL] [-v]", run: errorRecipesCmd}
}

// errorRecipesConfig is what the recipes flags set.
type errorRecipesConfig struct {
	conn    connFlags
	run     []string
	list    bool
	verbose bool
}

func parseErrorRecipes(args []string, stderr io.Writer) (c errorRecipesConfig, err error) {
	defer func() { err = usageErr(err) }()
	fs := newFlagSet("recipes", commands["recipes"].synopsis,
		"Runs the error recipes of GET /_sim/recipes. Without -url each recipe runs on its own fresh\n"+
			"simulator in this process; with -url, one recipe (-run CODE) runs on the simulator at URL,\n"+
			"which must be freshly started with its default fixture.", stderr)
	var run string
	addConnFlags(fs, &c.conn, "base URL of a running simulator (freshly started); default: a fresh in-process simulator per recipe")
	fs.StringVar(&run, "run", "", "comma-separated error codes to run (default: all)")
	fs.BoolVar(&c.list, "list", false, "list the recipes (code, HTTP status, injected, how it is produced) and exit")
	fs.BoolVar(&c.verbose, "v", false, "print every step: call, method, path, status, code, request id")
	if err = fs.Parse(args); err != nil {
		return c, err
	}
	if fs.NArg() > 0 {
		return c, fmt.Errorf("unexpected arguments: %s", strings.Join(fs.Args(), " "))
	}
	for _, code := range strings.Split(run, ",") {
		if code = strings.TrimSpace(code); code != "" {
			c.run = append(c.run, code)
		}
	}
	if err := c.conn.resolve(""); err != nil {
		return c, err
	}
	if c.conn.url != "" {
		if !c.list && len(c.run) != 1 {
			return c, errors.New("-url runs one recipe on a freshly started simulator: name it with -run CODE (each recipe changes the simulator's state)")
		}
	}
	return c, nil
}

// errorRecipesCmd is the recipes command.
func errorRecipesCmd(ctx context.Context, args []string, stdout, stderr io.Writer, _ func(string)) error {
	cfg, err := parseErrorRecipes(args, stderr)
	if err != nil {
		return err
	}
	hc := newHTTPClient(30 * time.Second)
	all := simulator.ErrorRecipes()
	if cfg.conn.url != "" {
		if all, err = fetchErrorRecipes(ctx, hc, cfg.conn.url, cfg.conn.token); err != nil {
			return err
		}
	}
	selected, err := selectErrorRecipes(all, cfg.run)
	if err != nil {
		return err
	}
	if cfg.list {
		listErrorRecipes(stdout, selected)
		return nil
	}
	failed := 0
	for _, r := range selected {
		base := cfg.conn.url
		var sim *simulator.Simulator
		if base == "" {
			if sim, err = simulator.New(); err != nil {
				return err
			}
			base = sim.URL()
		}
		runner := &simulator.RecipeRunner{BaseURL: base, HTTPClient: hc}
		if sim == nil {
			runner.ControlToken = cfg.conn.token
		}
		if cfg.verbose {
			fmt.Fprintf(stdout, "%s: %s\n", r.Code, r.Title)
			runner.Trace = func(tr simulator.RecipeTrace) {
				code := tr.Code
				if code == "" {
					code = "-"
				}
				fmt.Fprintf(stdout, "  %2d. %-7s %-6s %s -> %d %s (%s)\n", tr.Index, tr.Call, tr.Method, tr.Path, tr.Status, code, tr.RequestID)
			}
		}
		res, err := runner.Run(ctx, r)
		if err == nil && sim != nil {
			if lerr := sim.CheckLedger(); lerr != nil {
				err = fmt.Errorf("books unbalanced after the recipe: %w", lerr)
			}
		}
		if sim != nil {
			sim.Close()
		}
		kind := "modelled"
		if r.Injected {
			kind = "injected"
		}
		if err != nil {
			failed++
			fmt.Fprintf(stdout, "FAIL %-28s %v\n", r.Code, err)
			continue
		}
		fmt.Fprintf(stdout, "ok   %-28s %d %s, %s, %d steps\n", r.Code, res.Status, res.Code, kind, len(r.Steps))
	}
	if failed > 0 {
		return fmt.Errorf("%d of %d recipes failed", failed, len(selected))
	}
	if len(selected) == 1 {
		fmt.Fprintln(stdout, "1 recipe ran as documented")
	} else {
		fmt.Fprintf(stdout, "%d recipes ran as documented\n", len(selected))
	}
	return nil
}

// fetchErrorRecipes reads GET /_sim/recipes of the simulator at base.
func fetchErrorRecipes(ctx context.Context, hc *http.Client, base, token string) ([]simulator.ErrorRecipe, error) {
	req, err := http.NewRequestWithContext(ctx, http.MethodGet, strings.TrimRight(base, "/")+"/_sim/recipes", nil)
	if err != nil {
		return nil, err
	}
	setControlToken(req, token)
	resp, err := hc.Do(req)
	if err != nil {
		return nil, fmt.Errorf("GET /_sim/recipes: %w", err)
	}
	defer resp.Body.Close()
	if resp.StatusCode != http.StatusOK {
		var env struct {
			Code    string `json:"code"`
			Message string `json:"message"`
		}
		if json.NewDecoder(io.LimitReader(resp.Body, 1<<16)).Decode(&env) == nil && env.Code != "" {
			return nil, fmt.Errorf("GET /_sim/recipes answered %d %s: %s", resp.StatusCode, env.Code, env.Message)
		}
		return nil, fmt.Errorf("GET /_sim/recipes answered %d", resp.StatusCode)
	}
	var out struct {
		Recipes []simulator.ErrorRecipe `json:"data"`
	}
	if err := json.NewDecoder(resp.Body).Decode(&out); err != nil {
		return nil, fmt.Errorf("GET /_sim/recipes: %w", err)
	}
	return out.Recipes, nil
}

// selectErrorRecipes keeps the recipes of codes (all when codes is empty).
func selectErrorRecipes(all []simulator.ErrorRecipe, codes []string) ([]simulator.ErrorRecipe, error) {
	if len(codes) == 0 {
		return all, nil
	}
	byCode := map[string]simulator.ErrorRecipe{}
	for _, r := range all {
		byCode[r.Code] = r
	}
	var out []simulator.ErrorRecipe
	for _, c := range codes {
		r, ok := byCode[c]
		if !ok {
			return nil, fmt.Errorf("no recipe for %q (mwallet-sim recipes -list shows the codes)", c)
		}
		out = append(out, r)
	}
	return out, nil
}

func listErrorRecipes(w io.Writer, rs []simulator.ErrorRecipe) {
	sort.Slice(rs, func(i, j int) bool { return rs[i].Code < rs[j].Code })
	for _, r := range rs {
		kind := "modelled"
		if r.Injected {
			kind = "injected"
		}
		fmt.Fprintf(w, "%-28s %d  %-8s  %s\n", r.Code, r.Expect.Status, kind, r.Title)
	}
}
