#!/usr/bin/env node
// tucuman: Escoba de 15 the way it is played round our table in Tucumán, speaking the escoba
// JSON-lines protocol (docs/protocol.md) on stdin/stdout. Plain Node.js, no packages.
//
//   node tests/engines/outside/tucuman/engine.js
//
// The rules are ours (README.md), whatever ruleset `start` sends; from the ruleset we only read
// the card codes of its deck.
'use strict';

const readline = require('readline');

const ENGINE = { name: 'tucuman', version: '1.4.0', language: 'javascript' };

// ---------------------------------------------------------------------------------------------
// Declared rules (issue 35): the runner will accept the ruleset an engine plays, named in hello.
// Put our rules file here when it does; hello then sends it as "ruleset".
const DECLARED_RULESET = null; // 'tests/engines/outside/tucuman/rules.yaml'
// ---------------------------------------------------------------------------------------------

const FEATURES = [
  'players:2', 'players:3', 'players:4', 'match',
  'turn.direction:clockwise', 'turn.leader:dealer_left', 'turn.next_dealer:left',
  'opening_table.action:dealer_takes', 'opening_table.max_groups:2', 'opening_table.escobas:one',
  'capture.compulsory:card',
  'scoring.*.award:most', 'scoring.*.award:holder-*', 'scoring.*.award:per-unit',
  'match.tie:shared_win',
];

const FIFTEEN = 15;
const HAND = 3;
const TABLE = 4;

function refuse(kind, message, reason) {
  const err = new Error(message);
  err.refusal = { kind, message };
  if (reason) err.refusal.reason = reason;
  return err;
}

// --------------------------------------------------------------------------------------- cards
// A card is {code, suit, rank, value, idx}: suit 0..3 (oros, copas, espadas, bastos), rank 0..9.
function makeDeck(deck) {
  if (!deck || typeof deck !== 'object') throw refuse('bad_request', 'the ruleset has no deck');
  if (deck.jokers) throw refuse('unsupported', 'no jokers at our table');
  const suits = deck.suits;
  const ranks = deck.ranks;
  if (!Array.isArray(suits) || !Array.isArray(ranks) || suits.length !== 4 || ranks.length !== 10) {
    throw refuse('unsupported', 'we play four suits of ten cards');
  }
  const byCode = new Map();
  suits.forEach((s, si) => ranks.forEach((r, ri) => {
    const code = String(r.ascii) + String(s.ascii);
    byCode.set(code, { code, suit: si, rank: ri, value: ri + 1, idx: si * 10 + ri });
  }));
  return byCode;
}

const byIdx = (a, b) => a.idx - b.idx;
const codesOf = (cards) => cards.map((c) => c.code);
const sumOf = (cards) => cards.reduce((t, c) => t + c.value, 0);

function compareTakes(a, b) {
  for (let i = 0; i < Math.min(a.length, b.length); i++) {
    if (a[i].idx !== b[i].idx) return a[i].idx - b[i].idx;
  }
  return a.length - b.length;
}

// Every way `card` can make fifteen with the table. Sets of two or more cards first; a single
// card is what a player sees at a glance, so we only look for one when no set was found.
function capturesFor(card, table) {
  const need = FIFTEEN - card.value;
  const sorted = table.slice().sort(byIdx);
  const sets = [];
  const walk = (from, left, chosen) => {
    if (left === 0) {
      if (chosen.length >= 2) sets.push(chosen.slice());
      return;
    }
    for (let i = from; i < sorted.length; i++) {
      if (sorted[i].value <= left) {
        chosen.push(sorted[i]);
        walk(i + 1, left - sorted[i].value, chosen);
        chosen.pop();
      }
    }
  };
  walk(0, need, []);
  if (sets.length > 0) return sets;
  return sorted.filter((c) => c.value === need).map((c) => [c]);
}

// -------------------------------------------------------------------------------- la primera
// Our primera: whoever has more sevens; if tied, more sixes; then aces, fives, fours, threes,
// twos. The figures do not count. Each count is 0..4, so a number in base 5 orders them.
const PRIMERA_RANKS = [6, 5, 0, 4, 3, 2, 1]; // rank indexes: 7, 6, 1, 5, 4, 3, 2

