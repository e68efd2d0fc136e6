-- Loaded before cross_policy.star, on the same host: a Lua tool and a Lua
-- policy that the Starlark program uses and is subject to.

tool{name = "shout", description = "Shouts text.",
     parameters = {type = "object",
                   properties = {text = {type = "string"}, by = {type = "string"}},
                   required = {"text"}},
     fn = function(args)
       return string.upper(args.text) .. "! (" .. (args.by or "?") .. ")"
     end}

local function no_swearing(call)
  local text = call.args.text or ""
  if string.find(text, "darn", 1, true) then
    return deny("language")
  end
  return nil
end
before(no_swearing, {tools = {"whisper"}})

print("prelude: shout and no_swearing defined")
