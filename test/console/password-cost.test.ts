import assert from 'node:assert/strict';
import { it } from 'node:test';
import { PasswordHasher } from '../../src/modules/console/passwords.js';

// A hash made before the cost rose verifies at its own, lower cost, and the hashes that pad it to
// today's make a wrong password for such a member take what an unknown email's dummy takes.
it('takes as long for a member hashed at an older, lower cost as for an unknown email', async () => {
  const older = new PasswordHasher({ N: 2 ** 12, r: 8, p: 1 });
  const today = new PasswordHasher({ N: 2 ** 16, r: 8, p: 1 });
  const stored = await older.hash('quiet-harbour-lantern-42');
  const time = async (work: () => Promise<boolean>) => {
    const started = performance.now();
    assert.equal(await work(), false);
    return performance.now() - started;
  };
  const rounds = 3;
  let member = 0;
  let unknown = 0;
  for (let i = 0; i < rounds; i += 1) {
    member += await time(() => today.verify('wrong-password-1234', stored));
    unknown += await time(() => today.verify('wrong-password-1234', null));
  }
  // Without the padding the member's check is a sixteenth of the dummy's.
  assert.ok(member > unknown * 0.6, `member ${Math.round(member / rounds)} ms, unknown email ${Math.round(unknown / rounds)} ms`);
  assert.equal(await today.verify('quiet-harbour-lantern-42', stored), true);
  assert.equal(today.outdated(stored), true);
});
