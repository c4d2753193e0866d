import assert from 'node:assert/strict';
import type { App } from '../../src/http/types.js';
import { admin, call, type VenueFixture } from './app.js';
import { createOrder, DEFAULT_TEST_ORDER_CONFIG, expectStatus, publish, readMenuIds } from './orders.js';

/*
 * A fully populated tenant for suites that probe isolation (test/suites/tenant-matrix.test.ts): a venue whose
 * every string carries a unique tag, its refs, its extra keys, a snapshot of everything it holds and
 * the canary strings that identify its data.
 */

/** What the matrix fills path parameters and sample bodies with: one venue's real refs. */
export interface Refs {
  burgerId: string;
  burgerExternalId: string;
  burgerGroupId: string;
  friesId: string;
  sodaExternalId: string;
  frozenId: string;
  mainsExternalId: string;
  spareCategoryExternalId: string;
  cheeseExternalId: string;
  spareIngredientId: string;
  bannerId: string;
  promotionId: string;
  itemId: string;
  tableId: string;
  webhookId: string;
  deliveryId: string;
  orderId: string;
  publicationId: string;
}

export interface Tenant {
  venue: VenueFixture;
  /** Planted in every string of the venue's data: a response holding it shows that data. */
  tag: string;
  phone: string;
  /** The account's own name and slugs, which its sandbox (test key) may legitimately show. */
  identity: string[];
  testKey: string;
  readOnlyKey: string;
  revokedKey: string;
  /** The signing secret of its webhook endpoint, shown once when it was made. */
  webhookSecret: string;
  refs: Refs;
}

/** A menu whose every name and externalId carries `tag`: categories, ingredients, modifiers, translations. */
function menuOf(tag: string) {
  const x = (name: string) => `${tag}-${name}`;
  return {
    categories: [
      { externalId: x('mains'), name: `Mains ${tag}`, sortOrder: 1, translations: { uk: { name: `Страви ${tag}` } } },
      { externalId: x('spare'), name: `Spare shelf ${tag}`, sortOrder: 2 },
    ],
    ingredients: [
      { externalId: x('bun-white'), name: `White bun ${tag}` },
      { externalId: x('bun-brioche'), name: `Brioche bun ${tag}` },
      { externalId: x('cheese'), name: `Cheese ${tag}`, translations: { uk: { name: `Сир ${tag}` } } },
      { externalId: x('onion'), name: `Onion ${tag}` },
      { externalId: x('spare'), name: `Spare ingredient ${tag}` },
    ],
    products: [
      {
        externalId: x('burger'),
        name: `Burger ${tag}`,
        description: `House sauce ${tag}`,
        priceMinor: 1000,
        categoryExternalId: x('mains'),
        ingredientExternalIds: [x('onion')],
        translations: { uk: { name: `Бургер ${tag}`, description: `Соус ${tag}` } },
        modifierGroups: [
          {
            name: `Bun ${tag}`,
            type: 'single_choice',
            translations: { uk: { name: `Булка ${tag}` } },
            options: [{ ingredientExternalId: x('bun-white') }, { ingredientExternalId: x('bun-brioche'), priceAdjustment: 150 }],
          },
          { name: `Extras ${tag}`, type: 'add_ingredients', options: [{ ingredientExternalId: x('cheese'), priceAdjustment: 100 }] },
          { name: `Remove ${tag}`, type: 'remove_ingredients', options: [{ ingredientExternalId: x('onion') }] },
        ],
      },
      {
        externalId: x('fries'),
        name: `Fries ${tag}`,
        priceMinor: 500,
        salePriceMinor: 400,
        isSaleActive: true,
        categoryExternalId: x('mains'),
      },
      { externalId: x('soda'), name: `Soda ${tag}`, priceMinor: 300, categoryExternalId: x('mains') },
      { externalId: x('frozen'), name: `Frozen ${tag}`, priceMinor: 700, categoryExternalId: x('spare'), menuVisible: false },
    ],
  };
}

export interface Images {
  square: string;
  wide: string;
}

async function created(app: App, key: string, url: string, body: unknown): Promise<any> {
  const res = await call(app, 'POST', url, { key, body });
  expectStatus(res, 201);
  return res.body;
}

async function newKey(app: App, venueId: string, mode: 'live' | 'test', readOnly = false): Promise<{ id: string; key: string }> {
  const res = await admin(app, 'POST', `/venues/${venueId}/api-keys`, { mode, readOnly });
  expectStatus(res, 201);
  return { id: res.body.id, key: res.body.key };
}

/**
 * A venue on a paid plan with everything the API holds: settings with two languages, a synced menu
 * with translations and modifiers, a product image, a logo, a publication, banners (one with an
 * image), a promotion with items, tables, a webhook endpoint and three guest orders (pickup,
 * delivery, dine-in).
 */
