-- Subagents: the task tool (the model's) and spawn() (the script's) run a
-- child agent with a conversation of its own on the same executor, so the
-- parent's policies, approver and hooks hold for it. A child cannot call a
-- tool the parent's policy denies: the call is refused, names the child,
-- and the parent's reply lists the denial. A call outside the child's
-- tools is refused too; a child's task nests one level deeper.

tool{name = "write", fn = function(args) return "wrote " .. args.path end,
     parameters = {type = "object", properties = {path = {type = "string"}}, required = {"path"}}}
tool{name = "look", fn = function(args) return "looked" end, read_only = true}

local function no_sub_writes(call)
  if call.parent_agent ~= "" then
    return deny("subagents may not write (" .. call.agent .. ")")
  end
end
before(no_sub_writes, {tools = {"write"}})

local function approver(req)
  print("  approve " .. req.tool .. " for " .. req.agent)
  return true
end
on("approve", approver)

local function audit(call, result)
  local outcome = "ok"
  if not result.ok then outcome = result.error_kind end
  print("  after " .. call.name .. " by " .. call.agent .. " (parent " .. json.encode(call.parent_agent) .. "): " .. outcome)
end
after(audit)

local function before_model(event)
  print("  before_model " .. event.agent .. " turn " .. tostring(event.turn))
end
on("before_model", before_model)

local function first_prompt(messages)
  for _, m in ipairs(messages) do
    if m.role == "user" then return m.content end
  end
  return ""
end

local function answered(messages)
  local n = 0
  for _, m in ipairs(messages) do
    if m.role == "assistant" then n = n + 1 end
  end
  return n
end

local function call(name, args)
  return {tool_calls = {{name = name, args = args}}}
end

-- One tool call a turn, so every mode prints the same.
local function brain(messages, tools)
  local prompt = first_prompt(messages)
  local n = answered(messages)
  local last = messages[#messages].content
  if n == 0 then
    local names = {}
    for i, t in ipairs(tools) do names[i] = t.name end
    print("  " .. prompt .. ": tools " .. json.encode(names))
  else
    print("  " .. prompt .. " read: " .. last)
  end
  if prompt == "delegate" then
    if n == 0 then return call("task", {prompt = "write a.txt", tools = {"write", "look"}}) end
    if n == 1 then return call("write", {path = "parent.txt"}) end
    return "delegated"
  end
  if prompt == "write a.txt" or prompt == "write b.txt" then
    if n == 0 then return call("write", {path = prompt:sub(7)}) end
    return "could not write"
  end
  if prompt == "only look" then
    if n == 0 then return call("write", {path = "c.txt"}) end
    return "looked only"
  end
  if prompt == "nest" then
    if n == 0 then return call("task", {prompt = "write b.txt"}) end
    return "nested"
  end
  return "?"
end
model(brain)

local function show(label, r)
  print(label .. ": " .. r.text .. " (agent " .. r.agent .. ", parent " .. json.encode(r.parent_agent) .. ", stop " .. r.stop .. ")")
  for _, d in ipairs(r.denials) do
    print("  denied " .. d.tool .. " of " .. d.agent .. " by " .. d.hook .. ": " .. d.reason)
  end
end

print("task:")
show("ask", ask("delegate"))
print("spawn:")
show("spawn", spawn("write b.txt", {tools = {"write"}}))
print("outside its tools:")
show("spawn", spawn("only look", {tools = {"look"}, max_turns = 3}))
print("nested:")
show("spawn", spawn("nest"))
print("refused:")
local r = invoke_tool("task", {prompt = "write a.txt", tools = {"nope"}})
print(r.error_kind .. ": " .. r.error)
