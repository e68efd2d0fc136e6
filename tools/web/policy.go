package web

import (
	"context"
	"errors"
	"fmt"
	"net"
	"net/netip"
	"net/url"
	"slices"
	"strconv"
	"strings"
	"syscall"

	"github.com/agentsh/agentsh/internal/netclass"
)

// Policy says which destinations the fetcher and the browser may reach. The
// zero Policy is the safe default for an agent: any public http or https
// host, nothing private, nothing link-local, no cloud metadata endpoint.
//
// A Policy is checked twice. Before a request, the URL's scheme and host are
// checked by name (CheckURL): only http and https, the host lists, and hosts
// that are IP addresses, including the legacy forms that browsers and some
// resolvers accept (http://2852039166/, http://0xa9fea9fe/,
// http://0251.0376.0251.0376/, http://[::ffff:169.254.169.254]/). Then every
// address the host resolves to is checked again when the connection is made
// (CheckAddr), so a name that resolves, or later re-resolves (DNS rebinding),
// to a denied address is refused. Every redirect is checked the same way.
//
// Host list entries are one of:
//
//	example.com       that host exactly (case-insensitive, a trailing dot is ignored)
//	*.example.com     any subdomain of example.com, at any depth, but not example.com itself
//	203.0.113.7, ::1  that IP address (an IPv6 address may be written in brackets)
//	10.0.0.0/8        any address in that prefix
//
// An entry that is none of these makes every check fail with an error that
// names the entry (fail closed); Validate reports it up front.
//
// The order of the checks is: DenyHosts, then the addresses that are always
// denied, then AllowHosts, then private addresses.
//
// Always denied, whatever the lists and AllowPrivate say: link-local
// addresses (169.254.0.0/16, fe80::/10), cloud metadata endpoints
// (169.254.169.254, 169.254.170.2, fd00:ec2::254, fd00:ec2::23,
// 100.100.100.200, 192.0.0.192, 168.63.129.16, and the names
// metadata.google.internal, metadata.goog, metadata, instance-data and
// instance-data.ec2.internal), unspecified addresses (0.0.0.0/8, ::),
// multicast, broadcast and reserved (240.0.0.0/4) addresses. IPv6 addresses
// that embed an IPv4 address (IPv4-mapped ::ffff:0:0/96, IPv4-compatible
// ::/96, IPv4-translated ::ffff:0:0:0/96, NAT64 64:ff9b::/96, 6to4
// 2002::/16 and Teredo 2001::/32) are judged by the IPv4 address they embed.
//
// Private, denied unless AllowPrivate is set or the address is listed in
// AllowHosts by address or prefix: loopback (127.0.0.0/8, ::1, and the names
// localhost and *.localhost), private networks (10.0.0.0/8, 172.16.0.0/12,
// 192.168.0.0/16), shared address space (100.64.0.0/10), unique local
// (fc00::/7) and site-local (fec0::/10) IPv6 addresses. A host name listed in
// AllowHosts never unlocks a private address: only an address or a prefix
// does, because a name can be made to resolve anywhere.
//
// Not covered: ports (any port is allowed), and anything other than http and
// https from the fetcher, or than what the browser sends through its proxy
// (see PolicyProxy). Proxy settings from the environment (HTTP_PROXY and
// the like) are ignored: connections go directly to the checked address.
//
// A Policy is a value; its methods do not modify it and are safe for
// concurrent use as long as nobody modifies its slices.
type Policy struct {
	// AllowHosts, when not empty, is the only hosts that may be reached.
	AllowHosts []string
	// DenyHosts are never reached; DenyHosts wins over AllowHosts.
	DenyHosts []string
	// AllowPrivate allows loopback and private network addresses. It never
	// allows link-local addresses or cloud metadata endpoints.
	AllowPrivate bool
	// PrivateHint tells the person who meets a refused private address how
	// to allow it, in the terms of the program they use (a flag, a config
	// key); "" names the fields of Policy, for Go programs.
	PrivateHint string
}

func (p Policy) clone() Policy {
	p.AllowHosts = slices.Clone(p.AllowHosts)
	p.DenyHosts = slices.Clone(p.DenyHosts)
	return p
}

