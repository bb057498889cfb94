// The loader's string interning (src/gather/intern.ts): values unchanged, one table entry per distinct short string.
import { describe, expect, it } from 'vitest';
import { internStrings, type InternTable } from '../../src/gather/intern.js';

/** Two projected pods of one ReplicaSet on one node, as the loader keeps them. */
function pod(name: string, uid: string): Record<string, unknown> {
  return {
    apiVersion: 'v1',
    kind: 'Pod',
    metadata: {
      name,
      namespace: 'web',
      uid,
      creationTimestamp: '2026-11-19T20:00:05Z',
      labels: { app: 'api', 'pod-template-hash': '5jnmtxgjl' },
      ownerReferences: [{ apiVersion: 'apps/v1', kind: 'ReplicaSet', name: 'api-5jnmtxgjl', controller: true, uid: 'rs-uid' }],
    },
    spec: {
      nodeName: 'ip-10-0-14-37.ec2.internal',
      containers: [{ name: 'api', resources: { requests: { cpu: '1500m', memory: '2Gi' } } }],
      tolerations: [{ key: 'node.kubernetes.io/not-ready', operator: 'Exists', effect: 'NoExecute', tolerationSeconds: 300 }],
      volumes: [{ name: 'certs', configMap: { name: 'x'.repeat(200) } }],
    },
    status: { phase: 'Running', conditions: [{ type: 'Ready', status: 'True', lastTransitionTime: '2026-11-19T20:00:09Z' }] },
  };
}

describe('internStrings', () => {
  it('leaves every value as it was, nested lists and objects included', () => {
    const table: InternTable = new Map();
    const a = pod('api-5jnmtxgjl-prp7m', 'u-1');
    const b = pod('api-5jnmtxgjl-x2k9d', 'u-2');
    const before = structuredClone([a, b]);
    internStrings(a, table);
    internStrings(b, table);
    expect([a, b]).toEqual(before);
  });

  it('keeps one entry per distinct short string, and none for unique-valued members or long strings', () => {
    const table: InternTable = new Map();
    internStrings(pod('api-5jnmtxgjl-prp7m', 'u-1'), table);
    const after1 = table.size;
    internStrings(pod('api-5jnmtxgjl-x2k9d', 'u-2'), table);
    // the second replica adds only its own name: every other short string is one its sibling had
    expect(table.size).toBe(after1 + 1);
    expect(table.has('node.kubernetes.io/not-ready')).toBe(true);
    expect(table.has('ip-10-0-14-37.ec2.internal')).toBe(true);
    expect(table.has('u-1')).toBe(false);
    expect(table.has('2026-11-19T20:00:05Z')).toBe(false);
    expect(table.has('x'.repeat(200))).toBe(false);
  });

  it('ignores what is not an object or a list', () => {
    const table: InternTable = new Map();
    for (const v of [null, undefined, 3, 'alone', true]) internStrings(v, table);
    expect(table.size).toBe(0);
  });
});
