//go:build !race

package replay

// longLine is the prompt of TestReplayLongLine: past the 64 MiB a line
// was once limited to.
const longLine = 65 << 20
