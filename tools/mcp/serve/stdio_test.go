package serve

import (
	"bufio"
	"encoding/json"
	"fmt"
	"io"
	"strings"
	"testing"
)

// stdioSession runs a session of s over a StdioTransport whose lines are
// at most limit bytes. send writes lines; recv reads one message.
func stdioSession(t *testing.T, s *Server, limit int) (send func(...string), recv func() map[string]any) {
	t.Helper()
	inR, inW := io.Pipe()
	outR, outW := io.Pipe()
	done := make(chan error, 1)
	ctx := testCtx(t) // canceled after the cleanup below
	go func() {
		err := s.Run(ctx, &StdioTransport{Reader: inR, Writer: outW, MaxLineBytes: limit})
		// A session that ended early fails the test's next send or recv.
		inR.CloseWithError(fmt.Errorf("the session ended: %v", err))
		outW.Close()
		done <- err
	}()
	t.Cleanup(func() {
		inW.Close()
		go io.Copy(io.Discard, outR)
		if err := <-done; err != nil && err != io.EOF {
			t.Errorf("the session ended with %v, want the end of its input", err)
		}
	})
	lines := bufio.NewScanner(outR)
	lines.Buffer(nil, 1<<20)
	send = func(ls ...string) {
		t.Helper()
		for _, l := range ls {
			if _, err := io.WriteString(inW, l); err != nil {
				t.Fatalf("writing %.40q: %v", l, err)
			}
		}
	}
	recv = func() map[string]any {
		t.Helper()
		if !lines.Scan() {
			t.Fatalf("the server said nothing more: %v", lines.Err())
		}
		var m map[string]any
		if err := json.Unmarshal(lines.Bytes(), &m); err != nil {
			t.Fatalf("the server wrote %q: %v", lines.Text(), err)
		}
		return m
	}
	return send, recv
}

const (
	initialize  = `{"jsonrpc":"2.0","id":1,"method":"initialize","params":{"protocolVersion":"2025-06-18","capabilities":{},"clientInfo":{"name":"t","version":"0"}}}` + "\n"
	initialized = `{"jsonrpc":"2.0","method":"notifications/initialized"}` + "\n"
	listTools   = `{"jsonrpc":"2.0","id":%d,"method":"tools/list"}` + "\n"
)

// TestStdioBadLines: a line the server cannot read gets an error with id
// null, and the session goes on: the next request is answered.
func TestStdioBadLines(t *testing.T) {
	s := newServer(t, newExec(t, textTool("look", "seen", true)), Options{})
	send, recv := stdioSession(t, s, 1024)
	send(initialize)
	if m := recv(); m["id"] != 1.0 || m["result"] == nil {
		t.Fatalf("initialize: %v", m)
	}
	send(initialized)
	long := `{"jsonrpc":"2.0","id":7,"method":"tools/call","params":{"name":"look","arguments":{"x":"` + strings.Repeat("a", 3000) + `"}}}`
	for i, c := range []struct {
		line    string
		code    float64
		message string
	}{
		{long + "\n", -32600, fmt.Sprintf("invalid request: the message is %d bytes long, over the limit of 1024 bytes; it was not read", len(long))},
		{long + "\r\n", -32600, fmt.Sprintf("the message is %d bytes long", len(long)+1)},
		{strings.Repeat("x", 1025) + "\n", -32600, "the message is 1025 bytes long, over the limit of 1024 bytes"},
		{`{"jsonrpc":"2.0","id":8,` + "\n", -32700, "parse error: the message is not JSON: unexpected end of JSON input"},
		{"not json\n", -32700, "parse error: the message is not JSON: invalid character 'o' in literal null"},
		{"{}\n", -32600, "invalid request: the message is not JSON-RPC 2.0: invalid message version tag"},
		{`{"jsonrpc":"2.0","id":{},"method":"x"}` + "\n", -32600, "invalid request: the message is not JSON-RPC 2.0"},
		{"[]\n", -32600, "invalid request: the batch is empty"},
		{`[{"jsonrpc":"2.0","id":9,"method":"tools/list"}, 5]` + "\n", -32600, "invalid request: a message of the batch is not JSON-RPC 2.0"},
		{"42\n", -32600, "invalid request: the message is not JSON-RPC 2.0"},
	} {
		send(c.line)
		m := recv()
		e, _ := m["error"].(map[string]any)
		if id, ok := m["id"]; !ok || id != nil || e == nil || e["code"] != c.code || !strings.Contains(fmt.Sprint(e["message"]), c.message) {
			t.Errorf("line %d (%.40q): got %v, want an error with id null, code %v and a message with %q", i, c.line, m, c.code, c.message)
		}
		send(fmt.Sprintf(listTools, 100+i))
		if m := recv(); m["id"] != float64(100+i) || m["result"] == nil {
			t.Fatalf("after line %d (%.40q): tools/list got %v, want its result", i, c.line, m)
		}
	}
	// Blank lines and white space around a message are not errors.
	send("\n  \r\n", "  "+fmt.Sprintf(strings.TrimSuffix(listTools, "\n"), 200)+" \t\r\n")
	if m := recv(); m["id"] != 200.0 || m["result"] == nil {
		t.Fatalf("a message with white space around it: %v", m)
	}
	// A call as long as the limit allows is read.
	short := `{"jsonrpc":"2.0","id":201,"method":"tools/call","params":{"name":"look","arguments":{"x":""}}}`
	padded := strings.Replace(short, `"x":""`, `"x":"`+strings.Repeat("b", 1024-len(short))+`"`, 1)
	send(padded + "\n")
	if m := recv(); m["id"] != 201.0 || m["result"] == nil {
		t.Fatalf("a call of exactly 1024 bytes: %v", m)
	}
}

// TestLineReader: what reaches the sdk is one trimmed message a line,
// the last one read even without its newline; the rest is answered.
func TestLineReader(t *testing.T) {
	msg := `{"jsonrpc":"2.0","id":1,"method":"ping"}`
	in := "\n" + msg + "\r\n" + strings.Repeat("z", 100) + "\n  " + msg + "  \n" + "[1]\n" + msg
	var answers strings.Builder
	r := &lineReader{r: bufio.NewReaderSize(strings.NewReader(in), 16), w: &answers, limit: 64}
	got, err := io.ReadAll(iotestOneByte{r})
	if err != nil {
		t.Fatal(err)
	}
	if want := strings.Repeat(msg+"\n", 3); string(got) != want {
		t.Errorf("handed over %q, want %q", got, want)
	}
	first := `{"error":{"code":-32600,"message":"invalid request: the message is 100 bytes long, over the limit of 64 bytes; it was not read"},"id":null,"jsonrpc":"2.0"}`
	second := `{"error":{"code":-32600,"message":"invalid request: a message of the batch is not JSON-RPC 2.0: `
	lines := strings.Split(answers.String(), "\n")
	if len(lines) != 3 || lines[0] != first || !strings.HasPrefix(lines[1], second) || lines[2] != "" {
		t.Errorf("answered %q, want %s and %s...", answers.String(), first, second)
	}
}

// iotestOneByte reads one byte at a time, as a slow client writes.
type iotestOneByte struct{ r io.Reader }

func (o iotestOneByte) Read(p []byte) (int, error) {
	if len(p) == 0 {
		return 0, nil
	}
	return o.r.Read(p[:1])
}
