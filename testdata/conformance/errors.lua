-- Every error kind a call can end with, as scripts see it. Messages made by
-- the host (unknown tool, invalid JSON, schema violations, panics, Go
-- timeouts) are printed whole; errors raised by script code differ in their
-- positions between languages, so only their kind and text are checked.
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

tool{name = "echo",
     parameters = {type = "object",
                   properties = {msg = {type = "string"},
                                 count = {type = "integer", minimum = 1}},
                   required = {"msg"},
                   additionalProperties = false},
     fn = function(args) return "echo:" .. args.msg end}

tool{name = "boom", fn = function(args)
  error("boom: " .. (args.why or "no reason"))
end}

tool{name = "spin", fn = function(args)
  local n = 0
  while true do
    n = n + 1
  end
end}

middleware(timeout("50ms"), {tools = {"spin", "go_sleep"}})

-- After hooks see every outcome; they count them (calls in a parallel batch
-- finish in any order, so nothing is printed from here).
local function kinds(call, result)
  local k = result.error_kind
  if k == nil then
    k = "ok"
  end
  state.incr("after " .. k)
end
after(kinds)

print("unknown tool")
print(values(invoke_tool("ecko", {msg = "x"})))
print(values(invoke_tool("nothing_like_it", {})))

print("invalid JSON arguments (raw strings)")
print(values(invoke_tool("echo", "{not json")))
print(values(invoke_tool("echo", "[1, 2]")))
print(values(invoke_tool("echo", "\"just a string\"")))
print("valid raw JSON")
print(values(invoke_tool("echo", "{\"msg\": \"raw\"}")))
print(values(invoke_tool("echo", "")))

print("schema violations")
print(values(invoke_tool("echo", {msg = 5, count = 0, extra = true})))
print(values(invoke_tool("echo", {})))

print("a tool that raises")
local r = invoke_tool("boom", {why = "disk full"})
print("ok=" .. json.encode(r.ok) .. " error_kind=" .. r.error_kind ..
      " mentions reason=" .. json.encode(string.find(r.error, "boom: disk full", 1, true) ~= nil))

print("a Go tool that panics")
r = invoke_tool("go_panic", {msg = "kaput"})
print(values(r))

print("timeouts")
r = invoke_tool("spin", {})
print("spin: ok=" .. json.encode(r.ok) .. " error_kind=" .. r.error_kind)
r = invoke_tool("go_sleep", {ms = 60000})
print(values(r))
r = invoke_tool("go_sleep", {ms = 1})
print(values(r))

print("errors inside a batch keep their place")
local rs = invoke_all({{"echo", {msg = "a"}}, {"ecko", {}}, {"go_panic", {msg = "b"}},
                       {"boom", {}}, {"echo", "[]"}, {"spin", {}}, {"echo", {msg = "z"}}},
                      {mode = "parallel"})
local kinds_list, outputs = {}, {}
for i, res in ipairs(rs) do
  kinds_list[i] = res.error_kind or agentsh.null
  if res.ok then
    outputs[#outputs + 1] = res.output
  end
end
print(json.encode(kinds_list))
print(json.encode(outputs))

print("after hooks saw")
for _, k in ipairs(state.keys()) do
  print("  " .. k .. ": " .. json.encode(state.get(k)))
end
