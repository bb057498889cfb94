// The live path end to end: the real why-pending command, the real client-node and AWS SDK clients, over HTTPS and
// HTTP to loopback servers that speak the Kubernetes REST API and the AWS query protocol, filled with the demo dump.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { runWhyPending, type WhyPendingOptions } from '../../src/commands/why-pending.js';
import { loadOffline } from '../../src/gather/offline.js';
import { mutatingAwsRequests, mutatingKubeRequests } from '../gather/live-fixtures.js';
import { type AwsServer, startAwsServer } from '../servers/aws-server.js';
import { type KubeApiServer, startKubeApiServer } from '../servers/kube-apiserver.js';
import { capturingDeps, PIPED_JSON } from './in-process.js';
import { DEMO } from './run.js';

let kube: KubeApiServer;
let aws: AwsServer;

beforeAll(async () => {
  const demo = await loadOffline([DEMO]);
  kube = await startKubeApiServer(demo, { maxPageSize: 7 });
  aws = await startAwsServer(demo, { pageSize: 3 });
});

afterAll(async () => {
  await kube?.close();
  await aws?.close();
});

function options(extra: Partial<WhyPendingOptions>): WhyPendingOptions {
  return { ...PIPED_JSON, all: true, allNamespaces: true, ...extra };
}

async function run(o: WhyPendingOptions, live: boolean) {
  const c = capturingDeps(
    live
      ? {
          liveOverrides: {
            awsEndpoint: aws.endpoint,
            awsCredentials: { accessKeyId: 'AKIDCASDOCTORTEST', secretAccessKey: 'casdoctor-test-secret' },
            awsRetryDelayMs: 0,
          },
        }
      : {},
  );
  const result = await runWhyPending(o, c.deps);
  return { result, stdout: c.stdout(), stderr: c.stderr() };
}

describe('why-pending live', () => {
  it('gives the same JSON report live as offline on the same data, reading only', async () => {
    const live = await run(options({ kubeconfig: kube.kubeconfigPath, region: 'us-east-1' }), true);
    const offline = await run(options({ from: [DEMO] }), false);
    expect(JSON.parse(live.stdout)).toEqual(JSON.parse(offline.stdout));
    expect(JSON.parse(live.stdout).pods).toHaveLength(8);
    expect(mutatingKubeRequests(kube.requests)).toEqual([]);
    expect(mutatingAwsRequests(aws.requests)).toEqual([]);
    // one paginated list per resource type: never a call per pod
    const podLists = kube.requests.filter((r) => r.path === '/api/v1/pods');
    expect(podLists.length).toBeGreaterThan(1);
    expect(podLists.filter((r) => !r.query.continue)).toHaveLength(1);
    expect(kube.requests.some((r) => /\/pods\/[^/]+$/.test(r.path))).toBe(false);
  });

  it('reports an unreachable API server as an environment error with a hint', async () => {
    const dead = await startKubeApiServer({});
    const kubeconfig = dead.kubeconfigPath;
    await dead.close();
    const err = await run(options({ kubeconfig, region: 'us-east-1' }), true).catch((e) => e);
    expect(err.name).toBe('EnvironmentError');
    expect(err.hint).toBeTruthy();
  });
});
