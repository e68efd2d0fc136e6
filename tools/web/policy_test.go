package web

import (
	"context"
	"errors"
	"net"
	"net/netip"
	"strings"
	"testing"
	"time"
)

func TestPolicyCheckURL(t *testing.T) {
	open := Policy{}
	private := Policy{AllowPrivate: true}
	lists := Policy{
		AllowHosts: []string{"example.com", "*.example.org", "127.0.0.1", "10.0.0.0/8", "169.254.169.254", "bad.example.org"},
		DenyHosts:  []string{"bad.example.org", "*.evil.example.org", "10.9.0.0/16"},
	}
	tests := []struct {
		policy Policy
		url    string
		want   string // "" allowed, "denied: <substring>" denied by policy, else a plain error substring
	}{
		// Schemes.
		{open, "http://example.com/", ""},
		{open, "https://example.com:8443/a?b#c", ""},
		{open, "HTTP://EXAMPLE.COM/", ""},
		{open, "file:///etc/passwd", `denied: scheme "file" is not http or https`},
		{open, "ftp://example.com/", `denied: scheme "ftp"`},
		{open, "gopher://example.com:70/", `denied: scheme "gopher"`},
		{open, "javascript:alert(1)", `denied: scheme "javascript"`},
		{open, "data:text/html,hi", `denied: scheme "data"`},
		{open, "example.com/path", "URL has no scheme"},
		{open, "http:///path", "URL has no host"},
		{open, "http://%31%32%37.0.0.1/", "invalid URL"},

		// Link-local and metadata: always denied, in every spelling.
		{private, "http://169.254.169.254/", "denied: address 169.254.169.254 is link-local (cloud metadata)"},
		{private, "http://169.254.169.254./latest/", "denied: address 169.254.169.254 is link-local (cloud metadata)"},
		{private, "http://2852039166/", "denied: address 169.254.169.254 is link-local (cloud metadata)"},
		{private, "http://0xa9fea9fe/", "denied: address 169.254.169.254 is link-local (cloud metadata)"},
		{private, "http://0XA9FEA9FE/", "denied: address 169.254.169.254 is link-local (cloud metadata)"},
		{private, "http://0251.0376.0251.0376/", "denied: address 169.254.169.254 is link-local (cloud metadata)"},
		{private, "http://0xa9.0xfe.0xa9.0xfe/", "denied: address 169.254.169.254 is link-local (cloud metadata)"},
		{private, "http://169.254.43518/", "denied: address 169.254.169.254 is link-local (cloud metadata)"},
		{private, "http://169.16689662/", "denied: address 169.254.169.254 is link-local (cloud metadata)"},
		{private, "http://[::ffff:169.254.169.254]/", "denied: address 169.254.169.254 is link-local (cloud metadata)"},
		{private, "http://[::ffff:a9fe:a9fe]/", "denied: address 169.254.169.254 is link-local (cloud metadata)"},
		{private, "http://[64:ff9b::a9fe:a9fe]/", "denied: address 64:ff9b::a9fe:a9fe is a NAT64 address embedding 169.254.169.254, which is link-local (cloud metadata)"},
		{private, "http://[2002:a9fe:a9fe::1]/", "denied: address 2002:a9fe:a9fe::1 is a 6to4 address embedding 169.254.169.254"},
		{private, "http://[::a9fe:a9fe]/", "denied: address ::a9fe:a9fe is an IPv4-compatible address embedding 169.254.169.254"},
		{private, "http://user:pw@169.254.169.254/", "denied: address 169.254.169.254 is link-local"},
		{private, "http://example.com@169.254.169.254/", "denied: address 169.254.169.254 is link-local"},
		{private, "http://169.254.1.1/", "denied: address 169.254.1.1 is link-local"},
		{private, "http://169.254.170.2/v2/credentials", "denied: address 169.254.170.2 is link-local (cloud metadata: AWS ECS)"},
		{private, "http://[fe80::1]/", "denied: address fe80::1 is link-local"},
		{private, "http://[fe80::1%25eth0]/", "denied: address fe80::1 is link-local"},
		{private, "http://[fd00:ec2::254]/", "denied: address fd00:ec2::254 is a cloud metadata endpoint (AWS IPv6)"},
		{private, "http://100.100.100.200/", "denied: address 100.100.100.200 is a cloud metadata endpoint (Alibaba Cloud)"},
		{private, "http://192.0.0.192/", "denied: address 192.0.0.192 is a cloud metadata endpoint"},
		{private, "http://168.63.129.16/", "denied: address 168.63.129.16 is a cloud metadata endpoint (Azure"},
		{private, "http://metadata.google.internal/computeMetadata/v1/", "denied: host metadata.google.internal is a cloud metadata endpoint"},
		{private, "http://METADATA.Google.Internal./", "denied: host metadata.google.internal is a cloud metadata endpoint"},
		{private, "http://metadata/", "denied: host metadata is a cloud metadata endpoint"},
		{lists, "http://169.254.169.254/", "denied: address 169.254.169.254 is link-local (cloud metadata)"},

		// Unspecified, multicast, broadcast, reserved: always denied.
		{private, "http://0.0.0.0/", "denied: address 0.0.0.0 is unspecified"},
		{private, "http://0/", "denied: address 0.0.0.0 is unspecified"},
		{private, "http://[::]/", "denied: address :: is unspecified"},
		{private, "http://224.0.0.1/", "denied: address 224.0.0.1 is multicast"},
		{private, "http://[ff02::1]/", "denied: address ff02::1 is multicast"},
		{private, "http://255.255.255.255/", "denied: address 255.255.255.255 is broadcast"},
		{private, "http://240.1.2.3/", "denied: address 240.1.2.3 is reserved"},

		// Private: denied by default, allowed by AllowPrivate.
		{open, "http://127.0.0.1:8080/", "denied: address 127.0.0.1 is loopback; denied by policy (set Policy.AllowPrivate"},
		{open, "http://127.1/", "denied: address 127.0.0.1 is loopback"},
		{open, "http://0x7f000001/", "denied: address 127.0.0.1 is loopback"},
		{open, "http://017700000001/", "denied: address 127.0.0.1 is loopback"},
		{open, "http://[::1]/", "denied: address ::1 is loopback"},
		{open, "http://[::ffff:127.0.0.1]/", "denied: address 127.0.0.1 is loopback"},
		{open, "http://localhost:3000/", "denied: host localhost is loopback"},
		{open, "http://LocalHost./", "denied: host localhost is loopback"},
		{open, "http://app.localhost/", "denied: host app.localhost is loopback"},
		{open, "http://10.0.0.1/", "denied: address 10.0.0.1 is private"},
		{open, "http://172.16.5.4/", "denied: address 172.16.5.4 is private"},
		{open, "http://172.31.255.255/", "denied: address 172.31.255.255 is private"},
		{open, "http://192.168.1.1/", "denied: address 192.168.1.1 is private"},
		{open, "http://100.64.0.1/", "denied: address 100.64.0.1 is shared address space"},
		{open, "http://[fc00::1]/", "denied: address fc00::1 is unique local"},
		{open, "http://[fd12:3456::1]/", "denied: address fd12:3456::1 is unique local"},
		{open, "http://[2002:0a00:0001::]/", "denied: address 2002:a00:1:: is a 6to4 address embedding 10.0.0.1, which is private"},
		{open, "http://[::ffff:0:10.0.0.1]/", "denied: address ::ffff:0:a00:1 is an IPv4-translated address embedding 10.0.0.1"},
		{private, "http://127.0.0.1:8080/", ""},
		{private, "http://127.1/", ""},
		{private, "http://[::1]/", ""},
		{private, "http://localhost/", ""},
		{private, "http://10.0.0.1/", ""},
		{private, "http://192.168.1.1/", ""},
		{private, "http://[fd12::1]/", ""},

		// Public addresses.
		{open, "http://172.32.0.1/", ""},
		{open, "http://8.8.8.8/", ""},
		{open, "http://134744072/", ""}, // 8.8.8.8
		{open, "http://[2001:4860:4860::8888]/", ""},
		{open, "http://[2606:4700::1111]/", ""},

		// Malformed numeric hosts.
		{open, "http://1.2.3.256/", "is not a valid one"},
		{open, "http://1.2.3.4.5/", "is not a valid one"},
		{open, "http://4294967296/", "is not a valid one"},
		{open, "http://089/", "is not a valid one"},
		{open, "http://example.123/", "is not a valid one"},
		{open, "http://ｅｘａｍｐｌｅ.com/", "is not ASCII"},

		// Lists.
		{lists, "http://example.com/", ""},
		{lists, "http://EXAMPLE.com./", ""},
		{lists, "http://www.example.com/", "denied: host www.example.com is not in AllowHosts"},
		{lists, "http://a.example.org/", ""},
		{lists, "http://a.b.example.org/", ""},
		{lists, "http://example.org/", "denied: host example.org is not in AllowHosts"},
		{lists, "http://notexample.org/", "denied: host notexample.org is not in AllowHosts"},
		{lists, "http://bad.example.org/", `denied: host bad.example.org matches DenyHosts entry "bad.example.org"`},
		{lists, "http://x.evil.example.org/", `denied: host x.evil.example.org matches DenyHosts entry "*.evil.example.org"`},
		{lists, "http://127.0.0.1:9/", ""}, // listed by address: unlocks this private address
		{lists, "http://127.0.0.2/", "denied: address 127.0.0.2 is not in AllowHosts"},
		{lists, "http://localhost/", "denied: host localhost is not in AllowHosts"},
		{lists, "http://10.1.2.3/", ""},
		{lists, "http://10.9.1.1/", `denied: address 10.9.1.1 matches DenyHosts entry "10.9.0.0/16"`},
		{lists, "http://8.8.8.8/", "denied: address 8.8.8.8 is not in AllowHosts"},
		{Policy{DenyHosts: []string{"203.0.113.0/24"}}, "http://203.0.113.9/", `denied: address 203.0.113.9 matches DenyHosts entry "203.0.113.0/24"`},
		{Policy{DenyHosts: []string{"[2001:db8::1]"}}, "http://[2001:db8::1]/", `denied: address 2001:db8::1 matches DenyHosts entry`},
		{Policy{AllowHosts: []string{"localhost", "127.0.0.1"}}, "http://localhost/", ""},
		{Policy{AllowHosts: []string{"localhost"}}, "http://localhost/", "denied: host localhost is loopback"},
		{Policy{AllowHosts: []string{"a*b.com"}}, "http://example.com/", `policy: AllowHosts entry "a*b.com"`},
	}
	for _, tt := range tests {
		err := tt.policy.CheckURL(tt.url)
		switch {
		case tt.want == "":
			if err != nil {
				t.Errorf("CheckURL(%q) with %+v: got %v, want allowed", tt.url, tt.policy, err)
			}
		case strings.HasPrefix(tt.want, "denied: "):
			if err == nil || !errors.Is(err, ErrDenied) || !strings.Contains(err.Error(), strings.TrimPrefix(tt.want, "denied: ")) {
				t.Errorf("CheckURL(%q) with %+v: got %v, want denied with %q", tt.url, tt.policy, err, strings.TrimPrefix(tt.want, "denied: "))
			}
		default:
			if err == nil || errors.Is(err, ErrDenied) || !strings.Contains(err.Error(), tt.want) {
				t.Errorf("CheckURL(%q) with %+v: got %v, want an error with %q", tt.url, tt.policy, err, tt.want)
			}
		}
	}
}

