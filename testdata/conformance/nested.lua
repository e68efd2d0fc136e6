-- Nested invoke_tool: script tools calling script and Go tools, recursion,
-- a tool running a batch, and hooks and middleware calling tools. Nested
-- calls go through the whole pipeline too.
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
local state = require("state")

tool{name = "inner", concurrency_safe = true,
     parameters = {type = "object", properties = {x = {type = "string"}}, required = {"x"}},
     fn = function(args) return "inner(" .. args.x .. ")" end}

tool{name = "outer", fn = function(args)
  local a = invoke_tool("inner", {x = args.x .. "1"})
  local b = invoke_tool("inner", {x = args.x .. "2"})
  local bad = invoke_tool("inner", {x = 3})
  return "outer[" .. a.output .. "," .. b.output .. "," .. bad.error_kind .. "]"
end}

tool{name = "fact", fn = function(args)
  local n = args.n
  if n <= 1 then
    return "1"
  end
  local r = invoke_tool("fact", {n = n - 1})
  return string.format("%d", n * tonumber(r.output))
end}

tool{name = "fan_out", fn = function(args)
  local calls = {}
  for i, x in ipairs(args.xs) do
    calls[i] = {"inner", {x = x}}
  end
  local outputs = {}
  for i, r in ipairs(invoke_all(calls, {mode = "parallel"})) do
    outputs[i] = r.output
  end
  return {outputs = outputs}
end}

tool{name = "audit", fn = function(args)
  local n = state.incr("audit:" .. args.event)
  return args.event .. " #" .. string.format("%d", n)
end}

-- A before hook, a middleware and an after hook, each calling a tool.
local function audit_before(call)
  local r = invoke_tool("audit", {event = "before " .. call.name})
  if not r.ok then
    return deny("audit failed")
  end
  return nil
end
before(audit_before, {tools = {"outer", "fan_out"}})

local function tag(call, next)
  local echo = invoke_tool("go_echo", {tag = call.name})
  local r = next(call)
  return r.output .. " via " .. echo.output
end
middleware(tag, {tools = {"outer"}})

local function audit_after(call, result)
  invoke_tool("audit", {event = "after " .. call.name .. " ok=" .. json.encode(result.ok)})
end
after(audit_after, {tools = {"outer", "fan_out"}})

print("outer: " .. values(invoke_tool("outer", {x = "a"})))
print("fact(10): " .. values(invoke_tool("fact", {n = 10})))
print("fan_out: " .. values(invoke_tool("fan_out", {xs = {"p", "q", "r", "s"}})))

for _, mode in ipairs({"serial", "parallel", "mixed"}) do
  local rs = invoke_all({{"outer", {x = "b"}}, {"fact", {n = 5}}, {"fan_out", {xs = {"t", "u"}}},
                         {"inner", {x = "v"}}, {"outer", {x = "c"}}}, {mode = mode})
  local outputs = {}
  for i, r in ipairs(rs) do
    outputs[i] = r.output
  end
  print(mode .. ": " .. json.encode(outputs))
end

print("audit log:")
for _, k in ipairs(state.keys()) do
  print("  " .. k .. " = " .. json.encode(state.get(k)))
end
