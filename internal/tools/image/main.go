// Command image builds the mwallet-sim container image without a Docker
// daemon, from the Linux binaries of a release (the very files of
// SHA256SUMS), and inspects it. It is a module of its own so that its
// dependency, github.com/google/go-containerregistry (the library of crane
// and ko), stays out of the SDK's module. From the repository root:
//
//	go -C internal/tools/image run . build -dist ../../../dist -version v0.1.0 -out ../../../dist/mwallet-sim-image
//	go -C internal/tools/image run . inspect -image ../../../dist/mwallet-sim-image -sums ../../../dist/SHA256SUMS
//
// (go run ./internal/tools/release snapshot runs both.) build writes an
// OCI image layout (a directory, pushed with `crane push --index DIR REF`)
// and the same layout as one tar file, DIR.tar (`podman load -i`; Docker
// loads an OCI layout with its containerd image store). The image is an index of
// linux/amd64 and linux/arm64, each one layer on an empty base:
//
//	/mwallet-sim   the release binary, mode 0755
//	/tmp           mode 1777, for the -tls self-signed certificate
//	/data          owned by 65532:65532, for -data
//
// run as user 65532:65532 with the entrypoint
// ["/mwallet-sim", "serve", "-addr", "0.0.0.0:8080"], port 8080/tcp.
// Everything is dated at -created (the commit's time), so the same
// binaries give the same image digest.
//
// inspect reads the layout back, validates every digest, size and diff ID
// (go-containerregistry's validate), prints each platform's configuration
// and files, and checks them: the platforms, the entrypoint, the user, the
// port, the modes and owners, and that each binary is the release file
// mwallet-sim-linux-ARCH of SHA256SUMS byte for byte. With -run it also
// runs this machine's binary from the image (mwallet-sim help).
package main

import (
	"archive/tar"
	"bufio"
	"bytes"
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"errors"
	"flag"
	"fmt"
	"io"
	"io/fs"
	"os"
	"os/exec"
	"path/filepath"
	"runtime"
	"slices"
	"sort"
	"strings"
	"time"

	v1 "github.com/google/go-containerregistry/pkg/v1"
	"github.com/google/go-containerregistry/pkg/v1/empty"
	"github.com/google/go-containerregistry/pkg/v1/layout"
	"github.com/google/go-containerregistry/pkg/v1/mutate"
	"github.com/google/go-containerregistry/pkg/v1/tarball"
	"github.com/google/go-containerregistry/pkg/v1/types"
	"github.com/google/go-containerregistry/pkg/v1/validate"
)

// What the image is: one place, read by build and checked by inspect.
var (
	architectures = []string{"amd64", "arm64"}
	entrypoint    = []string{"/mwallet-sim", "serve", "-addr", "0.0.0.0:8080"}
)

const (
	binaryPath = "mwallet-sim"
	user       = "65532:65532"
	uid        = 65532
	port       = "8080/tcp"
	source     = "https://github.com/mwallet/mwallet-go"
)

func main() {
	if len(os.Args) < 2 {
		fmt.Fprintln(os.Stderr, "usage: image build|inspect [flags]")
		os.Exit(2)
	}
	var err error
	switch os.Args[1] {
	case "build":
		err = buildCmd(os.Args[2:])
	case "inspect":
		err = inspectCmd(os.Args[2:], os.Stdout)
	default:
		fmt.Fprintf(os.Stderr, "image: unknown command %q: build or inspect\n", os.Args[1])
		os.Exit(2)
	}
	if err != nil {
		fmt.Fprintln(os.Stderr, "image:", err)
		os.Exit(1)
	}
}

func buildCmd(args []string) error {
	fs := flag.NewFlagSet("build", flag.ExitOnError)
	dist := fs.String("dist", "dist", "the release files: DIST/mwallet-sim-linux-amd64 and DIST/mwallet-sim-linux-arm64")
	version := fs.String("version", "", "the release's version (label org.opencontainers.image.version, the layout's ref name)")
	revision := fs.String("revision", "", "the release's commit (label org.opencontainers.image.revision)")
	created := fs.String("created", "", "the time the image is dated, RFC 3339 (default: the Unix epoch)")
	out := fs.String("out", "", "the OCI image layout directory to write (replaced); DIR.tar is written beside it")
	_ = fs.Parse(args)
	if *out == "" || *version == "" {
		return errors.New("build needs -out and -version")
	}
	when := time.Unix(0, 0).UTC()
	if *created != "" {
		t, err := time.Parse(time.RFC3339, *created)
		if err != nil {
			return fmt.Errorf("-created: %w", err)
		}
		when = t.UTC()
	}
	bins := map[string]string{}
	for _, arch := range architectures {
		bins[arch] = filepath.Join(*dist, "mwallet-sim-linux-"+arch)
	}
	idx, err := build(bins, *version, *revision, when)
	if err != nil {
		return err
	}
	if err := os.RemoveAll(*out); err != nil {
		return err
	}
	p, err := layout.Write(*out, empty.Index)
	if err != nil {
		return err
	}
	if err := p.AppendIndex(idx, layout.WithAnnotations(map[string]string{"org.opencontainers.image.ref.name": *version})); err != nil {
		return err
	}
	if err := tarDir(*out, *out+".tar", when); err != nil {
		return err
	}
	d, err := idx.Digest()
	if err != nil {
		return err
	}
	fmt.Printf("image %s: OCI layout %s and %s.tar, index %s\n", *version, *out, *out, d)
	return nil
}

