-- Write flood: PUT /v1/lists/flood-<k> with a 2,000-item list (one item changed per write), counting answers by
-- status so the overload scenario can print how many writes were taken and how many were refused with 503.
-- env: LD_FLOOD_LISTS (default 300), LD_FLOOD_ITEMS (default 2000)
local lists = tonumber(os.getenv("LD_FLOOD_LISTS") or "300")
local size = tonumber(os.getenv("LD_FLOOD_ITEMS") or "2000")
local threads = {}
local n = 0
local items = {}

function setup(thread)
  thread:set("id", #threads + 1)
  table.insert(threads, thread)
end

function init(args)
  ok, busy, other = 0, 0, 0
  math.randomseed(9000 + id)
  for j = 1, size do items[j] = '{"id":"i' .. j .. '","model":{"n":' .. j .. '}}' end
end

function request()
  n = n + 1
  local k = math.random(0, lists - 1)
  items[1] = '{"id":"i1","model":{"writer":' .. (id * 1000003 + n) .. '}}'
  local body = '{"kind":"array","title":"Flood","items":[' .. table.concat(items, ",") .. ']}'
  return wrk.format("PUT", "/v1/lists/flood-" .. k, {["Content-Type"] = "application/json"}, body)
end

function response(status, headers, body)
  if status == 200 or status == 201 then ok = ok + 1 elseif status == 503 then busy = busy + 1 else other = other + 1 end
end

function done(summary, latency, requests)
  local o, b, x = 0, 0, 0
  for _, thread in ipairs(threads) do
    o = o + thread:get("ok")
    b = b + thread:get("busy")
    x = x + thread:get("other")
  end
  io.write(string.format("flood ok=%d busy=%d other=%d p99_s=%.3f\n", o, b, x, latency:percentile(99) / 1e6))
end
