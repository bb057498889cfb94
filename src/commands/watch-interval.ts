import { parseGoDuration } from '../model/duration.js';
import { UsageError } from '../model/errors.js';

/** --watch [interval]: 30s by default, never faster than 10s (each round lists the whole cluster). */
export function parseWatchInterval(v: string | boolean): number {
  if (v === true || v === '') return 30_000;
  const ms = parseGoDurationSafe(String(v));
  if (ms === undefined) throw new UsageError(`--watch ${JSON.stringify(v)}: use an interval such as 30s or 1m`);
  if (ms < 10_000) throw new UsageError(`--watch ${v}: the interval must be at least 10s (each round lists the whole cluster)`);
  return ms;
}

function parseGoDurationSafe(s: string): number | undefined {
  try {
    return parseGoDuration(/^\d+$/.test(s) ? `${s}s` : s);
  } catch {
    return undefined;
  }
}

