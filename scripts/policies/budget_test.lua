-- Tests of budget.lua: agentsh test scripts/policies
local budget = require("budget")

local function run_bash()
  return invoke_tool("bash", {command = "true"})
end

function test_capped_tool_stops_at_its_limit()
  mock_tool("bash", "done")
  budget.limits.bash = 3
  for i = 1, 3 do
    assert.eq(run_bash().output, "done", "call " .. i)
  end
  local r = run_bash()
  assert.eq(r.error_kind, "rejected")
  assert.contains(r.error, "bash has used its budget of 3 calls this session")
  assert.eq(budget.used("bash"), 3)
end

function test_rejected_calls_do_not_count()
  mock_tool("bash", "done")
  budget.limits.bash = 1
  run_bash()
  run_bash()
  run_bash()
  assert.eq(budget.used("bash"), 1)
end

function test_uncapped_tools_run_freely()
  mock_tool("read_file", "text")
  for _ = 1, 100 do
    assert.eq(invoke_tool("read_file", {path = "a.txt"}).output, "text")
  end
  assert.eq(budget.used("read_file"), 0)
end

function test_each_test_starts_a_new_session()
  mock_tool("fetch", "page")
  assert.eq(budget.used("fetch"), 0)
  assert.eq(invoke_tool("fetch", {url = "https://example.com"}).output, "page")
  assert.eq(budget.used("fetch"), 1)
end

function test_caps_hold_for_batches()
  mock_tool("browser", "shot")
  budget.limits.browser = 2
  local calls = {}
  for i = 1, 4 do
    calls[i] = {"browser", {url = "https://example.com/" .. i, action = "text"}}
  end
  local kinds = {}
  for i, r in ipairs(invoke_all(calls, {mode = "serial"})) do
    kinds[i] = r.ok and "ok" or r.error_kind
  end
  assert.eq(kinds, {"ok", "ok", "rejected", "rejected"})
end
