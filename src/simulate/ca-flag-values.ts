// Raw values of CA flags that CaFlags does not type (yet), read from the Deployment's args plus --ca-args overrides.
import type { CaConfig } from '../model/ca-config.js';
import { parseCaArgs, parseGoBool } from './ca-config.js';

const parsedCache = new WeakMap<CaConfig, Record<string, string[]>>();

function values(ca: CaConfig): Record<string, string[]> {
  let v = parsedCache.get(ca);
  if (!v) {
    v = parseCaArgs([...ca.deploymentArgs, ...ca.overrideArgs]).values;
    parsedCache.set(ca, v);
  }
  return v;
}

/** Every value given for a flag, in order (repeatable flags such as --balancing-ignore-label). */
export function caFlagStrings(ca: CaConfig, name: string): string[] {
  return [...(values(ca)[name] ?? [])];
}

/** The last value given (pflag: the last one wins), or the default. */
export function caFlagString(ca: CaConfig, name: string, def: string): string {
  return values(ca)[name]?.at(-1) ?? def;
}

// Go strconv.ParseBool; an unparsable value makes CA exit at startup, reported by ca-config-invalid
export function caFlagBool(ca: CaConfig, name: string, def: boolean): boolean {
  const v = values(ca)[name]?.at(-1);
  if (v === undefined) return def;
  return parseGoBool(v) ?? def;
}

export function caFlagNumber(ca: CaConfig, name: string, def: number): number {
  const v = values(ca)[name]?.at(-1);
  if (v === undefined) return def;
  const n = Number(v);
  return Number.isFinite(n) ? n : def;
}
