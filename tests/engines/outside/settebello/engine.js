#!/usr/bin/env node
// @ts-check
/**
 * settebello — a Scopa engine behind the escoba JSON-lines protocol (docs/protocol.md).
 *
 * Written the way our TypeScript sources are (types in JSDoc comments for `tsc --checkJs`),
 * shipped as plain JavaScript so that it runs on Node.js alone:
 *
 *     node tests/engines/outside/settebello/engine.js
 *
 * It plays Scopa as our circolo does (README.md), whatever ruleset `start` sends; from that
 * ruleset it reads only the names of the cards (the i-th suit and rank of its deck are ours).
 */
'use strict';

const readline = require('node:readline');

/** @typedef {{code: string, suit: number, rank: number, value: number, index: number}} Card */
/** @typedef {{card: Card, take: Card[]}} Move */
/** @typedef {Record<string, unknown>} Json */
/** @typedef {{kind: string, message: string, reason?: string}} ErrorBody */

const ENGINE = Object.freeze({ name: 'settebello', version: '0.7.2', language: 'javascript (typescript style)' });

// ============================================================================================
// Declared rules (issue 35). The runner is getting a way for an engine to state the rules it
// plays as a ruleset file named in `hello`. Ours is rules.yaml beside this file: set the path
// here once the runner accepts it, and hello() sends it.
/** @type {string | null} */
const DECLARED_RULESET = null; // 'tests/engines/outside/settebello/rules.yaml'
// ============================================================================================

/** @type {readonly string[]} */
const FEATURES = Object.freeze([
  'players:2', 'players:3', 'players:4', 'match', 'measures',
  'players.partnerships:0+2/1+3',
  'opening_table.action:none', 'opening_table.escobas:none',
  'capture.compulsory:card', 'capture.kinds:card-fewest_cards', 'capture.escoba_on_last_play:no',
  'leftovers.to:last_capturer', 'leftovers.escoba:no',
  'scoring.escobas.award:per-unit',
  'scoring.cards.award:most', 'scoring.cards.ties:nobody',
  'scoring.coins.award:most', 'scoring.coins.ties:nobody',
  'scoring.velo.award:holder-7d',
  'scoring.primera.award:most', 'scoring.primera.ties:nobody',
  'values.primera:7=21,6=18,1=16,5=15,4=14,3=13,2=12,cavallo=10,fante=10,re=10',
  'match.tie:extra_hand',
]);

const Suit = Object.freeze({ DENARI: 0, COPPE: 1, SPADE: 2, BASTONI: 3 });
const HAND_SIZE = 3;
const TABLE_SIZE = 4;
/** Primiera points by rank index (asso … re). */
const PRIMIERA = Object.freeze([16, 12, 13, 14, 15, 18, 21, 10, 10, 10]);

class Refusal extends Error {
  /** @param {string} kind @param {string} message @param {string} [reason] */
  constructor(kind, message, reason) {
    super(message);
    /** @readonly @type {ErrorBody} */
    this.body = reason ? { kind, message, reason } : { kind, message };
  }
}

// ------------------------------------------------------------------------------------ cards
class CardCodec {
  /** @param {unknown} deck the ruleset's `deck` */
  constructor(deck) {
    const d = /** @type {Json} */ (deck ?? {});
    if (typeof deck !== 'object' || deck === null) throw new Refusal('bad_request', 'the ruleset has no deck');
    if (d.jokers) throw new Refusal('unsupported', 'Scopa has no jokers');
    const suits = /** @type {Json[]} */ (d.suits);
    const ranks = /** @type {Json[]} */ (d.ranks);
    if (!Array.isArray(suits) || !Array.isArray(ranks) || suits.length !== 4 || ranks.length !== 10) {
      throw new Refusal('unsupported', 'a Scopa deck is four suits of ten');
    }
    /** @readonly @type {Map<string, Card>} */
    this.cards = new Map();
    suits.forEach((s, suit) => ranks.forEach((r, rank) => {
      const code = `${r.ascii}${s.ascii}`;
      this.cards.set(code, Object.freeze({ code, suit, rank, value: rank + 1, index: suit * 10 + rank }));
    }));
  }

