// Small shared helpers of the history sources: foreign text made one bounded line, times, AWS instance ids.
import { oneLine } from '../../model/text.js';

/** Longest foreign text a step keeps (an event message, an activity's Cause, a log message). */
export const RAW_CHARS = 500;

/** Foreign text as one line of at most `max` characters (escaped controls; sanitized again when rendered). */
export function line(s: unknown, max = RAW_CHARS): string {
  const t = oneLine(typeof s === 'string' ? s : s === undefined || s === null ? '' : String(s)).trim();
  return t.length > max ? `${t.slice(0, max)}…` : t;
}

/** Epoch ms of an RFC 3339 / ISO time, or undefined. */
export function ms(v: unknown): number | undefined {
  if (typeof v !== 'string' || v === '') return undefined;
  const t = Date.parse(v);
  return Number.isNaN(t) ? undefined : t;
}

const INSTANCE_ID = /\bi-[0-9a-f]{8,17}\b/;

/** The EC2 instance id in a providerID (aws:///us-east-1a/i-0abc…) or any text. */
export function instanceIdOf(s: string | undefined): string | undefined {
  return s ? INSTANCE_ID.exec(s)?.[0] : undefined;
}

export const INSTANCE_IDS = /\bi-[0-9a-f]{8,17}\b/g;
