// `casdoctor snapshot` writes Karpenter's inputs as the dumps --from reads: nodepools.json, ec2nodeclasses.json,
// nodeclaims.json (typed lists, each with the kubectl command that produces it), instance-type-offerings.json, and the
// Karpenter controller's settings kept in its Deployment; and they read back to the same view and the same report.
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { runSnapshot } from '../../src/commands/snapshot.js';
import type { Deps } from '../../src/commands/types.js';
import { runWhyPending } from '../../src/commands/why-pending.js';
import { loadOffline } from '../../src/gather/offline.js';
import { buildSnapshotFiles, type SnapshotFile, writeSnapshot } from '../../src/gather/snapshot-writer.js';
import type { Ec2InstanceTypeOffering } from '../../src/model/aws.js';
import type { Deployment } from '../../src/model/k8s.js';
import type { EC2NodeClass } from '../../src/model/karpenter.js';
import { emptyInputs, type RawInputs } from '../../src/model/snapshot.js';
import { karpenterInputs } from '../../src/simulate/providers/karpenter/inputs.js';
import { KARPENTER_SETTINGS_ENV } from '../../src/simulate/providers/karpenter/settings.js';
import { type AwsServer, startAwsServer } from '../servers/aws-server.js';
import { type KubeApiServer, startKubeApiServer } from '../servers/kube-apiserver.js';
import { mutatingAwsRequests, mutatingKubeRequests } from './live-fixtures.js';

const EXAMPLE = join(import.meta.dirname, '..', '..', 'examples', 'karpenter');
const NOW = '2026-11-21T10:00:00Z';
// in the order casdoctor keeps them: by zone, then instance type
const OFFERINGS: Ec2InstanceTypeOffering[] = [
  { InstanceType: 'm6i.large', LocationType: 'availability-zone', Location: 'us-east-1a' },
  { InstanceType: 'g5.xlarge', LocationType: 'availability-zone', Location: 'us-east-1b' },
  { InstanceType: 'm6i.large', LocationType: 'availability-zone', Location: 'us-east-1b' },
];

let example: RawInputs;
let tmp: string;
beforeAll(async () => {
  tmp = mkdtempSync(join(tmpdir(), 'casdoctor-snapshot-karpenter-'));
  example = await loadOffline([EXAMPLE], { fields: 'all' });
});
afterAll(() => rmSync(tmp, { recursive: true, force: true }));

/** The example, with a bootstrap script holding a secret in a NodeClass and a secret env value beside Karpenter's settings. */
function planted(): RawInputs {
  const r = structuredClone(example);
  r.provided = new Set(example.provided);
  const nc = r.ec2NodeClasses[0] as EC2NodeClass;
  nc.spec.userData = '#!/bin/bash\nexport DB_PASSWORD=PLANTED-userdata\n';
  nc.spec.tags = { ...nc.spec.tags, 'team/api-token': 'PLANTED-tag' };
  const karpenter = r.deployments.find((d) => d.metadata.name === 'karpenter') as Deployment;
  karpenter.spec!.template!.spec!.containers[0].env!.push({ name: 'AWS_SECRET_ACCESS_KEY', value: 'PLANTED-env' });
  r.instanceTypeOfferings = OFFERINGS;
  r.provided.add('instanceTypeOfferings');
  return r;
}

const build = (raw: RawInputs) =>
  buildSnapshotFiles(raw, { statusConfigMaps: [], takenAt: new Date(NOW), source: 'live: test', version: '0.1.0' });
const byName = (files: SnapshotFile[]) => new Map(files.map((f) => [f.name, f]));

