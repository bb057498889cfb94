/**
 * Karpenter NodePool disruption budgets, evaluated at a given instant exactly as the disruption controller does:
 * karpenter pkg/apis/v1/nodepool.go (Budget.IsActive / GetAllowedDisruptions / GetAllowedDisruptionsByReason) over a
 * pure port of robfig/cron v3.0.1 (parser.go ParseStandard, spec.go SpecSchedule.Next), always in UTC because
 * Karpenter prefixes every schedule with "TZ=UTC " (nodepool.go:417).
 */
import { parseGoDuration } from '../../../model/duration.js';
import type { DisruptionBudget, DisruptionReason, NodePool } from '../../../model/karpenter.js';

export class CronError extends Error {
  override name = 'CronError';
}

/** The reasons a budget can name, in the order the disruption controller runs its methods (controller.go:103-114). */
export const KARPENTER_DISRUPTION_REASONS = ['Empty', 'Drifted', 'Underutilized'] as const;
export type KarpenterDisruptionReason = (typeof KARPENTER_DISRUPTION_REASONS)[number];

/** Karpenter's default when spec.disruption.budgets is absent (nodepool.go:110 `+kubebuilder:default:={{nodes: "10%"}}`). */
export const DEFAULT_BUDGETS: readonly DisruptionBudget[] = [{ nodes: '10%' }];

const MAX_INT32 = 2147483647;

// ------------------------------------------------------------------------------------------------ cron (robfig/cron v3)

interface Bounds {
  min: number;
  max: number;
  names?: Record<string, number>;
}

const MINUTES: Bounds = { min: 0, max: 59 };
const HOURS: Bounds = { min: 0, max: 23 };
const DOM: Bounds = { min: 1, max: 31 };
const MONTHS: Bounds = {
  min: 1,
  max: 12,
  names: { jan: 1, feb: 2, mar: 3, apr: 4, may: 5, jun: 6, jul: 7, aug: 8, sep: 9, oct: 10, nov: 11, dec: 12 },
};
const DOW: Bounds = { min: 0, max: 6, names: { sun: 0, mon: 1, tue: 2, wed: 3, thu: 4, fri: 5, sat: 6 } };

/** One field's allowed values plus robfig's "star bit" (the field was `*` or `?`), which changes day matching. */
export interface CronField {
  values: ReadonlySet<number>;
  star: boolean;
}

export type CronSchedule =
  | { kind: 'spec'; minute: CronField; hour: CronField; dom: CronField; month: CronField; dow: CronField }
  /** `@every <d>` (robfig constantdelay.go); the NodePool CRD pattern rejects it, kept for completeness. */
  | { kind: 'every'; delayMs: number };

/** Go strconv.Atoi for the values cron fields hold: optional sign, decimal digits, int64 range. */
function atoi(s: string): number | undefined {
  if (!/^[+-]?[0-9]+$/.test(s)) return undefined;
  const n = Number(s);
  return Math.abs(n) > 9.2e18 ? undefined : n;
}

function mustParseInt(expr: string): number {
  const n = atoi(expr);
  if (n === undefined) {
    throw new CronError(`failed to parse int from ${expr}: strconv.Atoi: parsing ${JSON.stringify(expr)}: invalid syntax`);
  }
  if (n < 0) throw new CronError(`negative number (${n}) not allowed: ${expr}`);
  return n;
}

function parseIntOrName(expr: string, names: Record<string, number> | undefined): number {
  const key = expr.toLowerCase();
  if (names !== undefined && Object.hasOwn(names, key)) return names[key];
  return mustParseInt(expr);
}

// robfig parser.go getRange: number | number "-" number [ "/" number ], "*" and "?" set the star bit
function getRange(expr: string, r: Bounds, into: Set<number>): boolean {
  const rangeAndStep = expr.split('/');
  const lowAndHigh = rangeAndStep[0].split('-');
  const singleDigit = lowAndHigh.length === 1;
  let start: number;
  let end: number;
  let star = false;
  if (lowAndHigh[0] === '*' || lowAndHigh[0] === '?') {
    // robfig ignores anything after "*-" ("*-5" is "*")
    start = r.min;
    end = r.max;
    star = true;
  } else {
    start = parseIntOrName(lowAndHigh[0], r.names);
    if (lowAndHigh.length === 1) end = start;
    else if (lowAndHigh.length === 2) end = parseIntOrName(lowAndHigh[1], r.names);
    else throw new CronError(`too many hyphens: ${expr}`);
  }
  let step = 1;
  if (rangeAndStep.length === 2) {
    step = mustParseInt(rangeAndStep[1]);
    if (singleDigit) end = r.max; // "N/step" means "N-max/step"
    if (step > 1) star = false;
  } else if (rangeAndStep.length > 2) {
    throw new CronError(`too many slashes: ${expr}`);
  }
  if (start < r.min) throw new CronError(`beginning of range (${start}) below minimum (${r.min}): ${expr}`);
  if (end > r.max) throw new CronError(`end of range (${end}) above maximum (${r.max}): ${expr}`);
  if (start > end) throw new CronError(`beginning of range (${start}) beyond end of range (${end}): ${expr}`);
  if (step === 0) throw new CronError(`step of range should be a positive number: ${expr}`);
  for (let i = start; i <= end; i += step) into.add(i);
  return star;
}