function primeraKey(pile) {
  let key = 0;
  for (const rank of PRIMERA_RANKS) key = key * 5 + pile.filter((c) => c.rank === rank).length;
  return key;
}

// ---------------------------------------------------------------------------------------- game
function newHand(players, dealer, order) {
  // We play to the left: the dealer's left leads, and play goes on to the left (clockwise).
  const left = (seat) => (seat + players - 1) % players;
  const leader = left(dealer);
  const turnOrder = [leader];
  while (turnOrder.length < players) turnOrder.push(left(turnOrder[turnOrder.length - 1]));
  const h = {
    players, dealer, leader, turnOrder, turnIdx: 0, over: false,
    stock: order.slice(), table: [],
    hands: Array.from({ length: players }, () => []),
    piles: Array.from({ length: players }, () => []),
    escobas: new Array(players).fill(0),
    lastCapturer: null, plays: 0, scores: [], points: null,
  };
  return h;
}

const seatToPlay = (h) => (h.over ? null : h.turnOrder[h.turnIdx]);

function dealRound(h) {
  for (const seat of h.turnOrder) h.hands[seat] = h.stock.splice(0, HAND);
  return { event: 'deal', hands: h.hands.map(codesOf) };
}

function openingGroups(table) {
  const total = sumOf(table);
  if (total === FIFTEEN) return 1;
  if (total !== 2 * FIFTEEN) return 0;
  for (let mask = 1; mask < (1 << table.length) - 1; mask++) {
    if (sumOf(table.filter((_, i) => mask & (1 << i))) === FIFTEEN) return 2;
  }
  return 0;
}

function beginHand(h) {
  const events = [{ event: 'hand_start', dealer: h.dealer, leader: h.leader, players: h.players }];
  events.push(dealRound(h));
  h.table = h.stock.splice(0, TABLE);
  events.push({ event: 'table', cards: codesOf(h.table) });
  const groups = openingGroups(h.table);
  if (groups > 0) {
    // the dealer picks the fifteen up: one escoba, whether it is one fifteen or two
    events.push({
      event: 'opening', action: 'dealer_takes', seat: h.dealer, side: h.dealer,
      cards: codesOf(h.table), groups, escobas: 1,
    });
    h.piles[h.dealer].push(...h.table);
    h.escobas[h.dealer] += 1;
    h.table = [];
    h.lastCapturer = h.dealer;
  }
  return events;
}

function legalMoves(h) {
  if (h.over) return [];
  const moves = [];
  for (const card of h.hands[seatToPlay(h)]) {
    const caps = capturesFor(card, h.table);
    if (caps.length === 0) moves.push({ card, take: [] });
    for (const take of caps) moves.push({ card, take });
  }
  moves.sort((a, b) => (a.card.idx - b.card.idx) || compareTakes(a.take, b.take));
  return moves;
}

function validate(h, deck, move) {
  if (!move || typeof move !== 'object' || Array.isArray(move) || typeof move.card !== 'string'
      || !deck.has(move.card) || !Array.isArray(move.take)) {
    throw refuse('illegal_move', 'a move is {card, take: [...]}', 'malformed');
  }
  if (move.take.some((c) => typeof c !== 'string' || !deck.has(c)) || new Set(move.take).size !== move.take.length) {
    throw refuse('illegal_move', 'take names unknown or repeated cards', 'malformed');
  }
  if (h.over) throw refuse('illegal_move', 'the hand is over', 'hand_over');
  const seat = seatToPlay(h);
  const card = deck.get(move.card);
  const take = move.take.map((c) => deck.get(c)).sort(byIdx);
  if (!h.hands[seat].includes(card)) throw refuse('illegal_move', `${card.code} is not in the hand of seat ${seat}`, 'not_in_hand');
  if (take.some((c) => !h.table.includes(c))) throw refuse('illegal_move', 'not on the table', 'not_on_table');
  if (take.length > 0 && card.value + sumOf(take) !== FIFTEEN) throw refuse('illegal_move', 'does not make 15', 'wrong_sum');
  const legal = legalMoves(h);
  const same = (m) => m.card === card && m.take.length === take.length && m.take.every((c, i) => c === take[i]);
  if (!legal.some(same)) {
    if (take.length === 0) throw refuse('illegal_move', `${card.code} can capture, so it must`, 'compulsory');
    throw refuse('illegal_move', 'another capture comes first', 'priority');
  }
  return { card, take };
}