func TestPolicyErrorMessage(t *testing.T) {
	err := Policy{AllowPrivate: true}.CheckURL("http://169.254.169.254/")
	want := "address 169.254.169.254 is link-local (cloud metadata); denied by policy"
	if err == nil || err.Error() != want {
		t.Errorf("got %v, want %q", err, want)
	}
	err = Policy{}.CheckURL("http://127.0.0.1/")
	want = "address 127.0.0.1 is loopback; denied by policy (set Policy.AllowPrivate, or list the address in Policy.AllowHosts)"
	if err == nil || err.Error() != want {
		t.Errorf("got %v, want %q", err, want)
	}
	var de *DeniedError
	if !errors.As(err, &de) || de.Why != "is loopback" {
		t.Errorf("errors.As DeniedError: got %+v", de)
	}
	// A program names its own way to allow private addresses, for a
	// loopback name as for an address.
	hinted := Policy{PrivateHint: "pass --open"}
	for url, want := range map[string]string{
		"http://10.0.0.1/":  "address 10.0.0.1 is private; denied by policy (pass --open)",
		"http://localhost/": "host localhost is loopback; denied by policy (pass --open)",
	} {
		if err := hinted.CheckURL(url); err == nil || err.Error() != want {
			t.Errorf("%s: got %v, want %q", url, err, want)
		}
	}
}

