package serve

import (
	"io"
	"net"
	"net/http"
	"testing"
	"time"
)

func TestZZBody(t *testing.T) {
	h := http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		st := time.Now()
		b, err := io.ReadAll(r.Body)
		t.Logf("handler read %d %v after %v", len(b), err, time.Since(st))
		w.Write([]byte("done"))
	})
	ln, _ := net.Listen("tcp", "127.0.0.1:0")
	saved := httpLimits
	httpLimits.header, httpLimits.body = 50*time.Millisecond, 50*time.Millisecond
	defer func() { httpLimits = saved }()
	hs := HTTPServer(h)
	go hs.Serve(ln)
	defer hs.Close()
	conn, _ := net.Dial("tcp", ln.Addr().String())
	io.WriteString(conn, "POST / HTTP/1.1\r\nHost: x\r\nContent-Length: 100\r\n\r\nabc")
	conn.SetReadDeadline(time.Now().Add(3 * time.Second))
	b, err := io.ReadAll(conn)
	t.Logf("client got %q %v", b, err)
}
