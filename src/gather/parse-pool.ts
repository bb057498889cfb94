// Parse workers for the offline loader: the largest dump (pods.json, ~10 KB per pod as kubectl prints it) is mostly
// JSON.parse time. Workers parse and project whole runs of list items and send back only the fields casdoctor reads,
// as compact JSON, which the main thread parses in a third of the time the full text takes. The main thread keeps
// parsing itself whenever the workers are busy, so on one core nothing changes and on two the file loads in about half
// the time.
import { existsSync } from 'node:fs';
import { availableParallelism } from 'node:os';
import { fileURLToPath } from 'node:url';
import { Worker } from 'node:worker_threads';

/** Units a worker may have queued: enough to keep it busy while the main thread parses a chunk of its own. */
const MAX_IN_FLIGHT = 4;

export interface Slot {
  worker: Worker;
  inFlight: number;
}

export interface UnitResult {
  text?: string;
  /** Malformed JSON in the unit: a SyntaxError's message, and where in the file. */
  error?: string;
  fileOffset?: number;
  /** The worker itself failed (not the input). */
  crashed?: boolean;
  /** The unit's bytes, handed back for reuse. */
  bytes?: Uint8Array;
  /** For a page: the list's apiVersion and continue token. */
  meta?: { apiVersion: string; continue?: string };
}

/** Spare unit buffers kept for reuse: about what the workers may have queued. */
const SPARE_BUFFERS = 8;

export class ParsePool {
  private readonly slots: Slot[];
  private readonly pending = new Map<number, { slot: Slot; resolve: (r: UnitResult) => void }>();
  private nextId = 0;
  // Unit buffers the workers handed back: a fresh 1 MiB buffer per unit cost page faults and external-memory GCs.
  private readonly spare: ArrayBuffer[] = [];

  private constructor(size: number, mapperUrl: string, mapperArg: unknown, workerUrl: URL) {
    this.slots = [];
    try {
      for (let i = 0; i < size; i++) {
        const worker = new Worker(workerUrl, { workerData: { mapperUrl, mapperArg } });
        const slot: Slot = { worker, inFlight: 0 };
        worker.on('message', (m: UnitResult & { id: number }) => this.settle(m.id, m));
        worker.on('error', (e) => this.failAll(slot, e.message));
        worker.on('exit', () => this.failAll(slot, 'parse worker exited'));
        // Idle workers must not keep the process alive (an abandoned pool), busy ones must: the main thread may be
        // waiting for nothing but their answers. So a worker is ref'd while it has units and unref'd when idle; this
        // comes after the listeners because adding a 'message' listener refs the worker again.
        worker.unref();
        this.slots.push(slot);
      }
    } catch (e) {
      for (const s of this.slots) void s.worker.terminate();
      throw e;
    }
  }

  /**
   * A pool of `workers` (default: one per spare CPU, at most 3), or undefined when there is no spare CPU or the worker
   * script is not there (the TypeScript sources run under the test runner: the main thread parses alone).
   */
  static create(mapperUrl: string, mapperArg: unknown, workers?: number): ParsePool | undefined {
    const size = workers ?? Math.min(availableParallelism() - 1, 3);
    if (size <= 0) return undefined;
    const workerUrl = new URL('./parse-worker.js', import.meta.url);
    if (!existsSync(fileURLToPath(workerUrl)) || !existsSync(fileURLToPath(mapperUrl))) return undefined;
    return new ParsePool(size, mapperUrl, mapperArg, workerUrl);
  }

  /** The least busy worker that can take another unit, if any. */
  available(): Slot | undefined {
    let best: Slot | undefined;
    for (const s of this.slots) if (s.inFlight < MAX_IN_FLIGHT && (!best || s.inFlight < best.inFlight)) best = s;
    return best;
  }

  /** A buffer of `length` bytes for a unit, reusing one a worker handed back when it is large enough. */
  buffer(length: number): Uint8Array {
    const i = this.spare.findIndex((b) => b.byteLength >= length);
    if (i >= 0) return new Uint8Array(this.spare.splice(i, 1)[0], 0, length);
    // room for the item that ends a unit past its nominal size, so most buffers fit the next unit
    return new Uint8Array(new ArrayBuffer(length + (length >> 3)), 0, length);
  }

  /** Sends `bytes` (transferred: the caller gives them up) to a worker; resolves with its JSON text or error. */
  submit(slot: Slot, bytes: Uint8Array, unit: string, fileOffset: number): Promise<UnitResult> {
    const id = this.nextId++;
    if (slot.inFlight++ === 0) slot.worker.ref();
    return new Promise((resolve) => {
      this.pending.set(id, { slot, resolve });
      slot.worker.postMessage({ id, bytes, unit, fileOffset }, [bytes.buffer as ArrayBuffer]);
    });
  }

  /**
   * Sends one page of a live LIST (transferred) to a worker: it parses the page, gives each item `kind` and the list's
   * apiVersion, maps it, and answers with the mapped items as JSON and the page's continue token.
   */
  submitPage(slot: Slot, page: Buffer, kind: string, apiVersion: string): Promise<UnitResult> {
    const id = this.nextId++;
    if (slot.inFlight++ === 0) slot.worker.ref();
    // a Buffer from Buffer.concat owns its ArrayBuffer unless it came from the shared pool of small buffers
    const bytes = page.byteOffset === 0 && page.byteLength === page.buffer.byteLength ? page : Uint8Array.prototype.slice.call(page);
    return new Promise((resolve) => {
      this.pending.set(id, { slot, resolve });
      slot.worker.postMessage({ id, page: bytes, kind, apiVersion }, [bytes.buffer as ArrayBuffer]);
    });
  }

  async close(): Promise<void> {
    const slots = this.slots.splice(0);
    await Promise.all(slots.map((s) => s.worker.terminate()));
  }

  private settle(id: number, r: UnitResult): void {
    const p = this.pending.get(id);
    if (!p) return;
    this.pending.delete(id);
    if (--p.slot.inFlight === 0) p.slot.worker.unref();
    if (r.bytes && this.spare.length < SPARE_BUFFERS) this.spare.push(r.bytes.buffer as ArrayBuffer);
    p.resolve(r);
  }

  private failAll(slot: Slot, message: string): void {
    for (const [id, p] of this.pending) if (p.slot === slot) this.settle(id, { error: message, crashed: true });
    slot.inFlight = MAX_IN_FLIGHT; // never use it again
  }
}
