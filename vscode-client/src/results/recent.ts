// A map that keeps only the most recent entries: at most a number of them and a number of bytes,
// the oldest dropped first. Plain Node: no vscode import.

export class RecentMap<K, V> {
  private readonly entries = new Map<K, { value: V; bytes: number }>();
  private total = 0;

  /**
   * `maxEntries` and `maxBytes` bound what is kept; `sizeOf` tells an entry's bytes. The newest
   * entry is always kept, even when it alone is over `maxBytes`.
   */
  constructor(
    private readonly maxEntries: number,
    private readonly maxBytes: number,
    private readonly sizeOf: (value: V) => number,
  ) {}

  get size(): number {
    return this.entries.size;
  }

  /** Bytes of the entries kept. */
  get bytes(): number {
    return this.total;
  }

  get(key: K): V | undefined {
    return this.entries.get(key)?.value;
  }

  has(key: K): boolean {
    return this.entries.has(key);
  }

  keys(): K[] {
    return [...this.entries.keys()];
  }

  /** Adds (or replaces, as the newest) an entry, then drops the oldest until within bounds; returns the keys dropped. */
  set(key: K, value: V): K[] {
    this.delete(key);
    const bytes = this.sizeOf(value);
    this.entries.set(key, { value, bytes });
    this.total += bytes;
    const dropped: K[] = [];
    for (const [oldest, entry] of this.entries) {
      if (this.entries.size <= 1 || (this.entries.size <= this.maxEntries && this.total <= this.maxBytes)) {
        break;
      }
      this.entries.delete(oldest);
      this.total -= entry.bytes;
      dropped.push(oldest);
    }
    return dropped;
  }

  delete(key: K): boolean {
    const entry = this.entries.get(key);
    if (!entry) {
      return false;
    }
    this.entries.delete(key);
    this.total -= entry.bytes;
    return true;
  }
}
