// kubectl's default-namespace rule, live, through the real CLI: no -n and no -A means the kubeconfig context's namespace.
import { readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { parse, stringify } from 'yaml';
import { loadOffline } from '../../src/gather/offline.js';
import { mutatingAwsRequests, mutatingKubeRequests } from '../gather/live-fixtures.js';
import { type AwsServer, startAwsServer } from '../servers/aws-server.js';
import { type KubeApiServer, startKubeApiServer } from '../servers/kube-apiserver.js';
import { cliAsync } from './cli-async.js';

let kube: KubeApiServer;
let aws: AwsServer;

beforeAll(async () => {
  const demo = await loadOffline([join(import.meta.dirname, '..', '..', 'examples', 'demo')]);
  kube = await startKubeApiServer(demo, {});
  aws = await startAwsServer(demo, {});
});

afterAll(async () => {
  expect(mutatingKubeRequests(kube.requests)).toEqual([]);
  expect(mutatingAwsRequests(aws.requests)).toEqual([]);
  await kube?.close();
  await aws?.close();
});

/** The test kubeconfig with a namespace set on its context, as `kubectl config set-context --current --namespace` does. */
function kubeconfigWithNamespace(namespace: string | undefined): string {
  const doc = parse(readFileSync(kube.kubeconfigPath, 'utf8')) as { contexts: Array<{ context: Record<string, unknown> }> };
  for (const c of doc.contexts) {
    if (namespace) c.context.namespace = namespace;
    else delete c.context.namespace;
  }
  const file = join(kube.dir, `kubeconfig-ns-${namespace ?? 'none'}`);
  writeFileSync(file, stringify(doc), { mode: 0o600 });
  return file;
}

function env(): Record<string, string | undefined> {
  return {
    AWS_ENDPOINT_URL: aws.endpoint,
    AWS_ACCESS_KEY_ID: 'AKIDCASDOCTORTEST',
    AWS_SECRET_ACCESS_KEY: 'casdoctor-test-secret',
    AWS_SESSION_TOKEN: undefined,
    AWS_REGION: 'us-east-1',
    AWS_PROFILE: undefined,
    AWS_EC2_METADATA_DISABLED: 'true',
    AWS_CONFIG_FILE: '/nonexistent/casdoctor/config',
    AWS_SHARED_CREDENTIALS_FILE: '/nonexistent/casdoctor/credentials',
  };
}

const namespaces = (stdout: string) =>
  [...new Set((JSON.parse(stdout) as { pods: Array<{ namespace: string }> }).pods.map((p) => p.namespace))].sort();

describe('why-pending live, with no -n', () => {
  it("examines the context's namespace, as kubectl get pods does; -A still means every namespace", async () => {
    const kubeconfig = kubeconfigWithNamespace('payments');
    const scoped = await cliAsync(['why-pending', '--all', '--kubeconfig', kubeconfig, '-o', 'json', '--fail-on', 'never'], env());
    expect(scoped.stderr).not.toContain('error');
    expect(namespaces(scoped.stdout)).toEqual(['payments']);
    // the readable report says where it looked, and how to look elsewhere
    const table = await cliAsync(['why-pending', '--all', '--kubeconfig', kubeconfig, '--fail-on', 'never'], env());
    expect(table.stdout).toContain("note: namespace payments (the kubeconfig context's, as kubectl uses it); -n <namespace> for another, -A for every namespace");
    const all = await cliAsync(['why-pending', '-A', '--kubeconfig', kubeconfig, '-o', 'json', '--fail-on', 'never'], env());
    expect(namespaces(all.stdout).length).toBeGreaterThan(1);
  });

  it('examines "default" when the context names no namespace, and a pod name is looked up there', async () => {
    const kubeconfig = kubeconfigWithNamespace(undefined);
    const r = await cliAsync(['why-pending', 'ledger-db-0', '--kubeconfig', kubeconfig], env());
    expect(r.code).toBe(2);
    expect(r.stderr).toContain('pod default/ledger-db-0 not found');
  });
});
