package tools

// SetTestHookWrote makes every write call f after each chunk it puts in
// its temporary file (nil: no hook). For child processes of tests only.
func SetTestHookWrote(f func(tmp string)) { testHookWrote = f }
