-- Long-pollers: GET /v1/lists/load-<k>/diff?from=<rev>&wait=<W> round-robin over the lists.
-- Each wrk thread remembers the latest revision it saw per list (parsed from the diff's "to"), so most
-- requests park until the next write; a stale revision is answered at once and then caught up.
-- env: LD_LISTS (default 100), LD_WAIT (default 5)
dofile("Benchmarks/lua/common.lua")
local wait = tonumber(os.getenv("LD_WAIT") or "5")
local rev = {}
local n = 0
function init(args)
  n = (tid or 1) * 7919
end

function request()
  n = n + 1
  local k = n % lists
  local r = rev[k] or 0
  return wrk.format("GET", "/v1/lists/load-" .. k .. "/diff?from=" .. r .. "&wait=" .. wait)
end

function response(status, headers, body)
  if status == 200 then
    local id = string.match(body, '"id"%s*:%s*"load%-(%d+)"')
    local to = string.match(body, '"to"%s*:%s*(%d+)')
    if id and to then
      local k = tonumber(id)
      local t = tonumber(to)
      if (rev[k] or 0) < t then rev[k] = t end
    end
  end
end
