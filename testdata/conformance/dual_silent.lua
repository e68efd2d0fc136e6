-- What a tool returns becomes the result's output (what the model sees),
-- for_user (what a person sees: the output unless set) and silent.
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

tool{name = "plain", fn = function(args) return "just text" end}
tool{name = "both", fn = function(args) return dual("42 rows; first: alpha", "Found 42 rows.") end}
tool{name = "quiet", fn = function(args) return silent("noted for the model") end}
tool{name = "nothing", fn = function(args) return nil end}
tool{name = "structured", fn = function(args)
  return {b = {1, 2, 3}, a = {nested = true, none = agentsh.null}, s = "x"}
end}
tool{name = "listed", fn = function(args) return {"x", 1, false} end}

-- A tool that returns another call's result passes it on unchanged.
tool{name = "relay", fn = function(args) return invoke_tool(args.to, {}) end}

-- Middleware that returns an output makes a new successful result.
local function shout(call, next)
  local r = next(call)
  if not r.ok then
    return r
  end
  return dual(string.upper(r.output), "(shouted) " .. r.for_user)
end
middleware(shout, {tools = {"loud"}})
tool{name = "loud", fn = function(args) return "quiet words" end}

local function show(name)
  local args = {}
  if name == "relay" then
    args = {to = "both"}
  end
  local r = invoke_tool(name, args)
  print(name .. ":")
  print("  output=" .. json.encode(r.output))
  print("  for_user=" .. json.encode(r.for_user))
  print("  silent=" .. json.encode(r.silent) .. " ok=" .. json.encode(r.ok))
  print("  error=" .. json.encode(r.error) .. " error_kind=" .. json.encode(r.error_kind))
  print("  blocks=" .. json.encode(r.blocks) .. " artifact=" .. json.encode(r.artifact))
  print("  " .. values(r))
end

for _, name in ipairs({"plain", "both", "quiet", "nothing", "structured", "listed", "relay", "loud"}) do
  show(name)
end

local r = invoke_tool("relay", {to = "quiet"})
print("relay quiet: " .. values(r))
