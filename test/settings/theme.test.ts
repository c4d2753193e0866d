import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { contrastRatio } from '../../src/shared/contrast.js';
import { assertError, call, createVenue, startApp, type TestApp } from '../helpers/app.js';
import { auditEntries } from '../helpers/orders.js';

// The guest page's look in settings: theme.accentColor, '#rrggbb' with AA contrast
// against white, null for Carta's own.

let t: TestApp;
before(async () => {
  t = await startApp();
});
after(() => t.close());

describe('settings theme', () => {
  it('reads null until set, keeps a colour in lower case, and clears it with null', async () => {
    const v = await createVenue(t.app);
    const get = async () => (await call(t.app, 'GET', '/v1/settings', { key: v.key })).body.theme;
    assert.deepEqual(await get(), { accentColor: null });
    const set = await call(t.app, 'PATCH', '/v1/settings', { key: v.key, body: { theme: { accentColor: '#1A5FB4' } } });
    assert.equal(set.status, 200, JSON.stringify(set.body));
    assert.deepEqual(set.body.theme, { accentColor: '#1a5fb4' });
    assert.deepEqual(await get(), { accentColor: '#1a5fb4' });
    // Another field leaves the theme as it is; {} changes nothing.
    await call(t.app, 'PATCH', '/v1/settings', { key: v.key, body: { name: 'Renamed', theme: {} } });
    assert.deepEqual(await get(), { accentColor: '#1a5fb4' });
    const audit = await auditEntries(t.app, v.key, 'settings.update');
    assert.ok(audit.some((e: any) => e.changes.fields.includes('theme')));
    await call(t.app, 'PATCH', '/v1/settings', { key: v.key, body: { theme: { accentColor: null } } });
    assert.deepEqual(await get(), { accentColor: null });
  });

  it('refuses a colour with too little contrast against white, naming theme.accentColor', async () => {
    const v = await createVenue(t.app);
    for (const colour of ['#ffff00', '#ff7f50', '#888888']) {
      const res = await call(t.app, 'PATCH', '/v1/settings', { key: v.key, body: { theme: { accentColor: colour } } });
      assertError(res, 400);
      assert.ok(
        res.body.errors.some((e: string) => e.startsWith('theme.accentColor')),
        JSON.stringify(res.body),
      );
    }
    // #767676 is the lightest grey with 4.5:1 on white.
    assert.equal((await call(t.app, 'PATCH', '/v1/settings', { key: v.key, body: { theme: { accentColor: '#767676' } } })).status, 200);
  });

  it('refuses what is not #rrggbb', async () => {
    const v = await createVenue(t.app);
    for (const colour of ['red', '#fff', '#12345g', '1a5fb4', 5, '#1a5fb4 ']) {
      const res = await call(t.app, 'PATCH', '/v1/settings', { key: v.key, body: { theme: { accentColor: colour } } });
      assertError(res, 400);
      assert.ok(
        res.body.errors.some((e: string) => e.includes('theme')),
        JSON.stringify(res.body.errors),
      );
    }
    assertError(await call(t.app, 'PATCH', '/v1/settings', { key: v.key, body: { theme: { font: 'Comic Sans' } } }), 400);
  });

  it('computes WCAG contrast', () => {
    assert.equal(contrastRatio('#000000', '#ffffff').toFixed(1), '21.0');
    assert.equal(contrastRatio('#ffffff', '#ffffff'), 1);
    assert.ok(contrastRatio('#767676', '#ffffff') >= 4.5 && contrastRatio('#777777', '#ffffff') < 4.5);
  });
});
