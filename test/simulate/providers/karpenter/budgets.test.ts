import { describe, expect, it } from 'vitest';
import type { DisruptionBudget } from '../../../../src/model/karpenter.js';
import {
  allowedDisruptionsForReason,
  budgetWindow,
  CronError,
  cronNext,
  nodePoolBudgetState,
  parseKarpenterSchedule,
  scaledBudgetNodes,
  UNBOUNDED_DISRUPTIONS,
} from '../../../../src/simulate/providers/karpenter/budgets.js';
import { loadKarpenterFixture } from '../../../fixtures/karpenter-disruption/load.js';

const at = (s: string) => new Date(s);
const next = (spec: string, after: string) => cronNext(parseKarpenterSchedule(spec), at(after))?.toISOString() ?? null;

describe('parseKarpenterSchedule (robfig/cron v3 ParseStandard behind "TZ=UTC ")', () => {
  it('accepts names for months and weekdays in any case', () => {
    const s = parseKarpenterSchedule('30 9 * JAN-mar Mon-FRI');
    expect(s.kind).toBe('spec');
    if (s.kind !== 'spec') return;
    expect([...s.month.values]).toEqual([1, 2, 3]);
    expect([...s.dow.values]).toEqual([1, 2, 3, 4, 5]);
  });

  it('reads "N/step" as N to the maximum, stepping', () => {
    const s = parseKarpenterSchedule('5/20 * * * *');
    if (s.kind !== 'spec') throw new Error('spec expected');
    expect([...s.minute.values]).toEqual([5, 25, 45]);
  });

  const errors: Array<[string, string, string]> = [
    ['a CRON_TZ prefix, which becomes a sixth field', 'CRON_TZ=Europe/Paris 0 9 * * *', 'expected exactly 5 fields, found 6: [CRON_TZ=Europe/Paris 0 9 * * *]'],
    ['a seconds field', '0 0 9 * * *', 'expected exactly 5 fields, found 6'],
    ['weekday 7 (robfig stops at 6)', '0 0 * * 7', 'end of range (7) above maximum (6): 7'],
    ['a reversed range', '0 22-2 * * *', 'beginning of range (22) beyond end of range (2): 22-2'],
    ['a zero step', '*/0 * * * *', 'step of range should be a positive number: */0'],
    ['an unknown descriptor', '@dailyish', 'unrecognized descriptor: @dailyish'],
    ['a word', '0 noon * * *', 'failed to parse int from noon'],
  ];
  it.each(errors)('rejects %s', (_name, spec, message) => {
    expect(() => parseKarpenterSchedule(spec)).toThrow(CronError);
    expect(() => parseKarpenterSchedule(spec)).toThrow(message);
  });
});

describe('cronNext (robfig spec.go SpecSchedule.Next, UTC)', () => {
  it('returns the first hit strictly after the given instant', () => {
    expect(next('0 9 * * *', '2026-11-24T09:00:00Z')).toBe('2026-11-25T09:00:00.000Z');
    expect(next('0 9 * * *', '2026-11-24T08:59:59.900Z')).toBe('2026-11-24T09:00:00.000Z');
  });

  it('skips to the next matching weekday across a weekend', () => {
    // 2026-11-27 is a Friday
    expect(next('0 9 * * mon-fri', '2026-11-27T10:00:00Z')).toBe('2026-11-30T09:00:00.000Z');
  });

  it('fires on either a matching day-of-month or weekday when both are restricted', () => {
    // robfig dayMatches: neither field is "*", so it is an OR: the 1st, or any Monday
    expect(next('0 0 1 * mon', '2026-11-24T00:00:00Z')).toBe('2026-11-30T00:00:00.000Z');
    expect(next('0 0 1 * mon', '2026-11-30T00:00:00Z')).toBe('2026-12-01T00:00:00.000Z');
  });

  it('requires both when one day field is "*" (and "*/1" keeps the star)', () => {
    expect(next('0 0 */1 * mon', '2026-11-24T00:00:00Z')).toBe('2026-11-30T00:00:00.000Z');
    expect(next('0 0 */2 * mon', '2026-11-24T00:00:00Z')).toBe('2026-11-25T00:00:00.000Z');
  });

  it('expands @daily, @weekly (Sunday) and @yearly', () => {
    expect(next('@daily', '2026-11-24T07:30:00Z')).toBe('2026-11-25T00:00:00.000Z');
    expect(next('@weekly', '2026-11-24T07:30:00Z')).toBe('2026-11-29T00:00:00.000Z');
    expect(next('@annually', '2026-11-24T07:30:00Z')).toBe('2027-01-01T00:00:00.000Z');
  });

  it('finds February 29th up to five years ahead and gives up on February 30th', () => {
    expect(next('0 0 29 2 *', '2026-03-01T00:00:00Z')).toBe('2028-02-29T00:00:00.000Z');
    expect(next('0 0 30 2 *', '2026-03-01T00:00:00Z')).toBeNull();
  });
});