// ErrDenied is matched (with errors.Is) by every *DeniedError.
var ErrDenied = errors.New("denied by policy")

// DeniedError reports a destination that a Policy refuses.
type DeniedError struct {
	// What was refused, e.g. `address 169.254.169.254`, `host example.com`,
	// `scheme "file"`.
	What string
	// Why, e.g. "is link-local (cloud metadata)".
	Why string
	// Hint says how to allow it, if it can be allowed; else "".
	Hint string
}

func (e *DeniedError) Error() string {
	s := e.What + " " + e.Why + "; denied by policy"
	if e.Hint != "" {
		s += " (" + e.Hint + ")"
	}
	return s
}

// Is reports whether target is ErrDenied.
func (e *DeniedError) Is(target error) bool { return target == ErrDenied }

// defaultPrivateHint is the hint of a Policy without PrivateHint.
const defaultPrivateHint = "set Policy.AllowPrivate, or list the address in Policy.AllowHosts"

// hostEntry is one parsed AllowHosts or DenyHosts entry.
type hostEntry struct {
	raw    string
	name   string // exact name, lower case, no trailing dot
	suffix string // for "*.example.com": ".example.com"
	prefix netip.Prefix
	isAddr bool // prefix is valid
}

func parseHostEntry(list, raw string) (hostEntry, error) {
	e := hostEntry{raw: raw}
	s := strings.ToLower(strings.TrimSpace(raw))
	bad := func(why string) (hostEntry, error) {
		return e, fmt.Errorf("policy: %s entry %q %s", list, raw, why)
	}
	if s == "" {
		return bad("is empty")
	}
	if strings.Contains(s, "/") {
		p, err := netip.ParsePrefix(s)
		if err != nil {
			return bad("is not a valid address prefix (want e.g. 10.0.0.0/8)")
		}
		e.prefix, e.isAddr = p.Masked(), true
		if e.prefix.Addr().Is4In6() {
			e.prefix = netip.PrefixFrom(e.prefix.Addr().Unmap(), max(e.prefix.Bits()-96, 0))
		}
		return e, nil
	}
	if strings.HasPrefix(s, "[") && strings.HasSuffix(s, "]") {
		s = s[1 : len(s)-1]
	}
	if a, err := netip.ParseAddr(s); err == nil {
		a = a.Unmap().WithZone("")
		e.prefix, e.isAddr = netip.PrefixFrom(a, a.BitLen()), true
		return e, nil
	}
	s = strings.TrimSuffix(s, ".")
	if rest, ok := strings.CutPrefix(s, "*."); ok {
		if !netclass.ValidName(rest) {
			return bad(`is not a valid wildcard (want "*." followed by a host name)`)
		}
		e.suffix = "." + rest
		return e, nil
	}
	if strings.ContainsAny(s, "*:") || !netclass.ValidName(s) {
		return bad(`is not a host name, "*.domain", an IP address or a prefix`)
	}
	if a, ok, err := parseNumericIPv4(s); ok || err != nil {
		if err != nil {
			return bad("is not a valid IPv4 address")
		}
		// e.g. "0x7f.1": it names the address it means.
		e.prefix, e.isAddr = netip.PrefixFrom(a, 32), true
		return e, nil
	}
	e.name = s
	return e, nil
}

func (e hostEntry) matchName(name string) bool {
	switch {
	case e.name != "":
		return name == e.name
	case e.suffix != "":
		return strings.HasSuffix(name, e.suffix)
	}
	return false
}

func (e hostEntry) matchAddr(a netip.Addr) bool {
	return e.isAddr && e.prefix.Contains(a)
}

// compiled is a parsed Policy.
type compiled struct {
	allow, deny  []hostEntry
	allowPrivate bool
	privateHint  string
}

func (p Policy) compile() (*compiled, error) {
	c := &compiled{allowPrivate: p.AllowPrivate, privateHint: p.PrivateHint}
	if c.privateHint == "" {
		c.privateHint = defaultPrivateHint
	}
	for _, raw := range p.AllowHosts {
		e, err := parseHostEntry("AllowHosts", raw)
		if err != nil {
			return nil, err
		}
		c.allow = append(c.allow, e)
	}
	for _, raw := range p.DenyHosts {
		e, err := parseHostEntry("DenyHosts", raw)
		if err != nil {
			return nil, err
		}
		c.deny = append(c.deny, e)
	}
	return c, nil
}

