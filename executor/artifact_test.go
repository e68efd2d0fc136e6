package executor_test

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"regexp"
	"strconv"
	"strings"
	"testing"
	"unicode/utf8"

	"github.com/agentsh/agentsh/core"
	"github.com/agentsh/agentsh/executor"
)

// stores returns a fresh MemoryStore and a FileStore in a temporary dir.
func stores(t *testing.T) map[string]core.ArtifactStore {
	fs, err := executor.NewFileStore(filepath.Join(t.TempDir(), "artifacts"))
	if err != nil {
		t.Fatal(err)
	}
	return map[string]core.ArtifactStore{"memory": executor.NewMemoryStore(), "file": fs}
}

// multibyte returns n bytes of text mixing 1-, 2-, 3- and 4-byte characters.
func multibyte(n int) string {
	var b strings.Builder
	for i := 0; b.Len() < n; i++ {
		fmt.Fprintf(&b, "line %d: héllo wörld 日本語 🙂 ", i)
	}
	s := b.String()
	for !utf8.ValidString(s[:n]) {
		n--
	}
	return s[:n]
}

func outputTool(name string, out string) core.Tool {
	return core.Tool{Name: name, Func: func(context.Context, json.RawMessage) (any, error) { return out, nil }}
}

var footerRE = regexp.MustCompile(`\n\[bytes (\d+)-(\d+) of (\d+); continue with offset (\d+)\]$`)

// readAll pages through an artifact with artifact_read and the given limit,
// following the footer, and checks every page on the way.
func readAll(t *testing.T, exec *executor.Executor, id string, limit int) string {
	t.Helper()
	var all strings.Builder
	offset := 0
	for pages := 0; ; pages++ {
		if pages > 100000 {
			t.Fatalf("limit %d: paging does not end (stuck at offset %d)", limit, offset)
		}
		args := fmt.Sprintf(`{"id":%q,"offset":%d,"limit":%d}`, id, offset, limit)
		res, err := exec.InvokeTool(context.Background(), executor.ArtifactReadTool, json.RawMessage(args))
		if err != nil {
			t.Fatalf("artifact_read %s: %v", args, err)
		}
		if res.Artifact != nil {
			t.Fatalf("artifact_read output was offloaded again")
		}
		page := res.ForLLM
		m := footerRE.FindStringSubmatch(page)
		if m == nil {
			if !utf8.ValidString(page) {
				t.Fatalf("last page at offset %d splits a character", offset)
			}
			all.WriteString(page)
			return all.String()
		}
		page = page[:len(page)-len(m[0])]
		from, _ := strconv.Atoi(m[1])
		to, _ := strconv.Atoi(m[2])
		next, _ := strconv.Atoi(m[4])
		if from != offset || to != offset+len(page) || next != to {
			t.Fatalf("footer %q for a %d-byte page at offset %d", m[0], len(page), offset)
		}
		if !utf8.ValidString(page) {
			t.Fatalf("page at offset %d (limit %d) splits a character: %q", offset, limit, page)
		}
		if len(page) > limit && utf8.RuneCountInString(page) != 1 {
			t.Fatalf("page of %d bytes for limit %d (only a single character may exceed the limit)", len(page), limit)
		}
		if next <= offset {
			t.Fatalf("limit %d: footer at offset %d says continue with offset %d: no progress", limit, offset, next)
		}
		all.WriteString(page)
		offset = next
	}
}