describe('budgetWindow (karpenter pkg/apis/v1/nodepool.go:413-427 Budget.IsActive)', () => {
  const overnight = { schedule: '0 22 * * *', duration: '4h' };
  const cases: Array<[string, Pick<DisruptionBudget, 'schedule' | 'duration'>, string, boolean]> = [
    ['a budget without schedule, always', {}, '2026-11-24T07:30:00Z', true],
    ['a window crossing midnight, just before it opens', overnight, '2026-11-24T21:59:59Z', false],
    ['a window crossing midnight, at the opening minute', overnight, '2026-11-24T22:00:00Z', true],
    ['a window crossing midnight, after midnight', overnight, '2026-11-25T01:59:00Z', true],
    ['a window crossing midnight, at its end (half-open)', overnight, '2026-11-25T02:00:00Z', false],
    ['@daily for 1h, at 00:30', { schedule: '@daily', duration: '1h' }, '2026-11-24T00:30:00Z', true],
    ['@daily for 1h, at 01:00', { schedule: '@daily', duration: '1h' }, '2026-11-24T01:00:00Z', false],
    ['Mondays for 36h, on Tuesday 11:59', { schedule: '0 0 * * mon', duration: '36h' }, '2026-11-24T11:59:00Z', true],
    ['Mondays for 36h, on Tuesday 12:00', { schedule: '0 0 * * mon', duration: '36h' }, '2026-11-24T12:00:00Z', false],
    ['weekdays 09:00 for 8h (the fixture freeze), Tuesday 10:00', { schedule: '0 9 * * mon-fri', duration: '8h' }, '2026-11-24T10:00:00Z', true],
    ['weekdays 09:00 for 8h, Saturday 10:00', { schedule: '0 9 * * mon-fri', duration: '8h' }, '2026-11-28T10:00:00Z', false],
    ['a schedule that never fires (Feb 30): robfig returns the zero time, read as active', { schedule: '0 0 30 2 *', duration: '1h' }, '2026-11-24T07:30:00Z', true],
  ];
  it.each(cases)('%s', (_name, budget, now, active) => {
    expect(budgetWindow(budget, at(now)).active).toBe(active);
  });

  it('reports when an active overnight window closes and when an inactive one opens', () => {
    const open = budgetWindow(overnight, at('2026-11-25T01:00:00Z'));
    expect(open.since?.toISOString()).toBe('2026-11-24T22:00:00.000Z');
    expect(open.until?.toISOString()).toBe('2026-11-25T02:00:00.000Z');
    const closed = budgetWindow(overnight, at('2026-11-24T12:00:00Z'));
    expect(closed.nextStart?.toISOString()).toBe('2026-11-24T22:00:00.000Z');
  });

  it('chains overlapping hits: a weekly schedule lasting longer than a week never closes', () => {
    const w = budgetWindow({ schedule: '@weekly', duration: '200h' }, at('2026-11-24T07:30:00Z'));
    expect(w.active).toBe(true);
    expect(w.until).toBeUndefined();
  });

  it('errs on a CRON_TZ schedule and on a duration without a schedule', () => {
    expect(budgetWindow({ schedule: 'CRON_TZ=UTC 0 9 * * *', duration: '1h' }, at('2026-11-24T07:30:00Z')).error).toMatch(
      /^invariant violated, invalid cron, expected exactly 5 fields/,
    );
    expect(budgetWindow({ duration: '1h' }, at('2026-11-24T07:30:00Z')).error).toMatch(/expected exactly 5 fields, found 0/);
  });
});