// build makes the image index from the Linux binary of each architecture.
func build(bins map[string]string, version, revision string, created time.Time) (v1.ImageIndex, error) {
	var adds []mutate.IndexAddendum
	for _, arch := range architectures {
		bin, err := os.ReadFile(bins[arch])
		if err != nil {
			return nil, err
		}
		img, err := platformImage(arch, bin, version, revision, created)
		if err != nil {
			return nil, fmt.Errorf("linux/%s: %w", arch, err)
		}
		adds = append(adds, mutate.IndexAddendum{Add: img, Descriptor: v1.Descriptor{
			Platform: &v1.Platform{OS: "linux", Architecture: arch},
		}})
	}
	return mutate.AppendManifests(mutate.IndexMediaType(empty.Index, types.OCIImageIndex), adds...), nil
}

func platformImage(arch string, bin []byte, version, revision string, created time.Time) (v1.Image, error) {
	layerTar, err := rootfs(bin, created)
	if err != nil {
		return nil, err
	}
	layer, err := tarball.LayerFromOpener(func() (io.ReadCloser, error) {
		return io.NopCloser(bytes.NewReader(layerTar)), nil
	}, tarball.WithMediaType(types.OCILayer))
	if err != nil {
		return nil, err
	}
	labels := map[string]string{
		"org.opencontainers.image.title":       "mwallet-sim",
		"org.opencontainers.image.description": "The contract simulator of the Merchant Wallet, Card, Remittance and QR-Payment service",
		"org.opencontainers.image.source":      source,
		"org.opencontainers.image.licenses":    "Apache-2.0",
		"org.opencontainers.image.version":     version,
	}
	if revision != "" {
		labels["org.opencontainers.image.revision"] = revision
	}
	cfg := &v1.ConfigFile{
		Architecture: arch,
		OS:           "linux",
		Created:      v1.Time{Time: created},
		Config: v1.Config{
			Entrypoint:   entrypoint,
			User:         user,
			WorkingDir:   "/",
			ExposedPorts: map[string]struct{}{port: {}},
			Labels:       labels,
		},
		RootFS: v1.RootFS{Type: "layers"},
	}
	img, err := mutate.ConfigFile(mutate.MediaType(empty.Image, types.OCIManifestSchema1), cfg)
	if err != nil {
		return nil, err
	}
	img = mutate.ConfigMediaType(img, types.OCIConfigJSON)
	return mutate.Append(img, mutate.Addendum{
		Layer:     layer,
		MediaType: types.OCILayer,
		History:   v1.History{Created: v1.Time{Time: created}, CreatedBy: "mwallet-sim " + version + ": the release binary, /tmp and /data"},
	})
}

// rootfs is the image's one layer, in a fixed order with fixed times.
func rootfs(bin []byte, created time.Time) ([]byte, error) {
	var buf bytes.Buffer
	tw := tar.NewWriter(&buf)
	entries := []*tar.Header{
		{Name: "data/", Typeflag: tar.TypeDir, Mode: 0o755, Uid: uid, Gid: uid},
		{Name: binaryPath, Typeflag: tar.TypeReg, Mode: 0o755, Size: int64(len(bin))},
		{Name: "tmp/", Typeflag: tar.TypeDir, Mode: 0o1777},
	}
	for _, h := range entries {
		h.ModTime, h.Format = created, tar.FormatPAX
		if err := tw.WriteHeader(h); err != nil {
			return nil, err
		}
		if h.Typeflag == tar.TypeReg {
			if _, err := tw.Write(bin); err != nil {
				return nil, err
			}
		}
	}
	err := tw.Close()
	return buf.Bytes(), err
}

