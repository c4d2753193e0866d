// GET /metrics (docs/deployment.md): what operators graph and alert on, in the Prometheus text format
// (prom-client). Labels are bounded by construction: route patterns, status classes, bucket names,
// sync sections. Never a venue id, a path or anything a client chooses.
import { collectDefaultMetrics, Counter, Gauge, Histogram, Registry } from 'prom-client';
import type { Database } from '../db/port.js';

/** Latency buckets (seconds) from a cached 304 (~0.1 ms) to a slow sync (30 s). */
const DURATION_BUCKETS = [0.0005, 0.001, 0.0025, 0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1, 2.5, 5, 10, 30];

const STATUS_CLASSES = ['1xx', '2xx', '3xx', '4xx', '5xx'] as const;

interface Series {
  labels: { method: string; route: string; status_class: string };
  /** Per bucket (the last is +Inf), not cumulative: cumulated at scrape time. */
  counts: number[];
  sum: number;
  count: number;
}

/**
 * The request histogram, observed on every request: prom-client's Histogram hashes its label
 * object on each observe, which a cached read feels. Here a series is found by route, then
 * method, then status class, and counted in place; prom-client formats it at scrape time like
 * its own. The route and method strings are the same objects on every request
 * (the pattern registered, Node's method names), whose hashes V8 keeps: a key built per request
 * would be a fresh string, hashed on every look-up.
 */
class RequestHistogram {
  readonly type = 'histogram';
  readonly aggregator = 'sum';
  /** route -> method -> series by status class (STATUS_CLASSES). */
  private readonly series = new Map<string, Map<string, (Series | undefined)[]>>();

  constructor(
    readonly name: string,
    readonly help: string,
  ) {}

  observe(method: string, route: string, status: number, seconds: number): void {
    let methods = this.series.get(route);
    if (!methods) this.series.set(route, (methods = new Map()));
    let byClass = methods.get(method);
    if (!byClass) methods.set(method, (byClass = []));
    const c = Math.floor(status / 100) - 1;
    const statusClass = c >= 0 && c < 4 ? c : 4;
    let s = byClass[statusClass];
    if (!s) {
      s = {
        labels: { method, route, status_class: STATUS_CLASSES[statusClass] },
        counts: new Array<number>(DURATION_BUCKETS.length + 1).fill(0),
        sum: 0,
        count: 0,
      };
      byClass[statusClass] = s;
    }
    let i = 0;
    while (i < DURATION_BUCKETS.length && seconds > DURATION_BUCKETS[i]) i += 1;
    s.counts[i] += 1;
    s.sum += seconds;
    s.count += 1;
  }

  private *all(): Iterable<Series> {
    for (const methods of this.series.values()) for (const byClass of methods.values()) for (const s of byClass) if (s) yield s;
  }

  get() {
    const values: { labels: Record<string, string | number>; value: number; metricName: string }[] = [];
    for (const s of this.all()) {
      let cumulative = 0;
      DURATION_BUCKETS.forEach((le, i) => {
        cumulative += s.counts[i];
        values.push({ labels: { ...s.labels, le }, value: cumulative, metricName: `${this.name}_bucket` });
      });
      values.push({ labels: { ...s.labels, le: '+Inf' }, value: s.count, metricName: `${this.name}_bucket` });
      values.push({ labels: s.labels, value: s.sum, metricName: `${this.name}_sum` });
      values.push({ labels: s.labels, value: s.count, metricName: `${this.name}_count` });
    }
    return { name: this.name, help: this.help, type: this.type, values, aggregator: this.aggregator };
  }

  reset(): void {
    this.series.clear();
  }
}

export class Metrics {
  readonly registry = new Registry();

  private readonly requestDuration = new RequestHistogram(
    'carta_http_request_duration_seconds',
    'Time from a request read to its response sent, by route pattern and status class',
  );

  /** Requests read and not yet answered: a plain number, read by the gauge at scrape time. */
  private inFlightCount = 0;

  private readonly rateLimited = new Counter({
    name: 'carta_rate_limit_rejections_total',
    help: 'Requests refused with 429, by the bucket that was full',
    labelNames: ['bucket'] as const,
    registers: [this.registry],
  });

