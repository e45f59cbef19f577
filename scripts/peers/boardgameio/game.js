'use strict';
// The peer's game for scripts/bench_server.py: one move, `vote(proposal)`, the counterpart of
// nomic-cards' `cards.vote` action. One seat per match, so the seated player may always move.
const Ballot = {
  name: 'ballot',
  minPlayers: 1,
  maxPlayers: 1,
  setup: () => ({ votes: 0, last: null }),
  moves: {
    vote: ({ G }, proposal) => {
      G.votes += 1;
      G.last = proposal;
    },
  },
};

module.exports = { Ballot };
