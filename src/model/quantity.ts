/**
 * Kubernetes resource.Quantity parsing and formatting (k8s.io/apimachinery/pkg/api/resource/quantity.go).
 *
 * Parsing is exact: the number is held as a BigInt count of nano-units, rounded up to 1n like
 * ParseQuantity does, and capped at int64 max for SI suffixes. Conversions to JS numbers happen last.
 * Strings are trimmed first, as Quantity.UnmarshalJSON does; numbers are read through their decimal form.
 * Deviation: exponents beyond ±1000 ("1e5000") are rejected instead of producing astronomically large values.
 */

export class QuantityError extends Error {
  override name = 'QuantityError';
  constructor(
    readonly value: unknown,
    reason = 'quantities must match the regular expression ^([+-]?[0-9.]+)([eEinumkKMGTP]*[-+]?[0-9]*)$',
  ) {
    super(`invalid quantity ${JSON.stringify(value) ?? String(value)}: ${reason}`);
  }
}

const NANO = 1_000_000_000n;
const MAX_INT64 = 9_223_372_036_854_775_807n;
const MAX_EXPONENT = 1000;

const BINARY_SUFFIXES: Record<string, number> = { Ki: 10, Mi: 20, Gi: 30, Ti: 40, Pi: 50, Ei: 60 };
const DECIMAL_SUFFIXES: Record<string, number> = {
  n: -9,
  u: -6,
  m: -3,
  '': 0,
  k: 3,
  M: 6,
  G: 9,
  T: 12,
  P: 15,
  E: 18,
};
const SUFFIX_CHARS = 'eEinumkKMGTP';

type Format = 'BinarySI' | 'DecimalSI' | 'DecimalExponent';

/** A parsed quantity: sign and magnitude in nano-units (exact). */
interface ExactQuantity {
  negative: boolean;
  nanos: bigint;
}

function isDigit(c: string | undefined): boolean {
  return c !== undefined && c >= '0' && c <= '9';
}

function interpretSuffix(suffix: string): { base: 2 | 10; exponent: number; format: Format } | undefined {
  if (suffix in BINARY_SUFFIXES) return { base: 2, exponent: BINARY_SUFFIXES[suffix], format: 'BinarySI' };
  if (suffix in DECIMAL_SUFFIXES)
    return { base: 10, exponent: DECIMAL_SUFFIXES[suffix], format: 'DecimalSI' };
  // apimachinery suffix.go: "e3"/"E-3"; strconv.ParseInt accepts an optional sign
  if (
    suffix.length > 1 &&
    (suffix[0] === 'e' || suffix[0] === 'E') &&
    /^[+-]?[0-9]+$/.test(suffix.slice(1))
  ) {
    const exponent = Number.parseInt(suffix.slice(1), 10);
    return { base: 10, exponent, format: 'DecimalExponent' };
  }
  return undefined;
}

function ceilDiv(a: bigint, b: bigint): bigint {
  return (a + b - 1n) / b;
}

function parseExact(input: string | number): ExactQuantity {
  let str: string;
  if (typeof input === 'number') {
    if (!Number.isFinite(input)) throw new QuantityError(input, 'not a finite number');
    str = String(input);
  } else if (typeof input === 'string') {
    str = input.trim();
  } else {
    throw new QuantityError(input, 'expected a string or a number');
  }
  if (str.length === 0) throw new QuantityError(input, 'empty quantity');

  // Mirrors parseQuantityString: sign, digits, optional "." digits, then the suffix.
  let pos = 0;
  let negative = false;
  if (str[0] === '-' || str[0] === '+') {
    negative = str[0] === '-';
    pos++;
  }
  const intStart = pos;
  while (isDigit(str[pos])) pos++;
  const intDigits = str.slice(intStart, pos);
  let fracDigits = '';
  if (str[pos] === '.') {
    pos++;
    const fracStart = pos;
    while (isDigit(str[pos])) pos++;
    fracDigits = str.slice(fracStart, pos);
  }
  const suffixStart = pos;
  while (pos < str.length && SUFFIX_CHARS.includes(str[pos])) pos++;
  if (str[pos] === '-' || str[pos] === '+') pos++;
  while (isDigit(str[pos])) pos++;
  if (pos !== str.length) throw new QuantityError(input);
  const suffix = str.slice(suffixStart);
  const interpreted = interpretSuffix(suffix);
  if (!interpreted) throw new QuantityError(input, `unable to parse quantity's suffix "${suffix}"`);
  if (Math.abs(interpreted.exponent) > MAX_EXPONENT) {
    throw new QuantityError(input, 'exponent out of the supported range');
  }

  const mantissa = BigInt(`${intDigits}${fracDigits}` || '0');
  // value = mantissa / 10^frac * base^exponent; in nano-units: * 10^9
  let numerator = mantissa * NANO;
  let denominator = 10n ** BigInt(fracDigits.length);
  if (interpreted.base === 2) {
    numerator *= 1n << BigInt(interpreted.exponent);
  } else if (interpreted.exponent >= 0) {
    numerator *= 10n ** BigInt(interpreted.exponent);
  } else {
    denominator *= 10n ** BigInt(-interpreted.exponent);
  }
  // ParseQuantity rounds non-zero values up to the smallest representable unit (1n)
  let nanos = ceilDiv(numerator, denominator);
  if (interpreted.format !== 'DecimalExponent' && nanos > MAX_INT64 * NANO) nanos = MAX_INT64 * NANO;
  return { negative: negative && nanos !== 0n, nanos };
}