  /** @param {unknown} code @returns {code is string} */
  knows(code) {
    return typeof code === 'string' && this.cards.has(code);
  }

  /** @param {string} code @returns {Card} */
  card(code) {
    return /** @type {Card} */ (this.cards.get(code));
  }

  /** @param {unknown} decks @returns {Card[]} */
  order(decks) {
    if (!Array.isArray(decks) || decks.length === 0 || !Array.isArray(decks[0])) {
      throw new Refusal('bad_request', 'decks must be a list of deck orders');
    }
    /** @type {unknown[]} */
    const order = decks[0];
    if (order.length !== 40 || !order.every((c) => this.knows(c)) || new Set(order).size !== 40) {
      throw new Refusal('bad_request', 'a deck order lists the 40 cards once each');
    }
    return order.map((c) => this.card(/** @type {string} */ (c)));
  }
}

/** @param {Card} a @param {Card} b */
const deckOrder = (a, b) => a.index - b.index;
/** @param {readonly Card[]} cards */
const codes = (cards) => cards.map((c) => c.code);
/** @param {readonly Card[]} cards */
const total = (cards) => cards.reduce((t, c) => t + c.value, 0);

// ------------------------------------------------------------------------------------ rules
class ScopaRules {
  /**
   * Every capture the card may make: table cards of its value, or adding up to it. Our rule:
   * only the captures taking the fewest cards (a single card first, then two, …).
   * @param {Card} card @param {readonly Card[]} table @returns {Card[][]}
   */
  static captures(card, table) {
    const sorted = [...table].sort(deckOrder);
    /** @type {Card[][]} */
    const found = [];
    /** @param {number} from @param {number} left @param {Card[]} chosen */
    const extend = (from, left, chosen) => {
      if (left === 0) {
        found.push([...chosen]);
        return;
      }
      for (let i = from; i < sorted.length; i++) {
        if (sorted[i].value <= left) extend(i + 1, left - sorted[i].value, [...chosen, sorted[i]]);
      }
    };
    for (let first = 0; first < sorted.length - 1; first++) {
      if (sorted[first].value <= card.value) extend(first + 1, card.value - sorted[first].value, [sorted[first]]);
    }
    if (found.length === 0) return [];
    const fewest = Math.min(...found.map((t) => t.length));
    return found.filter((t) => t.length === fewest);
  }

  /** @param {Card[]} a @param {Card[]} b */
  static compareTakes(a, b) {
    const n = Math.min(a.length, b.length);
    for (let i = 0; i < n; i++) if (a[i].index !== b[i].index) return a[i].index - b[i].index;
    return a.length - b.length;
  }

  /**
   * Primiera: the best card of each suit by the table; a suit you have none of counts nothing
   * (our circolo does not ask for all four suits).
   * @param {readonly Card[]} pile
   */
  static primiera(pile) {
    const best = [0, 0, 0, 0];
    for (const c of pile) best[c.suit] = Math.max(best[c.suit], PRIMIERA[c.rank]);
    return best.reduce((a, b) => a + b, 0);
  }
}

// ------------------------------------------------------------------------------------ hand
class Hand {
  /** @param {number} players @param {number} dealer @param {Card[]} order */
  constructor(players, dealer, order) {
    /** @readonly */ this.players = players;
    /** @readonly */ this.dealer = dealer;
    /** @readonly */ this.leader = (dealer + 1) % players;
    /** @readonly */ this.sides = players === 4 ? 2 : players;
    /** @type {Card[]} */ this.stock = [...order];
    /** @type {Card[][]} */ this.hands = Array.from({ length: players }, () => []);
    /** @type {Card[]} */ this.table = [];
    /** @type {Card[][]} */ this.piles = Array.from({ length: this.sides }, () => []);
    /** @type {number[]} */ this.scope = new Array(this.sides).fill(0);
    /** @type {number | null} */ this.toPlay = this.leader;
    /** @type {number | null} */ this.lastCapturer = null;
    this.plays = 0;
    /** @type {Json[] | null} */ this.scores = null;
    /** @type {number[] | null} */ this.points = null;
  }

  /** Partners sit opposite at four. @param {number} seat */
  sideOf(seat) {
    return this.players === 4 ? seat % 2 : seat;
  }

