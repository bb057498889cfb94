/**
 * Go time.Duration parsing and printing (Go src/time/format.go ParseDuration, time.go Duration.String), used for
 * CA flags ("10m", "600s") and annotations (pod-scale-up-delay). Durations are milliseconds in casdoctor.
 */

export class DurationError extends Error {
  override name = 'DurationError';
  constructor(
    readonly value: unknown,
    message: string,
  ) {
    super(message);
  }
}

const NS_PER_UNIT: Record<string, bigint> = {
  ns: 1n,
  us: 1_000n,
  µs: 1_000n, // U+00B5 micro sign
  μs: 1_000n, // U+03BC Greek mu
  ms: 1_000_000n,
  s: 1_000_000_000n,
  m: 60_000_000_000n,
  h: 3_600_000_000_000n,
};

const MAX_NS = 1n << 63n;

function quote(s: string): string {
  return `"${s}"`;
}

function isDigit(c: string | undefined): boolean {
  return c !== undefined && c >= '0' && c <= '9';
}

/** Nanoseconds of a Go duration string, exactly as time.ParseDuration computes them (int64 range). */
export function parseGoDurationNanos(s: string): bigint {
  if (typeof s !== 'string') throw new DurationError(s, `time: invalid duration ${String(s)}`);
  const orig = s;
  const invalid = () => new DurationError(orig, `time: invalid duration ${quote(orig)}`);
  let rest = s;
  let negative = false;
  if (rest !== '' && (rest[0] === '-' || rest[0] === '+')) {
    negative = rest[0] === '-';
    rest = rest.slice(1);
  }
  if (rest === '0') return 0n;
  if (rest === '') throw invalid();

  let total = 0n;
  while (rest !== '') {
    if (!(rest[0] === '.' || isDigit(rest[0]))) throw invalid();
    let i = 0;
    while (isDigit(rest[i])) i++;
    const pre = i > 0;
    const whole = pre ? BigInt(rest.slice(0, i)) : 0n;
    if (whole > MAX_NS) throw invalid();
    rest = rest.slice(i);

    let fraction = 0n;
    let scale = 1;
    let post = false;
    if (rest[0] === '.') {
      rest = rest.slice(1);
      let j = 0;
      let overflow = false;
      while (isDigit(rest[j])) {
        // leadingFraction: stop accumulating once more digits would overflow, keep consuming them
        if (!overflow) {
          const next = fraction * 10n + BigInt(rest.charCodeAt(j) - 48);
          if (next > MAX_NS) overflow = true;
          else {
            fraction = next;
            scale *= 10;
          }
        }
        j++;
      }
      post = j > 0;
      rest = rest.slice(j);
    }
    if (!pre && !post) throw invalid();

    let u = 0;
    while (u < rest.length && rest[u] !== '.' && !isDigit(rest[u])) u++;
    if (u === 0) throw new DurationError(orig, `time: missing unit in duration ${quote(orig)}`);
    const unitName = rest.slice(0, u);
    rest = rest.slice(u);
    const unit = NS_PER_UNIT[unitName];
    if (unit === undefined) {
      throw new DurationError(orig, `time: unknown unit ${quote(unitName)} in duration ${quote(orig)}`);
    }
    if (whole > MAX_NS / unit) throw invalid();
    let v = whole * unit;
    if (fraction > 0n) {
      // Go: v += uint64(float64(f) * (float64(unit) / scale))
      v += BigInt(Math.trunc(Number(fraction) * (Number(unit) / scale)));
      if (v > MAX_NS) throw invalid();
    }
    total += v;
    if (total > MAX_NS) throw invalid();
  }
  if (negative) return -total;
  if (total > MAX_NS - 1n) throw invalid();
  return total;
}

/** Milliseconds of a Go duration string ("300ms" -> 300, "1.5h" -> 5400000, "-1m" -> -60000); throws DurationError. */
export function parseGoDuration(s: string): number {
  const ns = parseGoDurationNanos(s);
  const ms = ns / 1_000_000n;
  const rem = ns % 1_000_000n;
  return Number(ms) + Number(rem) / 1e6;
}

/** Writes v / 10^prec with trailing fractional zeros (and a bare ".") omitted, as Go's fmtFrac + fmtInt. */
function fracString(v: bigint, prec: number): string {
  const div = 10n ** BigInt(prec);
  const whole = v / div;
  let frac = (v % div).toString().padStart(prec, '0').replace(/0+$/, '');
  if (prec === 0) frac = '';
  return frac ? `${whole}.${frac}` : `${whole}`;
}

/**
 * Go's Duration.String() of a millisecond value: "0s", "300ms", "1.5s", "10m0s", "2h45m0s", "1.5µs".
 * This is the form CA prints in its logs and flag help, so we keep it exactly (see formatDurationShort for prose).
 */
export function formatDuration(ms: number): string {
  let ns = BigInt(Math.round(ms * 1e6));
  const negative = ns < 0n;
  if (negative) ns = -ns;
  let out: string;
  if (ns < 1_000_000_000n) {
    if (ns === 0n) out = '0s';
    else if (ns < 1_000n) out = `${ns}ns`;
    else if (ns < 1_000_000n) out = `${fracString(ns, 3)}µs`;
    else out = `${fracString(ns, 6)}ms`;
  } else {
    const secondsPart = fracString(ns % 60_000_000_000n, 9);
    let minutes = ns / 60_000_000_000n;
    out = `${secondsPart}s`;
    if (minutes > 0n) {
      const hours = minutes / 60n;
      minutes %= 60n;
      out = `${minutes}m${out}`;
      if (hours > 0n) out = `${hours}h${out}`;
    }
  }
  return negative ? `-${out}` : out;
}

const HOUR_MS = 3_600_000;

/** Go's form with zero trailing units dropped, for prose: "10m", "1h30m", "1h0m5s" stays, "0s" stays. */
export function formatDurationShort(ms: number): string {
  // ages of days print as days and hours ("2636d19h"), never "63283h2m12.317s"
  const abs = Math.abs(ms);
  if (abs >= 48 * HOUR_MS) {
    const hours = Math.floor(abs / HOUR_MS);
    const days = Math.floor(hours / 24);
    return `${ms < 0 ? '-' : ''}${days}d${hours % 24 ? `${hours % 24}h` : ''}`;
  }
  const full = formatDuration(ms);
  if (!/[hm]/.test(full.replace(/ms$/, ''))) return full;
  return full.replace(/([hm])0s$/, '$1').replace(/(h)0m$/, '$1');
}
