-- invoke_all in the three execution modes with tools that are explicitly
-- safe, explicitly unsafe and undeclared, in Lua and in Go. Results come
-- back in call order whatever the schedule; call IDs are assigned in call
-- order before anything runs. The Go tool go_unsafe reports whether
-- another Go fixture call ran while it did: an unsafe call is a barrier in
-- every mode, so it always runs alone.
local json = require("json")

local function make(name)
  return function(args)
    return name .. " " .. json.encode(args)
  end
end

tool{name = "s_safe", fn = make("s_safe"), concurrency_safe = true}
tool{name = "s_unsafe", fn = make("s_unsafe"), concurrency_safe = false}
tool{name = "s_undeclared", fn = make("s_undeclared")}

for _, name in ipairs({"s_safe", "s_unsafe", "s_undeclared", "go_safe", "go_unsafe", "go_undeclared"}) do
  print(name .. ": " .. json.encode(get_tool(name).concurrency_safe))
end
print(json.encode(get_tool("s_undeclared")))

local calls = {
  {"s_safe", {i = 1}},
  {"go_safe", {i = 2}},
  {"go_safe", {i = 3}},
  {"s_unsafe", {i = 4}},
  {"go_unsafe", {i = 5}},
  {"s_undeclared", {i = 6}},
  {"go_undeclared", {i = 7}},
  {"go_safe", {i = 8}},
  {"go_unsafe", {i = 9}},
  {"s_safe", {i = 10}},
  {"go_undeclared", {i = 11}},
  {"go_safe", {i = 12}},
}

local function report(label, rs)
  print(label .. ":")
  for _, r in ipairs(rs) do
    print("  " .. r.call_id .. " " .. r.tool .. " ok=" .. json.encode(r.ok) .. " " .. r.output)
  end
end

for _, mode in ipairs({"serial", "parallel", "mixed"}) do
  report("mode " .. mode, invoke_all(calls, {mode = mode}))
end

report("mixed, concurrency 2, dict calls",
       invoke_all({{name = "go_safe", args = {i = 1}},
                   {name = "s_undeclared", args = {i = 2}},
                   {name = "go_safe", args = {i = 3}},
                   {name = "go_unsafe", args = {i = 4}},
                   {name = "go_safe", args = {i = 5}}},
                  {mode = "mixed", concurrency = 2}))

report("configured mode", invoke_all({unpack(calls, 1, 6)}))

print("empty batch: " .. tostring(#invoke_all({})))
