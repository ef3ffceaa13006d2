package main

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"net"
	"net/http"
	"net/url"
	"strings"
	"sync"
	"time"
)

func init() {
	commands["listen"] = command{summary: "forward a running simulator's webhook deliveries to a local URL",
		synopsis: "mwallet-sim listen -forward-to URL [flags]", run: listen}
}

// listenConfig is what the listen flags set.
type listenConfig struct {
	forwardTo string
	conn      connFlags
	events    []string
	addr      string
	flush     time.Duration
}

func parseListen(args []string, stderr io.Writer) (c listenConfig, err error) {
	defer func() { err = usageErr(err) }()
	fs := newFlagSet("listen", commands["listen"].synopsis,
		"Registers a webhook endpoint with the running simulator at -url and forwards every\ndelivery, signed and unchanged, to -forward-to until interrupted. Which deliveries are due\nis decided on the simulator's clock; -flush-interval is only how often listen asks.", stderr)
	var events string
	fs.StringVar(&c.forwardTo, "forward-to", "", "URL every delivery is forwarded to (required), for example http://localhost:4242/webhooks")
	addConnFlags(fs, &c.conn, "base URL of the running simulator (default "+defaultURL+")")
	fs.StringVar(&events, "events", "", "comma-separated event types to receive (default: every event)")
	fs.StringVar(&c.addr, "addr", "127.0.0.1:0", "address of the local listener the simulator delivers to (it must reach it)")
	fs.DurationVar(&c.flush, "flush-interval", 500*time.Millisecond, "how often to ask the simulator to attempt due deliveries (POST /_sim/webhooks/flush); 0 leaves delivery to its automatic mode")
	if err := fs.Parse(args); err != nil {
		return c, err
	}
	if fs.NArg() > 0 {
		return c, fmt.Errorf("unexpected arguments: %s", strings.Join(fs.Args(), " "))
	}
	if c.forwardTo == "" {
		return c, errors.New("-forward-to is required: the URL every delivery is forwarded to")
	}
	if u, err := url.Parse(c.forwardTo); err != nil || (u.Scheme != "http" && u.Scheme != "https") || u.Host == "" {
		return c, fmt.Errorf("-forward-to %q: want an absolute http or https URL", c.forwardTo)
	}
	if err := c.conn.resolve(defaultURL); err != nil {
		return c, err
	}
	if c.flush < 0 {
		return c, errors.New("-flush-interval must not be negative")
	}
	for _, e := range strings.Split(events, ",") {
		if e = strings.TrimSpace(e); e != "" {
			c.events = append(c.events, e)
		}
	}
	return c, nil
}

// listen registers a webhook endpoint with the simulator that points at a
// local listener, forwards every delivery to the -forward-to URL unchanged
// (method, headers and body bytes, so the z-signature still verifies),
// answers the simulator with the forward target's status, prints a line per
// delivery, and removes the endpoint when ctx ends. ready, when not nil,
// receives the listener's URL once the endpoint is registered.
func listen(ctx context.Context, args []string, stdout, stderr io.Writer, ready func(string)) error {
	cfg, err := parseListen(args, stderr)
	if err != nil {
		return err
	}
	t := &triggerRun{ctx: ctx, out: stdout, base: cfg.conn.url, hc: newHTTPClient(30 * time.Second), token: cfg.conn.token}

	ln, err := net.Listen("tcp", cfg.addr)
	if err != nil {
		return err
	}
	local := "http://" + ln.Addr().String() + "/"
	fwc := newHTTPClient(10 * time.Second) // the simulator's own per-attempt limit
	fwc.CheckRedirect = func(*http.Request, []*http.Request) error { return http.ErrUseLastResponse }
	defer fwc.CloseIdleConnections()
	defer t.hc.CloseIdleConnections()
	fw := &forwarder{target: cfg.forwardTo, out: stdout, client: fwc}
	srv := &http.Server{Handler: fw, ReadHeaderTimeout: 10 * time.Second}
	errc := make(chan error, 1)
	go func() { errc <- srv.Serve(ln) }()

	var ep struct {
		ID     string `json:"id"`
		Secret string `json:"secret"`
	}
	body := map[string]any{"url": local}
	if len(cfg.events) > 0 {
		body["events"] = cfg.events
	}
	if err := t.control(http.MethodPost, "/_sim/webhooks/endpoints", body, &ep); err != nil {
		_ = srv.Close()
		return fmt.Errorf("registering the webhook endpoint at %s: %w", t.base, err)
	}

	subscribed := "every event"
	if len(cfg.events) > 0 {
		subscribed = strings.Join(cfg.events, ", ")
	}
	fw.line("Ready! Forwarding %s from %s to %s", subscribed, t.base, cfg.forwardTo)
	fw.line("  webhook endpoint %s -> %s", ep.ID, local)
	fw.line("  webhook signing secret %s (the simulator's test secret; verify z-signature with it)", ep.Secret)
	if cfg.flush > 0 {
		fw.line("  flushing due deliveries every %s (POST /_sim/webhooks/flush)", cfg.flush)
	}
	if ready != nil {
		ready(local)
	}

	lctx, cancel := context.WithCancel(ctx)
	defer cancel()
	var flushes sync.WaitGroup
	if cfg.flush > 0 {
		flushes.Add(1)
		ft := *t
		ft.ctx = lctx
		go func() {
			defer flushes.Done()
			ft.flushLoop(lctx, cfg.flush, stderr)
		}()
	}
	var serveErr error
	select {
	case <-ctx.Done():
	case serveErr = <-errc:
	}

	// Stop flushing, let deliveries in progress finish, then remove the
	// endpoint (its rows still pending become no_subscriber).
	cancel()
	flushes.Wait()
	cctx, cancelCleanup := context.WithTimeout(context.Background(), 5*time.Second)
	defer cancelCleanup()
	if err := srv.Shutdown(cctx); err != nil {
		_ = srv.Close()
	}
	ct := *t
	ct.ctx = cctx
	if err := ct.control(http.MethodDelete, "/_sim/webhooks/endpoints/"+url.PathEscape(ep.ID), nil, nil); err != nil {
		return errors.Join(serveErr, fmt.Errorf("removing webhook endpoint %s: %w", ep.ID, err))
	}
	fw.line("Removed webhook endpoint %s", ep.ID)
	if errors.Is(serveErr, http.ErrServerClosed) {
		serveErr = nil
	}
	return serveErr
}

