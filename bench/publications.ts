// Publication history on a 2,000-product menu (the paid plans' cap): four
// fixtures of 500 products with their own externalId prefixes, synced in four requests (the sync cap),
// and a mutation of a fifth of the products in each. Two figures: the diff between a publication and a
// draft that differs from it by the mutation, held to 300 ms; and a restore of a publication into such
// a draft against syncing the same content into it (the four requests), held to no slower.
// `npm run bench -- --publications` runs only these figures on a fresh server.
import { absoluteMetric, api, benchAlone, informational, LOCALES, log, median, newVenue, ratioMetric, round } from './harness.js';
import { menuFixture, mutate } from './workload.js';

const PARTS = 4;
const PART_PRODUCTS = 500;
const CHANGED = 0.2;
// Medians after warm-ups, as the syncs of the main run (the JIT optimises the paths after a few runs).
const DIFF_RUNS = 7;
const DIFF_WARMUPS = 3;
const RESTORE_RUNS = 5;
const RESTORE_WARMUPS = 2;
const DIFF_TARGET_MS = 300;

/** The menu as the four sync bodies (serialised once, outside the timings), and its mutation. */
function menus(): { original: string[]; mutated: string[]; changed: number } {
  const original: string[] = [];
  const mutated: string[] = [];
  let changed = 0;
  for (let part = 0; part < PARTS; part += 1) {
    // 50 categories and 75 ingredients a part: 200 and 300 in all, the plans' caps.
    const body = menuFixture({
      seed: 40 + part,
      products: PART_PRODUCTS,
      categories: 50,
      ingredients: 75,
      locales: LOCALES,
      idPrefix: `p${part}-`,
    });
    const mutation = mutate(body, CHANGED, 90 + part);
    original.push(JSON.stringify(body));
    mutated.push(JSON.stringify(mutation.body));
    changed += mutation.changed;
  }
  return { original, mutated, changed };
}

/** Syncs every part; the wall time of the four requests and how many products they updated. */
async function syncAll(url: string, key: string, parts: string[]): Promise<{ ms: number; updated: number }> {
  let ms = 0;
  let updated = 0;
  for (const part of parts) {
    const res = await api(url, 'POST', '/v1/sync', key, part);
    ms += res.ms;
    updated += res.body.products.updated;
  }
  return { ms, updated };
}

async function publish(url: string, key: string): Promise<string> {
  return (await api(url, 'POST', '/v1/publish', key)).body.publicationId;
}

/** The two targets on a running server. */
export async function publicationsBench(url: string): Promise<void> {
  const { original, mutated, changed } = menus();
  const total = PARTS * PART_PRODUCTS;

  // The diff: a publication of the menu against a draft holding the mutation.
  const diffVenue = await newVenue(url);
  await syncAll(url, diffVenue.key, original);
  const snapshot = await publish(url, diffVenue.key);
  await syncAll(url, diffVenue.key, mutated);
  const diffRuns: number[] = [];
  let diffValid = true;
  for (let run = 0; run < DIFF_WARMUPS + DIFF_RUNS; run += 1) {
    const res = await api(url, 'GET', `/v1/menu/diff?from=${snapshot}&to=draft`, diffVenue.key);
    const products = res.body.products;
    diffValid &&= products.changed.length === changed && products.added.length === 0 && products.removed.length === 0;
    if (run >= DIFF_WARMUPS) diffRuns.push(res.ms);
  }
  const diffMs = median(diffRuns);
  log(
    `diff of two ${total}-product menus (${changed} products changed): ${round(diffMs)} ms (median of ${DIFF_RUNS} after ${DIFF_WARMUPS} warm-ups)${diffValid ? '' : ' (WRONG DIFF)'}`,
  );
  absoluteMetric(
    `GET /v1/menu/diff, a publication vs the draft, ${total} products (${changed} changed): median wall time`,
    diffMs,
    'ms',
    '<=',
    DIFF_TARGET_MS,
    diffValid && diffMs <= DIFF_TARGET_MS,
  );

  // Restore against sync, on two venues holding the same menus, in alternating rounds: each round
  // takes the draft from the mutation back to the menu (measured), then forward again (not measured).
  const restoreVenue = await newVenue(url);
  await syncAll(url, restoreVenue.key, original);
  const back = await publish(url, restoreVenue.key);
  await syncAll(url, restoreVenue.key, mutated);
  const forward = await publish(url, restoreVenue.key);
  const syncVenue = await newVenue(url);
  await syncAll(url, syncVenue.key, original);
  await syncAll(url, syncVenue.key, mutated);

  const restoreRuns: number[] = [];
  const syncRuns: number[] = [];
  let restoreValid = true;
  for (let run = 0; run < RESTORE_WARMUPS + RESTORE_RUNS; run += 1) {
    const restored = await api(url, 'POST', `/v1/publications/${back}/restore`, restoreVenue.key, {});
    restoreValid &&= restored.body.counts.products === total;
    await api(url, 'POST', `/v1/publications/${forward}/restore`, restoreVenue.key, {});
    const synced = await syncAll(url, syncVenue.key, original);
    restoreValid &&= synced.updated === changed;
    await syncAll(url, syncVenue.key, mutated);
    if (run >= RESTORE_WARMUPS) {
      restoreRuns.push(restored.ms);
      syncRuns.push(synced.ms);
    }
  }
  // The restored draft is the publication again: nothing between them.
  const check = (await api(url, 'GET', `/v1/menu/diff?from=${forward}&to=draft`, restoreVenue.key)).body;
  restoreValid &&= [check.categories, check.ingredients, check.products].every(
    (s) => s.added.length + s.removed.length + s.changed.length === 0,
  );
  const [restoreMs, syncMs] = [median(restoreRuns), median(syncRuns)];
  log(
    `restore of a ${total}-product publication ${round(restoreMs)} ms vs syncing the same content (${PARTS} requests) ${round(syncMs)} ms (medians of ${RESTORE_RUNS} after ${RESTORE_WARMUPS} warm-ups)${restoreValid ? '' : ' (NOT AS SET UP)'}`,
  );
  ratioMetric(
    `POST /v1/publications/:id/restore, ${total} products (${changed} differ from the draft): wall time vs syncing the same content`,
    restoreMs,
    syncMs,
    'ms',
    '<=',
    1.0,
    restoreValid,
  );
  informational.push({
    name: `restore of ${total} products: the slowest of ${RESTORE_RUNS} measured runs`,
    value: round(Math.max(...restoreRuns)),
    unit: 'ms',
    baseline: round(Math.max(...syncRuns)),
    ratio: null,
  });
}

/** `--publications`: only these figures, on a fresh server. */
export const publicationsBenchAlone = (): Promise<void> => benchAlone(publicationsBench);
