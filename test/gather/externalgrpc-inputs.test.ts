// Which ConfigMap values are the externalgrpc provider's config (scrubbed of credentials at the gather edge), by content.
import { readFileSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import { describe, expect, it } from 'vitest';
import { isExternalGrpcConfigText } from '../../src/gather/externalgrpc-inputs.js';
import { FILE_TEXT, STATUS_TEXT } from '../fixtures/externalgrpc/load.js';

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