// tarDir writes the files of dir into one tar file, paths relative to dir.
func tarDir(dir, out string, modTime time.Time) error {
	f, err := os.Create(out)
	if err != nil {
		return err
	}
	tw := tar.NewWriter(f)
	err = filepath.WalkDir(dir, func(path string, d fs.DirEntry, err error) error {
		if err != nil || path == dir {
			return err
		}
		rel, err := filepath.Rel(dir, path)
		if err != nil {
			return err
		}
		h := &tar.Header{Name: filepath.ToSlash(rel), ModTime: modTime, Mode: 0o644, Typeflag: tar.TypeReg}
		if d.IsDir() {
			h.Name, h.Mode, h.Typeflag = h.Name+"/", 0o755, tar.TypeDir
			return tw.WriteHeader(h)
		}
		b, err := os.ReadFile(path)
		if err != nil {
			return err
		}
		h.Size = int64(len(b))
		if err := tw.WriteHeader(h); err != nil {
			return err
		}
		_, err = tw.Write(b)
		return err
	})
	if cerr := tw.Close(); err == nil {
		err = cerr
	}
	if cerr := f.Close(); err == nil {
		err = cerr
	}
	return err
}

func inspectCmd(args []string, w io.Writer) error {
	fs := flag.NewFlagSet("inspect", flag.ExitOnError)
	dir := fs.String("image", "", "the OCI image layout directory")
	sums := fs.String("sums", "", "SHA256SUMS of the release files")
	run := fs.Bool("run", false, "also run this machine's binary from the image: mwallet-sim help")
	_ = fs.Parse(args)
	if *dir == "" || *sums == "" {
		return errors.New("inspect needs -image and -sums")
	}
	want, err := readSums(*sums)
	if err != nil {
		return err
	}
	rep, err := inspect(*dir, want)
	if err != nil {
		return err
	}
	fmt.Fprint(w, rep.text)
	if len(rep.problems) > 0 {
		return fmt.Errorf("the image is not as released:\n  %s", strings.Join(rep.problems, "\n  "))
	}
	if *run {
		bin, ok := rep.binaries[runtime.GOARCH]
		if !ok || runtime.GOOS != "linux" {
			return fmt.Errorf("-run: no binary for %s/%s in the image", runtime.GOOS, runtime.GOARCH)
		}
		tmp, err := os.MkdirTemp("", "image-run")
		if err != nil {
			return err
		}
		defer os.RemoveAll(tmp)
		exe := filepath.Join(tmp, binaryPath)
		if err := os.WriteFile(exe, bin, 0o755); err != nil {
			return err
		}
		out, err := exec.Command(exe, "help").CombinedOutput()
		if err != nil {
			return fmt.Errorf("the image's linux/%s binary: mwallet-sim help: %v\n%s", runtime.GOARCH, err, out)
		}
		first, _, _ := strings.Cut(string(out), "\n")
		fmt.Fprintf(w, "ran the image's linux/%s /%s help: %q ...\n", runtime.GOARCH, binaryPath, first)
	}
	fmt.Fprintln(w, "image: ok")
	return nil
}

// readSums reads a SHA256SUMS file: "HEX  NAME" lines.
func readSums(path string) (map[string]string, error) {
	f, err := os.Open(path)
	if err != nil {
		return nil, err
	}
	defer f.Close()
	out := map[string]string{}
	sc := bufio.NewScanner(f)
	for sc.Scan() {
		if sum, name, ok := strings.Cut(sc.Text(), "  "); ok {
			out[strings.TrimPrefix(name, "*")] = sum
		}
	}
	return out, sc.Err()
}

type report struct {
	text     string
	problems []string
	binaries map[string][]byte // by architecture
}

