// The offline floor: every JSON file of a dump read in 4 MiB chunks and JSON.parse'd on one thread, large Lists in
// batches of about 64 KB of items (as the loader streams them), nothing kept and nothing else done. What no offline
// command can beat on one core; printed next to the commands so a slow or noisy machine shows as a slow floor too.
// Its own process. Usage: node bench/out/build/bench/parse-floor.js <dump dir>
import { closeSync, openSync, readdirSync, readFileSync, readSync, statSync } from 'node:fs';
import { join } from 'node:path';

const CHUNK = 4 << 20;
const close = Buffer.from('\n        }');
const dir = process.argv[2];

function readHead(path: string): string {
  const fd = openSync(path, 'r');
  const head = Buffer.alloc(4096);
  const n = readSync(fd, head, 0, head.length, 0);
  closeSync(fd);
  return head.toString('latin1', 0, n);
}
let items = 0;
for (const name of readdirSync(dir).filter((n) => n.endsWith('.json')).sort()) {
  const path = join(dir, name);
  // small files, and large ones that are not Kubernetes Lists (aws output of thousands of instances), in one piece
  if (statSync(path).size < 8 << 20 || !readHead(path).includes('"items": [')) {
    JSON.parse(readFileSync(path, 'utf8'));
    continue;
  }
  const fd = openSync(path, 'r');
  let buf = Buffer.alloc(2 * CHUNK);
  let len = 0;
  let start = -1; // the '[' or ',' before the next item
  for (;;) {
    if (buf.length - len < CHUNK) {
      const bigger = Buffer.alloc(buf.length * 2);
      buf.copy(bigger, 0, 0, len);
      buf = bigger;
    }
    const n = readSync(fd, buf, len, CHUNK, null);
    len += n;
    if (start < 0) start = buf.indexOf('"items": [') + '"items": '.length;
    for (;;) {
      const c = buf.indexOf(close, start + (64 << 10));
      if (c < 0 || c + close.length >= len) break;
      items += (JSON.parse(`[${buf.toString('latin1', start + 1, c + close.length)}]`) as unknown[]).length;
      start = c + close.length;
    }
    if (n === 0) {
      // the whole match must lie before len: bytes after it are left over from earlier chunks
      const last = buf.lastIndexOf(close, len - close.length);
      if (last >= 0 && last + close.length > start)
        items += (JSON.parse(`[${buf.toString('latin1', start + 1, last + close.length)}]`) as unknown[]).length;
      break;
    }
    buf.copy(buf, 0, start, len);
    len -= start;
    start = 0;
  }
  closeSync(fd);
}
process.stdout.write(`${items}\n`);
