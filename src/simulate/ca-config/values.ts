// CA's flag values as Go's flag package and CA's own parsers read them: ints, bools, floats, durations, min:max pairs
// and GPU limits (pflag, config/flags/flags.go parseMultipleGpuLimits, parseMinMaxFlag).
import type { GpuLimit, MinMax } from '../../model/ca-config.js';
import { parseGoDuration } from '../../model/duration.js';
import type { FlagDef } from './flags.js';

/** strconv.Atoi: optional sign, decimal digits. */
export function parseGoInt(s: string): number | undefined {
  return /^[+-]?\d+$/.test(s) ? Number(s) : undefined;
}

/** strconv.ParseInt(s, 0, 64) as pflag's int flags use it: sign, 0x / 0o / 0b prefixes, underscores. */
function parseGoIntFlag(s: string): number | undefined {
  const m = /^([+-]?)(0[xX][0-9a-fA-F_]+|0[oO][0-7_]+|0[bB][01_]+|\d[\d_]*)$/.exec(s);
  if (!m) return undefined;
  const digits = m[2].replaceAll('_', '');
  if (/^0\d/.test(digits) && /[89]/.test(digits)) return undefined;
  const n = /^0\d/.test(digits) ? Number.parseInt(digits, 8) : Number(digits);
  if (Number.isNaN(n)) return undefined;
  return m[1] === '-' ? -n : n;
}

/** Go's strconv.ParseBool: undefined for anything else. */
export function parseGoBool(s: string): boolean | undefined {
  if (['1', 't', 'T', 'TRUE', 'true', 'True'].includes(s)) return true;
  if (['0', 'f', 'F', 'FALSE', 'false', 'False'].includes(s)) return false;
  return undefined;
}

function parseGoFloat(s: string): number | undefined {
  if (!/^[+-]?(\d+\.?\d*([eE][+-]?\d+)?|\.\d+([eE][+-]?\d+)?|[Ii]nf(inity)?|NaN)$/.test(s)) return undefined;
  const n = Number(s.replace(/^([+-]?)[Ii]nf(inity)?$/, '$1Infinity'));
  return n;
}

/** CA: config/flags/flags.go parseMinMaxFlag. */
function parseMinMax(value: string): MinMax | { error: string } {
  const colon = value.indexOf(':');
  if (colon < 0) return { error: `wrong nodes configuration: ${value}` };
  const [minS, maxS] = [value.slice(0, colon), value.slice(colon + 1)];
  const min = parseGoIntFlag(minS);
  if (min === undefined) {
    return {
      error: `failed to set min size: ${minS}, expected integer, err: strconv.ParseInt: parsing "${minS}": invalid syntax`,
    };
  }
  const max = parseGoIntFlag(maxS);
  if (max === undefined) {
    return {
      error: `failed to set max size: ${maxS}, expected integer, err: strconv.ParseInt: parsing "${maxS}": invalid syntax`,
    };
  }
  if (min < 0) return { error: 'min size must be greater or equal to  0' }; // sic: two spaces upstream
  if (max < min) return { error: 'max size must be greater or equal to min size' };
  return { min, max };
}

/** CA: config/flags/flags.go parseSingleGpuLimit. */
export function parseGpuLimit(value: string): GpuLimit | { error: string } {
  const parts = value.split(':');
  if (parts.length !== 3) return { error: `incorrect gpu limit specification: ${value}` };
  const min = parseGoIntFlag(parts[1]);
  if (min === undefined) return { error: `incorrect gpu limit - min is not integer: ${value}` };
  const max = parseGoIntFlag(parts[2]);
  if (max === undefined) return { error: `incorrect gpu limit - max is not integer: ${value}` };
  if (min < 0) return { error: `incorrect gpu limit - min is less than 0; ${value}` };
  if (max < 0) return { error: `incorrect gpu limit - max is less than 0; ${value}` };
  if (min > max) return { error: `incorrect gpu limit - min is greater than max; ${value}` };
  return { type: parts[0], min, max };
}

export function convert(def: FlagDef<unknown>, raw: string): { value: unknown } | { error: string } {
  const bad = (why: string) => ({ error: `invalid argument "${raw}" for "--${def.name}" flag: ${why}` });
  switch (def.kind) {
    case 'bool': {
      const v = parseGoBool(raw);
      return v === undefined ? bad(`strconv.ParseBool: parsing "${raw}": invalid syntax`) : { value: v };
    }
    case 'int': {
      const v = parseGoIntFlag(raw);
      return v === undefined ? bad(`strconv.ParseInt: parsing "${raw}": invalid syntax`) : { value: v };
    }
    case 'float': {
      const v = parseGoFloat(raw);
      return v === undefined ? bad(`strconv.ParseFloat: parsing "${raw}": invalid syntax`) : { value: v };
    }
    case 'duration':
      try {
        return { value: parseGoDuration(raw) };
      } catch {
        return bad(`time: invalid duration "${raw}"`);
      }
    case 'minmax': {
      const v = parseMinMax(raw);
      return 'error' in v ? { error: `Failed to parse flags: ${v.error}` } : { value: v };
    }
    default:
      return { value: raw };
  }
}
