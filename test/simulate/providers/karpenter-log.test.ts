// Karpenter's controller log (src/simulate/providers/karpenter/log): each message of a node's life in the wording of the
// versions that print it, the envelope variants, and the bounds. Lines are zap JSON as Karpenter writes them.
import { describe, expect, it } from 'vitest';
import { createKarpenterLogParser, sniffKarpenterLog, splitPrettySlice } from '../../../src/simulate/providers/karpenter/log/index.js';

const rec = (message: string, values: Record<string, unknown> = {}, level = 'INFO', time = '2026-11-20T15:10:01.448Z') =>
  JSON.stringify({ level, time, logger: 'controller', message, commit: '4d1b7e9', ...values });
const parse = (lines: string[], limits = {}) => {
  const p = createKarpenterLogParser({ source: { kind: 'text' }, limits });
  for (const l of lines) p.push(l);
  return p.finish();
};

describe('Karpenter log parser', () => {
  it('reads v1.9+ "disrupting node(s)": the reason from the command text, the decision, the nodes and the replacement', () => {
    // disruption/queue.go:319-322 and types.go:333 @v1.14.1
    const [r] = parse([
      rec('disrupting node(s)', {
        controller: 'disruption',
        command: 'Underutilized/3f1c0e2a-5b7d-4c11-9f0e-2a6b8d4c1e77: replace: nodepools=[default]: [ip-10-0-40-11.eu-west-1.compute.internal] -> [1 replacement] (savings: $0.31)',
        decision: 'replace',
        'pod-count': 4,
        'disrupted-nodes': [{ Node: { name: 'ip-10-0-40-11.eu-west-1.compute.internal' }, NodeClaim: { name: 'default-7x2kq' }, 'instance-type': 'm5.2xlarge', 'capacity-type': 'on-demand' }],
        'replacement-nodes': [{ 'capacity-type': 'spot', 'instance-types': 'm5.large, m5a.large and 14 other(s)' }],
      }),
    ]).records;
    expect(r).toMatchObject({
      kind: 'disrupting',
      reason: 'underutilized',
      commandId: '3f1c0e2a-5b7d-4c11-9f0e-2a6b8d4c1e77',
      decision: 'replace',
      podCount: 4,
      node: 'ip-10-0-40-11.eu-west-1.compute.internal',
      nodeClaim: 'default-7x2kq',
      replacements: 1,
      replacementTypes: 'spot m5.large, m5a.large and 14 other(s)',
    });
  });

  it('reads v1.3–v1.8 "disrupting node(s)" with its lower-case reason value, and v1.0–v1.2 "disrupting nodeclaim(s) via …"', () => {
    const [mid, old] = parse([
      // queue.go:315 @v1.8.0: "command-id", "reason" (lower case) before the LogValues
      rec('disrupting node(s)', { 'command-id': 'a1', reason: 'empty', decision: 'delete', 'disrupted-nodes': [{ Node: { name: 'n1' }, NodeClaim: { name: 'c1' } }], 'replacement-nodes': [] }),
      // controller.go:188 @v1.0.0 and Command.String (types.go:141-171)
      rec('disrupting nodeclaim(s) via replace, terminating 1 nodes (2 pods) ip-10-0-1-2.ec2.internal/m5.xlarge/on-demand and replacing with spot node from types m5.large, m5a.large', { reason: 'drifted' }),
    ]).records;
    expect(mid).toMatchObject({ reason: 'empty', decision: 'delete', node: 'n1', nodeClaim: 'c1', replacements: 0 });
    expect(old).toMatchObject({ kind: 'disrupting', reason: 'drifted', decision: 'replace', podCount: 2, node: 'ip-10-0-1-2.ec2.internal', replacements: 1 });
    expect(old.disrupted).toEqual([{ node: 'ip-10-0-1-2.ec2.internal', instanceType: 'm5.xlarge', capacityType: 'on-demand' }]);
  });

  it("follows a NodeClaim's life: created, launched (instance id from provider-id), registered, initialized, timeout, deleted", () => {
    const s = parse([
      rec('created nodeclaim', { controller: 'provisioner', NodePool: { name: 'default' }, NodeClaim: { name: 'default-x5fz8' } }),
      rec('launched nodeclaim', { NodeClaim: { name: 'default-x5fz8' }, 'provider-id': 'aws:///eu-west-1a/i-0f9e8d7c6b5a43210', 'instance-type': 'c6i.xlarge', zone: 'eu-west-1a', 'capacity-type': 'spot' }),
      rec('registered nodeclaim', { NodeClaim: { name: 'default-x5fz8' }, Node: { name: 'ip-10-0-41-23' } }),
      rec('initialized nodeclaim', { NodeClaim: { name: 'default-x5fz8' }, Node: { name: 'ip-10-0-41-23' } }),
      // liveness.go:152 @v1.14.1 (V1)
      rec('terminating due to timeout', { NodeClaim: { name: 'default-q2' }, timeout: '5m0s', reason: 'launch_timeout' }, 'DEBUG'),
      rec('deleted nodeclaim', { NodeClaim: { name: 'default-x5fz8' }, Node: { name: 'ip-10-0-41-23' } }),
    ]);
    expect(s.records.map((r) => r.kind)).toEqual(['created-nodeclaim', 'launched-nodeclaim', 'registered-nodeclaim', 'initialized-nodeclaim', 'timeout', 'deleted-nodeclaim']);
    expect(s.records[1]).toMatchObject({ instanceId: 'i-0f9e8d7c6b5a43210', instanceType: 'c6i.xlarge', capacityType: 'spot', zone: 'eu-west-1a' });
    expect(s.records[4]).toMatchObject({ reason: 'launch_timeout', timeout: '5m0s' });
    expect(s.commit).toBe('4d1b7e9');
  });

  it("reads the AWS provider's interruption, unhealthy-instance and unavailable-offering lines", () => {
    const s = parse([
      rec('initiating delete from interruption message', { messageKind: 'spot_interrupted', NodeClaim: { name: 'c1' }, Node: { name: 'n1' }, action: 'CordonAndDrain' }),
      rec('removing offering from offerings', { reason: 'InsufficientInstanceCapacity', 'instance-type': 'g5.xlarge', zone: 'eu-west-1a', 'capacity-type': 'spot', ttl: '3m0s' }, 'DEBUG'),
      rec('failed launching nodeclaim', { NodeClaim: { name: 'c2' }, error: 'creating instance, insufficient capacity, with fleet error(s), InsufficientInstanceCapacity: We currently do not have sufficient g5.xlarge capacity' }, 'ERROR'),
    ]);
    expect(s.records.map((r) => [r.kind, r.reason ?? r.error?.slice(0, 17)])).toEqual([
      ['interruption', 'spot_interrupted'],
      ['offering-unavailable', 'InsufficientInstanceCapacity'],
      ['launch-failed', 'creating instance'],
    ]);
  });

  it('accepts a kubectl --timestamps or CRI prefix, counts foreign lines, and keeps the coverage of every line', () => {
    const s = parse([
      `2026-11-20T12:00:04.600000000Z stderr F ${rec('discovered ssm parameter', { controller: 'nodeclass' }, 'INFO', '2026-11-20T12:00:04.518Z')}`,
      'panic: runtime error: invalid memory address or nil pointer dereference',
      rec('deleted node', { Node: { name: 'n1' } }, 'INFO', '2026-11-20T15:11:39.880Z'),
    ]);
    expect(s.format).toBe('json');
    expect(s.lines).toBe(3);
    expect(s.otherLines).toBe(1);
    expect(s.unrecognisedLines).toBe(1);
    expect(s.samples).toEqual([{ line: 2, text: 'panic: runtime error: invalid memory address or nil pointer dereference' }]);
    expect(s.records).toHaveLength(1);
    expect(new Date(s.firstTime!).toISOString()).toBe('2026-11-20T12:00:04.518Z');
  });

  it('keeps the newest records past its cap, counts the dropped, and makes hostile text one bounded line', () => {
    const lines = Array.from({ length: 5 }, (_, i) => rec('deleted node', { Node: { name: `n${i}` } }, 'INFO', `2026-11-20T15:00:0${i}Z`));
    const s = parse(lines, { records: 3 });
    expect(s.records.map((r) => r.node)).toEqual(['n2', 'n3', 'n4']);
    expect(s.dropped).toBe(2);
    const [h] = parse([rec('failed launching nodeclaim', { error: `x\u001b]8;;http://evil\u0007\n${'y'.repeat(5000)}` }, 'ERROR')], { messageChars: 100 }).records;
    expect(h.error).not.toMatch(/[\u0000-\u001f]/);
    expect(h.error!.length).toBeLessThanOrEqual(101);
  });

  it("recognises Karpenter's log by content, and not CA's JSON log or a JSON dump", () => {
    expect(sniffKarpenterLog(`${rec('launched nodeclaim', { NodeClaim: { name: 'c' } })}\n${rec('x', {})}\n`)).toBe(true);
    // CA's --logging-format=json (component-base): ts, caller, msg
    expect(sniffKarpenterLog('{"ts":1763654282143.2,"caller":"core/static_autoscaler.go:317","msg":"Starting main loop","v":4}\n')).toBe(false);
    expect(sniffKarpenterLog('{\n  "apiVersion": "v1",\n  "items": []\n}\n')).toBe(false);
  });

  it('splits pretty.Slice lists with their "and N other(s)"', () => {
    expect(splitPrettySlice('shop/a, shop/b and 3 other(s)', 10)).toEqual({ names: ['shop/a', 'shop/b'], more: 3 });
    expect(splitPrettySlice('a, b, c', 2)).toEqual({ names: ['a', 'b'], more: 1 });
  });
});
