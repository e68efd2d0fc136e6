-- A script approver: on("approve", fn) answers the calls that ask. It sees
-- the call and who asked; allow(...) and true run it, deny(...) and false
-- refuse it, allow(reason, {always = true}) approves the tool for the session, and
-- an error or any other answer refuses it (fail closed).

local function norm(s)
  if s:find("approver breaks", 1, true) then return "<approver breaks>" end
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
  for _, d in ipairs(r.decisions) do
    local s = d.stage .. " " .. d.hook .. " " .. d.verdict
    if d.reason ~= "" then s = s .. " (" .. norm(d.reason) .. ")" end
    print("    " .. s)
  end
end

local function approver(req)
  print("  asked: " .. req.tool .. " " .. json.encode(req.args) .. " by " .. req.hook ..
        " because " .. req.reason .. ", origin " .. req.origin .. ", id " .. (req.call_id ~= "" and "True" or "False"))
  local answer = req.args.answer
  if answer == "yes" then return allow("fine") end
  if answer == "true" then return true end
  if answer == "false" then return false end
  if answer == "no" then return deny("not today") end
  if answer == "always" then return allow("for good", {always = true}) end
  if answer == "error" then error("approver breaks") end
  if answer == "rewrite" then return allow("sure", {args = {answer = "other"}}) end
  return 42
end

local function consent(call)
  return ask("writes need consent")
end

tool{name = "write", fn = function(args) return "wrote " .. args.answer end}
tool{name = "erase", fn = function(args) return "erased " .. args.answer end}
before(consent, {tools = {"write", "erase"}})

show("write before an approver", invoke_tool("write", {answer = "yes"}))
on("approve", approver)
for _, answer in ipairs({"yes", "true", "false", "no", "error", "rewrite", "other"}) do
  show("write " .. answer, invoke_tool("write", {answer = answer}))
end

-- decide() says ask and never consults the approver.
print("decide erase: " .. decide("erase", {answer = "no"}).outcome)
show("erase always", invoke_tool("erase", {answer = "always"}))
-- Approved for the session: the approver is not asked again.
show("erase no", invoke_tool("erase", {answer = "no"}))
print("decide erase: " .. decide("erase", {answer = "no"}).outcome)
show("write no", invoke_tool("write", {answer = "no"}))
