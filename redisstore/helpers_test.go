package redisstore_test

import (
	"context"
	"crypto/rand"
	"encoding/hex"
	"fmt"
	"net"
	"os"
	"os/exec"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/redis/go-redis/v9"

	mwallet "github.com/mwallet/mwallet-go"
	"github.com/mwallet/mwallet-go/internal/webhookcrash"
	"github.com/mwallet/mwallet-go/mwclient"
	"github.com/mwallet/mwallet-go/redisstore"
	"github.com/mwallet/mwallet-go/simulator"
	"github.com/mwallet/mwallet-go/simulator/simtest"
	"github.com/mwallet/mwallet-go/webhooks"
)

const member1 = simulator.DefaultMemberExternalID

// needRedis skips the test outside CI when Redis is not available and fails
// it in CI, where .ci/redis provides a server.
func needRedis(t *testing.T, why string) {
	t.Helper()
	if os.Getenv("CI") == "true" {
		t.Fatalf("%s; in CI .ci/redis installs redis-server and sets REDIS_URL", why)
	}
	t.Skipf("%s: skipping the Redis tests (run .ci/redis, or start redis-server and set REDIS_URL=redis://127.0.0.1:6379/0)", why)
}

// redisOptions are the client settings every test uses: short timeouts so a
// dead server gives errors quickly.
func redisOptions(o *redis.Options) *redis.Options {
	o.DialTimeout = 500 * time.Millisecond
	o.ReadTimeout = 500 * time.Millisecond
	o.WriteTimeout = 500 * time.Millisecond
	o.MaxRetries = 1
	o.DialerRetries = 1
	o.ContextTimeoutEnabled = true
	return o
}

// newRedis connects to REDIS_URL.
func newRedis(t *testing.T) *redis.Client {
	t.Helper()
	u := os.Getenv("REDIS_URL")
	if u == "" {
		needRedis(t, "REDIS_URL is not set")
	}
	o, err := redis.ParseURL(u)
	if err != nil {
		t.Fatalf("REDIS_URL: %v", err)
	}
	rdb := redis.NewClient(redisOptions(o))
	t.Cleanup(func() { _ = rdb.Close() })
	ctx, cancel := context.WithTimeout(context.Background(), 5*time.Second)
	defer cancel()
	if err := rdb.Ping(ctx).Err(); err != nil {
		t.Fatalf("Redis at REDIS_URL does not answer: %v", err)
	}
	return rdb
}

// newStore returns a Store on REDIS_URL under a prefix of its own, whose
// keys are deleted when the test ends.
func newStore(t *testing.T, o redisstore.Options) (*redisstore.Store, *redis.Client) {
	t.Helper()
	rdb := newRedis(t)
	o.Prefix = testPrefix(t)
	t.Cleanup(func() { deletePrefix(rdb, o.Prefix) })
	return redisstore.New(rdb, o), rdb
}

func testPrefix(t *testing.T) string {
	var b [6]byte
	_, _ = rand.Read(b[:])
	name := strings.NewReplacer("/", "-", " ", "_").Replace(t.Name())
	return "mwtest:" + name + ":" + hex.EncodeToString(b[:]) + ":"
}

func deletePrefix(rdb *redis.Client, prefix string) {
	ctx, cancel := context.WithTimeout(context.Background(), 5*time.Second)
	defer cancel()
	iter := rdb.Scan(ctx, 0, prefix+"*", 100).Iterator()
	for iter.Next(ctx) {
		rdb.Del(ctx, iter.Val())
	}
}

// newSim starts a simulator whose books are checked when the test ends.
func newSim(t *testing.T, opts ...simulator.Option) *simulator.Simulator {
	t.Helper()
	return simtest.Start(t, opts...)
}

// exchanges counts the token exchanges the simulator received.
func exchanges(sim *simulator.Simulator) (total, ok int) {
	for _, r := range sim.Requests.List() {
		if r.Method == "POST" && r.Path == "/v1/connect/token" {
			total++
			if r.Status == 200 {
				ok++
			}
		}
	}
	return total, ok
}

// requestsTo returns the journal records of method and path.
func requestsTo(sim *simulator.Simulator, method, path string) []simulator.RequestRecord {
	var out []simulator.RequestRecord
	for _, r := range sim.Requests.List() {
		if r.Method == method && r.Path == path {
			out = append(out, r)
		}
	}
	return out
}

// getAssets is one cheap authenticated call.
func getAssets(ctx context.Context, c *mwclient.Client) error {
	var out map[string]any
	_, err := c.Do(ctx, &mwallet.Request{Method: "GET", Path: "/v1/assets"}, &out)
	return err
}

// redisServer is a redis-server process of the test's own, which the test
// may stop.
type redisServer struct {
	cmd  *exec.Cmd
	addr string
}

// startRedis starts redis-server on a free loopback port and waits until it
// answers.
func startRedis(t *testing.T) *redisServer {
	t.Helper()
	bin, err := exec.LookPath("redis-server")
	if err != nil {
		needRedis(t, "redis-server is not installed")
	}
	l, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	port := l.Addr().(*net.TCPAddr).Port
	_ = l.Close()
	s := &redisServer{addr: "127.0.0.1:" + strconv.Itoa(port)}
	s.cmd = exec.Command(bin, "--port", strconv.Itoa(port), "--bind", "127.0.0.1", "--save", "", "--appendonly", "no")
	if err := s.cmd.Start(); err != nil {
		t.Fatalf("start redis-server: %v", err)
	}
	t.Cleanup(s.stop)
	rdb := redis.NewClient(redisOptions(&redis.Options{Addr: s.addr}))
	defer rdb.Close()
	deadline := time.Now().Add(10 * time.Second)
	tick := time.NewTicker(20 * time.Millisecond)
	defer tick.Stop()
	for {
		ctx, cancel := context.WithTimeout(context.Background(), time.Second)
		err := rdb.Ping(ctx).Err()
		cancel()
		if err == nil {
			return s
		}
		if time.Now().After(deadline) {
			t.Fatalf("redis-server on %s did not answer: %v", s.addr, err)
		}
		<-tick.C
	}
}

// stop kills the server and waits for it to exit.
func (s *redisServer) stop() {
	if s.cmd.ProcessState != nil {
		return
	}
	_ = s.cmd.Process.Kill()
	_ = s.cmd.Wait()
}

// quietLogger drops go-redis's own log lines (dial failures the outage
// tests cause on purpose); the tests check the errors instead.
type quietLogger struct{}

func (quietLogger) Printf(context.Context, string, ...any) {}

func TestMain(m *testing.M) {
	redis.SetLogger(quietLogger{})
	// The webhook crash test runs this binary again as its receiver, on a
	// Deduper at "<REDIS_URL> <prefix>".
	webhookcrash.MaybeReceive(func(config string) (webhooks.Deduper, error) {
		f := strings.Fields(config)
		if len(f) != 2 {
			return nil, fmt.Errorf("deduper configuration %q", config)
		}
		o, err := redis.ParseURL(f[0])
		if err != nil {
			return nil, err
		}
		return redisstore.New(redis.NewClient(redisOptions(o)), redisstore.Options{Prefix: f[1]}).Deduper(), nil
	})
	os.Exit(m.Run())
}
