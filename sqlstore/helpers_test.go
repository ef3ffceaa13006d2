package sqlstore_test

import (
	"context"
	"crypto/rand"
	"database/sql"
	"encoding/hex"
	"errors"
	"fmt"
	"net"
	"os"
	"os/exec"
	"os/user"
	"path/filepath"
	"sort"
	"strconv"
	"strings"
	"sync"
	"syscall"
	"testing"
	"time"

	_ "github.com/jackc/pgx/v5/stdlib" // driver "pgx"
	_ "modernc.org/sqlite"             // driver "sqlite"

	"github.com/mwallet/mwallet-go/internal/webhookcrash"
	"github.com/mwallet/mwallet-go/sqlstore"
)

// postgresInstall is what to run when PostgreSQL is missing.
const postgresInstall = "apt-get install postgresql"

// pg is the PostgreSQL server of this test binary: a private one started by
// TestMain on a free loopback port in a temporary directory, or the one of
// SQLSTORE_POSTGRES_URL.
var pg struct {
	dsn  string
	skip string // why the PostgreSQL tests cannot run
}

func TestMain(m *testing.M) {
	// The webhook crash test runs this binary again as its receiver.
	webhookcrash.MaybeReceive(openCrashDeduper)
	stop := startPostgres()
	code := m.Run()
	stop()
	os.Exit(code)
}

// startPostgres starts the private server, or records why it cannot.
func startPostgres() (stop func()) {
	if u := os.Getenv("SQLSTORE_POSTGRES_URL"); u != "" {
		pg.dsn = u
		return func() {}
	}
	bins, _ := filepath.Glob("/usr/lib/postgresql/*/bin/initdb")
	if len(bins) == 0 {
		if p, err := exec.LookPath("initdb"); err == nil {
			bins = []string{p}
		}
	}
	if len(bins) == 0 {
		pg.skip = "PostgreSQL is not installed (" + postgresInstall + "; or set SQLSTORE_POSTGRES_URL)"
		return func() {}
	}
	sort.Slice(bins, func(i, j int) bool { return pgVersion(bins[i]) < pgVersion(bins[j]) })
	bin := filepath.Dir(bins[len(bins)-1])
	srv, err := startPostgresIn(bin)
	if err != nil {
		pg.skip = "PostgreSQL did not start: " + err.Error()
		return func() {}
	}
	pg.dsn = srv.dsn
	return srv.stop
}

func pgVersion(initdb string) int {
	v, _ := strconv.Atoi(filepath.Base(filepath.Dir(filepath.Dir(initdb))))
	return v
}

type postgresServer struct {
	cmd *exec.Cmd
	dir string
	dsn string
}

// startPostgresIn runs initdb and postgres from bin in a new temporary
// directory, listening on a free loopback port, trust authentication for
// the user mwallet, durability off (a test server). As root, both run as
// the postgres user (initdb refuses root).
func startPostgresIn(bin string) (*postgresServer, error) {
	dir, err := os.MkdirTemp("", "sqlstore-pg-")
	if err != nil {
		return nil, err
	}
	srv := &postgresServer{dir: dir}
	fail := func(err error) (*postgresServer, error) {
		_ = os.RemoveAll(dir)
		return nil, err
	}
	var cred *syscall.Credential
	if os.Geteuid() == 0 {
		u, err := user.Lookup("postgres")
		if err != nil {
			return fail(fmt.Errorf("running as root and there is no postgres user to run the server as: %w", err))
		}
		uid, _ := strconv.Atoi(u.Uid)
		gid, _ := strconv.Atoi(u.Gid)
		cred = &syscall.Credential{Uid: uint32(uid), Gid: uint32(gid)}
		if err := os.Chmod(dir, 0o700); err != nil {
			return fail(err)
		}
		if err := os.Chown(dir, uid, gid); err != nil {
			return fail(err)
		}
	}
	data := filepath.Join(dir, "data")
	run := func(name string, args ...string) *exec.Cmd {
		c := exec.Command(filepath.Join(bin, name), args...)
		c.Dir = dir
		c.Env = append(os.Environ(), "LC_ALL=C", "LANG=C")
		c.SysProcAttr = &syscall.SysProcAttr{Credential: cred, Setpgid: true}
		return c
	}
	if out, err := run("initdb", "-D", data, "-U", "mwallet", "-A", "trust", "-E", "UTF8", "--no-sync").CombinedOutput(); err != nil {
		return fail(fmt.Errorf("initdb: %w: %s", err, out))
	}
	l, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		return fail(err)
	}
	port := l.Addr().(*net.TCPAddr).Port
	_ = l.Close()
	log, err := os.Create(filepath.Join(os.TempDir(), filepath.Base(dir)+".log"))
	if err != nil {
		return fail(err)
	}
	srv.cmd = run("postgres", "-D", data, "-k", dir, "-p", strconv.Itoa(port), "-h", "127.0.0.1",
		"-c", "fsync=off", "-c", "synchronous_commit=off", "-c", "full_page_writes=off", "-c", "max_connections=200")
	srv.cmd.Stdout, srv.cmd.Stderr = log, log
	if err := srv.cmd.Start(); err != nil {
		log.Close()
		return fail(err)
	}
	srv.dsn = fmt.Sprintf("postgres://mwallet@127.0.0.1:%d/postgres?sslmode=disable", port)
	db, err := sql.Open("pgx", srv.dsn)
	if err != nil {
		srv.stop()
		return nil, err
	}
	defer db.Close()
	deadline := time.Now().Add(30 * time.Second)
	for {
		ctx, cancel := context.WithTimeout(context.Background(), time.Second)
		err := db.PingContext(ctx)
		cancel()
		if err == nil {
			_ = os.Remove(log.Name())
			log.Close()
			return srv, nil
		}
		if time.Now().After(deadline) {
			srv.stop()
			b, _ := os.ReadFile(log.Name())
			return nil, fmt.Errorf("postgres on port %d does not answer: %w; log:\n%s", port, err, b)
		}
		time.Sleep(50 * time.Millisecond)
	}
}

