// A parse worker (src/gather/parse-pool.ts): parses runs of list items of an indented JSON List, maps each item with
// the mapper module's mapItem (the loader's prefit, with the argument it was started with) and answers with the mapped items as compact JSON.
import { parentPort, workerData } from 'node:worker_threads';
import { parseUnit } from './json-stream.js';

interface Mapper {
  mapItem(item: unknown, arg: unknown): unknown;
  toTransport(mapped: unknown): unknown;
}

const { mapperUrl, mapperArg } = workerData as { mapperUrl: string; mapperArg?: unknown };
const mapper = (await import(mapperUrl)) as Mapper;
const mapItem = (item: unknown) => mapper.mapItem(item, mapperArg);

/** A page of a live LIST (compact JSON as the API server sends it): its items mapped, and what the caller needs of the rest. */
interface PageMessage {
  id: number;
  page: Uint8Array;
  /** API servers omit apiVersion/kind on list items; kubectl -o json prints them, and the mapper recognises items by them. */
  kind: string;
  apiVersion: string;
}

function onPage(m: PageMessage): void {
  let list: { apiVersion?: unknown; items?: unknown; metadata?: { continue?: unknown } };
  try {
    list = JSON.parse(Buffer.from(m.page.buffer, m.page.byteOffset, m.page.byteLength).toString('utf8'));
  } catch (e) {
    parentPort?.postMessage({ id: m.id, error: (e as Error).message });
    return;
  }
  if (typeof list !== 'object' || list === null) {
    parentPort?.postMessage({ id: m.id, error: 'not a JSON object' });
    return;
  }
  const apiVersion = typeof list.apiVersion === 'string' ? list.apiVersion : m.apiVersion;
  const items = Array.isArray(list.items) ? list.items : [];
  const mapped = items.map((item: unknown) =>
    mapper.toTransport(mapItem(typeof item === 'object' && item !== null ? { apiVersion, kind: m.kind, ...item } : item)),
  );
  const cont = typeof list.metadata?.continue === 'string' ? list.metadata.continue : undefined;
  parentPort?.postMessage({ id: m.id, text: JSON.stringify(mapped), meta: { apiVersion, ...(cont ? { continue: cont } : {}) } });
}

parentPort?.on('message', (m: { id: number; bytes: Uint8Array; unit: string; fileOffset: number } | PageMessage) => {
  if ('page' in m) {
    try {
      onPage(m);
    } catch (e) {
      parentPort?.postMessage({ id: m.id, error: String((e as Error)?.message ?? e), crashed: true });
    }
    return;
  }
  try {
    const items: unknown[] = [];
    parseUnit(Buffer.from(m.bytes.buffer, m.bytes.byteOffset, m.bytes.byteLength), m.unit, m.fileOffset, items, mapItem);
    // the bytes go back (transferred, not copied) for the next unit
    parentPort?.postMessage({ id: m.id, text: JSON.stringify(items.map(mapper.toTransport)), bytes: m.bytes }, [m.bytes.buffer as ArrayBuffer]);
  } catch (e) {
    const err = e as Error & { fileOffset?: number };
    // malformed input is a SyntaxError with its file offset; anything else is this worker failing
    if (err instanceof SyntaxError) parentPort?.postMessage({ id: m.id, error: err.message, fileOffset: err.fileOffset });
    else parentPort?.postMessage({ id: m.id, error: String(err?.message ?? err), crashed: true });
  }
});
