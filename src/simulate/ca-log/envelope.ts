// The wrapper around each CA log message: klog text, `--logging-format=json` (component-base's zap encoder), and either
// one behind a timestamp prefix or inside a docker/fluent-bit `{"log":…}` record. Pure; knows nothing of CA's messages.
import type { CaLogFormat, CaLogLevel } from '../../model/ca-log.js';

export interface EnvelopeLine {
  format: Exclude<CaLogFormat, 'unknown'>;
  level: CaLogLevel;
  /** Epoch ms; undefined when the line carries no usable time. */
  time?: number;
  /** klog's "file.go:123" or JSON's caller, when present. */
  file?: string;
  msg: string;
  /** 'prefix' when klog's year came from a prefix timestamp, 'now' when inferred from the reference clock. */
  yearFrom?: 'prefix' | 'now';
}

// klog: Lmmdd hh:mm:ss.uuuuuu threadid file:line] msg (k8s.io/klog/v2 internal/buffer formatHeader); the thread id is space-padded.
// RFC 3339 prefix: kubectl logs --timestamps, CRI log files ("<ts> stderr F <line>"), `aws logs tail` ("<ts> <stream> <line>").
const PREFIX = /^(\d{4})-(\d\d)-(\d\d)[T ](\d\d):(\d\d):(\d\d)(?:[.,](\d+))?(Z|[+-]\d\d:?\d\d)?\s+/;
const CRI_STREAM = /^(?:stdout|stderr) [FP] /;

const DAY_MS = 86_400_000;

const d2 = (s: string, i: number) => (s.charCodeAt(i) - 48) * 10 + (s.charCodeAt(i + 1) - 48);
const isDigit = (c: number) => c >= 48 && c <= 57;
/** Where klog's header has digits: mmdd hh mm ss. */
const DIGITS = [1, 2, 3, 4, 6, 7, 9, 10, 12, 13] as const;

// the year for a reference time, and the epoch of a month/day in it: klog lines repeat both for hours
let yearRef = Number.NaN;
let yearOfRef = 0;
let dayKey = -1;
let dayStart = 0;

/**
 * Parses klog's header by position (faster than a regex on every line): "Lmmdd hh:mm:ss.uuuuuu threadid file:line] ".
 * The year is missing: from the prefix's year when there is one, else the latest year not after the reference (+1 day of
 * clock skew), so a December line read in January belongs to the previous year.
 */
function parseKlog(line: string, prefixMs: number | undefined, nowMs: number): EnvelopeLine | undefined {
  const c = line.charCodeAt(0);
  // I, W, E, F
  if (c !== 73 && c !== 87 && c !== 69 && c !== 70) return undefined;
  if (line.length < 23 || line.charCodeAt(5) !== 32 || line.charCodeAt(8) !== 58 || line.charCodeAt(11) !== 58 || line.charCodeAt(14) !== 46) return undefined;
  for (const i of DIGITS) if (!isDigit(line.charCodeAt(i))) return undefined;
  let i = 15;
  while (i < line.length && isDigit(line.charCodeAt(i))) i++;
  const fracEnd = i;
  if (fracEnd === 15 || line.charCodeAt(i) !== 32) return undefined;
  while (line.charCodeAt(i) === 32) i++;
  const tid = i;
  while (isDigit(line.charCodeAt(i))) i++;
  if (i === tid || line.charCodeAt(i) !== 32) return undefined;
  const fileStart = i + 1;
  const close = line.indexOf('] ', fileStart);
  const end = close >= 0 ? close : line.endsWith(']') ? line.length - 1 : -1;
  if (end <= fileStart) return undefined;
  const file = line.slice(fileStart, end);
  if (file.includes(' ')) return undefined;
  const month = d2(line, 1);
  const day = d2(line, 3);
  if (month < 1 || month > 12 || day < 1 || day > 31) return undefined;
  let ms = 0;
  for (let k = 15; k < 18; k++) ms = ms * 10 + (k < fracEnd ? line.charCodeAt(k) - 48 : 0);
  const sinceMidnight = ((d2(line, 6) * 60 + d2(line, 9)) * 60 + d2(line, 12)) * 1000 + ms;
  const ref = prefixMs ?? nowMs;
  if (ref !== yearRef) {
    yearRef = ref;
    yearOfRef = new Date(ref).getUTCFullYear();
    dayKey = -1;
  }
  const key = month * 32 + day;
  if (key !== dayKey) {
    dayKey = key;
    dayStart = Date.UTC(yearOfRef, month - 1, day);
    if (dayStart > ref + DAY_MS) dayStart = Date.UTC(yearOfRef - 1, month - 1, day);
  }
  return {
    format: prefixMs === undefined ? 'klog' : 'prefixed-klog',
    level: line[0] as CaLogLevel,
    time: dayStart + sinceMidnight,
    file,
    msg: close >= 0 ? line.slice(close + 2) : '',
    yearFrom: prefixMs === undefined ? 'now' : 'prefix',
  };
}

