package lua

import "testing"

// TestUnlockedRetakesTheLock: code that waits in the host without the
// lock gives it back to the caller even when it panics (a Go panic that
// the pcall around the script turns into a Lua error), so the script's
// own release at its end finds the lock held instead of blocking forever.
func TestUnlockedRetakesTheLock(t *testing.T) {
	e := newEnv(t, Options{})
	in := e.in
	in.lock()
	func() {
		defer func() {
			if recover() == nil {
				t.Fatal("the panic did not reach the caller")
			}
		}()
		in.unlocked(in.main, func() { panic("host failed") })
	}()
	select {
	case in.gil <- struct{}{}:
		t.Fatal("the lock was free after a panic in unlocked")
	default:
	}
	in.release()
}
