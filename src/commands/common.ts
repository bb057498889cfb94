import { readFile } from 'node:fs/promises';
import type { CaConfig } from '../model/ca-config.js';
import { InputError, UsageError } from '../model/errors.js';
import type { RawInputs } from '../model/snapshot.js';
import { caVersionText } from '../simulate/ca-config.js';
import type { Deps, GlobalOptions } from './types.js';

/** Validates -o for a command that supports only some formats. */
export function requireOutput<T extends string>(output: string, allowed: readonly T[], command: string): T {
  if (!(allowed as readonly string[]).includes(output)) {
    throw new UsageError(`${command}: -o ${output} is not supported; use one of: ${allowed.join(', ')}`);
  }
  return output as T;
}

/** Parses --now; default is the real clock. */
export function resolveNow(opts: GlobalOptions, deps: Deps): Date {
  if (opts.now === undefined) return deps.realNow();
  // RFC 3339: date, 'T', time, zone
  if (!/^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}(:\d{2}(\.\d+)?)?(Z|[+-]\d{2}:\d{2})$/i.test(opts.now)) {
    throw new UsageError(
      `--now ${JSON.stringify(opts.now)} is not an RFC 3339 time (e.g. 2026-11-21T10:00:00Z)`,
    );
  }
  const d = new Date(opts.now);
  if (Number.isNaN(d.getTime()))
    throw new UsageError(`--now ${JSON.stringify(opts.now)} is not a valid time`);
  return d;
}

/** Splits a --ca-args string into flags, honouring single and double quotes like a shell. */
export function splitArgs(s: string): string[] {
  const out: string[] = [];
  let cur = '';
  let quote: string | undefined;
  let any = false;
  for (const ch of s) {
    if (quote) {
      if (ch === quote) quote = undefined;
      else cur += ch;
    } else if (ch === '"' || ch === "'") {
      quote = ch;
      any = true;
    } else if (/\s/.test(ch)) {
      if (cur !== '' || any) out.push(cur);
      cur = '';
      any = false;
    } else {
      cur += ch;
    }
  }
  if (quote) throw new UsageError(`--ca-args: unterminated ${quote} quote in ${JSON.stringify(s)}`);
  if (cur !== '' || any) out.push(cur);
  return out;
}

export function parseRequestTimeout(s: string): number {
  const m = /^(\d+(?:\.\d+)?)(ms|s|m)?$/.exec(s.trim());
  if (!m)
    throw new UsageError(`--request-timeout ${JSON.stringify(s)}: use a duration such as 30s, 2m or 500ms`);
  const n = Number(m[1]);
  const unit = m[2] ?? 's';
  return unit === 'ms' ? n : unit === 's' ? n * 1000 : n * 60_000;
}

/** "CA v1.32.1 (kube-system/cluster-autoscaler)" and ` · ${detail}`, or "no CA found (defaults of 1.32)". */
export function caHeaderText(ca: CaConfig, detail?: string): string {
  if (!ca.found) return `no CA found (defaults of 1.${ca.version.minor})`;
  const text = `CA ${caVersionText(ca)} (${ca.deployment?.namespace}/${ca.deployment?.name})`;
  return detail ? `${text} · ${detail}` : text;
}

/** The facts of a text report's first line: CA, the clock, and where the data came from. */
export function reportHeader(
  ca: CaConfig,
  now: Date,
  opts: GlobalOptions,
  caDetail?: string,
): { ca: string; now: string; source: string } {
  return {
    ca: caHeaderText(ca, caDetail),
    now: now.toISOString(),
    source: opts.from.length ? `from ${opts.from.join(', ')}` : 'live',
  };
}

/**
 * Gathers once: offline files when --from is given, else the live cluster and AWS. Offline, Kubernetes objects keep only
 * the fields casdoctor reads ('why-pending': fewer of pods already on a node) unless `wanted` is 'all' (snapshot
 * re-exports them).
 */
export async function gatherInputs(
  opts: GlobalOptions,
  deps: Deps,
  wanted: 'read' | 'why-pending' | 'all' = 'read',
): Promise<RawInputs> {
  const fields = deps.loadAllFields ? 'all' : wanted;
  const progress = await startProgress(deps);
  try {
    if (opts.from.length > 0) {
      const { loadOffline } = await import('../gather/offline.js');
      const inputs = await loadOffline(opts.from, { fields, onFile: (f) => progress.update(`reading ${f}`) });
      return inputs;
    }
    const { gatherLive } = await import('../gather/live.js');
    return await gatherLive({
      kubeconfig: opts.kubeconfig,
      context: opts.context,
      profile: opts.profile,
      region: opts.region,
      requestTimeoutMs: parseRequestTimeout(opts.requestTimeout),
      onProgress: (m: string) => progress.update(m),
      ...(deps.liveOverrides ?? {}),
    } as never);
  } finally {
    progress.stop();
  }
}

interface Progress {
  update(msg: string): void;
  stop(): void;
}

/** A spinner on stderr, only when stderr is a terminal; nothing otherwise (pipes and CI stay clean). */
async function startProgress(deps: Deps): Promise<Progress> {
  if (!deps.stderrIsTTY) return { update() {}, stop() {} };
  const { default: ora } = await import('ora');
  const spinner = ora({ text: 'gathering', stream: process.stderr }).start();
  return {
    update: (msg) => {
      spinner.text = msg;
    },
    stop: () => spinner.stop(),
  };
}

export interface StaticInstanceTypeData {
  staticListLastUpdateTime: string;
  instanceTypes: Record<
    string,
    { vcpu: number; memoryMiB: number; gpu: number; architecture: string; maxPods?: number }
  >;
}

let instanceTypeData: StaticInstanceTypeData | undefined;

/** CA's static instance-type table, bundled as data/instance-types.json. */
export async function loadInstanceTypeData(): Promise<StaticInstanceTypeData> {
  if (!instanceTypeData) {
    const url = new URL('../../data/instance-types.json', import.meta.url);
    try {
      instanceTypeData = JSON.parse(await readFile(url, 'utf8')) as StaticInstanceTypeData;
    } catch (e) {
      throw new InputError(
        `cannot read the bundled instance-type table ${url.pathname}: ${(e as Error).message}`,
      );
    }
  }
  return instanceTypeData;
}