function getField(field: string, r: Bounds): CronField {
  const values = new Set<number>();
  let star = false;
  // strings.FieldsFunc drops empty items: "1,,2" is "1,2" and "," selects nothing at all
  for (const expr of field.split(',').filter((s) => s !== '')) {
    if (getRange(expr, r, values)) star = true;
  }
  return { values, star };
}

function allOf(r: Bounds): CronField {
  const values = new Set<number>();
  for (let i = r.min; i <= r.max; i++) values.add(i);
  return { values, star: true };
}

function only(v: number): CronField {
  return { values: new Set([v]), star: false };
}

function descriptor(spec: string): CronSchedule {
  const zero = only(0);
  switch (spec) {
    case '@yearly':
    case '@annually':
      return { kind: 'spec', minute: zero, hour: zero, dom: only(1), month: only(1), dow: allOf(DOW) };
    case '@monthly':
      return { kind: 'spec', minute: zero, hour: zero, dom: only(1), month: allOf(MONTHS), dow: allOf(DOW) };
    case '@weekly':
      return { kind: 'spec', minute: zero, hour: zero, dom: allOf(DOM), month: allOf(MONTHS), dow: only(0) };
    case '@daily':
    case '@midnight':
      return { kind: 'spec', minute: zero, hour: zero, dom: allOf(DOM), month: allOf(MONTHS), dow: allOf(DOW) };
    case '@hourly':
      return { kind: 'spec', minute: zero, hour: allOf(HOURS), dom: allOf(DOM), month: allOf(MONTHS), dow: allOf(DOW) };
  }
  if (spec.startsWith('@every ')) {
    let ms: number;
    try {
      ms = parseGoDuration(spec.slice('@every '.length));
    } catch (e) {
      throw new CronError(`failed to parse duration ${spec}: ${(e as Error).message}`);
    }
    ms = Math.max(ms, 1000);
    return { kind: 'every', delayMs: ms - (ms % 1000) };
  }
  throw new CronError(`unrecognized descriptor: ${spec}`);
}

/**
 * cron.ParseStandard(`TZ=UTC ${schedule}`) as Karpenter calls it (nodepool.go:417): five fields
 * (minute hour day-of-month month day-of-week, names like "mon" and "jan" allowed) or an @-descriptor. Throws CronError
 * with robfig's message. A user's own "CRON_TZ=..." prefix becomes a sixth field and fails, as it does in Karpenter.
 */
export function parseKarpenterSchedule(schedule: string): CronSchedule {
  const spec = schedule.trim(); // TrimSpace after the "TZ=UTC" prefix is cut
  if (spec.startsWith('@')) return descriptor(spec);
  const fields = spec.split(/\s+/).filter((f) => f !== '');
  if (fields.length !== 5) {
    throw new CronError(`expected exactly 5 fields, found ${fields.length}: [${fields.join(' ')}]`);
  }
  return {
    kind: 'spec',
    minute: getField(fields[0], MINUTES),
    hour: getField(fields[1], HOURS),
    dom: getField(fields[2], DOM),
    month: getField(fields[3], MONTHS),
    dow: getField(fields[4], DOW),
  };
}

// robfig spec.go dayMatches: when either day field is "*" both must match, otherwise either may
function dayMatches(s: Extract<CronSchedule, { kind: 'spec' }>, d: Date): boolean {
  const domMatch = s.dom.values.has(d.getUTCDate());
  const dowMatch = s.dow.values.has(d.getUTCDay());
  if (s.dom.star || s.dow.star) return domMatch && dowMatch;
  return domMatch || dowMatch;
}

const MINUTE_MS = 60_000;
const DAY_MS = 86_400_000;

/**
 * SpecSchedule.Next: the first activation strictly after `t` (robfig starts at the next whole second), or null where
 * robfig returns the zero time because nothing matches within five years (e.g. "0 0 30 2 *").
 */