  /** @returns {Json[]} */
  begin() {
    const events = [{ event: 'hand_start', dealer: this.dealer, leader: this.leader, players: this.players }];
    events.push(this.dealRound());
    this.table = this.stock.splice(0, TABLE_SIZE);
    events.push({ event: 'table', cards: codes(this.table) });
    return events;
  }

  /** @returns {Json} */
  dealRound() {
    for (let k = 0; k < this.players; k++) {
      this.hands[(this.leader + k) % this.players] = this.stock.splice(0, HAND_SIZE);
    }
    return { event: 'deal', hands: this.hands.map(codes) };
  }

  /** @returns {Move[]} */
  legal() {
    if (this.toPlay === null) return [];
    /** @type {Move[]} */
    const moves = [];
    for (const card of this.hands[this.toPlay]) {
      const caps = ScopaRules.captures(card, this.table);
      if (caps.length === 0) moves.push({ card, take: [] }); // a card that can take must take
      for (const take of caps) moves.push({ card, take });
    }
    return moves.sort((a, b) => deckOrder(a.card, b.card) || ScopaRules.compareTakes(a.take, b.take));
  }

  /** @param {CardCodec} codec @param {unknown} raw @returns {Move} */
  check(codec, raw) {
    const m = /** @type {Json} */ (raw);
    if (typeof raw !== 'object' || raw === null || Array.isArray(raw) || !codec.knows(m.card) || !Array.isArray(m.take)) {
      throw new Refusal('illegal_move', 'a move is {card, take}', 'malformed');
    }
    /** @type {unknown[]} */
    const named = m.take;
    if (!named.every((c) => codec.knows(c))) throw new Refusal('illegal_move', 'unknown card in take', 'malformed');
    if (this.toPlay === null) throw new Refusal('illegal_move', 'the hand is over', 'hand_over');
    const card = codec.card(/** @type {string} */ (m.card));
    const take = [...new Set(/** @type {string[]} */ (named))].map((c) => codec.card(c)).sort(deckOrder);
    if (!this.hands[this.toPlay].includes(card)) {
      throw new Refusal('illegal_move', `${card.code} is not in the hand of seat ${this.toPlay}`, 'not_in_hand');
    }
    if (!take.every((c) => this.table.includes(c))) throw new Refusal('illegal_move', 'not on the table', 'not_on_table');
    if (take.length > 0 && total(take) !== card.value) {
      throw new Refusal('illegal_move', 'the cards taken must add up to the card played', 'wrong_sum');
    }
    const caps = ScopaRules.captures(card, this.table);
    if (take.length > 0 && !caps.some((t) => ScopaRules.compareTakes(t, take) === 0)) {
      throw new Refusal('illegal_move', 'take the fewest cards you can', 'priority');
    }
    if (take.length === 0 && caps.length > 0) throw new Refusal('illegal_move', `${card.code} must take`, 'compulsory');
    return { card, take };
  }

  /** @param {Move} move @returns {Json[]} */
  play(move) {
    const seat = /** @type {number} */ (this.toPlay);
    const side = this.sideOf(seat);
    this.hands[seat] = this.hands[seat].filter((c) => c !== move.card);
    this.plays += 1;
    /** @type {Json[]} */
    const events = [{ event: 'play', seat, card: move.card.code, take: codes(move.take) }];
    if (move.take.length > 0) {
      this.table = this.table.filter((c) => !move.take.includes(c));
      this.piles[side].push(move.card, ...move.take);
      this.lastCapturer = seat;
      const lastPlay = this.stock.length === 0; // no scopa on the last play
      if (this.table.length === 0 && !lastPlay) {
        this.scope[side] += 1;
        events.push({ event: 'escoba', seat, side, scores: true });
      }
    } else {
      this.table.push(move.card);
    }
    if (this.hands.some((h) => h.length > 0)) {
      this.toPlay = (seat + 1) % this.players;
    } else if (this.stock.length > 0) {
      events.push(this.dealRound());
      this.toPlay = this.leader;
    } else {
      events.push(...this.finish());
    }
    return events;
  }