func TestArtifactOffload(t *testing.T) {
	for name, store := range stores(t) {
		t.Run(name, func(t *testing.T) {
			big := multibyte(5000)
			small := strings.Repeat("s", 100)
			exec := newExec(t, []core.Tool{outputTool("big", big), outputTool("edge", strings.Repeat("e", 100)), outputTool("small", small[:99])},
				executor.WithArtifactOffload(store, 100))

			res, err := exec.InvokeTool(context.Background(), "big", nil)
			if err != nil {
				t.Fatal(err)
			}
			if res.Artifact == nil {
				t.Fatalf("a %d-byte output above the threshold was not offloaded", len(big))
			}
			ref := *res.Artifact
			first := res.ForLLM
			if ref.Size != int64(len(big)) || !strings.HasPrefix(ref.ID, "art_") {
				t.Fatalf("ref %+v for %d bytes", ref, len(big))
			}
			if !strings.Contains(res.ForLLM, ref.ID) || !strings.Contains(res.ForLLM, strconv.Itoa(len(big))) {
				t.Fatalf("ForLLM does not give the id and the size:\n%s", res.ForLLM)
			}
			if len(res.ForLLM) >= len(big) {
				t.Fatalf("ForLLM (%d bytes) is not smaller than the output (%d)", len(res.ForLLM), len(big))
			}
			head, preview, ok := strings.Cut(res.ForLLM, "\n")
			if !ok || preview == "" || !strings.HasPrefix(big, preview) {
				t.Fatalf("ForLLM has no preview of the output:\n%s", res.ForLLM)
			}
			if !utf8.ValidString(preview) {
				t.Fatal("preview splits a character")
			}
			if !strings.Contains(head, `"offset": `+strconv.Itoa(len(preview))) {
				t.Fatalf("reference line %q does not say where to continue (offset %d)", head, len(preview))
			}

			// Page through it with several limits, including ones smaller
			// than some characters and ones that land mid-character.
			for _, limit := range []int{4, 7, 100, 1023, 8192} {
				if got := readAll(t, exec, ref.ID, limit); got != big {
					t.Fatalf("limit %d: reassembled %d bytes, want the %d-byte output", limit, len(got), len(big))
				}
			}
			// Default limit and offset.
			res, err = exec.InvokeTool(context.Background(), executor.ArtifactReadTool, json.RawMessage(`{"id":"`+ref.ID+`"}`))
			if err != nil || res.ForLLM != big {
				t.Fatalf("artifact_read with defaults: %v", err)
			}

			// Same content, same id.
			res2, _ := exec.InvokeTool(context.Background(), "big", nil)
			if res2.Artifact == nil || res2.Artifact.ID != ref.ID || res2.ForLLM != first {
				t.Fatalf("same output got a different reference: %+v vs %+v", res2.Artifact, ref)
			}
			again, err := store.Put(context.Background(), []byte(big))
			if err != nil || again != ref {
				t.Fatalf("Put of the same content: %+v, %v; want %+v", again, err, ref)
			}
			other, _ := store.Put(context.Background(), []byte(big+"!"))
			if other.ID == ref.ID {
				t.Fatal("different content got the same id")
			}

			// At or below the threshold: untouched.
			for _, n := range []string{"edge", "small"} {
				res, _ := exec.InvokeTool(context.Background(), n, nil)
				if res.Artifact != nil || strings.Contains(res.ForLLM, "artifact") {
					t.Fatalf("%s output of %d bytes (threshold 100) was offloaded", n, len(res.ForLLM))
				}
			}

			// Unknown ids.
			for _, id := range []string{"art_0000000000000000", "nope", "../x", "../../etc/passwd"} {
				res, err := exec.InvokeTool(context.Background(), executor.ArtifactReadTool, json.RawMessage(`{"id":"`+id+`"}`))
				if err == nil {
					t.Fatalf("artifact_read of unknown id %q succeeded: %q", id, res.ForLLM)
				}
				if !strings.Contains(err.Error(), id) {
					t.Fatalf("error %q does not name the id %q", err, id)
				}
			}
			// Past the end.
			_, err = exec.InvokeTool(context.Background(), executor.ArtifactReadTool,
				json.RawMessage(fmt.Sprintf(`{"id":%q,"offset":%d}`, ref.ID, len(big)+1)))
			if err == nil {
				t.Fatal("offset past the end accepted")
			}
		})
	}
}

// TestArtifactReadTinyLimit: a limit smaller than the character at the
// offset must still make progress (return that whole character, or fail),
// never return an empty page whose footer points at the same offset.
func TestArtifactReadTinyLimit(t *testing.T) {
	store := executor.NewMemoryStore()
	exec := newExec(t, nil, executor.WithArtifactOffload(store, 1))
	ref, err := store.Put(context.Background(), []byte("日本語🙂é"))
	if err != nil {
		t.Fatal(err)
	}
	for _, limit := range []int{1, 2, 3} {
		if got := readAll(t, exec, ref.ID, limit); got != "日本語🙂é" {
			t.Fatalf("limit %d: %q", limit, got)
		}
	}
}

func TestArtifactOffloadLeavesFailuresAlone(t *testing.T) {
	store := executor.NewMemoryStore()
	big := strings.Repeat("x", 500)
	exec := newExec(t, []core.Tool{outputTool("t", big)}, executor.WithArtifactOffload(store, 10))
	// A middleware (inside offload) turns the big output into a failure.
	must(t, exec.Use(core.Middleware{Name: "fail", Func: func(ctx context.Context, call *core.Call, next core.Handler) *core.Result {
		res := next(ctx, call)
		res.Err = &core.Error{Kind: core.KindFailed, Tool: call.Name, CallID: call.ID, Message: "post-check failed"}
		return res
	}}))
	res, _ := exec.InvokeTool(context.Background(), "t", nil)
	wantKind(t, res, core.KindFailed)
	if res.Artifact != nil || res.ForLLM != big {
		t.Fatalf("a failed result was offloaded (artifact %+v)", res.Artifact)
	}
}

type failingStore struct{ core.ArtifactStore }

func (failingStore) Put(context.Context, []byte) (core.ArtifactRef, error) {
	return core.ArtifactRef{}, errors.New("disk full")
}

func TestArtifactStoreFailureKeepsOutput(t *testing.T) {
	big := strings.Repeat("x", 500)
	exec := newExec(t, []core.Tool{outputTool("t", big)}, executor.WithArtifactOffload(failingStore{executor.NewMemoryStore()}, 10))
	res, err := exec.InvokeTool(context.Background(), "t", nil)
	if err != nil || res.ForLLM != big || res.Artifact != nil {
		t.Fatalf("a store failure lost the output: %v, %d bytes", err, len(res.ForLLM))
	}
}

