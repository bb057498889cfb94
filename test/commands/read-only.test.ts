// Read-only by proof: every command, run live through the real CLI against loopback Kubernetes and AWS servers,
// sends nothing but GET to Kubernetes and Describe*/Get*/List*/Simulate* to AWS, and stays within the least-privilege
// ClusterRole and IAM policy in deploy/. A command added to the CLI without a line here fails the test, so the proof
// keeps covering every command.
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { loadOffline } from '../../src/gather/offline.js';
import { mutatingAwsRequests, mutatingKubeRequests } from '../gather/live-fixtures.js';
import { type AwsServer, startAwsServer } from '../servers/aws-server.js';
import { accessOf, allowed, policyActions } from '../meta/permissions.js';
import { type KubeApiServer, startKubeApiServer } from '../servers/kube-apiserver.js';
import { cliAsync } from './cli-async.js';
import { DEMO, DEMO_NOW } from './run.js';

let kube: KubeApiServer;
let aws: AwsServer;
let tmp: string;

beforeAll(async () => {
  const demo = await loadOffline([DEMO]);
  kube = await startKubeApiServer(demo, { maxPageSize: 25 });
  aws = await startAwsServer(demo);
  tmp = mkdtempSync(join(tmpdir(), 'casdoctor-read-only-'));
  writeFileSync(
    join(tmp, 'app.yaml'),
    [
      'apiVersion: apps/v1',
      'kind: Deployment',
      'metadata: {name: api, namespace: web}',
      'spec:',
      '  replicas: 2',
      '  selector: {matchLabels: {app: api}}',
      '  template:',
      '    metadata: {labels: {app: api}}',
      '    spec:',
      '      containers:',
      '      - name: api',
      '        image: registry.example.com/api:1.0',
      '        resources: {requests: {cpu: 500m, memory: 512Mi}}',
      '',
    ].join('\n'),
  );
});

afterAll(async () => {
  await kube?.close();
  await aws?.close();
  rmSync(tmp, { recursive: true, force: true });
});

/** How each command runs live; null for commands that never touch a cluster. */
function liveArgs(command: string): string[] | null | undefined {
  const table: Record<string, string[] | null> = {
    '': [],
    'why-pending': ['why-pending', '--all', '-A', '-o', 'json'],
    'asg-audit': ['asg-audit', '-o', 'json'],
    'node-group-audit': ['node-group-audit', '-o', 'json'],
    'scale-down-blockers': ['scale-down-blockers', '-o', 'json'],
    preflight: ['preflight', '--live', '-f', join(tmp, 'app.yaml'), '-o', 'json'],
    snapshot: ['snapshot', '-o', join(tmp, 'snapshot')],
    history: ['history', '-o', 'json'],
    'why-this-type': ['why-this-type', '-o', 'json'],
    // runs until a signal: test/commands/record.test.ts proves its requests (GET list and watch only) against deploy/record
    record: null,
    completion: null,
    checks: null,
    explain: null,
    help: null,
    version: null,
  };
  return table[command];
}

/** The environment of a user whose AWS endpoint happens to be the loopback server: static keys, no profile files. */
function awsEnv(): Record<string, string | undefined> {
  return {
    AWS_ENDPOINT_URL: aws.endpoint,
    AWS_ACCESS_KEY_ID: 'AKIDCASDOCTORTEST',
    AWS_SECRET_ACCESS_KEY: 'casdoctor-test-secret',
    AWS_SESSION_TOKEN: undefined,
    AWS_REGION: 'us-east-1',
    AWS_PROFILE: undefined,
    AWS_EC2_METADATA_DISABLED: 'true',
    AWS_CONFIG_FILE: join(tmp, 'no-aws-config'),
    AWS_SHARED_CREDENTIALS_FILE: join(tmp, 'no-aws-credentials'),
  };
}

describe('every command, live', () => {
  it('sends only GET to Kubernetes and only Describe*/Get*/List*/Lookup*/Simulate* to AWS, all within deploy/', async () => {
    const help = await cliAsync(['--help']);
    const commands = [
      '',
      // the Commands: section only (the program's examples follow it)
      ...[...help.stdout.slice(help.stdout.indexOf('Commands:')).split('\n\n')[0].matchAll(/^ {2}([a-z][a-z-]*)\b/gm)].map((m) => m[1]),
    ];
    expect(commands).toContain('why-pending');
    const unknown = commands.filter((c) => liveArgs(c) === undefined);
    expect(unknown, 'add these commands to liveArgs() in test/commands/read-only.test.ts').toEqual([]);

    const ran: string[] = [];
    for (const command of commands) {
      const args = liveArgs(command);
      if (!args) continue;
      const before = { kube: kube.requests.length, aws: aws.requests.length };
      const r = await cliAsync(
        [...args, '--kubeconfig', kube.kubeconfigPath, '--region', 'us-east-1', '--now', DEMO_NOW, '--yes'],
        awsEnv(),
        60_000,
      );
      const label = `casdoctor ${args.join(' ')}\n${r.stderr}`;
      // a completed report: 0 or 1 by its findings, 3 when something was skipped; never 2 (an error)
      expect([0, 1, 3], label).toContain(r.code);
      expect(kube.requests.length, label).toBeGreaterThan(before.kube);
      expect(aws.requests.length, label).toBeGreaterThan(before.aws);
      expect(mutatingKubeRequests(kube.requests.slice(before.kube)), label).toEqual([]);
      expect(mutatingAwsRequests(aws.requests.slice(before.aws)), label).toEqual([]);
      ran.push(command || '(no subcommand)');
    }
    expect(ran.length).toBeGreaterThanOrEqual(5);
    // deploy/casdoctor-clusterrole.yaml and deploy/casdoctor-iam-policy.json cover every command, not only why-pending
    const denied = kube.requests.map(accessOf).filter((a) => !allowed(a));
    expect(denied).toEqual([]);
    const actions = [...new Set(aws.requests.map((r) => `${r.service}:${r.action}`))];
    expect(actions.filter((a) => !policyActions().includes(a))).toEqual([]);
  }, 120_000);
});
