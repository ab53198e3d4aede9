-- Readers: alternately a document (current or ?revision=R) and a batch diff with an explicit `to`
-- between revisions 1..LD_BASE_REVS that every list has (created by load-test.sh).
-- env: LD_LISTS (default 100), LD_BASE_REVS (default 5)
dofile("Benchmarks/lua/common.lua")
local base = tonumber(os.getenv("LD_BASE_REVS") or "5")
local n = 0
function init(args)
  math.randomseed(100 + (tid or 1))
end

function request()
  n = n + 1
  local k = math.random(0, lists - 1)
  local m = n % 3
  if m == 0 then
    return wrk.format("GET", "/v1/lists/load-" .. k)
  elseif m == 1 then
    return wrk.format("GET", "/v1/lists/load-" .. k .. "?revision=" .. math.random(1, base))
  else
    local a = math.random(0, base)
    local b = math.random(1, base)
    return wrk.format("GET", "/v1/lists/load-" .. k .. "/diff?from=" .. a .. "&to=" .. b)
  end
end