  private readonly catchUpDuration = new Histogram({
    name: 'carta_change_feed_catch_up_seconds',
    help: 'Strict reads: one catch-up round trip on the change feed, which every read that arrived meanwhile shares',
    buckets: DURATION_BUCKETS,
    registers: [this.registry],
  });

  private readonly syncDuration = new Histogram({
    name: 'carta_sync_duration_seconds',
    help: 'POST /v1/sync from start to answer, dry runs apart',
    labelNames: ['dry_run'] as const,
    buckets: DURATION_BUCKETS,
    registers: [this.registry],
  });

  private readonly syncItems = new Histogram({
    name: 'carta_sync_items',
    help: 'Items sent in one sync, by section',
    labelNames: ['section'] as const,
    buckets: [0, 1, 10, 50, 100, 250, 500, 1000, 2500, 5000],
    registers: [this.registry],
  });

  constructor(db: Database) {
    collectDefaultMetrics({ register: this.registry });
    this.registry.registerMetric(this.requestDuration as unknown as Histogram);
    const inFlight = () => this.inFlightCount;
    new Gauge({
      name: 'carta_http_requests_in_flight',
      help: 'Requests read and not yet answered',
      registers: [this.registry],
      collect() {
        this.set(inFlight());
      },
    });
    const stats = db.stats;
    if (stats) {
      const read = () => stats.call(db);
      new Gauge({
        name: 'carta_db_pool_connections',
        help: 'PostgreSQL pool connections by state (total open, idle, and requests waiting for one)',
        labelNames: ['state'] as const,
        registers: [this.registry],
        collect() {
          const s = read();
          this.set({ state: 'total' }, s.total);
          this.set({ state: 'idle' }, s.idle);
          this.set({ state: 'waiting' }, s.waiting);
        },
      });
      new Counter({
        name: 'carta_db_pool_checkout_wait_seconds_total',
        help: 'Time transactions waited for a pool connection, in total (divide by checkouts for the mean)',
        registers: [this.registry],
        collect() {
          this.reset();
          this.inc(read().checkoutWaitMs / 1000);
        },
      });
      new Counter({
        name: 'carta_db_pool_checkouts_total',
        help: 'Pool connections handed to transactions',
        registers: [this.registry],
        collect() {
          this.reset();
          this.inc(read().checkouts);
        },
      });
    }
    if (db.onCatchUpRoundTrip) {
      const waits = new Counter({
        name: 'carta_change_feed_catch_up_waits_total',
        help: 'Strict reads that waited for a catch-up round trip (divide by the round trips, carta_change_feed_catch_up_seconds_count, for the batch size)',
        registers: [this.registry],
      });
      db.onCatchUpRoundTrip((seconds, reads) => {
        this.catchUpDuration.observe(seconds);
        waits.inc(reads);
      });
    }
    new Gauge({
      name: 'carta_change_feed_listening',
      help: 'PostgreSQL change feed: 1 while LISTEN is up (memos trusted), 0 while memos read through; absent on PGlite',
      registers: db.onFeedChange ? [this.registry] : [],
      collect() {
        this.set(db.coherent() ? 1 : 0);
      },
    });
  }

  /** Live order streams open on this server, read at scrape time. */
  countStreams(count: () => number): void {
    new Gauge({
      name: 'carta_order_streams_open',
      help: 'Live order streams (GET /v1/orders/stream) open on this server',
      registers: [this.registry],
      collect() {
        this.set(count());
      },
    });
  }

  requestStarted(): void {
    this.inFlightCount += 1;
  }

  requestEnded(method: string, route: string, status: number, seconds: number, answered = true): void {
    this.inFlightCount -= 1;
    if (answered) this.requestDuration.observe(method, route, status, seconds);
  }

  rejected(bucket: string): void {
    this.rateLimited.inc({ bucket });
  }

  synced(dryRun: boolean, seconds: number, counts: Record<string, number>): void {
    this.syncDuration.observe({ dry_run: String(dryRun) }, seconds);
    for (const [section, n] of Object.entries(counts)) this.syncItems.observe({ section }, n);
  }

  text(): Promise<string> {
    return this.registry.metrics();
  }

  get contentType(): string {
    return this.registry.contentType;
  }
}
