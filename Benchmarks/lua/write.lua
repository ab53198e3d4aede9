-- Writers: PUT /v1/lists/load-<k> with a document of 3 sections x 10 items, one item's model changed
-- (a counter unique per thread), the item order rotated, so every write makes a revision with a small diff.
-- env: LD_LISTS (default 100); LD_IDEMPOTENCY=1 sends each write with an Idempotency-Key of its own.
dofile("Benchmarks/lua/common.lua")
local n = 0
local keyed = os.getenv("LD_IDEMPOTENCY") == "1"
function init(args)
  n = (tid or 1) * 1000003
  math.randomseed(tid or 1)
end

function request()
  n = n + 1
  local k = math.random(0, lists - 1)
  local secs = {}
  for s = 1, 3 do
    local items = {}
    local rot = (s == 1) and (n % 10) or 0
    for j = 0, 9 do
      local i = (j + rot) % 10
      local model = '{"n":' .. i .. ',"text":"item ' .. s .. '-' .. i .. '"}'
      if s == 2 and i == 0 then model = '{"writer":' .. n .. '}' end
      items[#items + 1] = '{"id":"i' .. s .. '-' .. i .. '","cell":"C","model":' .. model .. '}'
    end
    secs[#secs + 1] = '{"id":"s' .. s .. '","title":"Section ' .. s .. '","items":[' .. table.concat(items, ",") .. ']}'
  end
  local body = '{"kind":"sections","sections":[' .. table.concat(secs, ",") .. ']}'
  local headers = {["Content-Type"] = "application/json"}
  if keyed then headers["Idempotency-Key"] = "w" .. (tid or 1) .. "-" .. n end
  return wrk.format("PUT", "/v1/lists/load-" .. k, headers, body)
end
