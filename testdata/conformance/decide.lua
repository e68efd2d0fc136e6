-- decide(name, args, origin) evaluates the before hooks, the approval step
-- and validation for a call without running it: no tool, no middleware,
-- no after hook, and hooks' state writes land on a throwaway copy. The
-- default depends on who calls (a person's calls run; a model's run only
-- for read-only tools) and on config(permissions = ...).

local function record(d)
  local s = "    " .. d.stage .. " " .. d.hook .. " " .. d.verdict
  if d.skipped then s = s .. " skipped" end
  return s
end

local function ruling(label, r)
  local s = label .. ": " .. r.outcome .. " by " .. r.hook .. " (" .. r.reason .. ")"
  if r.error_kind ~= nil then s = s .. " error_kind " .. r.error_kind end
  s = s .. " args " .. json.encode(r.args) .. " truthy " .. (r.outcome == "allow" and "True" or "False")
  print(s)
  for _, d in ipairs(r.decisions) do print(record(d)) end
end

local function result(label, r)
  if r.ok then
    print(label .. ": ok " .. r.output)
  else
    print(label .. ": " .. r.error_kind .. " " .. json.encode(r.error))
  end
  for _, d in ipairs(r.decisions) do print(record(d)) end
end

tool{name = "write", fn = function(args)
       print("  RAN write " .. args.path)
       return "wrote " .. args.path
     end,
     parameters = {type = "object", properties = {path = {type = "string"}}, required = {"path"}}}
tool{name = "look", fn = function(args) return "looked" end, read_only = true}

local function counter(call)
  local n = state.incr("calls")
  local path = call.args.path or ""
  if call.name ~= "write" or type(path) ~= "string" then return nil end
  if path:sub(1, 1) == "/" then return deny("absolute path, call " .. n) end
  return rewrite({path = "sandbox/" .. path})
end

local function probe(call)
  if call.name == "look" and call.args.probe then
    -- A call made while deciding runs its before stages but no tool.
    local r = invoke_tool("write", {path = "from-probe"})
    print("  probe: " .. r.error_kind .. " " .. json.encode(r.error))
  end
  return nil
end

before(counter)
before(probe)
local function audit(call, r) print("  after " .. call.name) end
after(audit)
middleware(function(call, next) return next(call) end)

ruling("person write", decide("write", {path = "a.txt"}))
ruling("model write", decide("write", {path = "a.txt"}, {origin = "model"}))
ruling("model look", decide("look", {}, {origin = "model"}))
ruling("absolute", decide("write", {path = "/etc/passwd"}))
ruling("unknown", decide("nope", {x = 1}))
ruling("invalid json", decide("write", "[1, 2]"))
ruling("schema", decide("write", {path = 3}))
ruling("probe", decide("look", {probe = true}))
print("calls counted while deciding: " .. state.get("calls", 0))

result("run write", invoke_tool("write", {path = "a.txt"}))
result("run unknown", invoke_tool("nope", {x = 1}))
result("run invalid", invoke_tool("write", "[1, 2]"))
result("run schema", invoke_tool("write", {path = 3}))
print("calls counted: " .. state.get("calls", 0))

config{permissions = "deny-unlisted"}
ruling("deny-unlisted look", decide("look", {}))
config{permissions = "allow-all"}
ruling("allow-all model write", decide("write", {path = "b"}, {origin = "model"}))
print("permissions: " .. config{permissions = "default"}.permissions)
