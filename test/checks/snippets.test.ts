// Remediation snippets come from the yaml library: benign values print exactly as the hand-written snippets did,
// hostile ones parse back to themselves.
import { describe, expect, it } from 'vitest';
import { parse } from 'yaml';
import { flowList, flowMap, orderedMap, quoted, yamlSnippet } from '../../src/checks/lib/snippets.js';

const LOCAL_VOLUMES = 'cluster-autoscaler.kubernetes.io/safe-to-evict-local-volumes';

describe('yamlSnippet', () => {
  it('prints a toleration as the remediation always did: block list at the key, quoted value', () => {
    const t = { tolerations: [{ key: 'dedicated', operator: 'Equal', value: quoted('databases'), effect: 'NoSchedule' }] };
    expect(yamlSnippet(t, 2, { indentSeq: false })).toBe(
      '  tolerations:\n  - key: dedicated\n    operator: Equal\n    value: "databases"\n    effect: NoSchedule',
    );
  });

  it('prints one-line lists and maps without padding', () => {
    const groups = { nodeGroups: ['us-east-1a'].map((z) => ({ name: `general-${z.slice(-2)}`, availabilityZones: flowList([z]) })) };
    expect(yamlSnippet(groups, 2, { indentSeq: false })).toBe('  nodeGroups:\n  - name: general-1a\n    availabilityZones: [us-east-1a]');
    expect(yamlSnippet({ metadata: flowMap({ name: 'gp2-wffc' }) }, 2)).toBe('  metadata: {name: gp2-wffc}');
  });

  it('prints a PodDisruptionBudget with its labels in the order given', () => {
    const labels = orderedMap([
      ['app', quoted('metrics-server')],
      ['1', quoted('one')],
    ]);
    const pdb = { apiVersion: 'policy/v1', kind: 'PodDisruptionBudget', metadata: { name: 'm', namespace: 'kube-system' }, spec: { maxUnavailable: 1, selector: { matchLabels: labels } } };
    expect(yamlSnippet(pdb)).toBe(
      'apiVersion: policy/v1\nkind: PodDisruptionBudget\nmetadata:\n  name: m\n  namespace: kube-system\nspec:\n  maxUnavailable: 1\n  selector:\n    matchLabels:\n      app: "metrics-server"\n      "1": "one"',
    );
  });

  it('never folds a long value onto a second line', () => {
    const long = 'x'.repeat(200);
    expect(yamlSnippet({ [LOCAL_VOLUMES]: quoted(long) })).toBe(`${LOCAL_VOLUMES}: "${long}"`);
  });

  it.each([
    ['a newline and a key', 'cache"\n  injected: true'],
    ['a comment', 'a #b'],
    ['a flow indicator', '[a]{b}, c'],
    ['a document marker', '---\n...'],
    ['an alias', '*x &y'],
  ])('parses %s in a value back to the value', (_name, value) => {
    const text = yamlSnippet({ metadata: { name: value, annotations: { [LOCAL_VOLUMES]: quoted(value) } } }, 2);
    expect(parse(text)).toEqual({ metadata: { name: value, annotations: { [LOCAL_VOLUMES]: value } } });
  });
});