// inspect reads the layout, validates it and checks it against the
// release's checksums.
func inspect(dir string, sums map[string]string) (report, error) {
	rep := report{binaries: map[string][]byte{}}
	var b strings.Builder
	problem := func(format string, a ...any) { rep.problems = append(rep.problems, fmt.Sprintf(format, a...)) }
	outer, err := layout.ImageIndexFromPath(dir)
	if err != nil {
		return rep, err
	}
	om, err := outer.IndexManifest()
	if err != nil {
		return rep, err
	}
	if len(om.Manifests) != 1 {
		return rep, fmt.Errorf("the layout holds %d entries, want the one image index", len(om.Manifests))
	}
	idx, err := outer.ImageIndex(om.Manifests[0].Digest)
	if err != nil {
		return rep, err
	}
	if err := validate.Index(idx); err != nil {
		return rep, fmt.Errorf("validate: %w", err)
	}
	im, err := idx.IndexManifest()
	if err != nil {
		return rep, err
	}
	fmt.Fprintf(&b, "image index %s (%s), ref %q, validated: every blob's digest and size, every layer's diff ID\n",
		om.Manifests[0].Digest, im.MediaType, om.Manifests[0].Annotations["org.opencontainers.image.ref.name"])
	var platforms []string
	for _, desc := range im.Manifests {
		if desc.Platform == nil {
			problem("manifest %s has no platform", desc.Digest)
			continue
		}
		plat := desc.Platform.OS + "/" + desc.Platform.Architecture
		platforms = append(platforms, plat)
		img, err := idx.Image(desc.Digest)
		if err != nil {
			return rep, err
		}
		cfg, err := img.ConfigFile()
		if err != nil {
			return rep, err
		}
		ep, _ := json.Marshal(cfg.Config.Entrypoint)
		var ports []string
		for p := range cfg.Config.ExposedPorts {
			ports = append(ports, p)
		}
		sort.Strings(ports)
		fmt.Fprintf(&b, "%s  manifest %s\n  entrypoint %s  cmd %q  user %s  ports %s  created %s  version %s\n",
			plat, desc.Digest, ep, cfg.Config.Cmd, cfg.Config.User, strings.Join(ports, ","), cfg.Created.UTC().Format(time.RFC3339), cfg.Config.Labels["org.opencontainers.image.version"])
		if cfg.OS+"/"+cfg.Architecture != plat {
			problem("%s: the configuration says %s/%s", plat, cfg.OS, cfg.Architecture)
		}
		if !slices.Equal(cfg.Config.Entrypoint, entrypoint) || len(cfg.Config.Cmd) != 0 {
			problem("%s: entrypoint %s cmd %q, want %q and no cmd", plat, ep, cfg.Config.Cmd, entrypoint)
		}
		if cfg.Config.User != user {
			problem("%s: user %q, want %q", plat, cfg.Config.User, user)
		}
		if !slices.Equal(ports, []string{port}) {
			problem("%s: ports %v, want %s", plat, ports, port)
		}
		layers, err := img.Layers()
		if err != nil {
			return rep, err
		}
		files := map[string]*tar.Header{}
		for _, l := range layers {
			rc, err := l.Uncompressed()
			if err != nil {
				return rep, err
			}
			tr := tar.NewReader(rc)
			for {
				h, err := tr.Next()
				if err == io.EOF {
					break
				}
				if err != nil {
					rc.Close()
					return rep, err
				}
				files[strings.TrimPrefix(h.Name, "./")] = h
				line := fmt.Sprintf("  /%-12s %s %5d:%-5d", strings.TrimSuffix(h.Name, "/"), fs.FileMode(h.Mode).Perm()|modeBits(h), h.Uid, h.Gid)
				if h.Typeflag == tar.TypeReg {
					data, err := io.ReadAll(tr)
					if err != nil {
						rc.Close()
						return rep, err
					}
					sum := sha256.Sum256(data)
					line += fmt.Sprintf(" %9d bytes  sha256 %s", len(data), hex.EncodeToString(sum[:]))
					if h.Name == binaryPath {
						rep.binaries[desc.Platform.Architecture] = data
						name := "mwallet-sim-" + desc.Platform.OS + "-" + desc.Platform.Architecture
						switch s := sums[name]; {
						case s == "":
							problem("%s: SHA256SUMS has no %s", plat, name)
						case s != hex.EncodeToString(sum[:]):
							problem("%s: /%s is not the release file %s (sha256 %s, SHA256SUMS says %s)", plat, binaryPath, name, hex.EncodeToString(sum[:]), s)
						default:
							line += "  = " + name + " of SHA256SUMS"
						}
					}
				}
				fmt.Fprintln(&b, line)
			}
			rc.Close()
		}
		for name, check := range map[string]func(*tar.Header) bool{
			binaryPath: func(h *tar.Header) bool { return h.Typeflag == tar.TypeReg && h.Mode&0o7777 == 0o755 && h.Uid == 0 },
			"tmp/":     func(h *tar.Header) bool { return h.Typeflag == tar.TypeDir && h.Mode&0o7777 == 0o1777 },
			"data/":    func(h *tar.Header) bool { return h.Typeflag == tar.TypeDir && h.Uid == uid && h.Gid == uid },
		} {
			if h, ok := files[name]; !ok || !check(h) {
				problem("%s: /%s missing or with the wrong type, mode or owner", plat, name)
			}
		}
	}
	if want := []string{"linux/amd64", "linux/arm64"}; !slices.Equal(platforms, want) {
		problem("platforms %v, want %v", platforms, want)
	}
	rep.text = b.String()
	return rep, nil
}

// modeBits renders the sticky bit and the type as ls does.
func modeBits(h *tar.Header) fs.FileMode {
	var m fs.FileMode
	if h.Typeflag == tar.TypeDir {
		m |= fs.ModeDir
	}
	if h.Mode&0o1000 != 0 {
		m |= fs.ModeSticky
	}
	return m
}
