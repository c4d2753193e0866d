import assert from 'node:assert/strict';
import { randomBytes } from 'node:crypto';
import { describe, it } from 'node:test';
import fc from 'fast-check';
import { Webhook } from 'standardwebhooks';
import { signatureHeaders } from '../../src/modules/webhooks/webhook-sender.js';

// The sender signs with Node's crypto (webhook-sender.ts); receivers check with the Standard
// Webhooks libraries. The two must agree on every byte, for any payload and either secret.

const secret = () => `whsec_${randomBytes(32).toString('base64')}`;

describe('webhook signatures', () => {
  it('match the standardwebhooks package for any payload, id and time, and verify with it', () => {
    fc.assert(
      fc.property(
        fc.string({ unit: 'grapheme' }),
        fc.string({ minLength: 1, maxLength: 40 }),
        fc.date({ min: new Date('2001-01-01'), max: new Date('2100-01-01'), noInvalidDate: true }),
        (payload, messageId, at) => {
          const key = secret();
          const headers = signatureHeaders({ messageId, payload, secrets: [key] }, at);
          assert.equal(headers['webhook-signature'], new Webhook(key).sign(messageId, at, payload));
          assert.equal(headers['webhook-timestamp'], String(Math.floor(at.getTime() / 1000)));
          assert.equal(headers['webhook-id'], messageId);
        },
      ),
      { numRuns: 200 },
    );
    const key = secret();
    const payload = JSON.stringify({ name: 'Борщ 🍲', note: 'crème brûlée' });
    const headers = signatureHeaders({ messageId: 'msg_1', payload, secrets: [key] }, new Date());
    assert.doesNotThrow(() => new Webhook(key).verify(payload, headers));
  });

  it('sign with each secret during a rotation: a receiver knowing either one verifies', () => {
    const [current, previous] = [secret(), secret()];
    const payload = '{"type":"order.created"}';
    const headers = signatureHeaders({ messageId: 'msg_2', payload, secrets: [current, previous] }, new Date());
    assert.equal(headers['webhook-signature'].split(' ').length, 2);
    for (const key of [current, previous]) assert.doesNotThrow(() => new Webhook(key).verify(payload, headers));
    assert.throws(() => new Webhook(secret()).verify(payload, headers));
  });
});
