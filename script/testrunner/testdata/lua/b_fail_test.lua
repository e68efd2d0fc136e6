function test_eq()
  print("about to compare")
  assert.eq(1 + 1, 3, "arithmetic")
end

function test_error()
  local t = nil
  return t.field
end

function test_fails_without_error()
  assert.fails(function() end)
end

function test_contains()
  assert.contains({"a"}, "z")
end