function play(h, move) {
  const seat = seatToPlay(h);
  const { card, take } = move;
  h.hands[seat] = h.hands[seat].filter((c) => c !== card);
  h.plays += 1;
  const events = [{ event: 'play', seat, card: card.code, take: codesOf(take) }];
  if (take.length > 0) {
    h.table = h.table.filter((c) => !take.includes(c));
    h.piles[seat].push(card, ...take);
    h.lastCapturer = h.turnIdx;
    if (h.table.length === 0) {
      h.escobas[seat] += 1;
      events.push({ event: 'escoba', seat, side: seat, scores: true });
    }
  } else {
    h.table.push(card);
  }
  h.turnIdx = (h.turnIdx + 1) % h.players;
  if (h.hands.every((hand) => hand.length === 0)) {
    if (h.stock.length > 0) {
      events.push(dealRound(h));
      h.turnIdx = 0;
    } else {
      events.push(...finishHand(h));
    }
  }
  return events;
}

function mostPoints(measures) {
  const top = Math.max(...measures);
  const leaders = measures.filter((m) => m === top).length;
  return measures.map((m) => (m === top && leaders === 1 ? 1 : 0));
}

function finishHand(h) {
  const events = [];
  h.over = true;
  if (h.table.length > 0) {
    const seat = h.lastCapturer;
    if (seat === null) {
      events.push({ event: 'leftovers', seat: null, side: null, cards: codesOf(h.table) });
    } else {
      h.piles[seat].push(...h.table);
      events.push({ event: 'leftovers', seat, side: seat, cards: codesOf(h.table) });
    }
    h.table = [];
  }
  const cards = h.piles.map((p) => p.length);
  const coins = h.piles.map((p) => p.filter((c) => c.suit === 0).length);
  const velo = h.piles.map((p) => p.some((c) => c.suit === 0 && c.rank === 6));
  const primera = h.piles.map(primeraKey);
  h.scores = [
    { event: 'score', category: 'escobas', measures: h.escobas.slice(), points: h.escobas.slice() },
    { event: 'score', category: 'cards', measures: cards, points: mostPoints(cards) },
    { event: 'score', category: 'coins', measures: coins, points: mostPoints(coins) },
    { event: 'score', category: 'velo', measures: velo, points: velo.map((v) => (v ? 1 : 0)) },
    { event: 'score', category: 'primera', measures: primera, points: mostPoints(primera) },
  ];
  h.points = h.piles.map((_, seat) => h.scores.reduce((t, s) => t + s.points[seat], 0));
  events.push(...h.scores);
  events.push({ event: 'hand_end', points: h.points.slice(), cards });
  return events;
}

// --------------------------------------------------------------------------------------- match
function afterHand(match, points) {
  match.hands += 1;
  match.totals = match.totals.map((t, i) => t + points[i]);
  const events = [{ event: 'totals', hand: match.hands, totals: match.totals.slice() }];
  const top = Math.max(...match.totals);
  if (top >= match.target) {
    // several over the target: the highest wins; level at the top, they share the win
    const winners = [];
    match.totals.forEach((t, i) => { if (t === top) winners.push(i); });
    match.winners = winners;
    events.push({
      event: 'match_end', winners, totals: match.totals.slice(),
      reason: winners.length > 1 ? 'level at the top: a shared win' : 'highest total over the target',
    });
  }
  return events;
}

// ------------------------------------------------------------------------------------ protocol
const session = { deck: null, hand: null, match: null };

function isInt(x) {
  return typeof x === 'number' && Number.isInteger(x);
}

function readOrder(deck, decks) {
  if (!Array.isArray(decks) || decks.length === 0 || !Array.isArray(decks[0])) {
    throw refuse('bad_request', 'decks: a list of deck orders');
  }
  const order = decks[0];
  if (order.length !== 40 || new Set(order).size !== 40 || !order.every((c) => typeof c === 'string' && deck.has(c))) {
    throw refuse('bad_request', 'a deck order is the 40 cards of the deck, once each');
  }
  return order.map((c) => deck.get(c));
}

