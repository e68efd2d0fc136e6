//go:build race

package replay

// longLine is the prompt of TestReplayLongLine under the race detector,
// which makes 65 MiB of JSON take 17 s and 1.7 GB: 1 MiB still spans many
// of the reader's buffers.
const longLine = 1 << 20
