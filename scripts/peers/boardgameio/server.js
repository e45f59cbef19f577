'use strict';
// The peer's server for scripts/bench_server.py: boardgame.io's Server (Lobby API and the
// socket.io transport) with bgio-postgres as its storage, on 127.0.0.1 only.
//
//   PEER_PORT=8123 PEER_DB=postgresql://postgres@127.0.0.1:5432/bench_bgio node server.js
//
// PEER_POOL sets the Sequelize pool's size (default 20: as many connections as two nomic-cards
// workers keep). Query logging is off; run with NODE_ENV=production for boardgame.io's own
// logging to be off too.
const { Server } = require('boardgame.io/server');
const { PostgresStore } = require('bgio-postgres');
const { Table } = require('./game');

const port = Number(process.env.PEER_PORT);
const pool = Number(process.env.PEER_POOL || 20);
const db = new PostgresStore(process.env.PEER_DB, {
  logging: false,
  pool: { max: pool, min: 1, idle: 60000 },
});
const server = Server({ games: [Table], db, origins: [] });

// Server.run() listens on every interface; the bench wants loopback only. The socket.io
// transport has replaced app.listen by its HTTP server's listen, which takes a host.
const listen = server.app.listen;
server.app.listen = function loopback(p, callback) {
  return listen.call(this, p, '127.0.0.1', callback);
};

server
  .run({ port }, () => process.stdout.write(`peer listening on 127.0.0.1:${port}\n`))
  .catch((err) => {
    process.stderr.write(`peer failed to start: ${err && err.stack ? err.stack : err}\n`);
    process.exit(1);
  });
