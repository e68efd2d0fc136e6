-- Rejection and rewriting by before hooks and middleware. A rejected call
-- runs no middleware and no tool; after hooks still see it.
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

local function copy(t)
  local c = {}
  for k, v in pairs(t) do c[k] = v end
  return c
end

tool{name = "store", description = "Pretends to store a file.",
     parameters = {type = "object",
                   properties = {path = {type = "string"},
                                 content = {type = "string"},
                                 mode = {type = "string", enum = {"append", "replace"}}},
                   required = {"path", "content"},
                   additionalProperties = false},
     fn = function(args)
       print("  tool store: " .. args.path)
       return "stored " .. args.path .. " (" .. #args.content .. " bytes)"
     end}

local function no_secrets(call)
  local p = call.args.path or ""
  if p:sub(-4) == ".env" then
    return deny("secrets are off limits")
  end
  return nil
end
before(no_secrets, {tools = {"store"}})

local function sandbox_paths(call)
  local p = call.args.path or ""
  if p:sub(1, 8) ~= "sandbox/" then
    local a = copy(call.args)
    a.path = "sandbox/" .. p
    return rewrite(a)
  end
  return nil
end
before(sandbox_paths, {tools = {"store"}})

local function default_mode(call)
  -- sees the rewrite of the hook before it
  print("  default_mode sees: " .. json.encode(call.args))
  if call.args.mode == nil then
    local a = copy(call.args)
    a.mode = call.args.force_mode or "replace"
    a.force_mode = nil
    return rewrite(a)
  end
  return nil
end
before(default_mode)

local function fail_closed(call)
  if (call.args.path or "") == "sandbox/crash" then
    error("policy bug")
  end
  return nil
end
before(fail_closed)

local function quota(call, next)
  print("  middleware quota: " .. call.args.path)
  if #call.args.content > 10 then
    return deny("over quota")
  end
  return next(call)
end
middleware(quota)

local function audit(call, result)
  local kind = result.error_kind
  if kind == nil then
    kind = "none"
  end
  print("  audit: " .. call.name .. " ok=" .. json.encode(result.ok) .. " error_kind=" .. kind)
end
after(audit)

local function show(label, r)
  print(label .. ": ok=" .. json.encode(r.ok) .. " error_kind=" .. json.encode(r.error_kind) ..
        " output=" .. json.encode(r.output))
end

local function has(r, s)
  return json.encode(r.error ~= nil and string.find(r.error, s, 1, true) ~= nil)
end

print("plain call, rewritten into the sandbox")
show("store notes.txt", invoke_tool("store", {path = "notes.txt", content = "hello"}))

print("denied by a before hook")
local r = invoke_tool("store", {path = "prod.env", content = "KEY=1"})
show("store prod.env", r)
print("reason in error: " .. has(r, "secrets are off limits"))

print("denied by middleware")
r = invoke_tool("store", {path = "big.txt", content = "0123456789abc"})
show("store big.txt", r)
print("reason in error: " .. has(r, "over quota"))

print("a hook that raises rejects (fail closed)")
r = invoke_tool("store", {path = "crash", content = "x"})
show("store crash", r)

print("validation sees the final arguments")
r = invoke_tool("store", {path = "bad.txt", content = "x", force_mode = "truncate"})
print(values(r))
