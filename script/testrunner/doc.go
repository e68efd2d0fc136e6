// Package testrunner runs script tests: the *_test.star and *_test.lua
// files of agentsh test, and the test files of any other language
// registered with package script (a program imports the bindings it
// wants; the runner knows languages only through script.Interp).
//
// # Tests
//
// Find collects the test files under the given paths: a directory is
// walked recursively, skipping hidden directories and directories named
// testdata (as go test does, unless the directory itself was named); a
// file named explicitly is always run. Every function whose name starts
// with test_ is a test. Run runs the files in sorted order and each file's
// tests in sorted order of their names.
//
// Every test runs on a fresh host, made by Options.NewHost: the file's top
// level is executed again for each test, and then the test function is
// called. So a test sees the file's own tools, hooks and middleware, and
// never what another test registered. The files of Options.Load (of any
// language, so a Lua policy can guard a Starlark test) run on every test's
// host first, as agentsh --load runs them. Options.Run selects tests by
// name (agentsh test -run REGEXP). Tests have, besides the usual script
// names, the assert module (eq, ne, true, is_true, contains, fails),
// mock_tool(name, fn_or_value), which replaces a tool for this test only,
// and skip(reason). time.now() returns a fixed time (Options.Now, by
// default script.TestClock), and every top-level run and call has the step
// budget Options.MaxSteps.
//
// # Report
//
// Run writes one line per test to Options.Out, then a closing line:
//
//	ok   PATH TEST
//	FAIL PATH TEST
//	    ERROR
//	    output:
//	        WHAT THE TEST PRINTED
//	skip PATH TEST: REASON
//	N passed, N failed[, N skipped]
//
// ERROR is the failure with its position (file:line:col) and, where the
// language gives one, a backtrace; every line of it is indented by four
// spaces. The output section appears when the test printed anything
// (including what the file's top level printed for it); with
// Options.Verbose it also appears under passed and skipped tests. A file
// whose top level fails (a syntax error, a failed load) is one failed
// entry, "FAIL PATH" with the error; a file without tests is noted as
// "?    PATH: no test_* functions" and not counted. The report carries no
// durations or timestamps, so the same tests always give the same bytes.
//
// # Concurrency
//
// Run runs one test at a time; Find and Run may be called concurrently
// with themselves as long as NewHost is safe for concurrent use.
package testrunner
