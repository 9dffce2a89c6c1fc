-- wrk script for bench/autosave.py: one candidate (a session and a round) per wrk thread, one connection each.
-- autosave.py prepends `CSRF_TOKEN = "..."` and `CANDIDATES = {{session_key, round_id, revision}, ...}`.
-- Each save carries the revision the last answer gave; done() prints what every thread had acknowledged, for
-- the no-lost-save check.
local threads = {}

function setup(thread)
  local candidate = CANDIDATES[#threads + 1]
  thread:set("session_key", candidate[1])
  thread:set("round_id", candidate[2])
  thread:set("revision", candidate[3])
  table.insert(threads, thread)
end

function init(args)
  acknowledged = 0
  -- Everything but the body and its length is the same for every save of this connection: built once, so
  -- that wrk's own CPU (which shares the machine with the server) stays close to what a plain GET costs it.
  head = "POST /rounds/" .. round_id .. "/save/ HTTP/1.1\r\n"
    .. "Host: 127.0.0.1\r\n"
    .. "Cookie: sessionid=" .. session_key .. "; csrftoken=" .. CSRF_TOKEN .. "\r\n"
    .. "X-CSRFToken: " .. CSRF_TOKEN .. "\r\n"
    .. "Content-Type: application/json\r\n"
    .. "Content-Length: "
end

function request()
  local body = '{"revision": ' .. revision .. ', "scratch": "note ' .. (revision + 1) .. '"}'
  return head .. #body .. "\r\n\r\n" .. body
end

function response(status, response_headers, body)
  if status == 200 then
    revision = tonumber(body:match('"revision": (%d+)'))
    acknowledged = acknowledged + 1
  elseif status == 409 then -- counted as an error; carry on from the revision the server has
    revision = tonumber(body:match('"current_revision": (%d+)'))
  end
end

function done(summary, latency, requests)
  for _, thread in ipairs(threads) do
    io.write(string.format("candidate %d %d %d\n", thread:get("round_id"), thread:get("acknowledged"),
      thread:get("revision")))
  end
end
