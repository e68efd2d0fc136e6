package process

import "errors"

// Proxy is agentsh's loopback HTTP(S) proxy for sandboxed commands: it
// accepts CONNECT to the allowed host names and nothing else.
type Proxy struct{}

// StartProxy starts a Proxy that lets through the hosts in allow.
func StartProxy(allow []string) (*Proxy, error) {
	return nil, errors.New("process: the network proxy is not built yet")
}

// SetAllowed replaces the allowed hosts.
func (p *Proxy) SetAllowed(allow []string) {}

// Close stops the proxy.
func (p *Proxy) Close() error { return nil }

func checkHostPattern(h string) error { return nil }
