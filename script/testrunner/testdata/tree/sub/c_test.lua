function test_ok()
end
