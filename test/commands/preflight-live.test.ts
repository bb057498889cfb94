// preflight --live: node groups, DaemonSets and the CA Deployment read from loopback Kubernetes and AWS servers
// holding the demo dump must give the same findings as --from on the same dump, with read-only calls.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { type PreflightCommandOptions, runPreflight } from '../../src/commands/preflight.js';
import type { Deps } from '../../src/commands/types.js';
import { loadOffline } from '../../src/gather/offline.js';
import { mutatingAwsRequests, mutatingKubeRequests } from '../gather/live-fixtures.js';
import { type AwsServer, startAwsServer } from '../servers/aws-server.js';
import { type KubeApiServer, startKubeApiServer } from '../servers/kube-apiserver.js';
import { DEMO, DEMO_NOW } from './run.js';

let kube: KubeApiServer;
let aws: AwsServer;

beforeAll(async () => {
  const demo = await loadOffline([DEMO]);
  kube = await startKubeApiServer(demo, { maxPageSize: 25 });
  aws = await startAwsServer(demo, { pageSize: 5 });
});

afterAll(async () => {
  await kube?.close();
  await aws?.close();
});

async function run(extra: Partial<PreflightCommandOptions>, live: boolean) {
  let stdout = '';
  const deps: Deps = {
    stdout: (s) => {
      stdout += s;
    },
    stderr: () => {},
    stdoutIsTTY: false,
    stderrIsTTY: false,
    realNow: () => new Date(DEMO_NOW),
    ...(live
      ? {
          liveOverrides: {
            awsEndpoint: aws.endpoint,
            awsCredentials: { accessKeyId: 'AKIDCASDOCTORTEST', secretAccessKey: 'casdoctor-test-secret' },
            awsRetryDelayMs: 0,
          },
        }
      : {}),
  };
  const result = await runPreflight(
    {
      from: [],
      requestTimeout: '10s',
      now: DEMO_NOW,
      output: 'json',
      failOn: 'error',
      color: false,
      debug: false,
      filename: ['examples/preflight/manifests/web.yaml', 'examples/preflight/manifests/batch.yaml'],
      ...extra,
    },
    deps,
  );
  return { code: result.exitCode, report: JSON.parse(stdout) };
}

describe('preflight --live', () => {
  it('finds the same as --from on the same data, reading only', async () => {
    const live = await run({ live: true, kubeconfig: kube.kubeconfigPath, region: 'us-east-1' }, true);
    const offline = await run({ from: [DEMO] }, false);
    expect(live.code).toBe(offline.code);
    expect(live.report.findings).toEqual(offline.report.findings);
    const withoutSource = (groups: Array<Record<string, unknown>>) => groups.map(({ source: _s, ...g }) => g);
    expect(withoutSource(live.report.nodeGroups)).toEqual(withoutSource(offline.report.nodeGroups));
    expect(
      live.report.nodeGroups.map((g: { name: string; source: string }) => [g.name, g.source]),
    ).toContainEqual(['demo-general', 'live']);
    expect(live.report.inputs.nodeGroups).toEqual(['live cluster and AWS']);
    expect(mutatingKubeRequests(kube.requests)).toEqual([]);
    expect(mutatingAwsRequests(aws.requests)).toEqual([]);
  });
});
