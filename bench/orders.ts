// The order write path: guest orders placed by 20 concurrent guests, each with three
// items with modifiers and its own Idempotency-Key, against a raw-SQL baseline writing the same
// rows (clock tick, order, items, modifiers, idempotency key) in one transaction per order.
import { randomUUID } from 'node:crypto';
import { setTimeout as sleep } from 'node:timers/promises';
import autocannon from 'autocannon';
import type { Database } from '../src/db/port.js';
import { ADMIN_TOKEN, api, cpuMs, measured, newVenue } from './harness.js';

export const ORDER_GUESTS = 20;

/** A menu with modifier groups of every kind a guest order carries, with modifier rules. */
export const ORDER_BENCH_MENU = {
  categories: [{ externalId: 'mains', name: 'Mains' }],
  ingredients: [
    { externalId: 'white', name: 'White bun' },
    { externalId: 'brioche', name: 'Brioche bun' },
    { externalId: 'cheese', name: 'Cheese' },
    { externalId: 'onion', name: 'Onion' },
  ],
  products: ['Burger', 'Double', 'Veggie'].map((name, i) => ({
    externalId: `p${i}`,
    name,
    priceMinor: 1000 + i * 100,
    categoryExternalId: 'mains',
    ingredientExternalIds: ['onion'],
    modifierGroups: [
      {
        name: 'Bun',
        type: 'single_choice',
        isRequired: true,
        options: [
          { ingredientExternalId: 'white', isDefault: true },
          { ingredientExternalId: 'brioche', priceAdjustment: 150 },
        ],
      },
      // Rules every order line must meet: one to three extras, cheese at most twice.
      {
        name: 'Extras',
        type: 'add_ingredients',
        minSelections: 1,
        maxSelections: 3,
        maxQuantityPerOption: 2,
        options: [{ ingredientExternalId: 'cheese', priceAdjustment: 100 }],
      },
      { name: 'Remove', type: 'remove_ingredients', maxSelections: 1, options: [{ ingredientExternalId: 'onion' }] },
    ],
  })),
};

interface GuestMenuProduct {
  id: string;
  modifierGroups: { options: { id: string }[] }[];
}

/** Three lines, each with a bun, an extra and a removal. */
export function orderBody(products: GuestMenuProduct[]): string {
  return JSON.stringify({
    type: 'pickup',
    paymentMethod: 'cash',
    customerName: 'Bench',
    items: products.slice(0, 3).map((p, i) => ({
      productId: p.id,
      quantity: i + 1,
      modifiers: [
        { optionId: p.modifierGroups[0].options[1].id },
        { optionId: p.modifierGroups[1].options[0].id, quantity: 2 },
        { optionId: p.modifierGroups[2].options[0].id },
      ],
    })),
  });
}

/** A venue with ORDER_BENCH_MENU published: its key, its guest slug and a guest order body for it. */
export async function guestOrderVenue(url: string): Promise<{ id: string; key: string; slug: string; body: string }> {
  const venue = await newVenue(url);
  await api(url, 'POST', '/v1/sync', venue.key, ORDER_BENCH_MENU);
  await api(url, 'POST', '/v1/publish', venue.key);
  const slug: string = (await api(url, 'GET', `/admin/v1/venues/${venue.id}`, ADMIN_TOKEN)).body.slug;
  const menu = await api(url, 'GET', `/guest/v1/venues/${slug}/menu`, '');
  return { ...venue, slug, body: orderBody(menu.body.products) };
}

export interface WriteResult {
  rps: number;
  p99: number;
  acknowledged: number;
  non2xx: number;
}

/** POST /guest/v1/venues/:slug/orders from ORDER_GUESTS connections, a new key per request. */
export async function placeOrders(url: string, slug: string, body: string, seconds: number): Promise<WriteResult> {
  const result = await autocannon({
    url: `${url}/guest/v1/venues/${slug}/orders`,
    connections: ORDER_GUESTS,
    duration: seconds,
    requests: [
      {
        method: 'POST',
        headers: { 'content-type': 'application/json' },
        body,
        setupRequest: (request) => ({ ...request, headers: { ...request.headers, 'idempotency-key': randomUUID() } }),
      },
    ],
  });
  return { rps: result.requests.average, p99: result.latency.p99, acknowledged: result['2xx'], non2xx: result.non2xx };
}

/** A fixed number of guest orders and what they cost the measured server. */
export interface OrderBurst {
  committed: number;
  rps: number;
  non2xx: number;
  /** The server's CPU per committed order, in µs. */
  cpuUs: number;
}

/**
 * `amount` guest orders from ORDER_GUESTS connections, a new key per request, on the server
 * `measured.carta` names: `onCreated` sees each 201's body as it arrives, and `settle` waits for what
 * the writes woke (streams, boards) before the server's CPU is read.
 */