// flushLoop asks the simulator to attempt due deliveries every interval,
// one flush at a time, until ctx ends. A failed flush is reported once
// until one succeeds again.
func (t *triggerRun) flushLoop(ctx context.Context, every time.Duration, stderr io.Writer) {
	tick := time.NewTicker(every)
	defer tick.Stop()
	failing := false
	for {
		select {
		case <-ctx.Done():
			return
		case <-tick.C:
		}
		err := t.control(http.MethodPost, "/_sim/webhooks/flush", nil, nil)
		switch {
		case err != nil && ctx.Err() != nil:
			return
		case err != nil && !failing:
			fmt.Fprintf(stderr, "mwallet-sim listen: flush: %v\n", err)
			failing = true
		case err == nil:
			failing = false
		}
	}
}

// forwarder relays each delivery to the target unchanged and answers with
// the target's status.
type forwarder struct {
	target string
	out    io.Writer
	client *http.Client
	mu     sync.Mutex // serialises output lines
}

// hopHeaders are connection-level headers a proxy does not forward.
var hopHeaders = map[string]bool{
	"Connection": true, "Keep-Alive": true, "Proxy-Connection": true, "Te": true,
	"Trailer": true, "Transfer-Encoding": true, "Upgrade": true,
}

func (f *forwarder) ServeHTTP(w http.ResponseWriter, r *http.Request) {
	body, err := io.ReadAll(io.LimitReader(r.Body, 16<<20))
	if err != nil {
		http.Error(w, "reading the delivery: "+err.Error(), http.StatusBadRequest)
		return
	}
	typ, id := r.Header.Get("z-event-type"), r.Header.Get("z-event-id")
	if typ == "" || id == "" {
		// Read the body for a delivery without the headers.
		var ev struct {
			EventID   string `json:"event_id"`
			EventType string `json:"event_type"`
		}
		_ = json.Unmarshal(body, &ev)
		typ, id = firstNonEmpty(typ, ev.EventType), firstNonEmpty(id, ev.EventID)
	}

	req, err := http.NewRequestWithContext(r.Context(), r.Method, f.target, bytes.NewReader(body))
	if err != nil {
		f.line("%s  %-34s %s  error: %v", time.Now().Format("15:04:05"), typ, id, err)
		http.Error(w, err.Error(), http.StatusBadGateway)
		return
	}
	for k, vs := range r.Header {
		if hopHeaders[k] {
			continue
		}
		req.Header[k] = append([]string(nil), vs...)
	}
	req.ContentLength = int64(len(body))
	resp, err := f.client.Do(req)
	if err != nil {
		f.line("%s  %-34s %s  [502] %s %s: %v", time.Now().Format("15:04:05"), typ, id, r.Method, f.target, err)
		http.Error(w, "forwarding: "+err.Error(), http.StatusBadGateway)
		return
	}
	defer resp.Body.Close()
	rb, _ := io.ReadAll(io.LimitReader(resp.Body, 64<<10))
	f.line("%s  %-34s %s  [%d] %s %s", time.Now().Format("15:04:05"), typ, id, resp.StatusCode, r.Method, f.target)
	if ct := resp.Header.Get("Content-Type"); ct != "" {
		w.Header().Set("Content-Type", ct)
	}
	w.WriteHeader(resp.StatusCode)
	_, _ = w.Write(rb)
}

func (f *forwarder) line(format string, args ...any) {
	f.mu.Lock()
	defer f.mu.Unlock()
	fmt.Fprintf(f.out, format+"\n", args...)
}

func firstNonEmpty(a, b string) string {
	if a != "" {
		return a
	}
	return b
}
