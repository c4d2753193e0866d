// PostgreSQL's autovacuum keeps the planner's statistics in step with the tables; PGlite runs no
// autovacuum and never analyses on its own. Plans made while a table was small (the foreign-key
// checks of an order's lines on `orders` among them) then stay sequential scans as it grows: on
// the bench an order's insert went from about 2 to 7 ms by 10,000 orders, and back after ANALYZE.

/** Writes before the first ANALYZE; after it, each one waits for as many writes as came before it. */
const FIRST_AFTER_WRITES = 500;
/** However many writes came before, the statistics are refreshed at least this often (in writes). */
const MOST_WRITES_BETWEEN = 200_000;

export interface AnalyzeTarget {
  /** The application's tables (not the migrations' bookkeeping). */
  tables(): Promise<string[]>;
  analyze(table: string): Promise<void>;
}

/**
 * Analyses every table after 500 writes, then after each doubling of the writes (1,000, 2,000, ...,
 * at least every 200,000): the statistics follow the tables' growth for a handful of runs in all.
 * One table per statement, so requests' statements run between them on the single connection;
 * writes are counted as they commit (a transaction is one).
 */
export class GrowthAnalyzer {
  private writes = 0;
  private nextAt = FIRST_AFTER_WRITES;
  private running: Promise<void> | null = null;
  private stopped = false;

  constructor(
    private readonly target: AnalyzeTarget,
    private readonly onError: (err: unknown) => void = () => {},
  ) {}

  wrote(): void {
    this.writes += 1;
    if (this.writes < this.nextAt || this.running || this.stopped) return;
    this.nextAt = this.writes + Math.min(Math.max(this.writes, FIRST_AFTER_WRITES), MOST_WRITES_BETWEEN);
    // Outside the writer's call: the listener must stay short.
    this.running = new Promise((resolve) => setImmediate(resolve)).then(() => this.run());
  }

  private async run(): Promise<void> {
    try {
      if (this.stopped) return;
      for (const table of await this.target.tables()) {
        if (this.stopped) return;
        await this.target.analyze(table);
      }
    } catch (err) {
      this.onError(err);
    } finally {
      this.running = null;
    }
  }

  /** Stops after the table being analysed, and resolves once it is done (the database may close then). */
  async stop(): Promise<void> {
    this.stopped = true;
    await this.running;
  }
}
