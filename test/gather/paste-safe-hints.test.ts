// The paste test for gather's hints: a kubeconfig context, a kubeconfig file, an AWS profile and a dump file whose names
// hold shell metacharacters appear in the printed kubectl/aws/jq commands quoted, so a pasted line runs its program
// once with the name as one argument and nothing else (no file appears in the effects directory).
import { spawnSync } from 'node:child_process';
import { chmodSync, mkdirSync, mkdtempSync, readdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { EnvironmentError } from '../../src/gather/errors.js';
import { readDocuments } from '../../src/gather/json-stream.js';
import { gatherAws } from '../../src/providers/aws/gather.js';
import { gatherKubernetes } from '../../src/gather/live-kubernetes.js';
import { gatherLive } from '../../src/gather/live.js';
import { parseDocuments } from '../../src/gather/offline-read.js';
import { InputError } from '../../src/model/errors.js';
import { shellCommand } from '../../src/model/shell.js';
import { type AwsServer, startAwsServer } from '../servers/aws-server.js';
import { type KubeApiServer, startKubeApiServer } from '../servers/kube-apiserver.js';
import { awsFixture, kubeFixture } from './live-fixtures.js';

let root: string;
let effects: string;
let stubs: string;
let calls: string;
let kube: KubeApiServer;
let aws: AwsServer;

beforeAll(async () => {
  root = mkdtempSync(join(tmpdir(), 'casdoctor-gather-paste-'));
  effects = join(root, 'effects');
  stubs = join(root, 'bin');
  calls = join(root, 'calls');
  for (const d of [effects, stubs, calls]) mkdirSync(d);
  for (const program of ['aws', 'kubectl', 'jq']) {
    // one file per invocation: the program name and each argument, NUL-terminated
    writeFileSync(
      join(stubs, program),
      `#!/bin/sh\nprintf '%s\\0' ${program} "$@" > "$(mktemp "$CASDOCTOR_CALLS/call.XXXXXX")"\n`,
    );
    chmodSync(join(stubs, program), 0o755);
  }
  kube = await startKubeApiServer(kubeFixture());
  aws = await startAwsServer(awsFixture());
});

afterAll(async () => {
  await kube?.close();
  await aws?.close();
  rmSync(root, { recursive: true, force: true });
});

/** Runs one pasted line with bash against the stubs; returns the argv of each program call. */
function paste(line: string): string[][] {
  for (const f of readdirSync(calls)) rmSync(join(calls, f));
  // run in the effects directory, so a name's relative `touch x` lands there too
  const r = spawnSync('bash', ['-c', line], {
    cwd: effects,
    env: { PATH: `${stubs}:/usr/bin:/bin`, CASDOCTOR_CALLS: calls },
    encoding: 'utf8',
  });
  expect(r.status, r.stderr).toBe(0);
  return readdirSync(calls).map((f) => readFileSync(join(calls, f), 'utf8').split('\0').slice(0, -1));
}

/** The hint holds the command built from argv, and pasting that command runs exactly argv, nothing else. */
function expectPasteSafe(hint: string, argv: string[]): void {
  const command = shellCommand(argv);
  expect(hint).toContain(command);
  expect(paste(command)).toEqual([argv]);
  expect(readdirSync(effects)).toEqual([]);
}

const hostileContext = () => `prod;touch \${IFS}${effects}/context;#`;

describe('hints with names from the kubeconfig, the user or a dump, pasted into bash', () => {
  it('quotes a hostile context name in the rejected-credentials hint (401)', async () => {
    const context = hostileContext();
    const kubeconfig = kube.writeKubeconfig('stale', { token: 'expired-token', contextName: context });
    const err = await gatherKubernetes({ kubeconfig, requestTimeoutMs: 5_000 }).catch((e) => e);
    expect(err).toBeInstanceOf(EnvironmentError);
    expectPasteSafe(err.hint, ['kubectl', 'config', 'view', '--minify', '--context', context]);
    expectPasteSafe(err.hint, ['kubectl', 'get', '--raw', '/version', '--context', context]);
  });

  it('quotes the context in the forbidden-pods hint, which asks for list (get is granted only on named objects)', async () => {
    const s = await startKubeApiServer(kubeFixture(), { faults: [{ match: 'pods', status: 403 }] });
    try {
      const context = hostileContext();
      const kubeconfig = s.writeKubeconfig('forbidden', { contextName: context });
      const err = await gatherKubernetes({ kubeconfig, requestTimeoutMs: 5_000 }).catch((e) => e);
      expect(err).toBeInstanceOf(EnvironmentError);
      expect(err.hint).toContain('casdoctor needs list on pods (deploy/casdoctor-clusterrole.yaml)');
      expectPasteSafe(err.hint, ['kubectl', 'auth', 'can-i', 'list', 'pods', '--all-namespaces', '--context', context]);
    } finally {
      await s.close();
    }
  });

  it('quotes the context in the unreachable-server hint', async () => {
    const context = hostileContext();
    // a port nothing listens on: the connection is refused at once
    const kubeconfig = kube.writeKubeconfig('down', { contextName: context, server: 'https://127.0.0.1:9' });
    const err = await gatherKubernetes({ kubeconfig, requestTimeoutMs: 5_000 }).catch((e) => e);
    expect(err).toBeInstanceOf(EnvironmentError);
    expectPasteSafe(err.hint, ['kubectl', 'cluster-info', '--context', context]);
  });

  it('quotes a hostile kubeconfig file name in the invalid-kubeconfig hint', async () => {
    const file = join(root, `kube'config$(touch\${IFS}kubeconfig)`);
    writeFileSync(file, 'apiVersion: v1\nclusters: [\n');
    const err = await gatherKubernetes({ kubeconfig: file, requestTimeoutMs: 5_000 }).catch((e) => e);
    expect(err).toBeInstanceOf(EnvironmentError);
    expectPasteSafe(err.hint, ['kubectl', 'config', 'view', '--kubeconfig', file]);
  });

  it('quotes a hostile AWS profile in the expired-session hint and in the region hint', async () => {
    const profile = `platform;touch ${effects}/profile`;
    const s = await startAwsServer(awsFixture(), { faults: [{ action: '*', code: 'ExpiredToken' }] });
    try {
      const err = await gatherAws({
        region: 'us-east-1',
        profile,
        requestTimeoutMs: 5_000,
        endpoint: s.endpoint,
        credentials: { accessKeyId: 'AKIDCASDOCTORTEST', secretAccessKey: 'casdoctor-test-secret' },
        retryDelayMs: 0,
      }).catch((e) => e);
      expect(err).toBeInstanceOf(EnvironmentError);
      expectPasteSafe(err.hint, ['aws', 'sso', 'login', '--profile', profile]);
    } finally {
      await s.close();
    }

    // no region anywhere: the hint names `aws configure set region` for the profile
    const noRegion = await startKubeApiServer({ ...kubeFixture(), nodes: [] });
    try {
      const env = {
        AWS_REGION: process.env.AWS_REGION,
        AWS_DEFAULT_REGION: process.env.AWS_DEFAULT_REGION,
        AWS_CONFIG_FILE: process.env.AWS_CONFIG_FILE,
      };
      delete process.env.AWS_REGION;
      delete process.env.AWS_DEFAULT_REGION;
      process.env.AWS_CONFIG_FILE = join(root, 'no-aws-config');
      try {
        // Kubernetes is readable, so the missing region is a gap of the report (issue 15), its hint in the detail
        const got = await gatherLive({ kubeconfig: noRegion.kubeconfigPath, profile, requestTimeoutMs: 5_000 });
        const printed = /aws configure set region <region> (.*)\)$/.exec(got.gaps[0]?.detail ?? '')?.[1];
        expect(printed).toBe(shellCommand(['--profile', profile]));
        // the user fills in the placeholder and pastes the rest as printed
        expect(paste(`aws configure set region us-east-1 ${printed}`)).toEqual([
          ['aws', 'configure', 'set', 'region', 'us-east-1', '--profile', profile],
        ]);
        expect(readdirSync(effects)).toEqual([]);
      } finally {
        for (const [k, v] of Object.entries(env)) {
          if (v === undefined) delete process.env[k];
          else process.env[k] = v;
        }
      }
    } finally {
      await noRegion.close();
    }
  });

  it('quotes a hostile dump file name in the jq hint for a file too large for one string', async () => {
    const file = join(root, `pods;touch dump;$(touch\${IFS}dump2).json`);
    writeFileSync(file, JSON.stringify({ apiVersion: 'v1', kind: 'List', items: [{ kind: 'Pod', metadata: { name: 'a' } }] }));
    const err = await readDocuments(file, parseDocuments, { streamThresholdBytes: 0, wholeTextLimitBytes: 10 }).catch((e) => e);
    expect(err).toBeInstanceOf(InputError);
    expectPasteSafe(err.message, ['jq', '.', file]);
  });
});
