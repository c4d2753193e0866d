import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import {
  ORDER_STATUSES,
  ORDER_STATUS_TRANSITIONS,
  allowedTransitions,
  canTransition,
  isTerminal,
  transitionErrorMessage,
  type OrderStatus,
} from '../../src/shared/order-status.js';
import { SPEC_ALLOWED_PAIRS, SPEC_ORDER_TRANSITIONS } from '../helpers/order-transitions.js';

// The status table (test/helpers/order-transitions.ts), row by row: every (from, to) pair it allows. Everything else is refused.
const ALLOWED = SPEC_ALLOWED_PAIRS;

const isAllowed = (from: OrderStatus, to: OrderStatus) => ALLOWED.some(([f, t]) => f === from && t === to);

describe('order status machine', () => {
  it('has the six statuses in lifecycle order', () => {
    assert.deepEqual(ORDER_STATUSES, ['new', 'confirmed', 'preparing', 'delivering', 'completed', 'cancelled']);
    assert.deepEqual(Object.keys(ORDER_STATUS_TRANSITIONS), [...ORDER_STATUSES]);
  });

  it('has exactly the documented transition table', () => {
    assert.deepEqual(ORDER_STATUS_TRANSITIONS, SPEC_ORDER_TRANSITIONS);
  });

  for (const from of ORDER_STATUSES) {
    for (const to of ORDER_STATUSES) {
      if (from === to) continue;
      const expected = isAllowed(from, to);
      it(`${expected ? 'allows' : 'refuses'} ${from} -> ${to}`, () => {
        assert.equal(canTransition(from, to), expected);
      });
    }
  }

  it('never lists a status as a transition to itself (a same-status request is an idempotent no-op)', () => {
    for (const s of ORDER_STATUSES) assert.equal(canTransition(s, s), false, s);
  });

  it('lists the allowed next statuses in table order', () => {
    for (const from of ORDER_STATUSES) {
      assert.deepEqual(
        allowedTransitions(from),
        ALLOWED.filter(([f]) => f === from).map(([, t]) => t),
        from,
      );
    }
  });

  it('treats completed and cancelled, and only those, as terminal', () => {
    for (const s of ORDER_STATUSES) assert.equal(isTerminal(s), s === 'completed' || s === 'cancelled', s);
  });

  it('lets every non-terminal status be cancelled', () => {
    for (const s of ORDER_STATUSES) if (!isTerminal(s)) assert.equal(canTransition(s, 'cancelled'), true, s);
  });

  describe('the 422 message', () => {
    const cases: [OrderStatus, OrderStatus, RegExp[]][] = [
      ['new', 'completed', [/'new'/, /'completed'/, /confirmed, cancelled/]],
      ['delivering', 'preparing', [/'delivering'/, /'preparing'/, /completed, cancelled/]],
      ['completed', 'new', [/'completed'/, /'new'/, /terminal/]],
      ['cancelled', 'confirmed', [/'cancelled'/, /'confirmed'/, /terminal/]],
    ];
    for (const [from, to, patterns] of cases) {
      it(`names both statuses and ${isTerminal(from) ? 'says none are allowed' : 'the allowed ones'} for ${from} -> ${to}`, () => {
        const message = transitionErrorMessage(from, to);
        for (const p of patterns) assert.match(message, p);
      });
    }
  });
});
