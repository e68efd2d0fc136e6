// Package netclass sorts IP addresses and host names into the kinds that a
// destination policy refuses: loopback, private networks, link-local and
// cloud metadata endpoints, multicast, and the like. It is the one
// classification that agentsh's fetcher and browser (tools/web) and the
// sandbox's network proxy (tools/process) judge destinations by.
//
// Its functions are safe for concurrent use.
package netclass

import (
	"fmt"
	"net/netip"
	"strings"
)

// Classify returns the class of a special address ("loopback", "private",
// "link-local (cloud metadata)", ...), or "" for an ordinary public one,
// and whether the class is always refused (link-local, cloud metadata,
// unspecified, multicast, broadcast, reserved) rather than only private
// (loopback, private networks, shared address space, unique and site
// local). IPv4-mapped addresses are judged as IPv4, and IPv6 transition
// addresses (NAT64, IPv4-translated, IPv4-compatible, 6to4, Teredo) by the
// IPv4 address they embed.
func Classify(a netip.Addr) (class string, always bool) {
	a = a.WithZone("")
	if a.Is4In6() {
		a = a.Unmap()
	}
	if c, ok := metadataAddrs[a]; ok {
		return c, true
	}
	for _, e := range alwaysPrefixes {
		if e.p.Contains(a) {
			return e.class, true
		}
	}
	if a.Is6() {
		if v4, kind, ok := embeddedIPv4(a); ok {
			if c, always := Classify(v4); c != "" {
				return fmt.Sprintf("%s embedding %s, which is %s", kind, v4, c), always
			}
		}
	}
	for _, e := range privatePrefixes {
		if e.p.Contains(a) {
			return e.class, false
		}
	}
	return "", false
}

// MetadataName reports whether name (lower case, no trailing dot) is the
// host name of a cloud metadata service.
func MetadataName(name string) bool { return metadataNames[name] }

// metadataNames are host names of cloud metadata services.
var metadataNames = map[string]bool{
	"metadata.google.internal":   true,
	"metadata.goog":              true,
	"metadata":                   true,
	"instance-data":              true,
	"instance-data.ec2.internal": true,
}

var (
	metadataAddrs = map[netip.Addr]string{
		netip.MustParseAddr("169.254.169.254"): "link-local (cloud metadata)",
		netip.MustParseAddr("169.254.170.2"):   "link-local (cloud metadata: AWS ECS)",
		netip.MustParseAddr("fd00:ec2::254"):   "a cloud metadata endpoint (AWS IPv6)",
		netip.MustParseAddr("fd00:ec2::23"):    "a cloud metadata endpoint (AWS EKS)",
		netip.MustParseAddr("100.100.100.200"): "a cloud metadata endpoint (Alibaba Cloud)",
		netip.MustParseAddr("192.0.0.192"):     "a cloud metadata endpoint (Oracle Cloud)",
		netip.MustParseAddr("168.63.129.16"):   "a cloud metadata endpoint (Azure WireServer)",
	}
	alwaysPrefixes = []struct {
		p     netip.Prefix
		class string
	}{
		{netip.MustParsePrefix("0.0.0.0/8"), "unspecified (this network)"},
		{netip.MustParsePrefix("169.254.0.0/16"), "link-local"},
		{netip.MustParsePrefix("224.0.0.0/4"), "multicast"},
		{netip.MustParsePrefix("255.255.255.255/32"), "broadcast"},
		{netip.MustParsePrefix("240.0.0.0/4"), "reserved"},
		{netip.MustParsePrefix("::/128"), "unspecified"},
		{netip.MustParsePrefix("fe80::/10"), "link-local"},
		{netip.MustParsePrefix("ff00::/8"), "multicast"},
	}
	privatePrefixes = []struct {
		p     netip.Prefix
		class string
	}{
		{netip.MustParsePrefix("127.0.0.0/8"), "loopback"},
		{netip.MustParsePrefix("10.0.0.0/8"), "private"},
		{netip.MustParsePrefix("172.16.0.0/12"), "private"},
		{netip.MustParsePrefix("192.168.0.0/16"), "private"},
		{netip.MustParsePrefix("100.64.0.0/10"), "shared address space (carrier-grade NAT)"},
		{netip.MustParsePrefix("::1/128"), "loopback"},
		{netip.MustParsePrefix("fc00::/7"), "unique local (private)"},
		{netip.MustParsePrefix("fec0::/10"), "site-local (private)"},
	}
)

var (
	nat64      = netip.MustParsePrefix("64:ff9b::/96")
	v4compat   = netip.MustParsePrefix("::/96")
	translated = netip.MustParsePrefix("::ffff:0:0:0/96")
	sixToFour  = netip.MustParsePrefix("2002::/16")
	teredo     = netip.MustParsePrefix("2001::/32")
)

// embeddedIPv4 returns the IPv4 address that an IPv6 transition address
// carries.
func embeddedIPv4(a netip.Addr) (netip.Addr, string, bool) {
	b := a.As16()
	last := netip.AddrFrom4([4]byte{b[12], b[13], b[14], b[15]})
	switch {
	case nat64.Contains(a):
		return last, "a NAT64 address", true
	case translated.Contains(a):
		return last, "an IPv4-translated address", true
	case v4compat.Contains(a) && a != netip.IPv6Unspecified() && a != netip.IPv6Loopback():
		return last, "an IPv4-compatible address", true
	case sixToFour.Contains(a):
		return netip.AddrFrom4([4]byte{b[2], b[3], b[4], b[5]}), "a 6to4 address", true
	case teredo.Contains(a):
		return netip.AddrFrom4([4]byte{^b[12], ^b[13], ^b[14], ^b[15]}), "a Teredo address", true
	}
	return netip.Addr{}, "", false
}

// ValidName reports whether s looks like a DNS name in lower case: ASCII
// letters, digits, '-', '_' and '.', no empty labels, at most 253 bytes
// and 63 a label.
func ValidName(s string) bool {
	if s == "" || len(s) > 253 {
		return false
	}
	for label := range strings.SplitSeq(s, ".") {
		if label == "" || len(label) > 63 {
			return false
		}
		for i := 0; i < len(label); i++ {
			c := label[i]
			if !('a' <= c && c <= 'z' || '0' <= c && c <= '9' || c == '-' || c == '_') {
				return false
			}
		}
	}
	return true
}