  /** @returns {Json[]} */
  finish() {
    /** @type {Json[]} */
    const events = [];
    this.toPlay = null;
    if (this.table.length > 0) {
      const seat = this.lastCapturer;
      const side = seat === null ? null : this.sideOf(seat);
      if (side !== null) this.piles[side].push(...this.table);
      events.push({ event: 'leftovers', seat, side, cards: codes(this.table) });
      this.table = [];
    }
    const cards = this.piles.map((p) => p.length);
    const denari = this.piles.map((p) => p.filter((c) => c.suit === Suit.DENARI).length);
    const settebello = this.piles.map((p) => p.some((c) => c.suit === Suit.DENARI && c.rank === 6));
    const primiera = this.piles.map((p) => ScopaRules.primiera(p));
    this.scores = [
      { event: 'score', category: 'escobas', measures: [...this.scope], points: [...this.scope] },
      { event: 'score', category: 'cards', measures: cards, points: Hand.most(cards) },
      { event: 'score', category: 'coins', measures: denari, points: Hand.most(denari) },
      { event: 'score', category: 'velo', measures: settebello, points: settebello.map((h) => (h ? 1 : 0)) },
      { event: 'score', category: 'primera', measures: primiera, points: Hand.most(primiera) },
    ];
    const scores = this.scores;
    this.points = this.piles.map((_, side) => scores.reduce((t, s) => t + /** @type {number[]} */ (s.points)[side], 0));
    events.push(...this.scores, { event: 'hand_end', points: [...this.points], cards });
    return events;
  }

  /** @param {number[]} measures @returns {number[]} */
  static most(measures) {
    const top = Math.max(...measures);
    const alone = measures.filter((m) => m === top).length === 1;
    return measures.map((m) => (alone && m === top ? 1 : 0));
  }

  /** @returns {Json} */
  snapshot() {
    return {
      ruleset: 'settebello', players: this.players, dealer: this.dealer, to_play: this.toPlay,
      stock: codes(this.stock), hands: this.hands.map(codes), table: codes(this.table),
      piles: this.piles.map(codes), escobas: [...this.scope], set_aside: [],
      last_capturer: this.lastCapturer, plays: this.plays, points: this.points,
    };
  }
}

// ------------------------------------------------------------------------------------ match
class MatchState {
  /** @param {number} target @param {number} sides */
  constructor(target, sides) {
    /** @readonly */ this.target = target;
    /** @type {number[]} */ this.totals = new Array(sides).fill(0);
    this.hands = 0;
    /** @type {number[] | null} */ this.winners = null;
  }

  /** @param {number[]} points @returns {Json[]} */
  record(points) {
    this.hands += 1;
    this.totals = this.totals.map((t, i) => t + points[i]);
    /** @type {Json[]} */
    const events = [{ event: 'totals', hand: this.hands, totals: [...this.totals] }];
    const top = Math.max(...this.totals);
    if (top < this.target) return events;
    const leaders = this.totals.flatMap((t, i) => (t === top ? [i] : []));
    if (leaders.length > 1) {
      events.push({ event: 'tie', sides: leaders, totals: [...this.totals] }); // play another hand
    } else {
      this.winners = leaders;
      events.push({ event: 'match_end', winners: leaders, totals: [...this.totals], reason: `first to ${this.target}` });
    }
    return events;
  }
}

// ------------------------------------------------------------------------------------ engine
class Engine {
  constructor() {
    /** @type {CardCodec | null} */ this.codec = null;
    /** @type {Hand | null} */ this.hand = null;
    /** @type {MatchState | null} */ this.match = null;
  }

  /** @param {Json} req @returns {Json} */
  handle(req) {
    switch (req.cmd) {
      case 'hello': return this.hello(req);
      case 'start': return this.start(req);
      case 'legal': return this.legal();
      case 'play': return this.play(req);
      case 'next_hand': return this.nextHand(req);
      case 'state': return { state: this.current().snapshot() };
      case 'score': return this.score();
      case 'quit': return {};
      default: throw new Refusal('unknown_command', `unknown command ${String(req.cmd)}`);
    }
  }

  /** @returns {Hand} */
  current() {
    if (this.hand === null) throw new Refusal('bad_state', 'no hand: send start');
    return this.hand;
  }

