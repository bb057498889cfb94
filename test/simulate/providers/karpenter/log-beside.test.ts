// Karpenter's log beside the verdicts (src/simulate/providers/karpenter/log-beside.ts): the parser's additions (leader
// election through klog, the pod of "could not schedule pod") and the index of the latest line per pod, node and leader.
import { describe, expect, it } from 'vitest';
import { parseKarpenterLogText } from '../../../../src/gather/history-files.js';
import { karpenterLogIndex } from '../../../../src/simulate/providers/karpenter/log-beside.js';

const rec = (time: string, message: string, values: Record<string, unknown> = {}, level = 'INFO') =>
  JSON.stringify({ level, time, logger: 'controller', message, commit: '4d1b7e9', ...values });
const log = (pod: string, lines: string[]) => parseKarpenterLogText(`${lines.join('\n')}\n`, { kind: 'pod', namespace: 'kube-system', pod });

describe('Karpenter log beside the verdicts', () => {
  it('reads client-go leader election as Karpenter logs it through klog, and keeps each pod log\'s last word', () => {
    const leader = log('karpenter-a', [
      rec('2026-11-24T13:00:00Z', 'attempting to acquire leader lease kube-system/karpenter-leader-election...'),
      rec('2026-11-24T13:00:04Z', 'successfully acquired lease kube-system/karpenter-leader-election'),
    ]);
    const follower = log('karpenter-b', [rec('2026-11-24T13:00:01Z', 'attempting to acquire leader lease kube-system/karpenter-leader-election...')]);
    const lost = log('karpenter-c', [
      rec('2026-11-24T12:00:00Z', 'successfully acquired lease kube-system/karpenter-leader-election'),
      rec('2026-11-24T12:59:00Z', 'failed to renew lease kube-system/karpenter-leader-election: context deadline exceeded'),
    ]);
    expect(leader.records.map((r) => [r.kind, r.leaderEvent, r.lease])).toEqual([
      ['leader-election', 'attempting', 'kube-system/karpenter-leader-election'],
      ['leader-election', 'acquired', 'kube-system/karpenter-leader-election'],
    ]);
    const idx = karpenterLogIndex([leader, follower, lost])!;
    expect(idx.leaders.map((l) => [l.where, l.state])).toEqual([
      ['pod kube-system/karpenter-a', 'leader'],
      ['pod kube-system/karpenter-b', 'waiting'],
      ['pod kube-system/karpenter-c', 'lost'],
    ]);
  });

  it('keeps the latest line per pod (its namespace from klog.KObj) and per node and NodeClaim', () => {
    const l = log('karpenter-a', [
      rec('2026-11-24T13:50:00Z', 'found provisionable pod(s)', { Pods: 'web/api-1, web/api-2', duration: '20ms' }),
      rec('2026-11-24T13:51:00Z', 'could not schedule pod', { Pod: { name: 'api-1', namespace: 'web' }, error: 'incompatible with nodepool "general", no instance type satisfied resources' }, 'ERROR'),
      rec('2026-11-24T13:52:00Z', 'disrupting node(s)', {
        command: 'Underutilized/7f1c: delete: nodepools=[general]: [ip-1] -> [] (savings: $0.12)',
        decision: 'delete',
        'disrupted-nodes': [{ Node: { name: 'ip-1' }, NodeClaim: { name: 'general-abc' } }],
        'replacement-nodes': [],
        'pod-count': 3,
      }),
      rec('2026-11-24T13:53:00Z', 'launched nodeclaim', { NodeClaim: { name: 'general-abc' }, 'instance-type': 'm5.large' }),
    ]);
    expect(l.records.find((r) => r.kind === 'error')?.pods).toEqual(['web/api-1']);
    const idx = karpenterLogIndex([l])!;
    expect(idx.pods.get('web/api-1')).toMatchObject({ kind: 'error', text: 'could not schedule pod: incompatible with nodepool "general", no instance type satisfied resources', line: 2 });
    expect(idx.pods.get('web/api-2')).toMatchObject({ kind: 'provisionable-pods', text: 'found provisionable pod(s)' });
    // the launch line says nothing of a node's fate: the disruption stays the latest word on the NodeClaim
    expect(idx.nodes.get('general-abc')).toMatchObject({ kind: 'disrupting', reason: 'underutilized', decision: 'delete', text: 'disrupting node(s): underutilized, delete (3 pod(s))' });
    expect(idx.nodes.get('ip-1')?.line).toBe(3);
    expect(idx.from).toBe(Date.parse('2026-11-24T13:50:00Z'));
    expect(idx.to).toBe(Date.parse('2026-11-24T13:53:00Z'));
  });

  it('has nothing to say without a log, or with only an empty one (a pod that logged nothing over the window)', () => {
    expect(karpenterLogIndex([])).toBeUndefined();
    expect(karpenterLogIndex([log('karpenter-a', [])])).toBeUndefined();
  });
});
