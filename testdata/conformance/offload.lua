-- Artifact offload: with config{offload = N}, results longer than N bytes
-- go to the artifact store; the output becomes a reference with a preview,
-- r.artifact holds its id and size, and artifact_read pages through it.
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

local function contains(list, x)
  for _, v in ipairs(list) do
    if v == x then return true end
  end
  return false
end

tool{name = "big",
     parameters = {type = "object", properties = {n = {type = "integer"}}, required = {"n"}},
     fn = function(args)
       local parts = {}
       for i = 0, args.n - 1 do
         parts[#parts + 1] = tostring(i % 10)
       end
       return table.concat(parts)
     end}

print("before: artifact_read registered=" .. json.encode(contains(tool_names(), "artifact_read")))
local c = config{offload = 64}
print("offload=" .. json.encode(c.offload))
print("after: artifact_read registered=" .. json.encode(contains(tool_names(), "artifact_read")))

local r = invoke_tool("big", {n = 64})
print("64 bytes: artifact=" .. json.encode(r.artifact) .. " output=" .. r.output)

r = invoke_tool("big", {n = 150})
print("150 bytes: artifact=" .. json.encode(r.artifact))
print(r.output)
local id = r.artifact.id

local p = invoke_tool("artifact_read", {id = id, offset = 100, limit = 20})
print("page: " .. values(p))
p = invoke_tool("artifact_read", {id = id, offset = 140})
print("last page: " .. values(p))
p = invoke_tool("artifact_read", {id = id, offset = 151})
print("past the end: ok=" .. json.encode(p.ok) .. " " .. p.error_kind .. ": " .. p.error)
p = invoke_tool("artifact_read", {id = "art_0000000000000000"})
print("unknown: " .. values(p))

-- The same content gives the same artifact.
local again = invoke_tool("big", {n = 150})
print("same id again: " .. json.encode(again.artifact.id == id))

c = config{offload = 0}
print("off: offload=" .. json.encode(c.offload) .. " artifact_read registered=" ..
      json.encode(contains(tool_names(), "artifact_read")))
r = invoke_tool("big", {n = 150})
print("150 bytes, offload off: artifact=" .. json.encode(r.artifact) .. " size=" .. tostring(#r.output))