  /** @param {Json} req */
  hello(req) {
    if (req.protocol !== 1) throw new Refusal('bad_request', 'settebello speaks protocol 1');
    /** @type {Json} */
    const reply = { protocol: 1, engine: ENGINE, features: FEATURES };
    if (DECLARED_RULESET !== null) reply.ruleset = DECLARED_RULESET;
    return reply;
  }

  /** @param {Json} req */
  start(req) {
    const { ruleset, players, dealer, decks, target } = req;
    if (typeof ruleset !== 'object' || ruleset === null) throw new Refusal('bad_request', 'start needs a ruleset');
    if (!Number.isInteger(players)) throw new Refusal('bad_request', 'players must be a number');
    const n = /** @type {number} */ (players);
    if (n < 2 || n > 4) throw new Refusal('unsupported', 'Scopa is for two to four');
    if (!Number.isInteger(dealer) || /** @type {number} */ (dealer) < 0 || /** @type {number} */ (dealer) >= n) {
      throw new Refusal('bad_request', 'dealer must be a seat');
    }
    if (target !== null && target !== undefined && (!Number.isInteger(target) || /** @type {number} */ (target) < 1)) {
      throw new Refusal('bad_request', 'target must be null or points');
    }
    const codec = new CardCodec(/** @type {Json} */ (ruleset).deck);
    const hand = new Hand(n, /** @type {number} */ (dealer), codec.order(decks));
    this.codec = codec;
    this.hand = hand;
    this.match = Number.isInteger(target) ? new MatchState(/** @type {number} */ (target), hand.sides) : null;
    return { events: hand.begin() };
  }

  legal() {
    const hand = this.current();
    return { seat: hand.toPlay, moves: hand.legal().map((m) => ({ card: m.card.code, take: codes(m.take) })) };
  }

  /** @param {Json} req */
  play(req) {
    const hand = this.current();
    if (!('move' in req)) throw new Refusal('bad_request', 'play needs a move');
    const events = hand.play(hand.check(/** @type {CardCodec} */ (this.codec), req.move));
    if (hand.toPlay === null && this.match !== null && hand.points !== null) events.push(...this.match.record(hand.points));
    return { events };
  }

  /** @param {Json} req */
  nextHand(req) {
    const hand = this.current();
    if (this.match === null || hand.toPlay !== null || this.match.winners !== null) {
      throw new Refusal('bad_state', 'there is no next hand to deal');
    }
    const codec = /** @type {CardCodec} */ (this.codec);
    this.hand = new Hand(hand.players, (hand.dealer + 1) % hand.players, codec.order(req.decks));
    return { events: this.hand.begin() };
  }

  score() {
    const hand = this.current();
    const m = this.match;
    return {
      hand: { points: hand.points, categories: hand.scores ?? [] },
      match: m === null ? null : { totals: [...m.totals], over: m.winners !== null, winners: m.winners },
    };
  }
}

// ------------------------------------------------------------------------------------ main
function main() {
  const engine = new Engine();
  const input = readline.createInterface({ input: process.stdin, crlfDelay: Infinity });
  let done = false;
  input.on('line', (line) => {
    if (done || line.trim().length === 0) return;
    /** @type {unknown} */
    let req;
    try {
      req = JSON.parse(line);
    } catch {
      req = null;
    }
    /** @type {Json} */
    let reply;
    if (typeof req !== 'object' || req === null || Array.isArray(req)) {
      reply = { id: null, ok: false, error: { kind: 'bad_json', message: 'a request is a JSON object' } };
    } else {
      const r = /** @type {Json} */ (req);
      const id = r.id ?? null;
      try {
        reply = { id, ok: true, ...engine.handle(r) };
      } catch (err) {
        const body = err instanceof Refusal ? err.body : { kind: 'internal', message: String(err) };
        reply = { id, ok: false, error: body };
      }
      done = r.cmd === 'quit' && reply.ok === true;
    }
    if (done) {
      input.close();
      process.stdout.write(`${JSON.stringify(reply)}\n`, () => process.exit(0));
      return;
    }
    process.stdout.write(`${JSON.stringify(reply)}\n`);
  });
}

main();
