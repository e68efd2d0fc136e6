-- Verdicts of before hooks, every pair: hook a (tool-specific) and hook b
-- (global) each return none, allow, ask, deny, an error, a rewrite, or
-- allow, ask or deny with a rewrite. deny > ask > allow > the default; a
-- deny skips the hooks after it; an error denies. No approver is set yet,
-- so an ask is rejected; decide() must agree with what the call did.

local function t(args) return args end
local verdict

local function a(call)
  return verdict("a", call.args.a, call.args)
end
local function b(call)
  return verdict("b", call.args.b, call.args)
end

local KINDS = {"none", "allow", "ask", "deny", "error", "rewrite", "allow+rw", "ask+rw", "deny+rw"}

verdict = function(name, kind, args)
  local reason = name .. " says " .. kind
  if kind == "none" then return nil end
  if kind == "allow" then return allow(reason) end
  if kind == "ask" then return ask(reason) end
  if kind == "deny" then return deny(reason) end
  if kind == "error" then error(name .. " breaks") end
  local new = {}
  for k, v in pairs(args) do new[k] = v end
  new[name .. "_rw"] = true
  if kind == "rewrite" then return rewrite(new) end
  if kind == "allow+rw" then return allow(reason, {args = new}) end
  if kind == "ask+rw" then return ask(reason, {args = new}) end
  return deny(reason, {args = new})
end

-- norm hides where an error was raised, which each language spells its way.
local function norm(s)
  for _, who in ipairs({"a", "b", "approver"}) do
    if s:find(who .. " breaks", 1, true) then return "<" .. who .. " breaks>" end
  end
  return s
end

local function source(s)
  return (s:gsub("%.lua:", ":"))
end

local function record(d)
  local s = d.stage .. " " .. d.hook .. " " .. d.verdict
  if d.skipped then s = s .. " skipped" end
  if d.rewrote then
    s = s .. " rewrote " .. json.encode(d.args_before) .. " -> " .. json.encode(d.args_after)
  end
  if d.reason ~= "" then s = s .. " (" .. norm(d.reason) .. ")" end
  return s
end

local function show(label, r)
  local out
  if r.ok then
    out = "ok " .. r.output
  else
    out = r.error_kind .. " " .. json.encode(norm(r.error))
  end
  print(label .. " -> " .. out)
  for _, d in ipairs(r.decisions) do print("    " .. record(d)) end
end

tool{name = "t", fn = t, description = "Returns its arguments."}
before(a, {tools = {"t"}})
before(b)

print("hooks defined at " .. source(decide("t", {a = "deny", b = "none"}).source) .. " and " ..
      source(decide("t", {a = "none", b = "deny"}).source))

local calls = {}
for _, x in ipairs(KINDS) do
  for _, y in ipairs(KINDS) do
    calls[#calls + 1] = {"t", {a = x, b = y}}
  end
end
local results = invoke_all(calls)
for i, c in ipairs(calls) do
  local args = c[2]
  local ruling = decide("t", args)
  show("a=" .. args.a .. " b=" .. args.b .. " decide=" .. ruling.outcome .. " hook=" .. ruling.hook, results[i])
end
