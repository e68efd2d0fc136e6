package executor

import (
	"fmt"
	"sort"

	"github.com/agentsh/agentsh/core"
)

// Permissions chooses what happens to a call no before hook decided.
type Permissions int32

const (
	// PermissionsDefault runs a person's calls and a model's calls of
	// read-only tools; a model's other calls ask.
	PermissionsDefault Permissions = iota
	// PermissionsAllowAll runs every call no hook decided. A hook's ask
	// still asks.
	PermissionsAllowAll
	// PermissionsDenyUnlisted denies every call no hook allowed, whoever
	// made it: an allow list.
	PermissionsDenyUnlisted
)

var permissionNames = [...]string{"default", "allow-all", "deny-unlisted"}

// String is the setting's name: default, allow-all or deny-unlisted.
func (p Permissions) String() string {
	if p >= 0 && int(p) < len(permissionNames) {
		return permissionNames[p]
	}
	return fmt.Sprintf("permissions(%d)", int32(p))
}

// ParsePermissions returns the setting named s.
func ParsePermissions(s string) (Permissions, error) {
	for i, n := range permissionNames {
		if n == s {
			return Permissions(i), nil
		}
	}
	return PermissionsDefault, fmt.Errorf("unknown permissions %q: want default, allow-all or deny-unlisted", s)
}

// WithPermissions sets what happens to calls no hook decided.
func WithPermissions(p Permissions) Option { return func(e *Executor) { e.perms.Store(int32(p)) } }

// WithApprover sets who is asked when a call's verdict is ask. Without
// one, such calls are rejected (core.ErrNeedsApproval).
func WithApprover(a core.Approver) Option { return func(e *Executor) { e.SetApprover(a) } }

// Permissions returns the current setting.
func (e *Executor) Permissions() Permissions { return Permissions(e.perms.Load()) }

// SetPermissions changes what happens to calls no hook decided, for calls
// that start from now on.
func (e *Executor) SetPermissions(p Permissions) error {
	if p < PermissionsDefault || p > PermissionsDenyUnlisted {
		return fmt.Errorf("set permissions: got %d, want default, allow-all or deny-unlisted", int32(p))
	}
	e.perms.Store(int32(p))
	return nil
}

// Approver returns who is asked, or nil.
func (e *Executor) Approver() core.Approver {
	if b := e.approver.Load(); b != nil {
		return b.a
	}
	return nil
}

// SetApprover changes who is asked; nil removes the approver, so asks are
// rejected.
func (e *Executor) SetApprover(a core.Approver) {
	if a == nil {
		e.approver.Store(nil)
		return
	}
	e.approver.Store(&approverBox{a})
}

// approverBox lets an interface live in an atomic.Pointer.
type approverBox struct{ a core.Approver }

// ApprovedTools lists the tools approved for the rest of the session
// (an Approval with Always), sorted.
func (e *Executor) ApprovedTools() []string {
	var names []string
	e.approved.Range(func(k, _ any) bool { names = append(names, k.(string)); return true })
	sort.Strings(names)
	return names
}
