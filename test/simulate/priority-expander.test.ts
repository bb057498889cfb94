// The priority expander's ConfigMap and pick (CA: pkg/expander/priority/priority.go, pkg/expander/factory/chain.go).
import { describe, expect, it } from 'vitest';
import type { ConfigMap } from '../../src/model/k8s.js';
import { buildCaConfig } from '../../src/simulate/ca-config.js';
import {
  auditPriorityRules,
  findPriorityConfigMap,
  parsePriorityConfigMap,
  pickByPriority,
  pickWithPriorityExpander,
  type PriorityConfig,
} from '../../src/simulate/priority-expander.js';
import { caDeployment } from '../builders/world.js';

function cm(priorities: string | undefined, namespace = 'kube-system'): ConfigMap {
  return {
    apiVersion: 'v1',
    kind: 'ConfigMap',
    metadata: { name: 'cluster-autoscaler-priority-expander', namespace, uid: '0b7e6c3e-2f41-4a55-9a0e-6f1d2b9e8c11' },
    ...(priorities === undefined ? { data: { priority: '10:\n  - .*' } } : { data: { priorities } }),
  };
}

function ok(text: string): Extract<PriorityConfig, { ok: true }> {
  const r = parsePriorityConfigMap(cm(text));
  if (!r.ok) throw new Error(r.message);
  return r;
}

