/**
 * Short-lived answers kept in the process (decision 0045): what a model call reads on every call and that
 * changes rarely (a model card, a workspace's limits and settings). Like the authorizer's cached answer, a
 * change shows within the TTL in every process; the process that made it forgets its copy at once.
 */

/** How long a cached read is reused: a model card, a workspace's spend limit and content-capture choice. */
export const PROCESS_CACHE_TTL_MS = 30_000;

export type Clock = () => number;

const caches = new Set<TtlCache<unknown>>();

export class TtlCache<V> {
  private readonly entries = new Map<string, { value: V; at: number; until: number }>();
  /** In-flight loads, so that calls arriving together share one read. */
  private readonly loading = new Map<string, Promise<V>>();

  constructor(
    private readonly ttlMs: number = PROCESS_CACHE_TTL_MS,
    private readonly now: Clock = () => Date.now(),
    /** Entries kept at most; the oldest go first (a process serves a bounded set of workspaces and models). */
    private readonly maxEntries = 10_000,
  ) {
    caches.add(this as TtlCache<unknown>);
  }

  /**
   * The process's one cache of this name. `npm start --bundled` loads every function's bundle, each with its own
   * copy of this module, into one process: a change one function makes must be forgotten by the others there, as
   * it is when every handler shares one module (a Lambda process holds one bundle, so nothing changes there).
   */
  static named<V>(name: string): TtlCache<V> {
    const registry = ((globalThis as Record<symbol, unknown>)[Symbol.for("platform.processCaches")] ??= new Map<string, TtlCache<unknown>>()) as Map<string, TtlCache<unknown>>;
    let cache = registry.get(name);
    if (!cache) registry.set(name, (cache = new TtlCache<unknown>()));
    return cache as TtlCache<V>;
  }

  get(key: string): V | undefined {
    const entry = this.entries.get(key);
    if (!entry) return undefined;
    if (this.fresh(entry)) return entry.value;
    this.entries.delete(key);
    return undefined;
  }

  /** Within its TTL, and not stored "later" than now: a clock that went back (a correction, a test's fake clock) drops it. */
  private fresh(entry: { at: number; until: number }): boolean {
    const now = this.now();
    return entry.at <= now && now < entry.until;
  }

  set(key: string, value: V): void {
    this.entries.delete(key);
    if (this.entries.size >= this.maxEntries) this.entries.delete(this.entries.keys().next().value as string);
    const at = this.now();
    this.entries.set(key, { value, at, until: at + this.ttlMs });
  }

  /** The cached value, or `load`'s (cached when `keep` says so: e.g. not a "not found" that may soon exist). */
  async through(key: string, load: () => Promise<V>, keep: (value: V) => boolean = () => true): Promise<V> {
    const entry = this.entries.get(key);
    if (entry && this.fresh(entry)) return entry.value;
    const pending = this.loading.get(key);
    if (pending) return pending;
    const loaded = load().then(
      (value) => {
        this.loading.delete(key);
        if (keep(value)) this.set(key, value);
        return value;
      },
      (error: unknown) => {
        this.loading.delete(key);
        throw error;
      },
    );
    this.loading.set(key, loaded);
    return loaded;
  }

  delete(key: string): void {
    this.entries.delete(key);
  }

  /** Forgets every entry whose key starts with `prefix` (all with none). */
  forget(prefix = ""): void {
    for (const key of [...this.entries.keys()]) if (key.startsWith(prefix)) this.entries.delete(key);
  }
}

/** Forgets every process cache: for tests that change stored state behind the process's back. */
export function forgetProcessCaches(): void {
  for (const cache of caches) cache.forget();
}
