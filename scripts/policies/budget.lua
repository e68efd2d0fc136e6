-- budget.lua: cap how often each costly tool may run in one session.
--
--   agentsh --load scripts/policies/budget.lua run scripts/task.star
--
-- A before hook counts the calls of each capped tool in the session store
-- and refuses them once the cap is reached, for every caller (scripts, the
-- model, `agentsh call`). Tools without a cap run freely. A policy written
-- in Lua applies to Starlark tools as well, and the other way round.

local budget = {
  -- calls per session; tools not listed are not capped
  limits = {bash = 20, fetch = 10, browser = 5, run_code = 20, write_file = 50, edit_file = 50},
}

-- used returns how many calls of tool the session has made so far.
function budget.used(tool)
  return state.get("budget." .. tool, 0)
end

local function within_budget(call)
  local limit = budget.limits[call.name]
  if limit == nil then
    return nil
  end
  if budget.used(call.name) >= limit then
    return deny(string.format("%s has used its budget of %d calls this session", call.name, limit))
  end
  state.incr("budget." .. call.name)
end

before(within_budget)

-- The returned table lets a script (or a test) read and change the caps:
--   local budget = require("budget"); budget.limits.bash = 5
return budget