export async function populate(app: App, tag: string, phone: string, images: Images): Promise<Tenant> {
  const venueRes = await admin(app, 'POST', '/venues', { name: `Venue ${tag}`, slug: `${tag}-venue`, currency: 'EUR', plan: 'standard' });
  expectStatus(venueRes, 201);
  const live = await newKey(app, venueRes.body.id, 'live');
  const venue: VenueFixture = {
    id: venueRes.body.id,
    slug: venueRes.body.slug,
    sandboxId: venueRes.body.sandbox.id,
    key: live.key,
    keyId: live.id,
  };
  const key = venue.key;

  const settings = await call(app, 'PATCH', '/v1/settings', {
    key,
    body: { name: `Bistro ${tag}`, enabledLanguages: ['en', 'uk'], timezone: 'Europe/Kyiv', orderConfig: DEFAULT_TEST_ORDER_CONFIG },
  });
  expectStatus(settings, 200);
  const menu = menuOf(tag);
  const sync = await created(app, key, '/v1/sync', menu);
  for (const section of ['categories', 'ingredients', 'products'] as const) assert.deepEqual(sync[section].errors, [], `sync ${section}`);
  await created(app, key, `/v1/products/${tag}-burger/image`, { base64: images.square });
  await created(app, key, '/v1/logo', { base64: images.square });
  const publicationId = await publish(app, venue);

  const draft = (await call(app, 'GET', '/v1/menu', { key })).body;
  const byExternalId = (list: any[], externalId: string) => list.find((e) => e.externalId === `${tag}-${externalId}`);
  const burger = byExternalId(draft.products, 'burger');

  const banner = await created(app, key, '/v1/banners', {
    externalId: `${tag}-banner`,
    title: `Banner ${tag}`,
    subtitle: `Subtitle ${tag}`,
    linkUrl: `https://example.com/${tag}`,
    productRef: burger.id,
    translations: { uk: { title: `Банер ${tag}` } },
  });
  await created(app, key, `/v1/banners/${banner.id}/image`, { base64: images.wide });
  await created(app, key, '/v1/banners', { externalId: `${tag}-banner-2`, title: `Second banner ${tag}`, isActive: false });
  const promotion = await created(app, key, '/v1/promotions', {
    externalId: `${tag}-deal`,
    name: `Deal ${tag}`,
    description: `Two for one ${tag}`,
  });
  const item = await created(app, key, `/v1/promotions/${promotion.id}/items`, { productRef: burger.id, promoPriceMinor: 900 });
  await created(app, key, `/v1/promotions/${promotion.id}/items`, { productRef: `${tag}-fries` });
  const table = await created(app, key, '/v1/tables', { externalId: `${tag}-t1`, name: `Table ${tag}`, seats: 4, zone: `Terrace ${tag}` });
  await created(app, key, '/v1/tables', { name: `Bar ${tag}`, zone: `Inside ${tag}` });
  const webhook = await created(app, key, '/v1/webhooks', {
    url: `https://${tag}.example.com/hooks`,
    events: ['order.created', 'order.updated'],
    description: `Hooks ${tag}`,
  });
  const ping = await call(app, 'POST', `/v1/webhooks/${webhook.id}/test`, { key });
  expectStatus(ping, 202);

  const ids = await readMenuIds(app, venue, venue.slug);
  const customer = { customerName: `Ada ${tag}`, customerPhone: phone, customerEmail: `${tag}@example.com` };
  const order = await createOrder(app, venue.slug, {
    type: 'pickup',
    paymentMethod: 'cash',
    items: [{ productId: ids.productIds[`${tag}-fries`], quantity: 2 }],
    comment: `Extra napkins ${tag}`,
    ...customer,
  });
  const burgerOptions = ids.options[`${tag}-burger`];
  await createOrder(app, venue.slug, {
    type: 'delivery',
    paymentMethod: 'terminal',
    items: [
      {
        productId: ids.productIds[`${tag}-burger`],
        quantity: 1,
        modifiers: [
          { optionId: burgerOptions[`Bun ${tag}`][`${tag}-bun-white`] },
          { optionId: burgerOptions[`Extras ${tag}`][`${tag}-cheese`] },
        ],
      },
    ],
    deliveryAddress: `1 ${tag} Street`,
    deliveryNotes: `Ring twice ${tag}`,
    ...customer,
  });
  await createOrder(app, venue.slug, {
    type: 'dine_in',
    paymentMethod: 'cash',
    items: [{ productId: ids.productIds[`${tag}-soda`], quantity: 1 }],
    tableId: table.id,
    customerName: `Table guest ${tag}`,
  });

  const testKey = (await newKey(app, venue.id, 'test')).key;
  // The sandbox enables the same languages, so its PUT /v1/translations gets as far as resolving refs.
  expectStatus(await call(app, 'PATCH', '/v1/settings', { key: testKey, body: { enabledLanguages: ['en', 'uk'] } }), 200);
  const readOnlyKey = (await newKey(app, venue.id, 'live', true)).key;
  const revoked = await newKey(app, venue.id, 'live');
  // Used once before it is revoked, so a cached authentication has to be dropped too.
  expectStatus(await call(app, 'GET', '/v1/reference', { key: revoked.key }), 200);
  expectStatus(await admin(app, 'DELETE', `/api-keys/${revoked.id}`), 204);

  return {
    venue,
    tag,
    phone,
    identity: [`Venue ${tag}`, venue.slug, `${venue.slug}-sandbox`],
    testKey,
    readOnlyKey,
    revokedKey: revoked.key,
    webhookSecret: webhook.secret,
    refs: {
      burgerId: burger.id,
      burgerExternalId: burger.externalId,
      burgerGroupId: burger.modifierGroups[0].id,
      friesId: byExternalId(draft.products, 'fries').id,
      sodaExternalId: `${tag}-soda`,
      frozenId: byExternalId(draft.products, 'frozen').id,
      mainsExternalId: `${tag}-mains`,
      spareCategoryExternalId: `${tag}-spare`,
      cheeseExternalId: `${tag}-cheese`,
      spareIngredientId: byExternalId(draft.ingredients, 'spare').id,
      bannerId: banner.id,
      promotionId: promotion.id,
      itemId: item.id,
      tableId: table.id,
      webhookId: webhook.id,
      deliveryId: ping.body.id,
      orderId: order.id,
      publicationId,
    },
  };
}

