-- Unknown ids: GET /v1/lists/<random id> for ids that no list has (a flood that once stalled the loops on disk).
dofile("Benchmarks/lua/common.lua")
local n = 0
function init(args)
  math.randomseed(7000 + (tid or 1))
end

function request()
  n = n + 1
  return wrk.format("GET", "/v1/lists/unknown-" .. math.random(1, 2147483647) .. "-" .. n)
end