export function cronNext(schedule: CronSchedule, t: Date): Date | null {
  const startMs = Math.floor(t.getTime() / 1000) * 1000 + 1000;
  if (schedule.kind === 'every') return new Date(Math.floor(t.getTime() / 1000) * 1000 + schedule.delayMs);
  const first = Math.ceil(startMs / MINUTE_MS) * MINUTE_MS; // seconds field is "0" in the standard parser
  const yearLimit = new Date(startMs).getUTCFullYear() + 5;
  let dayStart = Math.floor(first / DAY_MS) * DAY_MS;
  for (;;) {
    const day = new Date(dayStart);
    if (day.getUTCFullYear() > yearLimit) return null;
    if (schedule.month.values.has(day.getUTCMonth() + 1) && dayMatches(schedule, day)) {
      const fromMinuteOfDay = dayStart < first ? (first - dayStart) / MINUTE_MS : 0;
      for (let h = Math.floor(fromMinuteOfDay / 60); h < 24; h++) {
        if (!schedule.hour.values.has(h)) continue;
        const m0 = h === Math.floor(fromMinuteOfDay / 60) ? fromMinuteOfDay % 60 : 0;
        for (let m = m0; m < 60; m++) {
          if (schedule.minute.values.has(m)) return new Date(dayStart + (h * 60 + m) * MINUTE_MS);
        }
      }
    }
    dayStart += DAY_MS;
  }
}

// ------------------------------------------------------------------------------------------------ budgets

export interface BudgetWindow {
  /** false for a budget without schedule/duration, which is always active. */
  scheduled: boolean;
  active: boolean;
  /** Set when the schedule or duration cannot be used: Karpenter fails closed (0 disruptions for every reason). */
  error?: string;
  /** Active: the schedule hit that opened the window now in force (Next(now - duration)). */
  since?: Date;
  /** Active: when the window (chained through overlapping hits) closes; undefined = it never closes. */
  until?: Date;
  /** Inactive: the next schedule hit, when the budget starts applying; undefined when there is none. */
  nextStart?: Date;
  /** robfig found no hit within five years: Next returns the zero time, which Karpenter reads as "active". */
  neverFires?: boolean;
}

function durationMs(d: string | undefined): number {
  if (d === undefined) return 0;
  return parseGoDuration(d);
}

/**
 * Budget.IsActive (nodepool.go:413-427): no schedule and no duration -> always active; otherwise active when the first
 * schedule hit after (now - duration) is not after now. Both instants are UTC.
 */
export function budgetWindow(budget: Pick<DisruptionBudget, 'schedule' | 'duration'>, now: Date): BudgetWindow {
  if (budget.schedule === undefined && budget.duration === undefined) return { scheduled: false, active: true };
  let schedule: CronSchedule;
  let dMs: number;
  try {
    schedule = parseKarpenterSchedule(budget.schedule ?? '');
  } catch (e) {
    return { scheduled: true, active: false, error: `invariant violated, invalid cron, ${(e as Error).message}` };
  }
  try {
    dMs = durationMs(budget.duration);
  } catch (e) {
    return { scheduled: true, active: false, error: `invalid duration ${JSON.stringify(budget.duration)}: ${(e as Error).message}` };
  }
  const hit = cronNext(schedule, new Date(now.getTime() - dMs));
  if (hit === null) return { scheduled: true, active: true, neverFires: true }; // zero time is never After(now)
  if (hit.getTime() > now.getTime()) return { scheduled: true, active: false, nextStart: hit };
  // find when the window closes: later hits inside an open window extend it
  let until = hit.getTime() + dMs;
  let last = hit;
  for (let i = 0; i < 2000; i++) {
    const next = cronNext(schedule, last);
    if (next === null || next.getTime() >= until) return { scheduled: true, active: true, since: hit, until: new Date(until) };
    last = next;
    until = Math.max(until, next.getTime() + dMs);
  }
  return { scheduled: true, active: true, since: hit };
}

/** intstr.GetScaledValueFromIntOrPercent(GetIntStrFromValue(nodes), total, roundUp=true) (nodepool.go:397,429). */
export function scaledBudgetNodes(nodes: string, total: number): { value: number; percent?: number; error?: string } {
  const asInt = atoi(nodes);
  if (asInt !== undefined) return { value: asInt };
  if (!nodes.endsWith('%')) {
    return { value: 0, error: 'invalid value for IntOrString: invalid type: string is not a percentage' };
  }
  const pct = atoi(nodes.slice(0, -1));
  if (pct === undefined) {
    return {
      value: 0,
      error: `invalid value for IntOrString: invalid value ${JSON.stringify(nodes)}: strconv.Atoi: parsing ${JSON.stringify(nodes.slice(0, -1))}: invalid syntax`,
    };
  }
  // percentages round up, like PDB maxUnavailable: 10% of 5 nodes allows 1
  return { value: Math.ceil((pct * total) / 100), percent: pct };
}

