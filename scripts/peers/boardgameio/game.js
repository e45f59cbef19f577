'use strict';
// The peer's game for scripts/bench_server.py: one move, `vote(proposal)`, the counterpart of
// nomic-cards' `cards.vote` action.
//
// `table`: one match of up to 30 players, every player active at once, the shape of a nomic
// (one game, its players acting whenever they like). The move ignores a stale stateID, as a
// move by one player must not be refused because another player moved first; each player's
// count of moves lets that player see its own move in the match's next states.
const { ActivePlayers } = require('boardgame.io/core');

const Table = {
  name: 'table',
  minPlayers: 1,
  maxPlayers: 30,
  setup: () => ({ votes: 0, last: null, made: {} }),
  turn: { activePlayers: ActivePlayers.ALL },
  moves: {
    vote: {
      move: ({ G, playerID }, proposal) => {
        G.votes += 1;
        G.last = proposal;
        G.made[playerID] = (G.made[playerID] || 0) + 1;
      },
      ignoreStaleStateID: true,
    },
  },
};

module.exports = { Table };