// stop asks the server for a fast shutdown, kills it after 10 s, and
// removes its directory.
func (s *postgresServer) stop() {
	if s.cmd != nil && s.cmd.Process != nil {
		_ = s.cmd.Process.Signal(syscall.SIGINT)
		done := make(chan struct{})
		go func() { _ = s.cmd.Wait(); close(done) }()
		select {
		case <-done:
		case <-time.After(10 * time.Second):
			_ = syscall.Kill(-s.cmd.Process.Pid, syscall.SIGKILL)
			<-done
		}
	}
	_ = os.RemoveAll(s.dir)
}

// needPostgres skips the test outside CI when PostgreSQL is not available,
// and fails it in CI, where .ci/sqlstore installs it.
func needPostgres(t *testing.T) {
	t.Helper()
	if pg.skip == "" {
		return
	}
	if os.Getenv("CI") == "true" {
		t.Fatalf("%s; in CI .ci/sqlstore installs postgresql", pg.skip)
	}
	t.Skip(pg.skip)
}

// dialect is one database the tests run on.
type dialect struct {
	name string
	open func(t *testing.T) (*sql.DB, sqlstore.Dialect)
}

var dialects = []dialect{
	{"sqlite", openSQLite},
	{"postgres", openPostgres},
}

// sqliteDSN is a file database with a busy timeout and WAL, as the package
// documentation recommends.
func sqliteDSN(path string) string {
	return "file:" + path + "?_pragma=busy_timeout(10000)&_pragma=journal_mode(WAL)"
}

// lastSQLitePath is the file of the last SQLite database a goroutine
// opened; newStore files it under the store in sqlitePaths.
var lastSQLitePath, sqlitePaths sync.Map

func openSQLite(t *testing.T) (*sql.DB, sqlstore.Dialect) {
	t.Helper()
	path := filepath.Join(t.TempDir(), "store.db")
	db, err := sql.Open("sqlite", sqliteDSN(path))
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { _ = db.Close() })
	lastSQLitePath.Store(t.Name(), path)
	return db, sqlstore.SQLite
}

func openPostgres(t *testing.T) (*sql.DB, sqlstore.Dialect) {
	t.Helper()
	needPostgres(t)
	db, err := sql.Open("pgx", pg.dsn)
	if err != nil {
		t.Fatal(err)
	}
	db.SetMaxOpenConns(8)
	t.Cleanup(func() { _ = db.Close() })
	return db, sqlstore.Postgres
}

// newStore opens the dialect's database and a store with tables of the
// test's own (a random prefix), dropped when the test ends.
func newStore(t *testing.T, d dialect, o sqlstore.Options) (*sqlstore.Store, *sql.DB) {
	t.Helper()
	db, dia := d.open(t)
	o.Dialect = dia
	o.Prefix = testPrefix()
	s, err := sqlstore.New(db, o)
	if err != nil {
		t.Fatal(err)
	}
	if p, ok := lastSQLitePath.Load(t.Name()); ok && dia == sqlstore.SQLite {
		sqlitePaths.Store(s, p)
	}
	ctx := context.Background()
	if err := s.CreateTables(ctx); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() {
		for _, tbl := range []string{"pending", "webhook_events", "tokens", "token_locks"} {
			_, _ = db.ExecContext(context.Background(), "DROP TABLE IF EXISTS "+o.Prefix+tbl)
		}
	})
	return s, db
}

func testPrefix() string {
	var b [4]byte
	_, _ = rand.Read(b[:])
	return "t" + hex.EncodeToString(b[:]) + "_"
}

// each runs f as a parallel subtest per dialect.
func each(t *testing.T, f func(t *testing.T, d dialect)) {
	t.Helper()
	for _, d := range dialects {
		t.Run(d.name, func(t *testing.T) {
			t.Parallel()
			f(t, d)
		})
	}
}

var errNoDSN = errors.New("no database")

// openCrashDeduper opens the Deduper the crash test's receiver uses, from
// the configuration the test passed: "sqlite <path>" or "postgres <dsn>
// <prefix>" (the prefix for both).
func openCrashDeduper(config string) (webhookcrash.Deduper, error) {
	f := strings.Fields(config)
	if len(f) != 3 {
		return nil, errNoDSN
	}
	driver, dsn, dia := "sqlite", sqliteDSN(f[1]), sqlstore.SQLite
	if f[0] == "postgres" {
		driver, dsn, dia = "pgx", f[1], sqlstore.Postgres
	}
	db, err := sql.Open(driver, dsn)
	if err != nil {
		return nil, err
	}
	s, err := sqlstore.New(db, sqlstore.Options{Dialect: dia, Prefix: f[2]})
	if err != nil {
		return nil, err
	}
	return s.Deduper(), nil
}