func TestPolicyValidate(t *testing.T) {
	for _, bad := range []string{"", " ", "a*b.com", "*.", "*", "**.x.com", "http://x.com", "x.com:80", "10.0.0.0/33", "10.0.0.0/x", "1.2.3.999", "a..b", "-_/"} {
		err := Policy{DenyHosts: []string{bad}}.Validate()
		if err == nil || !strings.Contains(err.Error(), "DenyHosts entry") {
			t.Errorf("Validate(DenyHosts %q): got %v, want an error naming the entry", bad, err)
		}
		// A malformed policy fails closed.
		if err := (Policy{DenyHosts: []string{bad}}).CheckURL("http://example.com/"); err == nil {
			t.Errorf("CheckURL with DenyHosts %q: allowed, want an error", bad)
		}
	}
	for _, good := range []string{"example.com", "EXAMPLE.COM.", "*.example.com", "127.0.0.1", "::1", "[::1]", "10.0.0.0/8", "fd00::/8", "x_y.example", "0x7f.1"} {
		if err := (Policy{AllowHosts: []string{good}}).Validate(); err != nil {
			t.Errorf("Validate(AllowHosts %q): %v", good, err)
		}
	}
}

func TestPolicyCheckAddr(t *testing.T) {
	tests := []struct {
		policy Policy
		host   string
		addr   string
		want   string
	}{
		{Policy{}, "rebind.test", "127.0.0.1", "address 127.0.0.1 (of host rebind.test) is loopback"},
		{Policy{}, "rebind.test", "::ffff:127.0.0.1", "address 127.0.0.1 (of host rebind.test) is loopback"},
		{Policy{AllowPrivate: true}, "rebind.test", "127.0.0.1", ""},
		{Policy{AllowPrivate: true}, "x.test", "169.254.169.254", "link-local (cloud metadata)"},
		{Policy{AllowHosts: []string{"x.test"}}, "x.test", "10.1.1.1", "is private"}, // a name never unlocks a private address
		{Policy{AllowHosts: []string{"x.test"}}, "x.test", "93.184.215.14", ""},      // a resolved address need not be listed
		{Policy{AllowHosts: []string{"x.test"}}, "", "93.184.215.14", "is not in AllowHosts"},
		{Policy{AllowHosts: []string{"x.test", "10.0.0.0/8"}}, "x.test", "10.1.1.1", ""},
		{Policy{DenyHosts: []string{"93.184.215.0/24"}}, "x.test", "93.184.215.14", "matches DenyHosts"},
		{Policy{}, "", "8.8.8.8", ""},
	}
	for _, tt := range tests {
		err := tt.policy.CheckAddr(tt.host, netip.MustParseAddr(tt.addr))
		if tt.want == "" {
			if err != nil {
				t.Errorf("CheckAddr(%q, %s) with %+v: %v", tt.host, tt.addr, tt.policy, err)
			}
			continue
		}
		if err == nil || !errors.Is(err, ErrDenied) || !strings.Contains(err.Error(), tt.want) {
			t.Errorf("CheckAddr(%q, %s) with %+v: got %v, want denied with %q", tt.host, tt.addr, tt.policy, err, tt.want)
		}
	}
}

