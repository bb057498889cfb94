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

parentPort?.on('message', (m: { id: number; bytes: Uint8Array; unit: string; fileOffset: number }) => {
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
