package provider

// A Proxy answers for another provider, as a replay answers for the one it
// recorded. Prices and context windows are those of the provider it
// answers for, so that a replay stops at a budget and compacts where the
// recorded run did.
type Proxy interface {
	Provider
	// Proxied names the provider the next request is answered for, as
	// that provider's Name would (KIND:MODEL), or "" when it is unknown.
	Proxied() string
}

// Identity names the provider that p's next request is priced and sized
// as: the one p answers for when p is a Proxy that knows it, else p.
func Identity(p Provider) string {
	if px, ok := p.(Proxy); ok {
		if name := px.Proxied(); name != "" {
			return name
		}
	}
	return p.Name()
}

// Skipper is a provider whose answers depend on the requests it has
// answered before, such as a recording played in order. When a request's
// answer comes from elsewhere (the journal of a durable run that is
// resumed), Skip tells it the request was answered, so that its next
// answer is the one after.
type Skipper interface {
	Skip(req Request)
}