// Validate reports the first malformed AllowHosts or DenyHosts entry.
func (p Policy) Validate() error {
	_, err := p.compile()
	return err
}

// CheckURL checks a URL by name, without any DNS lookup: its scheme must be
// http or https, and its host must pass the policy. The error is a
// *DeniedError (errors.Is(err, ErrDenied)) when the policy refuses the URL,
// and a plain error when the URL or the policy is malformed.
func (p Policy) CheckURL(rawURL string) error {
	c, err := p.compile()
	if err != nil {
		return err
	}
	_, err = c.checkURL(rawURL)
	return err
}

// CheckHost checks a host (a name or an IP address, without a port) by name,
// as CheckURL does for a URL's host.
func (p Policy) CheckHost(host string) error {
	c, err := p.compile()
	if err != nil {
		return err
	}
	return c.checkHost(host)
}

// CheckAddr checks an address that a connection is about to be made to.
// host is the name the address was resolved from (the name itself is not
// checked here: see CheckHost), or "" when a URL named the address itself;
// then a non-empty AllowHosts must list the address.
func (p Policy) CheckAddr(host string, addr netip.Addr) error {
	c, err := p.compile()
	if err != nil {
		return err
	}
	return c.checkAddr(host, addr, false)
}

func (c *compiled) checkURL(rawURL string) (*url.URL, error) {
	u, err := url.Parse(rawURL)
	if err != nil {
		return nil, fmt.Errorf("invalid URL: %v", unwrapURLError(err))
	}
	switch scheme := strings.ToLower(u.Scheme); scheme {
	case "http", "https":
	case "":
		return nil, errors.New("URL has no scheme (want http:// or https://)")
	default:
		return nil, &DeniedError{What: fmt.Sprintf("scheme %q", scheme), Why: "is not http or https"}
	}
	if u.Opaque != "" {
		return nil, errors.New("URL has no host (want http://host/...)")
	}
	if u.Hostname() == "" {
		return nil, errors.New("URL has no host")
	}
	if err := c.checkHost(u.Hostname()); err != nil {
		return nil, err
	}
	return u, nil
}

func unwrapURLError(err error) error {
	var ue *url.Error
	if errors.As(err, &ue) {
		return ue.Err
	}
	return err
}

// hostAddr parses host as an IP address, in any form that a browser or a
// libc resolver would take as one. ok is false for a name. err is set for a
// host that looks numeric but is not a valid address.
func hostAddr(host string) (addr netip.Addr, ok bool, err error) {
	h := strings.TrimSuffix(host, ".")
	if strings.HasPrefix(h, "[") && strings.HasSuffix(h, "]") {
		h = h[1 : len(h)-1]
	}
	if a, err := netip.ParseAddr(h); err == nil {
		return a.WithZone(""), true, nil
	}
	if strings.Contains(h, ":") {
		return netip.Addr{}, false, fmt.Errorf("host %q is not a valid IPv6 address", host)
	}
	return parseNumericIPv4(h)
}

