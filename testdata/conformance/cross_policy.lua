-- Runs after cross_policy.prelude.star, on the same host: its tool shout
-- (Starlark) gets this file's Lua policies, and its Starlark policy
-- no_swearing applies to this file's tool whisper. cross_policy.star is the
-- same program in Starlark, run after the same prelude in Lua.
local json = require("json")
local state = require("state")

local function copy(t)
  local c = {}
  for k, v in pairs(t) do c[k] = v end
  return c
end

tool{name = "whisper",
     parameters = {type = "object", properties = {text = {type = "string"}}, required = {"text"}},
     fn = function(args) return string.lower(args.text) .. "..." end}

local function not_empty(call)
  if (call.args.text or "") == "" then
    return deny("nothing to say")
  end
  return nil
end
before(not_empty, {tools = {"shout", "whisper"}})

local function sign(call)
  if call.args.by == nil then
    local a = copy(call.args)
    a.by = "anon"
    return rewrite(a)
  end
  return nil
end
before(sign, {tools = {"shout"}})

local function brackets(call, next)
  local r = next(call)
  if not r.ok then
    return r
  end
  return "[" .. r.output .. "]"
end
middleware(brackets)

local function count(call, result)
  local outcome = "ok"
  if not result.ok then
    outcome = result.error_kind
  end
  state.incr(call.name .. " " .. outcome)
end
after(count)

local function show(label, r)
  if r.ok then
    print(label .. ": " .. r.output)
  else
    local reason = string.match(r.error, ".*: (.*)$") or r.error
    print(label .. ": " .. r.error_kind .. " (" .. reason .. ")")
  end
end

show("shout", invoke_tool("shout", {text = "hello"}))
show("shout signed", invoke_tool("shout", {text = "hello", by = "ada"}))
show("shout empty", invoke_tool("shout", {text = ""}))
show("whisper", invoke_tool("whisper", {text = "QUIET"}))
show("whisper swearing", invoke_tool("whisper", {text = "Darn it, darn"}))
show("whisper empty", invoke_tool("whisper", {text = ""}))
show("shout bad args", invoke_tool("shout", {text = 7}))

local rs = invoke_all({{"shout", {text = "a"}}, {"whisper", {text = "B"}}, {"shout", {text = ""}},
                       {"whisper", {text = "darn"}}}, {mode = "parallel"})
local outputs, kinds = {}, {}
for i, r in ipairs(rs) do
  outputs[i] = r.output
  kinds[i] = r.error_kind or agentsh.null
end
print("batch: " .. json.encode(outputs) .. " " .. json.encode(kinds))

for _, k in ipairs(state.keys()) do
  print(k .. ": " .. json.encode(state.get(k)))
end