func TestArtifactOffloadSeesFinalOutput(t *testing.T) {
	// Offload is outermost: it stores what the middleware produced.
	store := executor.NewMemoryStore()
	exec := newExec(t, []core.Tool{outputTool("t", "short")}, executor.WithArtifactOffload(store, 10))
	must(t, exec.Use(core.Middleware{Name: "grow", Func: func(ctx context.Context, call *core.Call, next core.Handler) *core.Result {
		res := next(ctx, call)
		res.ForLLM = strings.Repeat(res.ForLLM, 10)
		return res
	}}))
	var afterSaw *core.ArtifactRef
	must(t, exec.AddAfter(core.AfterHook{Name: "a", Func: func(_ context.Context, _ *core.Call, res *core.Result) error {
		afterSaw = res.Artifact
		return nil
	}}))
	res, _ := exec.InvokeTool(context.Background(), "t", nil)
	if res.Artifact == nil || res.Artifact.Size != 50 {
		t.Fatalf("artifact %+v, want the 50-byte final output", res.Artifact)
	}
	if afterSaw == nil {
		t.Fatal("after hooks did not see the artifact reference")
	}
	data, size, err := store.Read(context.Background(), res.Artifact.ID, 0, 100)
	if err != nil || size != 50 || string(data) != strings.Repeat("short", 10) {
		t.Fatalf("stored %q (%d), %v", data, size, err)
	}
}

func TestSetArtifactOffloadOff(t *testing.T) {
	store := executor.NewMemoryStore()
	big := strings.Repeat("x", 500)
	exec := newExec(t, []core.Tool{outputTool("t", big)}, executor.WithArtifactOffload(store, 10))
	if exec.Registry().GetTool(executor.ArtifactReadTool) == nil {
		t.Fatal("artifact_read not registered")
	}
	exec.SetArtifactOffload(nil, 0)
	res, _ := exec.InvokeTool(context.Background(), "t", nil)
	if res.Artifact != nil || res.ForLLM != big {
		t.Fatal("offload still on after turning it off")
	}
}

func TestStoresDirectly(t *testing.T) {
	for name, store := range stores(t) {
		t.Run(name, func(t *testing.T) {
			ctx := context.Background()
			data := []byte("0123456789")
			ref, err := store.Put(ctx, data)
			if err != nil {
				t.Fatal(err)
			}
			data[0] = 'X' // the store keeps its own copy
			for _, c := range []struct {
				off, lim int64
				want     string
			}{{0, 3, "012"}, {8, 5, "89"}, {10, 5, ""}, {20, 5, ""}, {0, 100, "0123456789"}} {
				got, size, err := store.Read(ctx, ref.ID, c.off, c.lim)
				if err != nil || size != 10 || string(got) != c.want {
					t.Fatalf("Read(%d, %d) = %q, %d, %v; want %q", c.off, c.lim, got, size, err, c.want)
				}
			}
			if _, _, err := store.Read(ctx, "art_ffffffffffffffff", 0, 1); err == nil || !strings.Contains(err.Error(), "art_ffffffffffffffff") {
				t.Fatalf("unknown id: %v", err)
			}
			if _, _, err := store.Read(ctx, "../x", 0, 1); err == nil {
				t.Fatal(`id "../x" accepted`)
			}
		})
	}
}

func TestFileStoreRefusesPathsAndPersists(t *testing.T) {
	dir := t.TempDir()
	store, err := executor.NewFileStore(filepath.Join(dir, "a"))
	if err != nil {
		t.Fatal(err)
	}
	// A file outside the store that an id might try to reach.
	if err := os.WriteFile(filepath.Join(dir, "x"), []byte("outside"), 0o600); err != nil {
		t.Fatal(err)
	}
	for _, id := range []string{"../x", "..", "", "/etc/passwd", "art_../../x", filepath.Join(dir, "x")} {
		if data, _, err := store.Read(context.Background(), id, 0, 100); err == nil {
			t.Fatalf("id %q read %q", id, data)
		}
	}
	ref, err := store.Put(context.Background(), []byte("persisted"))
	if err != nil {
		t.Fatal(err)
	}
	// A second store on the same directory (another process) sees it.
	store2, err := executor.NewFileStore(filepath.Join(dir, "a"))
	if err != nil {
		t.Fatal(err)
	}
	data, size, err := store2.Read(context.Background(), ref.ID, 0, 100)
	if err != nil || string(data) != "persisted" || size != 9 {
		t.Fatalf("%q %d %v", data, size, err)
	}
	entries, _ := os.ReadDir(filepath.Join(dir, "a"))
	if len(entries) != 1 || entries[0].Name() != ref.ID {
		t.Fatalf("store directory holds %v, want only %s (no temp files)", entries, ref.ID)
	}
}
