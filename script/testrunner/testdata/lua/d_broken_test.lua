function test_never()
end
local x = = 1
