import assert from 'node:assert/strict';
import fs from 'node:fs';
import { after, before, describe, it } from 'node:test';
import { carta, cliSkipReason, dataDirFromTemplate, type Run } from '../helpers/cli.js';

// `carta staff ...` through the compiled CLI, in-process on PGlite under DATA_DIR.
const skip = cliSkipReason();

function json(run: Run): any {
  assert.equal(run.code, 0, run.stderr);
  return JSON.parse(run.stdout);
}

describe('carta staff', { skip }, () => {
  let dataDir: string;
  before(() => {
    dataDir = dataDirFromTemplate();
  });
  after(() => fs.rmSync(dataDir, { recursive: true, force: true }));

  it('invites, lists, updates, re-invites and removes a member, with --json', async () => {
    const venue = json(await carta(dataDir, ['venue', 'create', '--name', 'Staff Cafe', '--currency', 'EUR', '--json']));
    const invited = json(
      await carta(dataDir, [
        'staff',
        'invite',
        '--venue',
        venue.id,
        '--email',
        'Cook@Example.com',
        '--name',
        'Cook',
        '--role',
        'manager',
        '--json',
      ]),
    );
    assert.equal(invited.email, 'cook@example.com');
    assert.equal(invited.status, 'invited');
    assert.match(invited.inviteUrl, /\/console\/invite\/[0-9A-Za-z]{43}$/);

    const taken = await carta(dataDir, ['staff', 'invite', '--venue', venue.id, '--email', 'cook@example.com', '--name', 'Again']);
    assert.equal(taken.code, 1);
    assert.match(taken.stderr, /^carta: .*email/);

    const list = await carta(dataDir, ['staff', 'list', '--venue', venue.id, '--json']);
    assert.deepEqual(
      json(list).items.map((m: any) => [m.email, m.role, m.status]),
      [['cook@example.com', 'manager', 'invited']],
    );
    assert.ok(!list.stdout.includes(invited.inviteUrl));

    const updated = json(await carta(dataDir, ['staff', 'update', invited.id, '--role', 'owner', '--disabled', 'true', '--json']));
    assert.equal(updated.role, 'owner');
    assert.equal(updated.disabled, true);

    const human = await carta(dataDir, ['staff', 'reinvite', invited.id]);
    assert.equal(human.code, 0, human.stderr);
    assert.match(human.stdout, /invite\s+http.*\/console\/invite\//);
    assert.ok(!human.stdout.includes(invited.inviteUrl), 'a fresh link');

    assert.deepEqual(json(await carta(dataDir, ['staff', 'remove', invited.id, '--json'])), { id: invited.id, removed: true });
    const gone = await carta(dataDir, ['staff', 'remove', invited.id]);
    assert.equal(gone.code, 4, 'not found');
  });
});