function toNumber(q: ExactQuantity): number {
  const whole = q.nanos / NANO;
  const frac = q.nanos % NANO;
  const magnitude = Number(whole) + Number(frac) / 1e9;
  return q.negative ? -magnitude : magnitude;
}

/** Ceil of (value / unitNanos) with sign, like Quantity.ScaledValue (which rounds up). */
function scaledCeil(q: ExactQuantity, unitNanos: bigint): number {
  if (q.negative) {
    const truncated = Number(q.nanos / unitNanos);
    return truncated === 0 ? 0 : -truncated;
  }
  return Number(ceilDiv(q.nanos, unitNanos));
}

/** The quantity's value in base units (cores, bytes, counts); fractions allowed ("100m" -> 0.1). */
export function parseQuantity(q: string | number): number {
  return toNumber(parseExact(q));
}

/** True when parseQuantity would accept the value. */
export function isValidQuantity(q: unknown): boolean {
  if (typeof q !== 'string' && typeof q !== 'number') return false;
  try {
    parseExact(q);
    return true;
  } catch {
    return false;
  }
}

// A cluster repeats a few hundred distinct quantities ("100m", "128Mi") across 100k pods: exact BigInt parsing of each
// occurrence was a tenth of why-pending's analysis time. Valid strings only; bounded so odd input cannot grow it.
const CACHE_LIMIT = 10_000;
const milliCache = new Map<string, number>();
const intCache = new Map<string, number>();

function cached(cache: Map<string, number>, q: string | number, unit: bigint): number {
  if (typeof q !== 'string') return scaledCeil(parseExact(q), unit);
  let v = cache.get(q);
  if (v === undefined) {
    v = scaledCeil(parseExact(q), unit);
    if (cache.size >= CACHE_LIMIT) cache.clear();
    cache.set(q, v);
  }
  return v;
}

/** Quantity.MilliValue: the value in thousandths, rounded up ("100m" -> 100, "0.1234" -> 124). */
export function toMilli(q: string | number): number {
  return cached(milliCache, q, 1_000_000n);
}

/** Quantity.Value: the value in whole units, rounded up ("1500m" -> 2, "1Ki" -> 1024). */
export function toInt(q: string | number): number {
  return cached(intCache, q, NANO);
}

/** CPU millicores for display: "3920m", or "4" when whole cores. */
export function formatCpu(millis: number): string {
  const m = Math.ceil(millis);
  if (m % 1000 === 0) return String(m / 1000);
  return `${m}m`;
}

const BINARY_FORMAT_ORDER: Array<[string, number]> = [
  ['Ei', 2 ** 60],
  ['Pi', 2 ** 50],
  ['Ti', 2 ** 40],
  ['Gi', 2 ** 30],
  ['Mi', 2 ** 20],
  ['Ki', 2 ** 10],
];

/**
 * Bytes the way a BinarySI Quantity prints canonically: the largest exact binary suffix ("16Gi", "15896972Ki"),
 * a plain integer when not a multiple of 1024, and DecimalSI below 1024 ("1k", "512"), as CanonicalizeBytes does.
 */
