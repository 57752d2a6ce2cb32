"""The Lua scripts the Redis store (serve/games/redis_store.py) has Redis run: each is one step
that no other worker's command interleaves with, and one round trip. The keys they name are those
redis_store.py's docstring lists."""

# Write a command's clock if nobody wrote the game since it was read (v unchanged), and publish
# what the screens are told in the same step (so they hear the states in the order they were written).
CAS = """
if redis.call('HGET', KEYS[1], 'v') ~= ARGV[1] then return 0 end
redis.call('HSET', KEYS[1], 'clock', ARGV[2], 'v', tonumber(ARGV[1]) + 1)
redis.call('PEXPIRE', KEYS[1], ARGV[4])
local code = redis.call('HGET', KEYS[1], 'code')
if code then redis.call('PEXPIRE', ARGV[8] .. code, ARGV[4]) end
redis.call('ZADD', KEYS[2], ARGV[3], ARGV[5])
if ARGV[6] ~= '' then redis.call('PUBLISH', ARGV[7], ARGV[6]) end
return 1
"""
# Write the whole game (a new one, or its track and settings changed): both versions move on. A
# change (ARGV[6], the version it read) is written only if nobody wrote the game since.
SAVE = """
if ARGV[6] ~= '' and redis.call('HGET', KEYS[1], 'v') ~= ARGV[6] then return false end
local v = redis.call('HINCRBY', KEYS[1], 'v', 1)
local sv = redis.call('HINCRBY', KEYS[1], 'sv', 1)
redis.call('HSET', KEYS[1], 'setup', ARGV[1], 'clock', ARGV[2])
redis.call('PEXPIRE', KEYS[1], ARGV[4])
local code = redis.call('HGET', KEYS[1], 'code')
if code then redis.call('PEXPIRE', ARGV[7] .. code, ARGV[4]) end
redis.call('ZADD', KEYS[2], ARGV[3], ARGV[5])
return {v, sv}
"""
# Keep games from expiring (followed by screens, or named by a request): each game that still
# exists (KEYS), its seats, who is connected and its short code live `ARGV[1]` ms more. ARGV[2]:
# now (wall ms, the games' order), ARGV[3]: the key prefix; ARGV[4..]: the games' ids.
KEEP = """
for i, key in ipairs(KEYS) do
  local id = ARGV[i + 3]
  if redis.call('PEXPIRE', key, ARGV[1]) == 1 then
    redis.call('PEXPIRE', ARGV[3] .. 'seats:' .. id, ARGV[1])
    redis.call('PEXPIRE', ARGV[3] .. 'here:' .. id, ARGV[1])
    local code = redis.call('HGET', key, 'code')
    if code then redis.call('PEXPIRE', ARGV[3] .. 'code:' .. code, ARGV[1]) end
    redis.call('ZADD', ARGV[3] .. 'games', ARGV[2], id)
  end
end
return 0
"""
# A device arrives: its seat in the game's list (its kind and the next number of that kind, kept
# while the game is), and its socket among those connected (KEYS[2]: worker/socket -> client, so a
# socket is one device). -1: the game has ARGV[5] seats already (none is given).
SEAT = """
if redis.call('HEXISTS', KEYS[1], ARGV[1]) == 0 and redis.call('HLEN', KEYS[1]) >= tonumber(ARGV[5]) then return -1 end
redis.call('HSET', KEYS[2], ARGV[4], ARGV[1])
redis.call('PEXPIRE', KEYS[2], ARGV[3])
if redis.call('HEXISTS', KEYS[1], ARGV[1]) == 1 then return 0 end
local n = 1
for _, seat in ipairs(redis.call('HVALS', KEYS[1])) do
  if string.sub(seat, 1, string.len(ARGV[2]) + 1) == ARGV[2] .. ':' then n = n + 1 end
end
redis.call('HSET', KEYS[1], ARGV[1], ARGV[2] .. ':' .. n)
redis.call('PEXPIRE', KEYS[1], ARGV[3])
return n
"""
# Who is connected to a game, read once and published to every worker (instead of each worker
# reading it): the seats (KEYS[1] seats:ID) of the sockets (KEYS[2] here:ID, worker/socket -> client)
# whose worker is alive (ARGV[1] .. worker exists), those of dead workers removed; published on the
# channel ARGV[2] as ARGV[3] (an envelope's start: `{..., "l": `) + `[[client, "kind:number"], ...]}`.
# The number of clients listed.
PRESENCE = """
local here = redis.call('HGETALL', KEYS[2])
local alive, connected, gone = {}, {}, {}
for i = 1, #here, 2 do
  local worker = string.match(here[i], '^([^/]*)/') or here[i]
  if alive[worker] == nil then alive[worker] = redis.call('EXISTS', ARGV[1] .. worker) == 1 end
  if alive[worker] then connected[here[i + 1]] = true else gone[#gone + 1] = here[i] end
end
for i = 1, #gone, 100 do redis.call('HDEL', KEYS[2], unpack(gone, i, math.min(i + 99, #gone))) end
local listed = {}
for client in pairs(connected) do
  listed[#listed + 1] = cjson.encode({client, redis.call('HGET', KEYS[1], client) or 'screen:0'})
end
redis.call('PUBLISH', ARGV[2], ARGV[3] .. '[' .. table.concat(listed, ',') .. ']}')
return #listed
"""
# Let go of a lock (KEYS[1]) only if it is still the one taken with the token ARGV[1].
RELEASE = """
if redis.call('GET', KEYS[1]) == ARGV[1] then return redis.call('DEL', KEYS[1]) end
return 0
"""
