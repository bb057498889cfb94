// casdoctor why-this-type: gather once (NodeClaims, NodePools, EC2NodeClasses, EC2's offerings and spot prices,
// Karpenter's log), then the pure replay of the AWS provider's launch path (simulate/providers/karpenter/
// instance-choice.ts) for each NodeClaim, with the prices it used (pricing.ts). Rendered as a table or JSON.
import { readFile } from 'node:fs/promises';
import { karpenterInputs, karpenterPlacementContext } from '../checks/lib/karpenter.js';
import { InputError } from '../model/errors.js';
import type { NodeClaim } from '../model/karpenter.js';
import { safeText } from '../report/sanitize.js';
import { terminalStyle, wantsColor } from '../report/style.js';
import { fitTable, plainTable, wrapProse } from '../report/table.js';
import { Analysis } from '../simulate/analysis.js';
import { explainInstanceChoice, type InstanceChoiceExplanation } from '../simulate/providers/karpenter/instance-choice.js';
import { buildPriceBook, formatPrice, type OnDemandPriceData, type PriceBook } from '../simulate/providers/karpenter/pricing.js';
import { gatherInputs, loadInstanceTypeData, reportHeader, requireOutput, resolveNow, stdoutSink, writeMachineReport } from './common.js';
import { type Deps, EXIT, type GlobalOptions, type RunResult } from './types.js';

export interface WhyThisTypeOptions extends GlobalOptions {
  nodeclaim?: string;
  nodepool?: string;
}

/** Karpenter's log read live for the launch window (ICE lines live 3 minutes; a NodeClaim may be hours old). */
const LIVE_LOG_SECONDS = 3 * 3600;

let priceData: OnDemandPriceData | undefined;

/** The bundled on-demand prices (data/prices-on-demand.json, scripts/gen-prices.mjs). */
export async function loadPriceData(): Promise<OnDemandPriceData> {
  if (!priceData) {
    const url = new URL('../../data/prices-on-demand.json', import.meta.url);
    try {
      priceData = JSON.parse(await readFile(url, 'utf8')) as OnDemandPriceData;
    } catch (e) {
      throw new InputError(`cannot read the bundled price table ${url.pathname}: ${(e as Error).message}`);
    }
  }
  return priceData;
}

/** nodeclaim/NAME, nodeclaims/NAME, nodeclaims.karpenter.sh/NAME, NAME, or the name of the node it became. */
export function resolveNodeClaim(arg: string, claims: readonly NodeClaim[]): NodeClaim {
  const m = /^(nodeclaims?(?:\.karpenter\.sh)?)\/(.+)$/i.exec(arg);
  const name = m ? m[2] : arg;
  const hit = claims.find((c) => c.metadata.name === name) ?? (m ? undefined : claims.find((c) => c.status?.nodeName === name));
  if (hit) return hit;
  const names = claims.map((c) => c.metadata.name ?? '').sort();
  throw new InputError(
    `NodeClaim ${name} not found${names.length ? `; NodeClaims: ${names.slice(0, 10).join(', ')}${names.length > 10 ? ` and ${names.length - 10} more` : ''}` : ': the input has no NodeClaims (add `kubectl get nodeclaims -o json`)'}`,
  );
}

