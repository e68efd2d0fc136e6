package executor

import (
	"context"
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"regexp"
	"sync"
	"unicode/utf8"

	"github.com/agentsh/agentsh/core"
)

// ArtifactReadTool is the name of the tool that pages through artifacts.
const ArtifactReadTool = "artifact_read"

// previewBytes bounds the preview kept in the model-facing text.
const previewBytes = 1024

// defaultReadLimit is artifact_read's page size when none is given.
const defaultReadLimit = 8192

// SetArtifactOffload turns offload on (store non-nil, threshold > 0) or off.
// On, it registers the artifact_read tool for store (replacing its own from
// an earlier call); off, it removes it. A tool named artifact_read that the
// executor did not register is an error: it is not replaced.
func (e *Executor) SetArtifactOffload(store core.ArtifactStore, threshold int) error {
	e.offloadMu.Lock()
	defer e.offloadMu.Unlock()
	on := store != nil && threshold > 0
	if cur := e.reg.GetTool(ArtifactReadTool); on && cur != nil && cur != e.artifactTool {
		return fmt.Errorf("artifact offload: a tool named %s is already registered; unregister it to let offload register its own", ArtifactReadTool)
	}
	var o *offloader
	if on {
		o = &offloader{store: store, threshold: threshold}
		if err := e.reg.ReplaceTools(ArtifactRead(store)); err != nil {
			return err
		}
		e.artifactTool = e.reg.GetTool(ArtifactReadTool)
	} else if e.artifactTool != nil {
		if e.reg.GetTool(ArtifactReadTool) == e.artifactTool {
			_ = e.reg.UnregisterTools(ArtifactReadTool)
		}
		e.artifactTool = nil
	}
	e.update(func(p *pipeline) { p.offload = o })
	return nil
}

type offloader struct {
	store     core.ArtifactStore
	threshold int
}

func (o *offloader) wrap(next core.Handler) core.Handler {
	return func(ctx context.Context, call *core.Call) *core.Result {
		res := next(ctx, call)
		if !res.OK() || len(res.ForLLM) <= o.threshold || res.Artifact != nil || call.Name == ArtifactReadTool {
			return res
		}
		data := []byte(res.ForLLM)
		ref, err := o.store.Put(ctx, data)
		if err != nil {
			// Keeping the full output is better than losing it.
			return res
		}
		res.Artifact = &ref
		preview := cutUTF8(data, previewBytes)
		res.ForLLM = fmt.Sprintf("[output stored as artifact %s: %d bytes; the first %d bytes follow. Read more with %s {\"id\": %q, \"offset\": %d}]\n%s",
			ref.ID, ref.Size, len(preview), ArtifactReadTool, ref.ID, len(preview), preview)
		return res
	}
}

// cutUTF8 returns at most n bytes of b, not splitting a character.
func cutUTF8(b []byte, n int) []byte {
	if len(b) <= n {
		return b
	}
	for n > 0 && !utf8.RuneStart(b[n]) {
		n--
	}
	return b[:n]
}

// ArtifactRead returns the artifact_read tool for store: {id, offset?,
// limit?} with byte offsets; pages end on character boundaries and say
// where to continue.
func ArtifactRead(store core.ArtifactStore) core.Tool {
	return core.Tool{
		Name:        ArtifactReadTool,
		Description: "Reads part of a stored tool output (an artifact) by byte offset.",
		Parameters: json.RawMessage(`{"type":"object","properties":{` +
			`"id":{"type":"string","description":"artifact id, as given in the offloaded output"},` +
			`"offset":{"type":"integer","minimum":0,"description":"byte offset to start at (default 0)"},` +
			`"limit":{"type":"integer","minimum":1,"maximum":1048576,"description":"bytes to read (default 8192)"}},` +
			`"required":["id"],"additionalProperties":false}`),
		ConcurrencySafe: core.Bool(true),
		Idempotent:      true,
		ReadOnly:        true,
		Func: func(ctx context.Context, raw json.RawMessage) (any, error) {
			var a struct {
				ID     string `json:"id"`
				Offset *int64 `json:"offset"`
				Limit  *int64 `json:"limit"`
			}
			if err := json.Unmarshal(raw, &a); err != nil {
				return nil, fmt.Errorf("artifact_read: %v", err)
			}
			if a.ID == "" {
				return nil, fmt.Errorf("artifact_read: id is required")
			}
			offset, limit := int64(0), int64(defaultReadLimit)
			if a.Offset != nil {
				offset = *a.Offset
			}
			if a.Limit != nil {
				limit = *a.Limit
			}
			if offset < 0 || limit <= 0 {
				return nil, fmt.Errorf("artifact_read: got offset %d and limit %d, want offset >= 0 and limit > 0", offset, limit)
			}
			// Read a few bytes more on each side so a page starts and ends
			// on character boundaries.
			start := max(offset-utf8.UTFMax+1, 0)
			data, size, err := store.Read(ctx, a.ID, start, offset-start+limit+utf8.UTFMax)
			if err != nil {
				return nil, err
			}
			if offset > size {
				return nil, fmt.Errorf("artifact_read: offset %d is past the end of artifact %s (%d bytes)", offset, a.ID, size)
			}
			skip := int(offset - start)
			for skip < len(data) && !utf8.RuneStart(data[skip]) {
				skip++ // an offset inside a character moves to the next one
			}
			offset = start + int64(skip)
			data = data[skip:]
			page := cutUTF8(data, int(limit))
			if len(page) == 0 && len(data) > 0 {
				_, n := utf8.DecodeRune(data) // a limit below one character still advances
				page = data[:n]
			}
			end := offset + int64(len(page))
			if end < size {
				return fmt.Sprintf("%s\n[bytes %d-%d of %d; continue with offset %d]", page, offset, end, size, end), nil
			}
			return string(page), nil
		},
	}
}

