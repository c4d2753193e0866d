import { monitorEventLoopDelay, type IntervalHistogram } from 'node:perf_hooks';
import { getHeapStatistics } from 'node:v8';
import { errors } from '../errors.js';

// A server past its limits answers new requests 503 at once instead of queueing them behind work
// it cannot finish in time; GET /health is still answered, so an orchestrator sees it alive.
// This is @fastify/under-pressure's rule, checked in the request gate: the plugin adds an
// onRequest hook that builds request.routeOptions (an object per request) on every route.

const RESOLUTION_MS = 10;
const SLOW_SAMPLES = 2;

export interface LoadLimits {
  /**
   * Median event-loop delay over a sample, in milliseconds, for two samples in a row: a loop that
   * is slow turn after turn (work queued faster than it is done), not one long turn or one bad second.
   */
  maxDelayMs: number;
  /** Heap in use, as a share (0-1) of V8's heap limit. */
  maxHeapShare: number;
  /** How often the delay and the heap are sampled. */
  sampleIntervalMs?: number;
}

export class LoadShedder {
  private readonly histogram: IntervalHistogram;
  private readonly timer: NodeJS.Timeout;
  private readonly heapLimit = getHeapStatistics().heap_size_limit;
  private readonly retryAfterSec: number;
  /** Read by the request gate on every request: one boolean, updated by the sampler. */
  overloaded = false;
  private slowSamples = 0;

  constructor(private readonly limits: LoadLimits) {
    const interval = limits.sampleIntervalMs ?? 1000;
    this.retryAfterSec = Math.max(1, Math.ceil(interval / 1000));
    this.histogram = monitorEventLoopDelay({ resolution: RESOLUTION_MS });
    this.histogram.enable();
    this.timer = setInterval(() => this.sample(), interval).unref();
  }

  /** Re-reads the delay since the last sample and the heap in use. */
  sample(): void {
    // The histogram's samples include its own resolution.
    const delayMs = this.histogram.count > 0 ? Math.max(0, this.histogram.percentile(50) / 1e6 - RESOLUTION_MS) : 0;
    this.histogram.reset();
    const heapShare = process.memoryUsage().heapUsed / this.heapLimit;
    this.slowSamples = delayMs > this.limits.maxDelayMs ? this.slowSamples + 1 : 0;
    this.overloaded = this.slowSamples >= SLOW_SAMPLES || heapShare > this.limits.maxHeapShare;
  }

  /** The request gate's step: throws 503 SERVER_BUSY while overloaded. */
  readonly check = (): void => {
    if (this.overloaded) throw errors.serverBusy(this.retryAfterSec);
  };

  close(): void {
    clearInterval(this.timer);
    this.histogram.disable();
  }
}
