// externalgrpc-ca-cannot-run also reports a CA that runs its loop (every scale-up fails, or no node it adds joins):
// CA health lists it, but it does not say CA is not scaling (scale-down still runs).
import { describe, expect, it } from 'vitest';
import { caHealthFrom } from '../../src/model/ca-health.js';
import type { Finding } from '../../src/model/findings.js';

const finding = (message: string): Finding => ({
  checkId: 'externalgrpc-ca-cannot-run',
  severity: 'error',
  subject: { kind: 'Deployment', name: 'cluster-autoscaler', namespace: 'kube-system' },
  message,
  evidence: [],
  docsUrl: 'https://github.com/casdoctor/casdoctor/blob/main/docs/checks/externalgrpc-ca-cannot-run.md',
});

describe('caHealthFrom and externalgrpc-ca-cannot-run', () => {
  it('a CA that is not running stops CA health', () => {
    expect(caHealthFrom([finding('CA is not running: nothing is scaled up or down. CA v1.32.7 panics.')]).running).toBe(false);
    expect(caHealthFrom([finding('CA is likely not running: nothing is scaled up or down. CA v1.35.2 crashes.')]).running).toBe(false);
  });
  it('a CA that runs but whose scale-ups never land is listed without saying CA is not scaling', () => {
    const h = caHealthFrom([finding('CA runs, but no node it adds ever joins: CA v1.28.4 reads --max-node-provision-time as 0.')]);
    expect(h.running).toBeNull();
    expect(h.findings).toHaveLength(1);
    expect(caHealthFrom([finding("Every scale-up of CA's fails: the provider answers NodeGroupForNode with an error.")]).running).toBeNull();
  });
});