describe('scaledBudgetNodes (intstr.GetScaledValueFromIntOrPercent, rounding up)', () => {
  const cases: Array<[string, number, number]> = [
    ['10%', 5, 1],
    ['10%', 0, 0],
    ['33%', 10, 4],
    ['20%', 3, 1],
    ['100%', 7, 7],
    ['0', 50, 0],
    ['3', 2, 3],
  ];
  it.each(cases)('nodes "%s" of %i nodes allows %i', (nodes, total, value) => {
    expect(scaledBudgetNodes(nodes, total)).toMatchObject({ value });
  });

  it('errs on a value that is neither an integer nor a percentage', () => {
    expect(scaledBudgetNodes('ten', 10).error).toBe('invalid value for IntOrString: invalid type: string is not a percentage');
  });
});

describe('allowedDisruptionsForReason (nodepool.go:356-378)', () => {
  const freeze: DisruptionBudget[] = [
    { nodes: '20%' },
    { nodes: '0', schedule: '0 9 * * mon-fri', duration: '8h', reasons: ['Underutilized', 'Empty'] },
  ];

  it('takes the most restrictive active budget naming the reason', () => {
    expect(allowedDisruptionsForReason(freeze, 'Empty', 12, at('2026-11-24T10:00:00Z'))).toMatchObject({ allowed: 0, limiting: [1] });
    expect(allowedDisruptionsForReason(freeze, 'Drifted', 12, at('2026-11-24T10:00:00Z'))).toMatchObject({ allowed: 3, limiting: [0] });
    expect(allowedDisruptionsForReason(freeze, 'Empty', 12, at('2026-11-24T07:30:00Z'))).toMatchObject({ allowed: 3, limiting: [0] });
  });

  it('defaults to one 10% budget when budgets are absent, and is unbounded when the list is empty', () => {
    expect(allowedDisruptionsForReason(undefined, 'Underutilized', 25, at('2026-11-24T07:30:00Z')).allowed).toBe(3);
    expect(allowedDisruptionsForReason([], 'Underutilized', 25, at('2026-11-24T07:30:00Z')).allowed).toBe(UNBOUNDED_DISRUPTIONS);
  });

  it('fails closed for every reason when any budget is invalid, even one for another reason', () => {
    const broken: DisruptionBudget[] = [{ nodes: '50%' }, { nodes: '1', schedule: 'CRON_TZ=UTC 0 1 * * *', duration: '1h', reasons: ['Drifted'] }];
    const r = allowedDisruptionsForReason(broken, 'Empty', 10, at('2026-11-24T07:30:00Z'));
    expect(r).toMatchObject({ allowed: 0, failedClosed: true, limiting: [1] });
  });

  it('gives an empty reasons list no reason at all', () => {
    expect(allowedDisruptionsForReason([{ nodes: '0', reasons: [] }], 'Empty', 10, at('2026-11-24T07:30:00Z')).allowed).toBe(UNBOUNDED_DISRUPTIONS);
  });
});

describe('nodePoolBudgetState (disruption/helpers.go:262-313)', () => {
  const { nodePools } = loadKarpenterFixture();
  const general = nodePools.find((np) => np.metadata.name === 'general')!;

  it('subtracts nodes already disrupting and publishes the event only when the budget itself is 0', () => {
    const s = nodePoolBudgetState(general, { numNodes: 3, disrupting: 1 }, at('2026-11-24T07:30:00Z'));
    expect(s.byReason.Drifted).toMatchObject({ allowed: 1, remaining: 0, event: undefined });
    const frozen = nodePoolBudgetState(general, { numNodes: 3, disrupting: 0 }, at('2026-11-24T10:00:00Z'));
    expect(frozen.byReason.Empty).toMatchObject({
      allowed: 0,
      remaining: 0,
      event: 'No allowed disruptions for disruption reason Empty due to blocking budget',
    });
    expect(frozen.byReason.Drifted.remaining).toBe(1);
  });

  it('publishes nothing for a pool without nodes', () => {
    const s = nodePoolBudgetState(general, { numNodes: 0, disrupting: 0 }, at('2026-11-24T10:00:00Z'));
    expect(s.byReason.Empty.event).toBeUndefined();
  });
});