// parseNumericIPv4 parses the legacy IPv4 forms that inet_aton and the
// WHATWG URL standard accept: one to four parts, each decimal, octal (leading
// 0) or hexadecimal (leading 0x), the last part filling the remaining bytes
// ("2852039166", "0xa9fea9fe", "0251.0376.0251.0376", "169.254.43518").
// Following WHATWG, a host whose last label is numeric is an IPv4 address or
// invalid: ok is false only for a host that does not end in a number.
func parseNumericIPv4(h string) (netip.Addr, bool, error) {
	parts := strings.Split(h, ".")
	if len(parts) > 1 && parts[len(parts)-1] == "" {
		parts = parts[:len(parts)-1]
	}
	last := parts[len(parts)-1]
	if !looksNumeric(last) {
		return netip.Addr{}, false, nil
	}
	invalid := fmt.Errorf("host %q looks like an IPv4 address but is not a valid one", h)
	if len(parts) > 4 {
		return netip.Addr{}, false, invalid
	}
	nums := make([]uint64, len(parts))
	for i, p := range parts {
		n, err := parseIPv4Part(p)
		if err != nil {
			return netip.Addr{}, false, invalid
		}
		nums[i] = n
	}
	for _, n := range nums[:len(nums)-1] {
		if n > 255 {
			return netip.Addr{}, false, invalid
		}
	}
	rest := uint(5 - len(nums)) // bytes the last part fills
	if nums[len(nums)-1] >= 1<<(8*rest) {
		return netip.Addr{}, false, invalid
	}
	var v uint64
	for _, n := range nums[:len(nums)-1] {
		v = v<<8 | n
	}
	v = v<<(8*rest) | nums[len(nums)-1]
	return netip.AddrFrom4([4]byte{byte(v >> 24), byte(v >> 16), byte(v >> 8), byte(v)}), true, nil
}

// looksNumeric reports whether a label is a number in the WHATWG sense:
// all decimal digits, or "0x" followed by hexadecimal digits (possibly none).
func looksNumeric(s string) bool {
	if s == "" {
		return false
	}
	if rest, ok := strings.CutPrefix(strings.ToLower(s), "0x"); ok {
		for i := 0; i < len(rest); i++ {
			if !isHex(rest[i]) {
				return false
			}
		}
		return true
	}
	for i := 0; i < len(s); i++ {
		if s[i] < '0' || s[i] > '9' {
			return false
		}
	}
	return true
}

func isHex(c byte) bool {
	return '0' <= c && c <= '9' || 'a' <= c && c <= 'f' || 'A' <= c && c <= 'F'
}

func parseIPv4Part(p string) (uint64, error) {
	if p == "" {
		return 0, errors.New("empty")
	}
	base := 10
	lp := strings.ToLower(p)
	switch {
	case strings.HasPrefix(lp, "0x"):
		base, p = 16, p[2:]
		if p == "" {
			return 0, nil
		}
	case len(p) > 1 && p[0] == '0':
		base, p = 8, p[1:]
	}
	n, err := strconv.ParseUint(p, base, 64)
	if err != nil || n > 1<<32-1 {
		return 0, errors.New("out of range")
	}
	return n, nil
}

func (c *compiled) checkHost(host string) error {
	if host == "" {
		return errors.New("empty host")
	}
	for i := 0; i < len(host); i++ {
		if host[i] >= 0x80 {
			return fmt.Errorf("host %q is not ASCII (write an internationalized name in its xn-- form)", host)
		}
	}
	addr, isAddr, err := hostAddr(host)
	if err != nil {
		return err
	}
	if isAddr {
		return c.checkAddr("", addr, false)
	}
	name := strings.TrimSuffix(strings.ToLower(host), ".")
	if !netclass.ValidName(name) {
		return fmt.Errorf("host %q is not a valid host name", host)
	}
	what := "host " + name
	for _, e := range c.deny {
		if e.matchName(name) {
			return &DeniedError{What: what, Why: fmt.Sprintf("matches DenyHosts entry %q", e.raw)}
		}
	}
	if netclass.MetadataName(name) {
		return &DeniedError{What: what, Why: "is a cloud metadata endpoint"}
	}
	if len(c.allow) > 0 && !c.allowedName(name) {
		return &DeniedError{What: what, Why: "is not in AllowHosts"}
	}
	if name == "localhost" || strings.HasSuffix(name, ".localhost") {
		// RFC 6761: these always resolve to loopback. Judge them as such
		// now for a clear message; the dial-time check applies as well.
		for _, a := range []netip.Addr{netip.AddrFrom4([4]byte{127, 0, 0, 1}), netip.IPv6Loopback()} {
			if c.privateAllowed(a) {
				return nil
			}
		}
		return &DeniedError{What: what, Why: "is loopback", Hint: c.privateHint}
	}
	return nil
}

func (c *compiled) allowedName(name string) bool {
	for _, e := range c.allow {
		if e.matchName(name) {
			return true
		}
	}
	return false
}