// artifactID derives a reference from the content, so the same output gets
// the same ID in every run and mode.
func artifactID(data []byte) string {
	sum := sha256.Sum256(data)
	return "art_" + hex.EncodeToString(sum[:8])
}

// artifactIDPattern is compiled on first use: most runs read no artifact.
var artifactIDPattern = sync.OnceValue(func() *regexp.Regexp { return regexp.MustCompile(`^art_[0-9a-f]{16}$`) })

func unknownArtifact(id string) error {
	return fmt.Errorf("unknown artifact %q: use the id from the offloaded output (art_ and 16 hex digits)", id)
}

func slice(data []byte, offset, limit int64) []byte {
	if offset >= int64(len(data)) {
		return nil
	}
	end := min(offset+limit, int64(len(data)))
	return data[offset:end]
}

// MemoryStore is an ArtifactStore in memory. Safe for concurrent use.
type MemoryStore struct {
	mu   sync.RWMutex
	data map[string][]byte
}

var _ core.ArtifactStore = (*MemoryStore)(nil)

// NewMemoryStore returns an empty MemoryStore.
func NewMemoryStore() *MemoryStore { return &MemoryStore{data: map[string][]byte{}} }

// Put stores a copy of data.
func (s *MemoryStore) Put(_ context.Context, data []byte) (core.ArtifactRef, error) {
	id := artifactID(data)
	s.mu.Lock()
	defer s.mu.Unlock()
	if _, ok := s.data[id]; !ok {
		s.data[id] = append([]byte(nil), data...)
	}
	return core.ArtifactRef{ID: id, Size: int64(len(data))}, nil
}

// Read returns up to limit bytes from offset.
func (s *MemoryStore) Read(_ context.Context, id string, offset, limit int64) ([]byte, int64, error) {
	s.mu.RLock()
	data, ok := s.data[id]
	s.mu.RUnlock()
	if !ok {
		return nil, 0, unknownArtifact(id)
	}
	return slice(data, offset, limit), int64(len(data)), nil
}

// FileStore is an ArtifactStore that keeps each artifact as a file in Dir.
// Writes are atomic. Safe for concurrent use, also across processes.
type FileStore struct {
	Dir string
}

var _ core.ArtifactStore = (*FileStore)(nil)

// NewFileStore returns a store in dir, creating it (mode 0700) if needed.
func NewFileStore(dir string) (*FileStore, error) {
	if err := os.MkdirAll(dir, 0o700); err != nil {
		return nil, fmt.Errorf("artifact store: %w", err)
	}
	return &FileStore{Dir: dir}, nil
}

// Put writes data to Dir/ID unless it is already there.
func (s *FileStore) Put(_ context.Context, data []byte) (core.ArtifactRef, error) {
	id := artifactID(data)
	ref := core.ArtifactRef{ID: id, Size: int64(len(data))}
	final := filepath.Join(s.Dir, id)
	if _, err := os.Stat(final); err == nil {
		return ref, nil
	}
	tmp, err := os.CreateTemp(s.Dir, id+".tmp*")
	if err != nil {
		return ref, fmt.Errorf("artifact store: %w", err)
	}
	defer os.Remove(tmp.Name())
	if _, err := tmp.Write(data); err != nil {
		tmp.Close()
		return ref, fmt.Errorf("artifact store: %w", err)
	}
	if err := tmp.Sync(); err != nil {
		tmp.Close()
		return ref, fmt.Errorf("artifact store: %w", err)
	}
	if err := tmp.Close(); err != nil {
		return ref, fmt.Errorf("artifact store: %w", err)
	}
	if err := os.Rename(tmp.Name(), final); err != nil {
		return ref, fmt.Errorf("artifact store: %w", err)
	}
	return ref, nil
}

// Read returns up to limit bytes from offset of Dir/ID.
func (s *FileStore) Read(_ context.Context, id string, offset, limit int64) ([]byte, int64, error) {
	if !artifactIDPattern().MatchString(id) {
		return nil, 0, unknownArtifact(id) // also keeps the id from naming another path
	}
	f, err := os.Open(filepath.Join(s.Dir, id))
	if os.IsNotExist(err) {
		return nil, 0, unknownArtifact(id)
	}
	if err != nil {
		return nil, 0, fmt.Errorf("artifact store: %w", err)
	}
	defer f.Close()
	st, err := f.Stat()
	if err != nil {
		return nil, 0, fmt.Errorf("artifact store: %w", err)
	}
	size := st.Size()
	if offset >= size {
		return nil, size, nil
	}
	buf := make([]byte, min(limit, size-offset))
	n, err := f.ReadAt(buf, offset)
	if err != nil && err != io.EOF {
		return nil, size, fmt.Errorf("artifact store: %w", err)
	}
	return buf[:n], size, nil
}
