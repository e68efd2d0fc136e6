local function marker(args) error("a tool ran while deciding") end
tool{name = "bash", fn = marker, replace = true}

local function no_rm(call)
  if call.args.comand:find("rm", 1, true) then return deny("no rm") end -- a typo: comand is nil
end
before(no_rm, {tools = {"bash"}})

function test_failure_is_not_a_deny()
  assert.denied("bash", {command = "rm -rf ~"})
end

function test_failure_expected()
  local r = assert.denied("bash", {command = "rm -rf ~"}, {hook_error = true, reason = "index a non-table"})
  assert.eq(r.hook, "no_rm")
  assert.eq(r.decisions[1].failed, true)
end

function test_verdict_is_not_a_failure()
  tool{name = "never", fn = marker}
  before(function(call) return deny("never") end, {tools = {"never"}, name = "deny_never"})
  assert.denied("never", {}, {hook_error = true})
end