export interface BudgetEvaluation {
  index: number;
  budget: DisruptionBudget;
  /** The budget names this reason or names none (applies to all). */
  appliesToReason: boolean;
  window: BudgetWindow;
  /** Disruptions this budget allows now: MaxInt32 when inactive, 0 on error (fail closed). */
  allowed: number;
  /** The nodes value resolved against the pool's node count ("10%" of 23 -> 3). */
  resolvedNodes?: number;
  error?: string;
}

export interface ReasonBudget {
  reason: KarpenterDisruptionReason;
  /** MustGetAllowedDisruptions: the minimum over active budgets for this reason; 0 when any budget errs. */
  allowed: number;
  /** allowed was forced to 0 because a budget (for any reason) is invalid (MustGetAllowedDisruptions). */
  failedClosed: boolean;
  budgets: BudgetEvaluation[];
  /** Budgets for this reason whose allowance equals `allowed` (the ones to change), when allowed < MaxInt32. */
  limiting: number[];
}

/** GetAllowedDisruptionsByReason + MustGetAllowedDisruptions (nodepool.go:356-378) for one reason. */
export function allowedDisruptionsForReason(
  budgets: readonly DisruptionBudget[] | undefined,
  reason: KarpenterDisruptionReason,
  numNodes: number,
  now: Date,
): ReasonBudget {
  const list = budgets ?? DEFAULT_BUDGETS;
  let allowed = MAX_INT32;
  let anyError = false;
  const evals: BudgetEvaluation[] = list.map((budget, index) => {
    const window = budgetWindow(budget, now);
    const appliesToReason = budget.reasons === undefined || budget.reasons.includes(reason as DisruptionReason);
    let value: number;
    let resolvedNodes: number | undefined;
    let error = window.error;
    if (error !== undefined) value = 0;
    else if (!window.active) value = MAX_INT32;
    else {
      const scaled = scaledBudgetNodes(budget.nodes ?? '10%', numNodes);
      error = scaled.error;
      value = scaled.error ? 0 : scaled.value;
      resolvedNodes = scaled.error ? undefined : scaled.value;
    }
    if (error !== undefined) anyError = true;
    if (appliesToReason) allowed = Math.min(allowed, value);
    return { index, budget, appliesToReason, window, allowed: value, resolvedNodes, error };
  });
  const finalAllowed = anyError ? 0 : allowed;
  const limiting =
    finalAllowed < MAX_INT32
      ? evals.filter((e) => (anyError ? e.error !== undefined : e.appliesToReason && e.allowed === finalAllowed)).map((e) => e.index)
      : [];
  return { reason, allowed: finalAllowed, failedClosed: anyError, budgets: evals, limiting };
}

export interface PoolBudgetState {
  nodePool: string;
  /** Managed, initialized nodes of the pool, NodeClaims with InstanceTerminating=True excluded (helpers.go:274-286). */
  numNodes: number;
  /** Of those, nodes NotReady or marked for deletion: they consume the budget (helpers.go:291). */
  disrupting: number;
  byReason: Record<KarpenterDisruptionReason, ReasonBudget & {
    /** max(allowed - disrupting, 0): what the disruption controller may still start now (helpers.go:301). */
    remaining: number;
    /** The NodePool event Karpenter publishes when allowed is 0 and the pool has nodes (helpers.go:308-310). */
    event?: string;
  }>;
}

/** BuildDisruptionBudgetMapping (helpers.go:262-313) for one NodePool at `now`. */
export function nodePoolBudgetState(
  nodePool: Pick<NodePool, 'metadata' | 'spec'>,
  counts: { numNodes: number; disrupting: number },
  now: Date,
): PoolBudgetState {
  const name = nodePool.metadata.name ?? '';
  const byReason = {} as PoolBudgetState['byReason'];
  for (const reason of KARPENTER_DISRUPTION_REASONS) {
    const rb = allowedDisruptionsForReason(nodePool.spec.disruption?.budgets, reason, counts.numNodes, now);
    byReason[reason] = {
      ...rb,
      remaining: Math.max(rb.allowed - counts.disrupting, 0),
      event:
        counts.numNodes !== 0 && rb.allowed === 0
          ? `No allowed disruptions for disruption reason ${reason} due to blocking budget`
          : undefined,
    };
  }
  return { nodePool: name, numNodes: counts.numNodes, disrupting: counts.disrupting, byReason };
}

export const UNBOUNDED_DISRUPTIONS = MAX_INT32;

/**
 * The NodePool event before v1.1.0 for a blocking budget without reasons (events.go:128 NodePoolBlocked; commit
 * 375bcedfe, #1588, made every event per reason). Still defined at HEAD but no longer published; match it in old events.
 */
export const NODEPOOL_BLOCKED_EVENT_BEFORE_V1_1 = 'No allowed disruptions due to blocking budget';
