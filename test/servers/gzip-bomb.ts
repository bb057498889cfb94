import type { ServerResponse } from 'node:http';
import { createGzip, constants as zlibConstants } from 'node:zlib';

/** Streams a small gzip body of whitespace that inflates to `bytes` (1 GiB by default), with backpressure. */
export function pumpGzipBomb(res: ServerResponse, bytes = 1024 ** 3): void {
  const gz = createGzip({ level: zlibConstants.Z_BEST_COMPRESSION });
  gz.pipe(res);
  res.on('close', () => gz.destroy());
  let left = bytes;
  const chunk = Buffer.alloc(1024 * 1024, ' ');
  const pump = () => {
    while (left > 0 && !gz.destroyed) {
      const c = left >= chunk.length ? chunk : chunk.subarray(0, left);
      left -= c.length;
      if (!gz.write(c)) return void gz.once('drain', pump);
    }
    if (!gz.destroyed) gz.end();
  };
  pump();
}