func TestParseNumericIPv4(t *testing.T) {
	tests := map[string]string{
		"2852039166":          "169.254.169.254",
		"0xa9fea9fe":          "169.254.169.254",
		"0251.0376.0251.0376": "169.254.169.254",
		"169.254.43518":       "169.254.169.254",
		"127.1":               "127.0.0.1",
		"0x7f.1":              "127.0.0.1",
		"0":                   "0.0.0.0",
		"0x":                  "0.0.0.0",
		"1.2.3.4.":            "1.2.3.4",
		"example.com":         "",
		"1.2.3.com":           "",
		"256.1.1.1":           "invalid",
		"1.2.3.4.5":           "invalid",
		"08":                  "invalid",
		"0x1.example.0x":      "invalid",
	}
	for in, want := range tests {
		a, ok, err := parseNumericIPv4(in)
		got := ""
		switch {
		case err != nil:
			got = "invalid"
		case ok:
			got = a.String()
		}
		if got != want {
			t.Errorf("parseNumericIPv4(%q) = %q, want %q", in, got, want)
		}
	}
}

func TestPolicyDialer(t *testing.T) {
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	defer ln.Close()
	go func() {
		for {
			c, err := ln.Accept()
			if err != nil {
				return
			}
			c.Close()
		}
	}()
	_, port, _ := net.SplitHostPort(ln.Addr().String())
	lookup := func(_ context.Context, host string) ([]netip.Addr, error) {
		switch host {
		case "rebind.test":
			return []netip.Addr{netip.MustParseAddr("127.0.0.1")}, nil
		case "mixed.test":
			return []netip.Addr{netip.MustParseAddr("169.254.169.254"), netip.MustParseAddr("127.0.0.1")}, nil
		case "meta.test":
			return []netip.Addr{netip.MustParseAddr("169.254.169.254"), netip.MustParseAddr("fd00:ec2::254")}, nil
		}
		return nil, &net.DNSError{Err: "no such host", Name: host, IsNotFound: true}
	}
	ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
	defer cancel()
	dialer := func(p Policy) *policyDialer {
		c, err := p.compile()
		if err != nil {
			t.Fatal(err)
		}
		return newPolicyDialer(c, lookup)
	}

	// A name that resolves to a private address is refused when private
	// addresses are denied, though the name itself passes.
	_, err = dialer(Policy{}).DialContext(ctx, "tcp", net.JoinHostPort("rebind.test", port))
	if !errors.Is(err, ErrDenied) || !strings.Contains(err.Error(), "address 127.0.0.1 (of host rebind.test) is loopback") {
		t.Errorf("rebind.test: got %v, want loopback denied", err)
	}
	conn, err := dialer(Policy{AllowPrivate: true}).DialContext(ctx, "tcp", net.JoinHostPort("rebind.test", port))
	if err != nil {
		t.Errorf("rebind.test with AllowPrivate: %v", err)
	} else {
		conn.Close()
	}
	// Denied addresses are skipped; the allowed one is used.
	conn, err = dialer(Policy{AllowPrivate: true}).DialContext(ctx, "tcp", net.JoinHostPort("mixed.test", port))
	if err != nil {
		t.Errorf("mixed.test with AllowPrivate: %v", err)
	} else {
		conn.Close()
	}
	_, err = dialer(Policy{AllowPrivate: true}).DialContext(ctx, "tcp", "meta.test:80")
	if !errors.Is(err, ErrDenied) || !strings.Contains(err.Error(), "169.254.169.254 (of host meta.test) is link-local (cloud metadata)") {
		t.Errorf("meta.test: got %v, want metadata denied", err)
	}
	// Numeric forms are checked before any lookup.
	for _, host := range []string{"2852039166", "0xa9fea9fe", "[::ffff:169.254.169.254]", "169.254.169.254"} {
		_, err = dialer(Policy{AllowPrivate: true}).DialContext(ctx, "tcp", host+":80")
		if !errors.Is(err, ErrDenied) {
			t.Errorf("dial %s: got %v, want denied", host, err)
		}
	}
	// The last line of defence: the socket's own address is checked
	// before connecting, however it was resolved.
	d := dialer(Policy{})
	for _, addr := range []string{"169.254.169.254:80", "127.0.0.1:" + port, "[::ffff:127.0.0.1]:" + port} {
		_, err = d.dialer.DialContext(ctx, "tcp", addr)
		if !errors.Is(err, ErrDenied) {
			t.Errorf("raw dial %s: got %v, want denied by the Control hook", addr, err)
		}
	}
}
