'use strict';
// The peer's load client for scripts/bench_server.py: one match of 30 players (`table`; Lobby
// API: create, join), LISTENERS connections to it, each on its own socket.io connection
// (boardgame.io's transport; players 0-29 in turn; each receives every new state, as each of
// nomic-cards' streams receives every event), the first CLIENTS of them, players 0 to
// CLIENTS-1, each making its next `vote` move as soon as the server has sent a state with its
// last one in it; for DURATION seconds.
//
//   node load.js '{"base": "http://127.0.0.1:8123", "clients": 16, "duration": 8,
//                  "prefix": "r1", "listeners": 32}'
//
// Prints `go` on stdout when the moves start, then one line of JSON: the match's id and the
// moves sent and answered, every answered move's latency (ms), the window from the first move
// to the last answer (s), and this process's CPU time over the window (s).
//
// boardgame.io answers a move (its `update` to the match's clients) before it stores the new
// state: an answered move is not yet a stored one. The bench counts stored moves in the database.
const { io } = require('socket.io-client');
const { performance } = require('node:perf_hooks');

const cfg = JSON.parse(process.argv[2]);
const GAME = 'table';
const SEATS = 30;
const MOVE_TIMEOUT_MS = cfg.moveTimeout || 10000;

async function post(path, body) {
  const res = await fetch(cfg.base + path, {
    method: 'POST',
    headers: { 'content-type': 'application/json' },
    body: JSON.stringify(body),
  });
  if (!res.ok) throw new Error(`POST ${path}: ${res.status} ${await res.text()}`);
  return res.json();
}

// The table: one match, SEATS players joined; a client per connection, player i % SEATS.
async function seatTable() {
  const { matchID } = await post(`/games/${GAME}/create`, { numPlayers: SEATS });
  const credentials = [];
  for (let p = 0; p < SEATS; p += 1) {
    const joined = await post(`/games/${GAME}/${matchID}/join`, {
      playerID: String(p),
      playerName: `player${p}`,
    });
    credentials.push(joined.playerCredentials);
  }
  return Array.from({ length: Math.max(cfg.listeners || 0, cfg.clients) }, (_, i) => ({
    i, matchID, playerID: String(i % SEATS), credentials: credentials[i % SEATS], sent: 0,
    acked: 0, timeouts: 0, updates: 0,
  }));
}

function connect(c) {
  return new Promise((resolve, reject) => {
    // forceNew: a connection of its own per client, as each nomic-cards client has its own
    const socket = io(`${cfg.base}/${GAME}`, {
      transports: ['websocket'],
      reconnection: false,
      forceNew: true,
    });
    const timer = setTimeout(() => reject(new Error(`match ${c.matchID}: no sync`)), 15000);
    socket.on('connect_error', (err) => reject(err));
    socket.on('connect', () => socket.emit('sync', c.matchID, c.playerID, c.credentials, 1));
    socket.once('sync', (matchID, info) => {
      clearTimeout(timer);
      c.socket = socket;
      c.stateID = info.state._stateID;
      c.made = 0;
      socket.on('update', (m) => {
        if (m === c.matchID) c.updates += 1;
      });
      resolve(c);
    });
  });
}

function play(c, deadline, latencies) {
  return new Promise((resolve) => {
    let n = 0;
    let sentAt = 0;
    let timer = null;
    let done = false;
    const finish = () => {
      if (done) return;
      done = true;
      clearTimeout(timer);
      c.socket.off('update', onUpdate);
      resolve();
    };
    const send = () => {
      if (performance.now() >= deadline || !c.socket.connected) {
        finish();
        return;
      }
      n += 1;
      c.sent += 1;
      const action = {
        type: 'MAKE_MOVE',
        payload: {
          type: 'vote',
          args: [`${cfg.prefix}-${c.i}-${n}`],
          playerID: c.playerID,
          credentials: c.credentials,
        },
      };
      sentAt = performance.now();
      c.socket.emit('update', action, c.stateID, c.matchID, c.playerID);
      timer = setTimeout(() => {
        c.timeouts += 1;
        finish();
      }, MOVE_TIMEOUT_MS);
    };
    function onUpdate(matchID, state) {
      if (matchID !== c.matchID || !state || state._stateID <= c.stateID) return;
      // another player's move: not yet the answer to this one
      const made = (state.G.made || {})[c.playerID] || 0;
      if (made <= c.made) return;
      c.made = made;
      clearTimeout(timer);
      const now = performance.now();
      latencies.push(now - sentAt);
      c.stateID = state._stateID;
      c.acked += 1;
      c.lastAck = now;
      send();
    }
    c.socket.on('update', onUpdate);
    c.socket.on('disconnect', finish);
    send();
  });
}

async function main() {
  const seats = await seatTable();
  const connected = await Promise.all(seats.map(connect));
  const clients = connected.slice(0, cfg.clients);
  const latencies = [];
  const cpu0 = process.cpuUsage();
  const t0 = performance.now();
  process.stdout.write(`go ${Date.now() / 1000}\n`);
  await Promise.all(clients.map((c) => play(c, t0 + cfg.duration * 1000, latencies)));
  const last = Math.max(t0, ...clients.map((c) => c.lastAck || t0));
  const cpu = process.cpuUsage(cpu0);
  await new Promise((r) => setTimeout(r, 500));  // the last states on their way to every listener
  for (const c of connected) c.socket.close();
  const matches = new Map();
  for (const c of clients) {
    const m = matches.get(c.matchID) || { matchID: c.matchID, sent: 0, acked: 0, timeouts: 0 };
    m.sent += c.sent;
    m.acked += c.acked;
    m.timeouts += c.timeouts;
    matches.set(c.matchID, m);
  }
  const out = {
    matches: [...matches.values()],
    updates: connected.map((c) => c.updates),
    latencies_ms: latencies,
    window_s: (last - t0) / 1000,
    cpu_s: (cpu.user + cpu.system) / 1e6,
  };
  process.stdout.write(`${JSON.stringify(out)}\n`);
}

main().catch((err) => {
  process.stderr.write(`load client failed: ${err && err.stack ? err.stack : err}\n`);
  process.exit(1);
});
