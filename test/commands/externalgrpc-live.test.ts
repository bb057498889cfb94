// The externalgrpc provider's ConfigMaps read live: read-only GETs by name over the loopback kube-apiserver, a gap
// naming the RBAC when forbidden, and no credential value in any report or snapshot file.
import { mkdtempSync, readdirSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { runNodeGroupAudit } from '../../src/commands/audit.js';
import { runSnapshot, type SnapshotOptions } from '../../src/commands/snapshot.js';
import { runWhyPending } from '../../src/commands/why-pending.js';
import { loadOffline } from '../../src/gather/offline.js';
import type { ConfigMap } from '../../src/model/k8s.js';
import { mutatingKubeRequests } from '../gather/live-fixtures.js';
import { type AwsServer, startAwsServer } from '../servers/aws-server.js';
import { type KubeApiServer, startKubeApiServer } from '../servers/kube-apiserver.js';
import { capturingDeps, PIPED_JSON } from './in-process.js';
import { ROOT } from './run.js';

const EXAMPLE = join(ROOT, 'examples', 'externalgrpc');
// the credential values in the example's ConfigMaps (Tencent Cloud's documented example key shape)
const SECRETS = ['AKIDz8krbsJ5yKBZQpn74WFkmLPx3EXAMPLE', 'Gu5t9xGARNpq86cd98joQYCN3EXAMPLE'];
const PROVIDER_CMS = ['nodegroup-status', 'cluster-autoscaler-grpc-cloud-provider-cm', 'cluster-autoscaler-cloud-config'];

let kube: KubeApiServer;
let forbidding: KubeApiServer;
let aws: AwsServer;
const tmp = mkdtempSync(join(tmpdir(), 'casdoctor-egrpc-live-'));

beforeAll(async () => {
  const data = await loadOffline([EXAMPLE]);
  // the cluster serves the ConfigMaps as they are, credentials included (loadOffline scrubbed its own copy)
  const raw = JSON.parse(readFileSync(join(EXAMPLE, 'configmaps-kube-system.json'), 'utf8')) as { items: ConfigMap[] };
  data.configMaps = raw.items;
  expect(JSON.stringify(data.configMaps)).toContain(SECRETS[0]);
  kube = await startKubeApiServer(data);
  forbidding = await startKubeApiServer(data, {
    faults: [{ match: '/api/v1/namespaces/kube-system/configmaps/nodegroup-status', status: 403 }],
  });
  aws = await startAwsServer(data);
});

afterAll(async () => {
  await kube?.close();
  await forbidding?.close();
  await aws?.close();
  rmSync(tmp, { recursive: true, force: true });
});

function deps() {
  return capturingDeps({
    liveOverrides: {
      awsEndpoint: aws.endpoint,
      awsCredentials: { accessKeyId: 'AKIDCASDOCTORTEST', secretAccessKey: 'casdoctor-test-secret' },
      awsRetryDelayMs: 0,
    },
  });
}

describe('live on an externalgrpc cluster', () => {
  it("GETs the provider's and CA's cloud-config ConfigMaps by name, reading only, and reports as offline", async () => {
    const c = deps();
    await runNodeGroupAudit({ ...PIPED_JSON, kubeconfig: kube.kubeconfigPath, region: 'us-east-1' }, c.deps);
    const gets = kube.requests.filter((r) => /\/configmaps\/[^/]+$/.test(r.path)).map((r) => r.path.split('/').pop());
    for (const name of PROVIDER_CMS) expect(gets).toContain(name);
    expect(mutatingKubeRequests(kube.requests)).toEqual([]);
    const live = JSON.parse(c.stdout()) as { provider: string; source: string; nodeGroups: unknown[] };
    const off = capturingDeps();
    await runNodeGroupAudit({ ...PIPED_JSON, from: [EXAMPLE] }, off.deps);
    const offline = JSON.parse(off.stdout()) as typeof live;
    expect(live.provider).toBe('externalgrpc');
    expect(live.source).toBe('ConfigMap kube-system/nodegroup-status');
    expect(live.nodeGroups).toEqual(offline.nodeGroups);
    for (const s of SECRETS) expect(c.stdout() + c.stderr()).not.toContain(s);
  });

  it('turns a forbidden GET into a gap that names the RBAC rule to add', async () => {
    const c = deps();
    await runWhyPending({ ...PIPED_JSON, output: 'table', all: true, allNamespaces: true, kubeconfig: forbidding.kubeconfigPath, region: 'us-east-1' }, c.deps);
    expect(c.stderr()).toContain('grant get on configmaps with resourceNames [nodegroup-status] in namespace kube-system (deploy/casdoctor-clusterrole.yaml)');
  });

  it('writes a snapshot with every credential value redacted, and reads it back to the same report', async () => {
    const dir = join(tmp, 'snap');
    const c = deps();
    const o: SnapshotOptions = { ...PIPED_JSON, output: 'table', dir, version: '0.1.0', kubeconfig: kube.kubeconfigPath, region: 'us-east-1' };
    const r = await runSnapshot(o, c.deps);
    expect(r.exitCode).toBe(0);
    const files = readdirSync(dir, { recursive: true, withFileTypes: true }).filter((f) => f.isFile());
    const all = files.map((f) => readFileSync(join(f.parentPath, f.name), 'utf8')).join('\n');
    expect(all).toContain('nodegroup-status');
    expect(all).toContain('<redacted>');
    for (const s of SECRETS) expect(all).not.toContain(s);
    const back = capturingDeps();
    await runNodeGroupAudit({ ...PIPED_JSON, from: [dir] }, back.deps);
    const live = capturingDeps();
    await runNodeGroupAudit({ ...PIPED_JSON, from: [EXAMPLE] }, live.deps);
    expect((JSON.parse(back.stdout()) as { nodeGroups: unknown }).nodeGroups).toEqual((JSON.parse(live.stdout()) as { nodeGroups: unknown }).nodeGroups);
  });
});