func (c *compiled) privateAllowed(a netip.Addr) bool {
	if c.allowPrivate {
		return true
	}
	for _, e := range c.allow {
		if e.matchAddr(a) {
			return true
		}
	}
	return false
}

// checkAddr checks addr. host is the name that addr was resolved from, or ""
// when the URL named the address itself; only then must AllowHosts (when
// not empty) list the address, since a name was already checked against it.
// underDial marks the last check made on the connected socket, which cannot
// tell the two apart and so leaves AllowHosts alone.
func (c *compiled) checkAddr(host string, addr netip.Addr, underDial bool) error {
	addr = addr.WithZone("")
	if addr.Is4In6() {
		addr = addr.Unmap()
	}
	what := "address " + addr.String()
	if host != "" {
		what = fmt.Sprintf("address %s (of host %s)", addr, host)
	}
	if !addr.IsValid() {
		return &DeniedError{What: what, Why: "is not a valid address"}
	}
	for _, e := range c.deny {
		if e.matchAddr(addr) {
			return &DeniedError{What: what, Why: fmt.Sprintf("matches DenyHosts entry %q", e.raw)}
		}
	}
	class, always := netclass.Classify(addr)
	if always {
		return &DeniedError{What: what, Why: "is " + class}
	}
	if host == "" && !underDial && len(c.allow) > 0 && !slices.ContainsFunc(c.allow, func(e hostEntry) bool { return e.matchAddr(addr) }) {
		return &DeniedError{What: what, Why: "is not in AllowHosts"}
	}
	if class != "" && !c.privateAllowed(addr) {
		return &DeniedError{What: what, Why: "is " + class, Hint: c.privateHint}
	}
	return nil
}

// Resolver resolves a host name to the addresses a connection to it may
// be made to; nil means the system's resolver (net.DefaultResolver). It
// must be safe for concurrent use.
type Resolver func(ctx context.Context, host string) ([]netip.Addr, error)

func defaultLookup(ctx context.Context, host string) ([]netip.Addr, error) {
	return net.DefaultResolver.LookupNetIP(ctx, "ip", host)
}

// policyDialer dials only addresses that a policy allows: it resolves the
// host itself, drops the denied addresses, and checks the connected address
// once more in the dialer's Control hook.
type policyDialer struct {
	policy *compiled
	lookup Resolver
	dialer net.Dialer
}

func newPolicyDialer(c *compiled, lookup Resolver) *policyDialer {
	if lookup == nil {
		lookup = defaultLookup
	}
	d := &policyDialer{policy: c, lookup: lookup}
	d.dialer.Control = func(network, address string, _ syscall.RawConn) error {
		ap, err := netip.ParseAddrPort(address)
		if err != nil {
			return fmt.Errorf("dial %s: cannot check address: %v", address, err)
		}
		return c.checkAddr("", ap.Addr(), true)
	}
	return d
}

// DialContext connects to addr ("host:port") if the policy allows it.
func (d *policyDialer) DialContext(ctx context.Context, network, addr string) (net.Conn, error) {
	host, port, err := net.SplitHostPort(addr)
	if err != nil {
		return nil, err
	}
	if err := d.policy.checkHost(host); err != nil {
		return nil, err
	}
	var addrs []netip.Addr
	if a, ok, _ := hostAddr(host); ok {
		addrs = []netip.Addr{a}
		host = ""
	} else {
		addrs, err = d.lookup(ctx, host)
		if err != nil {
			return nil, err
		}
		if len(addrs) == 0 {
			return nil, fmt.Errorf("lookup %s: no addresses", host)
		}
	}
	var firstErr error
	for _, a := range addrs {
		if err := d.policy.checkAddr(host, a, false); err != nil {
			if firstErr == nil {
				firstErr = err
			}
			continue
		}
		conn, err := d.dialer.DialContext(ctx, network, net.JoinHostPort(a.Unmap().String(), port))
		if err == nil {
			return conn, nil
		}
		if ctx.Err() != nil {
			return nil, err
		}
		if firstErr == nil || errors.Is(firstErr, ErrDenied) {
			firstErr = err
		}
	}
	return nil, firstErr
}
