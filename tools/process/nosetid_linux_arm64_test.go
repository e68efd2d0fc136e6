package process

// legacyCalls: arm64 has no calls beyond the common ones.
func legacyCalls(allow, eperm uint32) []filterCall { return nil }
