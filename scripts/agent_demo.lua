-- agent_demo.lua: agent_demo.star in Lua. It prints the same transcript:
--
--   go run ./cmd/agentsh --workdir "$(mktemp -d)" run scripts/agent_demo.lua
--
-- A scripted model (model(fn)) searches a small tree, edits a file, has
-- one edit refused by a policy, and answers. It writes files, so run it in
-- an empty --workdir.

-- --- 1. A tree to work on. ---

if not invoke_tool("list_dir", {}).output:find("is empty]$") then
  error('the working directory is not empty; run me with --workdir "$(mktemp -d)"')
end

local FILES = {
  ["src/greet.py"] = "def greet(name):\n    # TODO: greet properly\n    return name\n",
  ["src/add.py"] = "def add(a, b):\n    return a + b\n",
  ["docs/notes.md"] = "# Notes\n\nTODO: write the docs\n",
}
local paths = {}
for path in pairs(FILES) do table.insert(paths, path) end
table.sort(paths)
for _, path in ipairs(paths) do
  invoke_tool("write_file", {path = path, content = FILES[path]})
end

-- --- 2. The policy: the agent may write only under src/. ---
--
-- The model's calls of tools that are not read-only (write_file,
-- edit_file) ask for approval unless a policy decides; this one allows
-- what is under src/ and denies the rest.

local function writes_in_src(call)
  if (call.args.path or ""):sub(1, 4) ~= "src/" then
    return deny("writes are allowed only under src/")
  end
  return allow("src/ is the agent's to edit")
end

before(writes_in_src, {tools = {"write_file", "edit_file"}})

-- --- 3. The model: it reads the conversation and picks the next step. ---

-- tool_results returns the tool messages since the last assistant turn,
-- by tool name.
local function tool_results(messages)
  local out = {}
  for i = #messages, 1, -1 do
    if messages[i].role ~= "tool" then break end
    out[messages[i].name] = messages[i]
  end
  return out
end

local function scripted_model(messages, tools)
  local turn = 0
  for _, m in ipairs(messages) do
    if m.role == "assistant" then turn = turn + 1 end
  end
  if turn == 0 then
    return {content = "Looking for TODOs.",
            tool_calls = {{name = "grep", args = {pattern = "TODO", output_mode = "files_with_matches"}}}}
  elseif turn == 1 then
    local files, found = {}, tool_results(messages).grep.content
    for f in found:gmatch("%S+") do table.insert(files, f) end
    return {content = "Found TODOs in " .. table.concat(files, ", ") .. "; fixing both.", tool_calls = {
      {name = "edit_file", args = {path = "src/greet.py",
                                   old_string = "    # TODO: greet properly\n    return name",
                                   new_string = '    return "Hello, %s!" % name'}},
      {name = "edit_file", args = {path = "docs/notes.md",
                                   old_string = "TODO: write the docs", new_string = "See src/."}},
    }}
  elseif turn == 2 then
    return {content = "Checking the result.",
            tool_calls = {{name = "read_file", args = {path = "src/greet.py"}}}}
  end
  local refused = {}
  for _, m in ipairs(messages) do
    if m.role == "tool" and m.is_error then table.insert(refused, m) end
  end
  return string.format("Fixed the TODO in src/greet.py. %d edit was refused: %s",
    #refused, refused[1] and refused[1].content or "none")
end

model(scripted_model)

-- --- 4. Lifecycle hooks watch the conversation. ---

local function count_requests(event)
  state.incr("model requests")
end

local function note_calls(event)
  local calls = event.response.tool_calls
  if #calls > 0 then
    print(string.format("  (turn %d: %d tool call%s)", event.turn, #calls, #calls == 1 and "" or "s"))
  end
end

on("before_model", count_requests)
on("after_model", note_calls)

-- --- 5. Ask. ---

local reply = ask("Fix the TODOs in this project.", {max_turns = 6})
print("---")
print(string.format("turns: %d, tool calls: %d, stopped: %s", reply.turns, reply.tool_calls, reply.stop))
print("model requests: " .. state.get("model requests"))
print("src/greet.py now:")
print(invoke_tool("read_file", {path = "src/greet.py"}).output)