export async function runWhyThisType(o: WhyThisTypeOptions, deps: Deps): Promise<RunResult> {
  const output = requireOutput(o.output, ['table', 'json', 'yaml'], 'why-this-type');
  const raw =
    o.from.length > 0
      ? await gatherInputs(o, deps)
      : await gatherInputs(o, { ...deps, liveOverrides: { karpenterLogSinceSeconds: LIVE_LOG_SECONDS, ...(deps.liveOverrides ?? {}) } });
  const now = resolveNow(o, deps, raw);
  const analysis = new Analysis(raw, { now, staticInstanceTypes: await loadInstanceTypeData() });
  const k = karpenterInputs(analysis);
  const pctx = karpenterPlacementContext(analysis);
  const prices = buildPriceBook({
    data: await loadPriceData(),
    ...(pctx.region ? { region: pctx.region } : {}),
    ...(raw.spotPriceHistory ? { spotRows: raw.spotPriceHistory, spotFrom: raw.spotPriceSources ?? [] } : {}),
    now,
  });
  let claims = k.nodeClaims;
  if (o.nodepool) {
    const pool = o.nodepool.replace(/^nodepools?\//i, '');
    if (!k.nodePools.some((p) => p.metadata.name === pool) && !claims.some((c) => c.metadata.labels?.['karpenter.sh/nodepool'] === pool))
      throw new InputError(`NodePool ${pool} not found${k.nodePools.length ? `; NodePools: ${k.nodePools.map((p) => p.metadata.name).sort().join(', ')}` : ''}`);
    claims = claims.filter((c) => c.metadata.labels?.['karpenter.sh/nodepool'] === pool);
  }
  if (o.nodeclaim) claims = [resolveNodeClaim(o.nodeclaim, k.nodeClaims)];
  const ctx = { ...pctx, prices, logs: raw.karpenterLogs ?? [] };
  const answers = [...claims].sort((a, b) => (a.metadata.name ?? '').localeCompare(b.metadata.name ?? '')).map((nc) => explainInstanceChoice(nc, ctx));
  const deploy = `-n ${k.settings?.namespace ?? 'kube-system'} deploy/${k.settings?.name ?? 'karpenter'}`;
  const missing = missingInputs(k.provided.nodeClaims, raw.karpenterLogs !== undefined, prices, o.from.length > 0, deploy);
  for (const w of raw.warnings) deps.stderr(`warning: ${safeText(w)}\n`);
  const h = reportHeader(analysis.ca, now, o);
  const version = k.settings?.version ? `Karpenter ${k.settings.version}` : k.present ? 'Karpenter (version unknown)' : 'no Karpenter';
  if (output === 'json' || output === 'yaml') {
    await writeMachineReport(
      output,
      {
        schemaVersion: 1,
        command: 'why-this-type',
        now: now.toISOString(),
        findings: [],
        skipped: [],
        source: h.source,
        karpenter: { ...(k.settings?.version ? { version: k.settings.version } : {}), present: k.present },
        prices: { ...prices.provenance, text: prices.describe() },
        notEvaluated: missing,
        nodeClaims: answers,
      },
      stdoutSink(deps),
    );
    return { exitCode: EXIT.ok };
  }
  const s = await terminalStyle(wantsColor(o, deps));
  const width = deps.stdoutIsTTY ? deps.terminalWidth : undefined;
  const out: string[] = [`${s.bold('casdoctor why-this-type')} · ${safeText(version)} · now ${h.now} · ${safeText(h.source)}`, ''];
  if (!k.present) {
    out.push('No Karpenter in the input (no NodePool, EC2NodeClass, NodeClaim or Karpenter Deployment): nothing to explain.');
    deps.stdout(`${out.map((b) => (width ? wrapProse(b, width) : b)).join('\n')}\n`);
    return { exitCode: EXIT.ok };
  }
  if (answers.length === 0) out.push('No NodeClaim to explain.', '');
  else if (answers.length > 1 && !o.nodeclaim) out.push(summaryTable(answers, prices, width), '', `Run 'casdoctor why-this-type <nodeclaim>' for one NodeClaim's launch path and candidates.`, '');
  else out.push(...detail(answers[0], prices, s.bold, width), '');
  out.push(s.bold('Prices'), ...prices.describe().map((l) => `  ${safeText(l)}`));
  if (missing.length) out.push('', s.bold('Not evaluated'), ...missing.map((l) => `  ${safeText(l)}`));
  deps.stdout(`${out.map((b) => (width && !b.includes('\n') ? wrapProse(b, width) : b)).join('\n')}\n`);
  return { exitCode: EXIT.ok };
}

function missingInputs(claimsProvided: boolean, logRead: boolean, prices: PriceBook, offline: boolean, deploy: string): string[] {
  const out: string[] = [];
  if (!claimsProvided) out.push('NodeClaims: not in the input (add `kubectl get nodeclaims -o json`)');
  if (!logRead)
    out.push(
      offline
        ? `Karpenter's log: not in --from, so offerings it marked unavailable (InsufficientInstanceCapacity, for 3 minutes) are not known; add \`kubectl logs ${deploy} --since 3h\` (its DEBUG lines name them)`
        : "Karpenter's log: not read, so offerings it marked unavailable at launch are not known (allow `pods/log` on its pods)",
    );
  if (!prices.hasSpot) out.push('spot prices: see Prices above');
  return out;
}

const short = (x: InstanceChoiceExplanation): string => {
  const l = x.launched;
  if (x.notEvaluated.length && x.candidates.length === 0) return 'not evaluated';
  if (!l) return 'not launched';
  const v = x.verdict.join(' ');
  if (v.includes('the only pool')) return 'only choice';
  if (v.includes('the cheapest pool, as expected')) return 'cheapest';
  if (v.includes('in this very launch')) return 'fell back (ICE)';
  if (x.capacityType === 'spot' && x.allocationStrategy === 'price-capacity-optimized') return 'spot: by capacity';
  if (v.includes('not the cheapest')) return 'not the cheapest';
  return '-';
};

function summaryTable(xs: InstanceChoiceExplanation[], prices: PriceBook, width: number | undefined): string {
  const head = ['NODECLAIM', 'NODEPOOL', 'TYPE', 'ZONE', 'CAPACITY', 'PRICE/H', 'TYPES', 'WHY'];
  const rows = xs.map((x) => {
    const l = x.launched;
    const c = x.candidates.find((t) => t.name === l?.instanceType);
    const p = c?.offerings.find((o) => o.capacityType === l?.capacityType && o.zone === l?.zone)?.price;
    return [
      x.nodeClaim,
      x.nodePool ?? '-',
      l?.instanceType ?? '-',
      l?.zone ?? '-',
      l?.capacityType ?? '-',
      p === undefined ? '-' : formatPrice(p, prices.provenance.onDemand.currency),
      // listed in the NodeClaim → sent to CreateFleet
      `${x.listed}→${x.fleet.types.length}`,
      short(x),
    ].map((v) => safeText(v));
  });
  return width ? fitTable(head, rows, width) : plainTable(head, rows);
}

function detail(x: InstanceChoiceExplanation, prices: PriceBook, bold: (s: string) => string, width: number | undefined): string[] {
  const table = (head: string[], rows: string[][]) => (width ? fitTable(head, rows, width) : plainTable(head, rows));
  const cur = prices.provenance.onDemand.currency;
  const out: string[] = [];
  const l = x.launched;
  out.push(
    `${bold(`NodeClaim ${safeText(x.nodeClaim)}`)}${x.nodePool ? ` (NodePool ${safeText(x.nodePool)})` : ''}: ${
      l ? `launched ${safeText(l.instanceType)}${l.zone ? ` in ${safeText(l.zone)}` : ''}${l.capacityType ? ` as ${safeText(l.capacityType)}` : ''}${l.at ? ` at ${safeText(l.at)}` : ''}` : 'not launched'
    }`,
  );
  const req = Object.entries(x.requests).map(([k, v]) => `${k} ${v}`).join(', ');
  out.push(`Requests ${safeText(req || 'none')}; allowed: ${safeText(x.allowedCapacityTypes.join(', ') || 'any capacity type')} in ${safeText(x.allowedZones.join(', ') || 'any zone')}`);
  if (x.version.note) out.push(safeText(x.version.note));
  out.push('', bold('Why this type'), ...x.verdict.map((v) => `  ${safeText(v)}`));
  if (x.candidates.length) {
    out.push('', bold("The launch path (the AWS provider's Create, in its order)"));
    const names: Record<string, string> = {
      list: "the NodeClaim's list",
      'unknown-type': 'known to casdoctor',
      'compatible-available': 'compatible and available',
      reserved: 'reserved-offering filter',
      exotic: 'exotic-instance filter',
      'spot-offering': 'spot-offering filter',
      truncate: `cheapest ${60} to CreateFleet`,
    };
    const rows = x.steps.map((st) => [names[st.step] ?? st.step, String(st.remaining), safeText(st.dropped.length ? st.dropped.slice(0, 6).join(', ') + (st.dropped.length > 6 ? ` +${st.dropped.length - 6}` : '') : st.note ?? '-')]);
    out.push(table(['STEP', 'LEFT', 'DROPPED'], rows));
    out.push('', bold('Candidates (cheapest available offering first)'));
    const order = [...x.candidates].sort((a, b) => Number(!!a.dropped) - Number(!!b.dropped) || (a.cheapest?.price ?? Infinity) - (b.cheapest?.price ?? Infinity) || a.listed - b.listed);
    const shown = order.slice(0, 20);
    const crow = shown.map((c) => [
      c.name,
      c.vcpu === undefined || c.memoryMiB === undefined ? '-' : `${c.vcpu}/${Math.round(c.memoryMiB / 1024)}Gi`,
      formatPrice(c.onDemand, cur),
      c.cheapest ? `${formatPrice(c.cheapest.price, cur)} ${c.cheapest.capacityType} ${c.cheapest.zone}` : '-',
      c.launched ? 'launched' : c.dropped ? `dropped (${c.dropped.step})` : 'fleet',
    ].map((v) => safeText(v)));
    out.push(table(['TYPE', 'CPU/MEM', 'ON-DEMAND', 'CHEAPEST OFFERING', 'FATE'], crow));
    if (order.length > shown.length) out.push(`  … and ${order.length - shown.length} more (-o json lists them all)`);
  }
  if (x.unavailable.length) {
    out.push('', bold("Offerings unavailable at launch (Karpenter's log)"));
    for (const u of x.unavailable)
      out.push(`  ${safeText(`${u.instanceType} ${u.zone} ${u.capacityType}${u.reason ? ` ${u.reason}` : ''}: marked ${u.markedAt.slice(11, 19)}, unavailable until ${u.until.slice(11, 19)} UTC (${u.when === 'during-launch' ? 'refused during this launch' : 'before this NodeClaim'})`)}`);
  }
  if (x.notEvaluated.length) out.push('', ...x.notEvaluated.map((n) => `Not evaluated: ${safeText(n)}`));
  return out;
}
