-- Shared by the wrk scripts (load-test.sh runs wrk from the repository root): each thread gets a number.
lists = tonumber(os.getenv("LD_LISTS") or "100")
local counter = 0

function setup(thread)
  counter = counter + 1
  thread:set("tid", counter)
end
