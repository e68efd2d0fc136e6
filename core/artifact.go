package core

import "context"

// ArtifactRef points at output that was moved out of the model's context.
type ArtifactRef struct {
	ID   string `json:"id"`
	Size int64  `json:"size"` // bytes
}

// ArtifactStore keeps offloaded tool output. Implementations must be safe
// for concurrent use. IDs should be derived from the content so that the
// same output gets the same reference in every run and execution mode.
type ArtifactStore interface {
	// Put stores data and returns its reference.
	Put(ctx context.Context, data []byte) (ArtifactRef, error)
	// Read returns up to limit bytes from offset, and the artifact's size.
	// An unknown id is an error that names it.
	Read(ctx context.Context, id string, offset, limit int64) (data []byte, size int64, err error)
}