describe('the snapshot of Karpenter’s inputs', () => {
  it('writes nodepools.json, ec2nodeclasses.json and nodeclaims.json as typed lists, each with its kubectl command', () => {
    const files = byName(build(planted()));
    expect(files.get('nodepools.json')).toMatchObject({ count: 3, command: 'kubectl get nodepools.karpenter.sh -o json' });
    expect(files.get('ec2nodeclasses.json')).toMatchObject({
      count: 2,
      command: 'kubectl get ec2nodeclasses.karpenter.k8s.aws -o json (spec.userData removed)',
    });
    expect(files.get('nodeclaims.json')).toMatchObject({ count: 6, command: 'kubectl get nodeclaims.karpenter.sh -o json' });
    expect(files.get('instance-type-offerings.json')).toMatchObject({
      count: 3,
      command: 'aws ec2 describe-instance-type-offerings --location-type availability-zone --output json',
    });
    expect(JSON.parse(files.get('instance-type-offerings.json')!.content)).toEqual({ InstanceTypeOfferings: OFFERINGS });
    expect(files.get('README.md')!.content).toContain('| nodepools.json | 3 | `kubectl get nodepools.karpenter.sh -o json` |');
  });

  it('drops the NodeClass’s userData and secret-named tags, and every env value of Karpenter’s but its settings', () => {
    const files = byName(build(planted()));
    for (const f of files.values()) expect(f.content, f.name).not.toMatch(/PLANTED/);
    const nc = JSON.parse(files.get('ec2nodeclasses.json')!.content).items[0];
    expect(nc.spec.userData).toBeUndefined();
    expect(nc.spec.tags['team/api-token']).toBe('[redacted]');
    const karpenter = JSON.parse(files.get('deployments.json')!.content).items.find((d: Deployment) => d.metadata.name === 'karpenter');
    const env = karpenter.spec.template.spec.containers[0].env as Array<{ name: string; value?: string }>;
    expect(env.find((e) => e.name === 'FEATURE_GATES')?.value).toBe(
      'ReservedCapacity=true,SpotToSpotConsolidation=false,NodeRepair=false,NodeOverlay=false,StaticCapacity=false',
    );
    expect(env.find((e) => e.name === 'CLUSTER_NAME')?.value).toBe('shop-prod');
    expect(env.find((e) => e.name === 'AWS_SECRET_ACCESS_KEY')).toEqual({ name: 'AWS_SECRET_ACCESS_KEY' });
    expect(env.find((e) => e.name === 'SYSTEM_NAMESPACE')).toEqual({ name: 'SYSTEM_NAMESPACE' });
    // another Deployment's env value named like a Karpenter setting is still dropped
    const other = JSON.parse(files.get('deployments.json')!.content).items.filter((d: Deployment) => d.metadata.name !== 'karpenter');
    expect(JSON.stringify(other)).not.toMatch(/"value":"shop-prod"/);
  });

  it('writes an empty typed NodePoolList when the CRD was listed empty, and no file when it was not gathered', () => {
    const r = emptyInputs();
    r.provided.add('nodePools');
    const files = byName(build(r));
    expect(JSON.parse(files.get('nodepools.json')!.content)).toEqual({
      apiVersion: 'karpenter.sh/v1',
      items: [],
      kind: 'NodePoolList',
      metadata: { resourceVersion: '' },
    });
    expect(files.has('nodeclaims.json')).toBe(false);
    expect(files.has('instance-type-offerings.json')).toBe(false);
  });

  it('reads back through --from to the same NodePools, NodeClasses, NodeClaims, settings and offerings', async () => {
    const dir = join(tmp, 'roundtrip');
    const original = planted();
    await writeSnapshot(dir, build(original));
    const back = await loadOffline([dir], { fields: 'all' });
    expect(back.warnings).toEqual([]);
    expect(back.nodePools).toEqual(original.nodePools);
    expect(back.nodeClaims).toEqual(original.nodeClaims);
    expect(back.ec2NodeClasses.map((c) => c.status)).toEqual(original.ec2NodeClasses.map((c) => c.status));
    expect(back.instanceTypeOfferings).toEqual(OFFERINGS);
    const before = karpenterInputs(original);
    const after = karpenterInputs(back);
    const { env: envBefore, ...settingsBefore } = before.settings!;
    const { env: envAfter, ...settingsAfter } = after.settings!;
    expect(settingsAfter).toEqual(settingsBefore);
    for (const k of KARPENTER_SETTINGS_ENV) expect(envAfter[k], k).toBe(envBefore[k]);
    expect(Object.keys(envAfter)).toEqual(Object.keys(envBefore));
    expect(envAfter.AWS_SECRET_ACCESS_KEY).toBeUndefined();
    expect({ ...after, settings: undefined, nodeClasses: undefined }).toEqual({ ...before, settings: undefined, nodeClasses: undefined });
  });
});

describe('a live snapshot of a Karpenter cluster reads back to the same report', () => {
  let kube: KubeApiServer;
  let aws: AwsServer;
  beforeAll(async () => {
    kube = await startKubeApiServer(example);
    aws = await startAwsServer({ ...example, instanceTypeOfferings: OFFERINGS });
  });
  afterAll(async () => {
    expect(mutatingKubeRequests(kube.requests)).toEqual([]);
    expect(mutatingAwsRequests(aws.requests)).toEqual([]);
    await kube.close();
    await aws.close();
  });

  function deps(): Deps & { out: () => string } {
    let stdout = '';
    return {
      out: () => stdout,
      stdout: (s) => void (stdout += s),
      stderr: () => {},
      stdoutIsTTY: false,
      stderrIsTTY: false,
      realNow: () => new Date(NOW),
      liveOverrides: {
        awsEndpoint: aws.endpoint,
        awsCredentials: { accessKeyId: 'AKIDCASDOCTORTEST', secretAccessKey: 'casdoctor-test-secret' },
        awsRetryDelayMs: 0,
      },
    } as Deps & { out: () => string };
  }
  const common = { requestTimeout: '10s', now: NOW, failOn: 'never' as const, color: false, debug: false };

  it('writes the three Karpenter files and the offerings, and gives the same why-pending JSON from them as live', async () => {
    const dir = join(tmp, 'live');
    const live = { kubeconfig: kube.kubeconfigPath, region: 'us-east-1' };
    const snap = await runSnapshot({ ...common, ...live, from: [], output: 'table', dir, version: '0.1.0' }, deps());
    expect(snap.exitCode).toBe(0);
    for (const f of ['nodepools.json', 'ec2nodeclasses.json', 'nodeclaims.json', 'instance-type-offerings.json'])
      expect(JSON.parse(readFileSync(join(dir, f), 'utf8')), f).toBeTruthy();
    expect(JSON.parse(readFileSync(join(dir, 'instance-type-offerings.json'), 'utf8'))).toEqual({ InstanceTypeOfferings: OFFERINGS });

    const back = await loadOffline([dir]);
    expect(karpenterInputs(back).settings).toMatchObject({ version: '1.6.2', clusterName: 'shop-prod', vmMemoryOverheadPercent: 0.075 });
    expect(karpenterInputs(back).nodePools.map((p) => p.metadata.name).sort()).toEqual(['batch', 'general', 'gpu']);

    const report = async (from: string[]) => {
      const d = deps();
      await runWhyPending({ ...common, ...(from.length ? {} : live), from, output: 'json', all: true, allNamespaces: true }, d);
      return JSON.parse(d.out());
    };
    expect(await report([dir])).toEqual(await report([]));
  });
});
