// Which ConfigMap values are the externalgrpc provider's config (scrubbed of credentials at the gather edge), by content.
import { readFileSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import { describe, expect, it } from 'vitest';
import { isExternalGrpcConfigText, scrubExternalGrpcConfigMaps } from '../../src/providers/externalgrpc/gather.js';
import { emptyInputs } from '../../src/model/snapshot.js';
import { FILE_TEXT, STATUS_CONFIGMAP, STATUS_TEXT } from '../fixtures/externalgrpc/load.js';

const DEMO_CONFIGMAPS = fileURLToPath(new URL('../../examples/demo/configmaps-kube-system.json', import.meta.url));

describe('isExternalGrpcConfigText', () => {
  it("recognises the provider's config, from the file and from its ConfigMap", () => {
    expect(isExternalGrpcConfigText(FILE_TEXT)).toBe(true);
    expect(isExternalGrpcConfigText(STATUS_TEXT)).toBe(true);
  });

  it("does not take CA's own status ConfigMap for it, though its YAML has a top-level nodeGroups", () => {
    // kubectl get configmap cluster-autoscaler-status -n kube-system -o json
    const cm = JSON.parse(readFileSync(DEMO_CONFIGMAPS, 'utf8')) as { metadata: { name: string }; data: { status: string } };
    expect(cm.metadata.name).toBe('cluster-autoscaler-status');
    const status = cm.data.status;
    expect(status).toMatch(/^nodeGroups:/m);
    expect(isExternalGrpcConfigText(status)).toBe(false);
  });

  it('does not take a Kubernetes manifest for it', () => {
    expect(isExternalGrpcConfigText('apiVersion: v1\nkind: ConfigMap\ndata:\n  x: y\nnodeGroups: []\n')).toBe(false);
  });
});

describe('scrubExternalGrpcConfigMaps', () => {
  it("drops kubectl apply's copy of a provider ConfigMap with the credentials, and keeps other ConfigMaps' annotations", () => {
    const applied = structuredClone(STATUS_CONFIGMAP);
    const lastApplied = JSON.stringify({ apiVersion: 'v1', kind: 'ConfigMap', data: applied.data, metadata: { name: applied.metadata.name } });
    applied.metadata.annotations = { ...applied.metadata.annotations, 'kubectl.kubernetes.io/last-applied-configuration': lastApplied };
    const other = { apiVersion: 'v1', kind: 'ConfigMap', metadata: { name: 'app', namespace: 'default', annotations: { 'kubectl.kubernetes.io/last-applied-configuration': '{"data":{"x":"y"}}' } }, data: { x: 'y' } };
    const raw = emptyInputs();
    raw.configMaps.push(applied, other);
    expect(JSON.stringify(raw)).toContain('Gu5t9xGARNpq86cd98joQYCN3EXAMPLEKEY');
    scrubExternalGrpcConfigMaps(raw);
    expect(JSON.stringify(raw)).not.toContain('Gu5t9xGARNpq86cd98joQYCN3EXAMPLEKEY');
    expect(applied.metadata.annotations).not.toHaveProperty(['kubectl.kubernetes.io/last-applied-configuration']);
    expect(other.metadata.annotations).toHaveProperty(['kubectl.kubernetes.io/last-applied-configuration']);
  });
});
