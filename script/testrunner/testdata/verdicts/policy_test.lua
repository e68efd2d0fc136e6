local function marker(args) error("a tool ran while deciding") end
tool{name = "bash", fn = marker, replace = true}
tool{name = "write_file", fn = marker, replace = true}

local function no_rm(call)
  if (call.args.command or ""):find("rm -rf", 1, true) then return deny("recursive delete") end
end
before(no_rm, {tools = {"bash"}})

function test_passes()
  local r = assert.denied("bash", {command = "rm -rf ~"}, {reason = "recursive"})
  assert.eq(r.hook, "no_rm")
  assert.eq(r.source:sub(-26), "verdicts/policy_test.lua:5")
  assert.asks("write_file", {path = "a"}, {origin = "model"})
end

function test_wrong_outcome()
  assert.asks("bash", {command = "rm -rf ~"})
end
