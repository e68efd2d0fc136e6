package netclass

import (
	"net/netip"
	"strings"
	"testing"
)

func TestClassify(t *testing.T) {
	for _, tc := range []struct {
		addr   string
		class  string
		always bool
	}{
		{"93.184.215.14", "", false},
		{"2606:2800:21f:cb07:6820:80da:af6b:8b2c", "", false},
		{"127.0.0.1", "loopback", false},
		{"127.9.9.9", "loopback", false},
		{"::1", "loopback", false},
		{"::ffff:127.0.0.1", "loopback", false},
		{"10.1.2.3", "private", false},
		{"172.31.255.255", "private", false},
		{"192.168.0.1", "private", false},
		{"100.64.0.1", "shared address space (carrier-grade NAT)", false},
		{"fd12::1", "unique local (private)", false},
		{"169.254.169.254", "link-local (cloud metadata)", true},
		{"169.254.1.1", "link-local", true},
		{"fe80::1%eth0", "link-local", true},
		{"0.0.0.0", "unspecified (this network)", true},
		{"::", "unspecified", true},
		{"224.0.0.1", "multicast", true},
		{"ff02::1", "multicast", true},
		{"255.255.255.255", "broadcast", true},
		{"64:ff9b::a00:1", "a NAT64 address embedding 10.0.0.1, which is private", false},
		{"2002:7f00:1::", "a 6to4 address embedding 127.0.0.1, which is loopback", false},
		{"64:ff9b::a9fe:a9fe", "a NAT64 address embedding 169.254.169.254, which is link-local (cloud metadata)", true},
	} {
		class, always := Classify(netip.MustParseAddr(tc.addr))
		if class != tc.class || always != tc.always {
			t.Errorf("Classify(%s) = %q, %v; want %q, %v", tc.addr, class, always, tc.class, tc.always)
		}
	}
}

func TestMetadataName(t *testing.T) {
	for name, want := range map[string]bool{
		"metadata.google.internal": true,
		"instance-data":            true,
		"example.com":              false,
		"metadata.example.com":     false,
	} {
		if got := MetadataName(name); got != want {
			t.Errorf("MetadataName(%q) = %v, want %v", name, got, want)
		}
	}
}

func TestValidName(t *testing.T) {
	for name, want := range map[string]bool{
		"example.com": true, "a-b_c.example": true, "x": true, "": false, "a..b": false, ".a": false,
		"Example.com": false, "exa mple.com": false, "ex\u00e4mple.com": false, "a*.com": false,
		strings.Repeat("a", 64) + ".com": false, strings.Repeat("a.", 127) + "a": false,
	} {
		if got := ValidName(name); got != want {
			t.Errorf("ValidName(%q) = %v, want %v", name, got, want)
		}
	}
}