// ---- what a tenant holds, and the strings that identify it ---------------------------------------

export function strings(value: unknown, out: string[] = []): string[] {
  if (typeof value === 'string') out.push(value);
  else if (Array.isArray(value)) for (const v of value) strings(v, out);
  else if (value && typeof value === 'object') for (const v of Object.values(value)) strings(v, out);
  return out;
}

const UUID_RE = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/i;
// Media, QR and link URLs: each names something of this tenant's alone (a blob, a table token).
const URL_RE = /^https?:\/\//;

/** A tenant's reads that foreign calls must leave unchanged; also where its canaries are gathered. */
const SNAPSHOT_READS = [
  '/v1/menu',
  '/v1/menu?version=published',
  '/v1/settings',
  '/v1/banners?limit=100',
  '/v1/promotions?limit=100',
  '/v1/tables?limit=100',
  '/v1/tables/qr-sheet.svg',
  '/v1/webhooks?limit=100',
  '/v1/orders?limit=100',
  '/v1/audit-log?limit=100',
  '/v1/publications?limit=100',
];

function withoutGeneratedAt(value: unknown): unknown {
  if (Array.isArray(value)) return value.map(withoutGeneratedAt);
  if (value && typeof value === 'object') {
    return Object.fromEntries(
      Object.entries(value)
        .filter(([k]) => k !== 'generatedAt')
        .map(([k, v]) => [k, withoutGeneratedAt(v)]),
    );
  }
  return value;
}

/** Everything the tenant's key and its guests can read (minus `generatedAt`), by URL. */
export async function snapshot(app: App, tenant: Tenant): Promise<Record<string, unknown>> {
  const out: Record<string, unknown> = {};
  for (const url of SNAPSHOT_READS) {
    const res = await call(app, 'GET', url, { key: tenant.venue.key });
    expectStatus(res, 200);
    out[url] = withoutGeneratedAt(res.body);
  }
  out.planLimits = (await call(app, 'GET', '/v1/reference', { key: tenant.venue.key })).body.planLimits;
  const guest = await call(app, 'GET', `/guest/v1/venues/${tenant.venue.slug}/menu`);
  expectStatus(guest, 200);
  out.guestMenu = withoutGeneratedAt(guest.body);
  return out;
}

/**
 * The strings that identify a tenant's data: everything carrying its tag, every id (UUID) and URL
 * it holds, its keys, its customers' phone, its venue id, name and slugs. No response to a caller
 * without a right to that data may hold one the caller did not send itself.
 */
export function canariesOf(tenant: Tenant, snap: Record<string, unknown>): string[] {
  const found = new Set<string>([
    tenant.tag,
    tenant.phone,
    tenant.venue.id,
    tenant.venue.key,
    tenant.testKey,
    tenant.readOnlyKey,
    tenant.revokedKey,
    tenant.webhookSecret,
    ...tenant.identity,
  ]);
  for (const body of Object.values(snap)) {
    if (typeof body !== 'object') continue;
    for (const s of strings(body))
      if (s.includes(tenant.tag) || s.includes(tenant.venue.id) || UUID_RE.test(s) || URL_RE.test(s)) found.add(s);
  }
  return [...found];
}