describe('parsePriorityConfigMap', () => {
  it('parses the upstream example (priority-expander-configmap.yaml)', () => {
    const r = ok('10: \n  - .*t2\\.large.*\n  - .*t3\\.large.*\n50: \n  - .*m4\\.4xlarge.*');
    expect(r.rules.map((x) => [x.priority, x.pattern])).toEqual([
      [10, '.*t2\\.large.*'],
      [10, '.*t3\\.large.*'],
      [50, '.*m4\\.4xlarge.*'],
    ]);
  });

  it.each([
    [undefined, "Wrong configmap for priority expander, doesn't contain priorities key. Ignoring update."],
    ['', 'Wrong configuration for priority expander: priority configuration in cluster-autoscaler-priority-expander configmap is empty; please provide valid configuration. Ignoring update.'],
    ['high:\n  - .*', "Wrong configuration for priority expander: Can't parse YAML with priorities in the configmap: error unmarshaling JSON: while decoding JSON: json: cannot unmarshal number high into Go value of type int. Ignoring update."],
    ['10: .*spot.*', "Wrong configuration for priority expander: Can't parse YAML with priorities in the configmap: error unmarshaling JSON: while decoding JSON: json: cannot unmarshal string into Go value of type []string. Ignoring update."],
    ['10:\n  - {a: b}', "Wrong configuration for priority expander: Can't parse YAML with priorities in the configmap: error unmarshaling JSON: while decoding JSON: json: cannot unmarshal object into Go value of type string. Ignoring update."],
    ['10:\n  - (?<=eks-)spot', "Wrong configuration for priority expander: Can't compile regexp rule for priority 10 and rule (?<=eks-)spot: error parsing regexp: invalid named capture: `(?<=eks-)spot`. Ignoring update."],
  ])('rejects %j with CA\'s PriorityConfigMapInvalid text', (text, message) => {
    expect(parsePriorityConfigMap(cm(text))).toEqual({ ok: false, reason: 'PriorityConfigMapInvalid', message });
  });

  it('reports a YAML syntax error as invalid (the parser text is not go-yaml\'s)', () => {
    const r = parsePriorityConfigMap(cm('10:\n  - a\n - b: ['));
    expect(r.ok).toBe(false);
    expect(!r.ok && r.message).toMatch(/^Wrong configuration for priority expander: Can't parse YAML with priorities in the configmap: error converting YAML to JSON: /);
  });
});

describe('parsePriorityConfigMap coercion (sigs.k8s.io/yaml convertToJSONableObject)', () => {
  it('turns a number item into a string rule and an empty item into "", which matches every group', () => {
    const r = ok('10:\n  - 5\n  -\n');
    expect(r.rules.map((x) => x.pattern)).toEqual(['5', '']);
    expect(pickByPriority(r, ['eks-a'])).toMatchObject({ kept: ['eks-a'], priority: 10 });
  });
});

describe('findPriorityConfigMap', () => {
  it("reads the ConfigMap in CA's --namespace only", () => {
    const ca = buildCaConfig({ deployment: caDeployment(['--cloud-provider=aws', '--namespace=autoscaling', '--expander=priority']) });
    expect(findPriorityConfigMap([cm('10:\n- .*')], ca)).toBeUndefined();
    expect(findPriorityConfigMap([cm('10:\n- .*', 'autoscaling')], ca)?.metadata.namespace).toBe('autoscaling');
  });
});

describe('pickByPriority', () => {
  const config = ok('50:\n  - spot\n10:\n  - ondemand\n');

  it('keeps the highest priority and names the single pick', () => {
    expect(pickByPriority(config, ['eks-ondemand', 'eks-spot-a'])).toMatchObject({ kept: ['eks-spot-a'], choice: 'eks-spot-a', priority: 50 });
  });

  it('says CA may decide either when two groups share the top priority and priority is the last expander', () => {
    const p = pickByPriority(config, ['eks-spot-a', 'eks-spot-b']);
    expect(p.choice).toBeUndefined();
    expect(p.note).toBe('eks-spot-a, eks-spot-b share priority 50; CA picks one at random: CA may decide either');
  });

  it('hands ties to the next expander of the chain', () => {
    expect(pickByPriority(config, ['eks-spot-a', 'eks-spot-b'], ['priority', 'least-waste']).note).toMatch(/the next expander \(least-waste\) decides/);
  });

  it('never picks a group no rule matches while a matched group fits, and warns as CA does', () => {
    const p = pickByPriority(config, ['eks-gpu', 'eks-ondemand']);
    expect(p.kept).toEqual(['eks-ondemand']);
    expect(p.events).toEqual([
      { reason: 'PriorityConfigMapNotMatchedGroup', message: "Priority expander: node group eks-gpu not found in priority expander configuration. The group won't be used." },
    ]);
  });

  it('filters nothing when no option matches (PriorityConfigMapNoGroupMatched)', () => {
    const p = pickByPriority(config, ['eks-gpu']);
    expect(p.kept).toEqual(['eks-gpu']);
    expect(p.events.map((e) => e.reason)).toEqual(['PriorityConfigMapNotMatchedGroup', 'PriorityConfigMapNoGroupMatched']);
  });

  it('skips a group whose priority is below -1: priority.go starts at maxPrio -1', () => {
    const neg = ok('-5:\n  - gpu\n-1:\n  - ondemand');
    expect(pickByPriority(neg, ['eks-gpu', 'eks-ondemand']).kept).toEqual(['eks-ondemand']);
    expect(pickByPriority(neg, ['eks-gpu']).events.map((e) => e.reason)).toEqual(['PriorityConfigMapNoGroupMatched']);
  });
});

describe('auditPriorityRules', () => {
  it('names rules matching no group, groups matched by nothing, and groups only below -1', () => {
    const config = ok('50:\n  - spot\n  - ^t3-large$\n-3:\n  - gpu');
    const audit = auditPriorityRules(config.rules, ['eks-spot-a', 'eks-ondemand', 'eks-gpu']);
    expect(audit.rulesMatchingNothing.map((r) => r.pattern)).toEqual(['^t3-large$']);
    expect(audit.groupsMatchedByNothing).toEqual(['eks-ondemand']);
    expect(audit.groupsBelowMinusOne).toEqual(['eks-gpu']);
  });
});

describe('pickWithPriorityExpander', () => {
  const ca = (expander: string) => buildCaConfig({ deployment: caDeployment(['--cloud-provider=aws', `--expander=${expander}`]) });

  it('is not consulted when priority is not in --expander', () => {
    expect(pickWithPriorityExpander([cm('10:\n- .*')], ca('least-waste'), ['a', 'b'])).toBeUndefined();
  });

  it('filters nothing when the ConfigMap is missing, and hands the choice to the next expander', () => {
    const p = pickWithPriorityExpander([], ca('priority,least-waste'), ['eks-a', 'eks-b']);
    expect(p).toMatchObject({ kept: ['eks-a', 'eks-b'] });
    expect(p?.note).toBe('ConfigMap kube-system/cluster-autoscaler-priority-expander is not in the input (when it does not exist, priority filters nothing); the next expander (least-waste) decides');
  });

  it("picks from the ConfigMap in CA's namespace", () => {
    expect(pickWithPriorityExpander([cm('50:\n- ^eks-b$\n10:\n- .*')], ca('priority'), ['eks-a', 'eks-b'])?.choice).toBe('eks-b');
  });
});