export async function orderBurst(
  url: string,
  venue: { slug: string; key: string; body: string },
  amount: number,
  { onCreated, settle }: { onCreated?: (body: string) => void; settle?: () => Promise<void> } = {},
): Promise<OrderBurst> {
  const count = async (): Promise<number> => (await api(url, 'GET', '/v1/orders?limit=1', venue.key)).body.total;
  const before = await count();
  const cpuBefore = cpuMs(measured.carta);
  const result = await autocannon({
    url: `${url}/guest/v1/venues/${venue.slug}/orders`,
    connections: ORDER_GUESTS,
    amount,
    requests: [
      {
        method: 'POST',
        headers: { 'content-type': 'application/json' },
        body: venue.body,
        setupRequest: (request) => ({ ...request, headers: { ...request.headers, 'idempotency-key': randomUUID() } }),
        onResponse: onCreated && ((status, body) => status === 201 && onCreated(body)),
      },
    ],
  });
  await settle?.();
  const cpu = cpuMs(measured.carta) - cpuBefore;
  const committed = (await count()) - before;
  return { committed, rps: result.requests.average, non2xx: result.non2xx, cpuUs: (cpu * 1000) / Math.max(1, committed) };
}

/**
 * Guest orders sent one by one at `rate` per second, each on its own timer, for `seconds`: a steady
 * stream, where autocannon's rate limit sends each second's requests in a burst at its start.
 * Returns how many were acknowledged.
 */
export async function pacedOrders(url: string, slug: string, body: string, rate: number, seconds: number): Promise<number> {
  const sent: Promise<number>[] = [];
  const started = performance.now();
  for (let i = 0; i < rate * seconds; i += 1) {
    await sleep(Math.max(0, started + (i * 1000) / rate - performance.now()));
    sent.push(
      api(url, 'POST', `/guest/v1/venues/${slug}/orders`, '', body, { 'idempotency-key': randomUUID() }).then(
        () => 1,
        () => 0,
      ),
    );
  }
  return (await Promise.all(sent)).reduce((a, b) => a + b, 0);
}

/** The same rows by hand: ORDER_GUESTS writers, one transaction per order, for `seconds`. */
export async function rawOrderWrites(db: Database, venueId: string, seconds: number): Promise<{ rps: number; p99: number }> {
  const items = [0, 1, 2].map((position) => ({
    position,
    product_id: randomUUID(),
    product_external_id: `p${position}`,
    product_name: 'Burger',
    quantity: position + 1,
    unit_price: 1450,
    total_price: 1450 * (position + 1),
  }));
  const modifiers = items.flatMap((it) =>
    ['Bun', 'Extras', 'Remove'].map((group, position) => ({
      item_position: it.position,
      position,
      group_name: group,
      ingredient_external_id: 'x',
      ingredient_name: 'X',
      price_adjustment: 100,
      quantity: 1,
    })),
  );
  const itemsJson = JSON.stringify(items);
  const modifiersJson = JSON.stringify(modifiers);
  const latencies: number[] = [];
  const stopAt = performance.now() + seconds * 1000;
  const writer = async () => {
    while (performance.now() < stopAt) {
      const started = performance.now();
      const id = randomUUID();
      await db.transaction(async (tx) => {
        const { rows } = await tx.query<{ last_number: number; last_ts: Date }>(
          `insert into order_clocks as c (venue_id, last_number, last_ts) values ($1, 1, clock_timestamp())
           on conflict (venue_id) do update set last_number = c.last_number + 1, last_ts = greatest(clock_timestamp(), c.last_ts + interval '1 millisecond')
           returning last_number, last_ts`,
          [venueId],
        );
        await tx.query(
          `insert into orders (venue_id, id, order_number, status, type, customer_name, payment_method, currency, subtotal_amount,
             delivery_fee, discount_amount, total_amount, guest_token, created_at, updated_at)
           values ($1, $2, $3, 'new', 'pickup', 'Bench', 'cash', 'EUR', 8700, 0, 0, 8700, $4, $5, $5)`,
          [venueId, id, String(rows[0].last_number), randomUUID().replace(/-/g, ''), rows[0].last_ts],
        );
        await tx.query(
          `insert into order_items (venue_id, order_id, position, product_id, product_external_id, product_name, quantity, unit_price, total_price)
           select $1, $2, r.position, r.product_id, r.product_external_id, r.product_name, r.quantity, r.unit_price, r.total_price
           from jsonb_to_recordset($3::jsonb) as r(position int, product_id uuid, product_external_id text, product_name text, quantity int, unit_price int, total_price int)`,
          [venueId, id, itemsJson],
        );
        await tx.query(
          `insert into order_item_modifiers (venue_id, order_id, item_position, position, group_name, ingredient_external_id, ingredient_name, price_adjustment, quantity)
           select $1, $2, r.item_position, r.position, r.group_name, r.ingredient_external_id, r.ingredient_name, r.price_adjustment, r.quantity
           from jsonb_to_recordset($3::jsonb) as r(item_position int, position int, group_name text, ingredient_external_id text, ingredient_name text, price_adjustment int, quantity int)`,
          [venueId, id, modifiersJson],
        );
        await tx.query('insert into order_idempotency_keys (venue_id, key, request_hash, order_id) values ($1, $2, $3, $4)', [
          venueId,
          randomUUID(),
          'x',
          id,
        ]);
      });
      latencies.push(performance.now() - started);
    }
  };
  const began = performance.now();
  await Promise.all(Array.from({ length: ORDER_GUESTS }, writer));
  const elapsed = (performance.now() - began) / 1000;
  latencies.sort((a, b) => a - b);
  return { rps: latencies.length / elapsed, p99: latencies[Math.floor(latencies.length * 0.99)] ?? 0 };
}
