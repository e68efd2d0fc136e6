-- quickstart.lua: agentsh in one file, in Lua. It is quickstart.star line
-- for line, and prints the same transcript:
--
--   go run ./cmd/agentsh run scripts/quickstart.lua
--
-- Defines tools, a policy that denies and rewrites, middleware and an audit
-- hook, then runs calls one at a time and as batches in all three execution
-- modes. Every call goes through the same pipeline:
--   tool before hooks -> global before hooks -> middleware -> tool
--     -> global after hooks -> tool after hooks

-- --- 1. Tools: a name, a function, and a JSON Schema for the arguments. ---

tool{
  name = "greet",
  fn = function(args) return "Hello, " .. args.name .. "!" end,
  description = "Greets someone by name.",
  parameters = {
    type = "object",
    properties = {name = {type = "string", minLength = 1}},
    required = {"name"},
  },
  concurrency_safe = true,  -- may overlap other calls
  idempotent = true,        -- safe to run again on failure
}

local function word_count(args)
  local words, longest = 0, 0
  for w in args.text:gmatch("%S+") do
    words = words + 1
    longest = math.max(longest, #w)
  end
  return {words = words, longest = longest}
end

tool{
  name = "word_count",
  fn = word_count,
  description = "Counts the words of a text.",
  parameters = {type = "object", properties = {text = {type = "string"}}, required = {"text"}},
  concurrency_safe = true,
}

local function save_note(args)
  -- Shared state lives in the state module: safe across parallel calls.
  local n = state.incr("notes")
  -- dual(): a short answer for the model, a fuller one for the person.
  return dual("saved", string.format("saved note #%d: %s", n, args.text))
end

tool{
  name = "save_note",
  fn = save_note,
  description = "Saves a note.",
  parameters = {type = "object", properties = {text = {type = "string"}}, required = {"text"}},
  concurrency_safe = false,  -- a write: runs alone, as a barrier
}

-- --- 2. A policy: before hooks deny or rewrite, for every caller. ---

local function no_secrets(call)
  if (call.args.text or ""):lower():find("password", 1, true) then
    return deny("notes must not contain passwords")
  end
end

before(no_secrets, {tools = {"save_note"}})

local function tidy_names(call)
  local name = call.args.name
  if type(name) == "string" and name:match("^%s*(.-)%s*$") ~= name then
    return rewrite({name = name:match("^%s*(.-)%s*$")})
  end
end

before(tidy_names)

-- --- 3. Middleware wraps execution: first registered is outermost. ---

local function count_calls(call, next)
  -- next(call) checks the tool's name and arguments, then runs it: a
  -- call refused there (an unknown tool, bad arguments) never ran.
  local r = next(call)
  if r.ok then
    state.incr("executed." .. call.name)
  end
  return r
end

middleware(count_calls)
middleware(timeout("2s"))

-- --- 4. After hooks see every outcome, rejections included. ---

local function audit(call, result)
  state.incr("outcome." .. (result.ok and "ok" or result.error_kind))
end

after(audit)

-- --- 5. Calls. ---

-- show prints a list of strings as Starlark does: ["a", "b"].
local function show(list)
  local parts = {}
  for i, s in ipairs(list) do parts[i] = string.format("%q", s) end
  return "[" .. table.concat(parts, ", ") .. "]"
end

print("== one call ==")
local r = invoke_tool("greet", {name = "  Ada  "})
print(r.output)

print("== the policy at work ==")
r = invoke_tool("save_note", {text = "my password is hunter2"})
print(r.error_kind .. " | " .. r.error)
r = invoke_tool("save_note", {text = "buy milk"})
print(r.output .. " | " .. r.for_user)

print("== errors are results, not crashes ==")
for _, c in ipairs({{"gret", {name = "Ada"}}, {"greet", {name = 42}}, {"greet", "[1, 2]"}}) do
  r = invoke_tool(c[1], c[2])
  print(r.error_kind .. " | " .. r.error)
end

print("== one batch, three modes, the same results ==")
local batch = {}
for _, n in ipairs({"Ada", "Grace", "Linus"}) do
  table.insert(batch, {"greet", {name = n}})
end
table.insert(batch, {"save_note", {text = "ship it"}})
table.insert(batch, {"word_count", {text = "the quick brown fox"}})
for _, mode in ipairs({"serial", "parallel", "mixed"}) do
  local outputs = {}
  for i, res in ipairs(invoke_all(batch, {mode = mode, concurrency = 2})) do
    outputs[i] = res.output
  end
  print(mode .. " " .. show(outputs))
end

print("== what the hooks and middleware saw ==")
for _, key in ipairs(state.keys()) do
  print(key .. " " .. state.get(key))
end