const handlers = {
  hello(req) {
    if (req.protocol !== 1) throw refuse('bad_request', 'we speak protocol 1');
    const reply = { protocol: 1, engine: ENGINE, features: FEATURES };
    if (DECLARED_RULESET) reply.ruleset = DECLARED_RULESET;
    return reply;
  },
  start(req) {
    const { ruleset, players, dealer, decks, target } = req;
    if (!ruleset || typeof ruleset !== 'object') throw refuse('bad_request', 'start needs a ruleset');
    if (!isInt(players)) throw refuse('bad_request', 'players must be a number');
    if (players < 2 || players > 4) throw refuse('unsupported', 'two to four players');
    if (!isInt(dealer) || dealer < 0 || dealer >= players) throw refuse('bad_request', 'dealer must be a seat');
    if (target !== null && target !== undefined && (!isInt(target) || target < 1)) throw refuse('bad_request', 'bad target');
    const deck = makeDeck(ruleset.deck);
    const order = readOrder(deck, decks);
    session.deck = deck;
    session.hand = newHand(players, dealer, order);
    session.match = isInt(target) ? { target, hands: 0, totals: new Array(players).fill(0), winners: null } : null;
    return { events: beginHand(session.hand) };
  },
  legal() {
    const h = needHand();
    return { seat: seatToPlay(h), moves: legalMoves(h).map((m) => ({ card: m.card.code, take: codesOf(m.take) })) };
  },
  play(req) {
    const h = needHand();
    if (!('move' in req)) throw refuse('bad_request', 'play needs a move');
    const events = play(h, validate(h, session.deck, req.move));
    if (h.over && session.match) events.push(...afterHand(session.match, h.points));
    return { events };
  },
  next_hand(req) {
    const h = needHand();
    const m = session.match;
    if (!m || !h.over || m.winners) throw refuse('bad_state', 'no next hand now');
    const order = readOrder(session.deck, req.decks);
    session.hand = newHand(h.players, (h.dealer + h.players - 1) % h.players, order);
    return { events: beginHand(session.hand) };
  },
  state() {
    const h = needHand();
    return {
      state: {
        ruleset: 'tucuman', players: h.players, dealer: h.dealer, to_play: seatToPlay(h),
        stock: codesOf(h.stock), hands: h.hands.map(codesOf), table: codesOf(h.table),
        piles: h.piles.map(codesOf), escobas: h.escobas.slice(), set_aside: [],
        last_capturer: h.lastCapturer, plays: h.plays, points: h.points,
      },
    };
  },
  score() {
    const h = needHand();
    const m = session.match;
    return {
      hand: { points: h.points, categories: h.scores },
      match: m ? { totals: m.totals.slice(), over: m.winners !== null, winners: m.winners } : null,
    };
  },
  quit() {
    return {};
  },
};

function needHand() {
  if (!session.hand) throw refuse('bad_state', 'send start first');
  return session.hand;
}

// The reply to one line, and whether it was quit.
function answer(line) {
  let req;
  try {
    req = JSON.parse(line);
  } catch (e) {
    req = undefined;
  }
  if (!req || typeof req !== 'object' || Array.isArray(req)) {
    return [{ id: null, ok: false, error: { kind: 'bad_json', message: 'not a JSON object' } }, false];
  }
  const id = req.id === undefined ? null : req.id;
  const handler = Object.prototype.hasOwnProperty.call(handlers, req.cmd) ? handlers[req.cmd] : null;
  if (!handler) return [{ id, ok: false, error: { kind: 'unknown_command', message: `unknown command ${req.cmd}` } }, false];
  try {
    return [Object.assign({ id, ok: true }, handler(req)), req.cmd === 'quit'];
  } catch (e) {
    if (e.refusal) return [{ id, ok: false, error: e.refusal }, false];
    return [{ id, ok: false, error: { kind: 'internal', message: String(e && e.stack ? e.stack.split('\n')[0] : e) } }, false];
  }
}

const rl = readline.createInterface({ input: process.stdin, terminal: false });
let quitting = false;
rl.on('line', (line) => {
  if (quitting || line.trim() === '') return;
  const [reply, quit] = answer(line);
  if (quit) {
    // Stop reading, and exit once the reply has been written out.
    quitting = true;
    rl.close();
    process.stdout.write(JSON.stringify(reply) + '\n', () => process.exit(0));
    return;
  }
  process.stdout.write(JSON.stringify(reply) + '\n');
});
