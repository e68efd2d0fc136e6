-- Pipeline order: tool-specific before hooks, global before
-- hooks, middleware (first registered = outermost), the tool, global after
-- hooks, tool-specific after hooks. Every stage prints one line.
-- values renders a result's values, the same way in both languages (str(r)
-- spells a result as Starlark does, tostring(r) as Lua does).
local function values(r)
  if not r.ok then return r.error_kind .. ": " .. json.encode(r.error) end
  local s = "ok: " .. json.encode(r.output)
  if r.for_user ~= r.output then s = s .. " for_user=" .. json.encode(r.for_user) end
  if r.silent then s = s .. " silent" end
  return s
end

local json = require("json")

tool{name = "echo", description = "Echoes msg.",
     parameters = {type = "object", properties = {msg = {type = "string"}},
                   required = {"msg"}},
     fn = function(args)
       print("  tool echo: " .. args.msg)
       return "echo:" .. args.msg
     end}

tool{name = "other", fn = function(args)
  print("  tool other")
  return "other"
end}

-- Registered global-first: the order of stages does not follow the order of
-- registration across stages, only within one.
local function before_global_1(call)
  print("  before global 1: " .. call.id .. " " .. call.name .. " args=" .. json.encode(call.args) .. " raw=" .. call.raw)
end
before(before_global_1)

local function before_echo_1(call)
  print("  before echo-specific 1: " .. call.name)
end
before(before_echo_1, {tools = {"echo"}})

local function before_global_2(call)
  print("  before global 2: " .. call.name)
end
before(before_global_2)

local function before_echo_2(call)
  print("  before echo-specific 2 (glob ec*): " .. call.name)
end
before(before_echo_2, {tools = {"ec*"}})

local function mw_outer(call, next)
  print("  middleware 1 enter: " .. call.name)
  local r = next(call)
  print("  middleware 1 exit: " .. call.name .. " output=" .. r.output)
  return r
end
middleware(mw_outer)

local function mw_inner(call, next)
  print("  middleware 2 enter: " .. call.name)
  local r = next(call)
  print("  middleware 2 exit: " .. call.name)
  return r
end
middleware(mw_inner)

local function mw_other_only(call, next)
  print("  middleware other-only: " .. call.name)
  return next(call)
end
middleware(mw_other_only, {tools = {"other"}})

local function after_echo(call, result)
  print("  after echo-specific: " .. call.name .. " ok=" .. json.encode(result.ok))
end
after(after_echo, {tools = {"echo"}})

local function after_global(call, result)
  print("  after global: " .. call.name .. " output=" .. result.output)
end
after(after_global)

print("call echo")
local r = invoke_tool("echo", {msg = "hi"})
print("result: " .. values(r))

print("call other")
r = invoke_tool("other")
print("result: " .. values(r))

print("call missing (global hooks still run)")
r = invoke_tool("missing", {})
print("result: ok=" .. json.encode(r.ok) .. " error_kind=" .. r.error_kind)