function parsePrefixTime(m: RegExpExecArray): number {
  const frac = m[7] ?? '0';
  const ms = Number(frac.length >= 3 ? frac.slice(0, 3) : frac.padEnd(3, '0'));
  let t = Date.UTC(Number(m[1]), Number(m[2]) - 1, Number(m[3]), Number(m[4]), Number(m[5]), Number(m[6]), ms);
  const zone = m[8];
  if (zone && zone !== 'Z') {
    const sign = zone[0] === '-' ? -1 : 1;
    const digits = zone.slice(1).replace(':', '');
    t -= sign * (Number(digits.slice(0, 2)) * 60 + Number(digits.slice(2, 4))) * 60_000;
  }
  return t;
}

function isoMs(v: unknown): number | undefined {
  if (typeof v === 'number' && Number.isFinite(v)) return v;
  if (typeof v === 'string') {
    const t = Date.parse(v);
    return Number.isNaN(t) ? undefined : t;
  }
  return undefined;
}

/**
 * A JSON line: CA's own `--logging-format=json` record (`ts` epoch ms, `caller`, `msg`, `v` on info lines only — zapr writes
 * errors without `v`; component-base logs/json) or a docker json-file / fluent-bit record whose `log` holds the real line.
 */
function parseJson(line: string, prefixMs: number | undefined, nowMs: number, depth: number): EnvelopeLine | undefined {
  let o: unknown;
  try {
    o = JSON.parse(line);
  } catch {
    return undefined;
  }
  if (!o || typeof o !== 'object' || Array.isArray(o)) return undefined;
  const r = o as Record<string, unknown>;
  if (typeof r.msg === 'string' && ('ts' in r || 'caller' in r)) {
    let msg = r.msg.replace(/\n+$/, '');
    if (typeof r.err === 'string' && r.err !== '') msg = `${msg}: ${r.err}`;
    const isError = 'err' in r || !('v' in r);
    return {
      format: prefixMs === undefined ? 'json' : 'prefixed-json',
      level: isError ? 'E' : 'I',
      time: isoMs(r.ts) ?? prefixMs,
      file: typeof r.caller === 'string' ? r.caller : undefined,
      msg,
    };
  }
  if (typeof r.log === 'string' && depth === 0) {
    const inner = r.log.replace(/\r?\n$/, '');
    const t = isoMs(r.time) ?? isoMs(r.timestamp) ?? isoMs(r['@timestamp']) ?? nowMs;
    const e = parseLine(inner, t, nowMs, depth + 1);
    return e && { ...e, format: e.format === 'json' || e.format === 'prefixed-json' ? 'prefixed-json' : 'prefixed-klog' };
  }
  return undefined;
}

function parseLine(line: string, prefixMs: number | undefined, nowMs: number, depth: number): EnvelopeLine | undefined {
  if (line.charCodeAt(0) === 123 /* { */) return parseJson(line, prefixMs, nowMs, depth);
  return parseKlog(line, prefixMs, nowMs);
}

/** Parses one line's envelope; undefined when it has none (a continuation line, or not a CA log at all). */
export function parseEnvelope(line: string, nowMs: number): EnvelopeLine | undefined {
  const direct = parseLine(line, undefined, nowMs, 0);
  if (direct) return direct;
  const c = line.charCodeAt(0);
  if (c < 48 || c > 57) return undefined; // prefixes start with a year
  const p = PREFIX.exec(line);
  if (!p) return undefined;
  const prefixMs = parsePrefixTime(p);
  let rest = line.slice(p[0].length);
  const cri = CRI_STREAM.exec(rest);
  if (cri) rest = rest.slice(cri[0].length);
  const e = parseLine(rest, prefixMs, nowMs, 0);
  if (e) return { ...e, format: e.format === 'json' || e.format === 'prefixed-json' ? 'prefixed-json' : 'prefixed-klog' };
  // `aws logs tail` puts the log stream's name between the time and the line
  const sp = rest.indexOf(' ');
  if (sp > 0) {
    const e2 = parseLine(rest.slice(sp + 1), prefixMs, nowMs, 0);
    if (e2) return { ...e2, format: e2.format === 'json' || e2.format === 'prefixed-json' ? 'prefixed-json' : 'prefixed-klog' };
  }
  return undefined;
}