export function formatBytes(bytes: number): string {
  const b = Math.ceil(bytes);
  const abs = Math.abs(b);
  if (abs < 1024) {
    if (b !== 0 && b % 1000 === 0) return `${b / 1000}k`;
    return String(b);
  }
  for (const [suffix, size] of BINARY_FORMAT_ORDER) {
    if (abs >= size && abs % size === 0) return `${b / size}${suffix}`;
  }
  return String(b);
}

/** True for resources measured in bytes. */
export function isByteResource(name: string): boolean {
  return (
    name === 'memory' || name === 'ephemeral-storage' || name === 'storage' || name.startsWith('hugepages-')
  );
}

/**
 * Formats a value as parsed by simulate/resources.ts: `cpu` in millicores, byte resources in bytes,
 * everything else (pods, nvidia.com/gpu, ...) as a plain integer.
 */
export function formatResource(name: string, value: number): string {
  if (name === 'cpu') return formatCpu(value);
  if (isByteResource(name)) return formatBytes(value);
  return String(Math.ceil(value));
}

const BYTE_SUFFIX: Record<string, number> = { Ki: 2 ** 10, Mi: 2 ** 20, Gi: 2 ** 30, Ti: 2 ** 40, Pi: 2 ** 50, Ei: 2 ** 60 };

/** Bytes in a given binary unit, one decimal at most, rounded `up` or down ("14.2Gi"). */
function bytesIn(bytes: number, suffix: string, up: boolean): string {
  const v = (up ? Math.ceil : Math.floor)((bytes / BYTE_SUFFIX[suffix]) * 10) / 10;
  return `${v}${suffix}`;
}

/**
 * One unit per comparison, for a reader: "200Gi > 14958064Ki free" becomes "200Gi > 14.2Gi free" (the larger unit of
 * the two; the request rounded up and the free amount down, so the comparison still reads true). Only binary byte
 * quantities with different suffixes are rewritten; everything else is left as it is.
 */
export function oneUnitPerComparison(text: string): string {
  return text.replace(/\b(\d+(?:\.\d+)?)(Ki|Mi|Gi|Ti|Pi|Ei) > (\d+(?:\.\d+)?)(Ki|Mi|Gi|Ti|Pi|Ei) free\b/g, (m, a: string, ua: string, b: string, ub: string) => {
    if (ua === ub) return m;
    const unit = BYTE_SUFFIX[ua] > BYTE_SUFFIX[ub] ? ua : ub;
    return `${bytesIn(Number(a) * BYTE_SUFFIX[ua], unit, true)} > ${bytesIn(Number(b) * BYTE_SUFFIX[ub], unit, false)} free`;
  });
}

/**
 * One unit per resource line, for a reader: "requests memory 200Gi, node allocatable 15146480Ki, already requested
 * 184Mi, free 14958064Ki" becomes "requests memory 200Gi, node allocatable 14.4Gi, already requested 0.2Gi, free
 * 14.2Gi" (the request's unit when it is the larger; free never reads larger than it is).
 * JSON keeps the exact values.
 */
export function oneUnitPerResourceLine(text: string): string {
  return text.replace(
    /\brequests (memory|ephemeral-storage|hugepages-\S+) (\d+(?:\.\d+)?)(Ki|Mi|Gi|Ti|Pi|Ei), node allocatable (\d+(?:\.\d+)?)(Ki|Mi|Gi|Ti|Pi|Ei|), already requested (\d+(?:\.\d+)?)(Ki|Mi|Gi|Ti|Pi|Ei|), free (-?)(\d+(?:\.\d+)?)(Ki|Mi|Gi|Ti|Pi|Ei|)/g,
    (m, res: string, a: string, ua: string, b: string, ub: string, c: string, uc: string, neg: string, d: string, ud: string) => {
      const bytes = (v: string, u: string) => Number(v) * (u ? BYTE_SUFFIX[u] : 1);
      const units = [ub, uc, ud].filter((u) => u !== '');
      if (units.every((u) => u === ua)) return m;
      // only rewrite when the request's unit is the largest on the line (a small request reads best as it is)
      if (units.some((u) => BYTE_SUFFIX[u] > BYTE_SUFFIX[ua])) return m;
      const f = (v: string, u: string, up: boolean) => (u === ua ? `${v}${u}` : bytesIn(bytes(v, u), ua, up));
      // allocatable and free rounded down, what is already requested up: the line still adds up for a reader
      return `requests ${res} ${a}${ua}, node allocatable ${f(b, ub, false)}, already requested ${f(c, uc, true)}, free ${neg}${f(d, ud, neg === '-')}`;
    },
  );
}
