-- Passing tests: every assertion, mocks, the fixed clock, fresh state.
tool{name = "double", fn = function(args) return args.n * 2 end,
     parameters = {type = "object", properties = {n = {type = "number"}}, required = {"n"}}}

function test_asserts()
  assert.eq(1 + 1, 2)
  assert.eq({a = {1, 2}}, {a = {1, 2}})
  assert.ne("a", "b")
  assert["true"](true)
  assert.is_true(0) -- 0 is true in Lua
  assert(1 == 1, "Lua's own assert still works")
  assert.contains("haystack", "st")
  assert.contains({"a", "b"}, "b")
  assert.contains({k = 1}, "k")
  local msg = assert.fails(function() error("boom") end, "bo+m")
  assert.eq(msg, "boom")
end

function test_tool()
  assert.eq(invoke_tool("double", {n = 21}).output, "42")
end

function test_mock()
  mock_tool("double", "mocked")
  assert.eq(invoke_tool("double", {n = 1}).output, "mocked")
  -- The stand-in keeps the real tool's schema.
  assert.eq(invoke_tool("double", {n = "x"}).error_kind, "invalid_arguments")
  mock_tool("fetch", function(args) return "fetched " .. args.url end)
  assert.eq(invoke_tool("fetch", {url = "u"}).output, "fetched u")
end

function test_mock_gone()
  assert.eq(invoke_tool("double", {n = 2}).output, "4")
  assert.eq(get_tool("fetch"), nil)
end

function test_clock()
  assert.eq(time.now().year, 2025)
  assert.eq(os.time(), 1735689600)
  assert.eq(os.date("!%Y-%m-%d"), "2025-01-01")
end

function test_state_is_fresh()
  assert.eq(state.incr("n"), 1)
end

function test_state_is_fresh_again()
  assert.eq(state.incr("n"), 1)
end

local function test_local_is_not_a_test()
  error("never runs")
end
