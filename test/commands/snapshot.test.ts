// `casdoctor snapshot`: the dumps it writes read back to the same report (live and re-exported), nothing secret is
// written, and --redact pseudonymises consistently enough that a redacted snapshot gives the same verdicts.
import { cpSync, existsSync, mkdirSync, mkdtempSync, readdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { runSnapshot, type SnapshotOptions } from '../../src/commands/snapshot.js';
import type { Deps } from '../../src/commands/types.js';
import { runWhyPending, type WhyPendingOptions } from '../../src/commands/why-pending.js';
import { loadOffline } from '../../src/gather/offline.js';
import { Redactor } from '../../src/gather/redact.js';
import { mutatingAwsRequests, mutatingKubeRequests } from '../gather/live-fixtures.js';
import { type AwsServer, startAwsServer } from '../servers/aws-server.js';
import { type KubeApiServer, startKubeApiServer } from '../servers/kube-apiserver.js';
import { cli, DEMO, DEMO_NOW } from './run.js';

let kube: KubeApiServer;
let aws: AwsServer;
let tmp: string;

beforeAll(async () => {
  const demo = await loadOffline([DEMO]);
  kube = await startKubeApiServer(demo, { maxPageSize: 7 });
  aws = await startAwsServer(demo, { pageSize: 3 });
  tmp = mkdtempSync(join(tmpdir(), 'casdoctor-snapshot-'));
});

afterAll(async () => {
  expect(mutatingKubeRequests(kube.requests)).toEqual([]);
  expect(mutatingAwsRequests(aws.requests)).toEqual([]);
  await kube?.close();
  await aws?.close();
  rmSync(tmp, { recursive: true, force: true });
});

function capture(live: boolean): Deps & { out: () => string; err: () => string } {
  let stdout = '';
  let stderr = '';
  return {
    out: () => stdout,
    err: () => stderr,
    stdout: (s) => void (stdout += s),
    stderr: (s) => void (stderr += s),
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
}

const common = {
  requestTimeout: '10s',
  now: DEMO_NOW,
  failOn: 'never' as const,
  color: false,
  debug: false,
};

async function whyPending(from: string[], extra: Partial<WhyPendingOptions> = {}) {
  const live = from.length === 0;
  const d = capture(live);
  const o: WhyPendingOptions = {
    ...common,
    from,
    output: 'json',
    all: true,
    allNamespaces: true,
    ...(live ? { kubeconfig: kube.kubeconfigPath, region: 'us-east-1' } : {}),
    ...extra,
  };
  const r = await runWhyPending(o, d);
  return { exitCode: r.exitCode, json: JSON.parse(d.out()), stderr: d.err() };
}

async function snapshot(dir: string, from: string[], extra: Partial<SnapshotOptions> = {}) {
  const live = from.length === 0;
  const d = capture(live);
  const o: SnapshotOptions = {
    ...common,
    from,
    output: 'table',
    dir,
    version: '0.1.0',
    ...(live ? { kubeconfig: kube.kubeconfigPath, region: 'us-east-1' } : {}),
    ...extra,
  };
  const r = await runSnapshot(o, d);
  return { exitCode: r.exitCode, stdout: d.out(), stderr: d.err() };
}

const read = (dir: string, f: string) => readFileSync(join(dir, f), 'utf8');
const json = (dir: string, f: string): any => JSON.parse(read(dir, f));
const allText = (dir: string) =>
  readdirSync(dir)
    .map((f) => read(dir, f))
    .join('\n');

describe('casdoctor snapshot', () => {
  it('writes a live snapshot that --from reads back to the same JSON why-pending report as the live run', async () => {
    const dir = join(tmp, 'live');
    const snap = await snapshot(dir, []);
    expect(snap.exitCode).toBe(0);
    const live = await whyPending([]);
    const back = await whyPending([dir]);
    expect(back.json).toEqual(live.json);
    expect(live.json.pods).toHaveLength(8);

    // kubectl-shaped Lists (sorted keys, 4-space indent) and aws-shaped documents
    const pods = read(dir, 'pods.json');
    expect(pods.startsWith('{\n    "apiVersion": "v1",\n    "items": [\n        {\n')).toBe(true);
    expect(json(dir, 'pods.json').kind).toBe('List');
    expect(json(dir, 'pods.json').items.every((p: any) => p.apiVersion === 'v1' && p.kind === 'Pod')).toBe(true);
    expect(Object.keys(json(dir, 'asgs.json'))).toEqual(['AutoScalingGroups']);
    // an AWS output with nothing in it is still written, so it reads back as "there are none"
    expect(json(dir, 'launch-configurations.json')).toEqual({ LaunchConfigurations: [] });
    const reread = await loadOffline([dir]);
    expect(reread.provided.has('launchConfigurations')).toBe(true);
    expect(reread.warnings).toEqual([]);
    expect(readdirSync(dir).sort()).toContain('README.md');
  });

  it('writes a kind the cluster has none of as its typed empty list, which reads back as "there are none"', async () => {
    const noPdbs = await startKubeApiServer({ ...(await loadOffline([DEMO])), pdbs: [] });
    try {
      const dir = join(tmp, 'no-pdbs');
      expect((await snapshot(dir, [], { kubeconfig: noPdbs.kubeconfigPath })).exitCode).toBe(0);
      expect(json(dir, 'pdbs.json')).toEqual({
        apiVersion: 'policy/v1',
        items: [],
        kind: 'PodDisruptionBudgetList',
        metadata: { resourceVersion: '' },
      });
      const reread = await loadOffline([dir]);
      expect(reread.provided.has('pdbs')).toBe(true);
      expect(reread.pdbs).toEqual([]);
    } finally {
      await noPdbs.close();
    }
  });

  it('re-exports a dump given with --from, which reads back to the same report', async () => {
    const dir = join(tmp, 'reexport');
    const snap = await snapshot(dir, [DEMO]);
    expect(snap.exitCode).toBe(0);
    // every file but the README is a dump: kubectl/aws JSON and CA's log (ca-log-*.log)
    const dumps = readdirSync(dir).filter((f) => f !== 'README.md');
    expect(snap.stdout).toContain(`Wrote ${dumps.length} dumps to ${dir}:`);
    expect(dumps.length).toBeGreaterThan(15);
    expect(snap.stdout).toContain('Complete: everything casdoctor reads was gathered.');
    expect((await whyPending([dir])).json).toEqual((await whyPending([DEMO])).json);
    // only the CA status ConfigMap, with its data
    const cms = json(dir, 'configmaps.json').items;
    expect(cms.map((c: any) => `${c.metadata.namespace}/${c.metadata.name}`)).toEqual([
      'kube-system/cluster-autoscaler-status',
    ]);
    expect(cms[0].data.status).toContain('autoscalerStatus: Running');
  });

  it('names what could not be gathered in its README and exits 3 with --strict, 0 without', async () => {
    const forbidden = await startKubeApiServer(await loadOffline([DEMO]), {
      faults: [{ match: 'poddisruptionbudgets', status: 403 }],
    });
    try {
      for (const strict of [false, true]) {
        const dir = join(tmp, `gaps-${strict}`);
        const snap = await snapshot(dir, [], { kubeconfig: forbidden.kubeconfigPath, strict });
        expect(snap.exitCode).toBe(strict ? 3 : 0);
        expect(snap.stderr).toContain('warning: forbidden: list poddisruptionbudgets.policy (cluster scope)');
        expect(read(dir, 'README.md')).toContain('- forbidden: list poddisruptionbudgets.policy (cluster scope)');
        expect(existsSync(join(dir, 'pdbs.json'))).toBe(false);
      }
      expect(mutatingKubeRequests(forbidden.requests)).toEqual([]);
    } finally {
      await forbidden.close();
    }
  });

  it('refuses a directory that is not empty, and with --force replaces an earlier snapshot, leaving other files', () => {
    const dir = join(tmp, 'busy');
    mkdirSync(dir);
    writeFileSync(join(dir, 'eks-nodegroup-demo-old.json'), '{"nodegroup": {"nodegroupName": "old"}}');
    writeFileSync(join(dir, 'notes.txt'), 'mine');
    const refused = cli(['snapshot', '--from', DEMO, '-o', dir, '--now', DEMO_NOW]);
    expect(refused.code).toBe(2);
    expect(refused.stderr).toContain(`error: snapshot: ${dir} is not empty`);
    expect(readdirSync(dir).sort()).toEqual(['eks-nodegroup-demo-old.json', 'notes.txt']);

    const forced = cli(['snapshot', '--from', DEMO, '-o', dir, '--now', DEMO_NOW, '--force']);
    expect(forced.code).toBe(0);
    expect(forced.stderr).toContain(`warning: ${dir}/notes.txt is not a casdoctor snapshot file; --from will read it too`);
    expect(readdirSync(dir)).not.toContain('eks-nodegroup-demo-old.json');
    expect(readdirSync(dir)).toContain('notes.txt');
    expect(readdirSync(dir)).toContain('pods.json');
  });

  it('checks the directory before gathering anything live', async () => {
    const dir = join(tmp, 'busy-live');
    mkdirSync(dir);
    writeFileSync(join(dir, 'pods.json'), '{}');
    const fresh = await startKubeApiServer({});
    try {
      const err = await snapshot(dir, [], { kubeconfig: fresh.kubeconfigPath }).catch((e) => e);
      expect(err.name).toBe('UsageError');
      expect(err.message).toContain(`${dir} is not empty (pods.json)`);
      expect(fresh.requests).toEqual([]);
    } finally {
      await fresh.close();
    }
  });

  it('names a path it cannot write (exit 2)', () => {
    const r = cli([
      'snapshot',
      '--from',
      DEMO,
      '-o',
      join(tmp, 'map-missing-dir'),
      '--redact',
      '--redact-map',
      join(tmp, 'no', 'such', 'dir', 'map.json'),
    ]);
    expect(r.code).toBe(2);
    expect(r.stderr).toContain(`error: snapshot: cannot write ${join(tmp, 'no', 'such', 'dir', 'map.json')}: ENOENT`);
  });

  it('asks for -o <dir> and keeps the redaction map out of the snapshot (usage errors, exit 2)', () => {
    const noDir = cli(['snapshot', '--from', DEMO]);
    expect(noDir.code).toBe(2);
    expect(noDir.stderr).toContain('error: snapshot: name the directory to write with -o <dir>');
    const dir = join(tmp, 'mapinside');
    const mapInside = cli(['snapshot', '--from', DEMO, '-o', dir, '--redact', '--redact-map', join(dir, 'map.json')]);
    expect(mapInside.code).toBe(2);
    expect(mapInside.stderr).toContain('must not be inside');
    expect(existsSync(dir)).toBe(false);
    const saltAlone = cli(['snapshot', '--from', DEMO, '-o', dir, '--redact-salt', 'x']);
    expect(saltAlone.code).toBe(2);
    expect(saltAlone.stderr).toContain('--redact-salt and --redact-map only apply with --redact');
  });
});

describe('casdoctor snapshot never writes secrets', () => {
  const b64 = (s: string) => Buffer.from(s).toString('base64');
  const JWT = 'eyJhbGciOiJSUzI1NiIsImtpZCI6IlBMQU5URUQifQ.eyJzdWIiOiJzeXN0ZW06c2VydmljZWFjY291bnQ6UExBTlRFRCJ9.c2lnbmF0dXJlUExBTlRFRA';
  const USER_DATA = '#!/bin/bash\n/etc/eks/bootstrap.sh demo\nexport DB_PASSWORD=PLANTED-userdata\n';

  /** The demo with secrets planted where real clusters keep them. */
  function plant(dir: string) {
    cpSync(DEMO, dir, { recursive: true });
    const pods = JSON.parse(read(dir, 'pods.json'));
    const pod = pods.items.find((p: any) => p.metadata.namespace === 'payments' && p.spec.nodeName);
    pod.metadata.annotations = {
      ...pod.metadata.annotations,
      'kubectl.kubernetes.io/last-applied-configuration': JSON.stringify({
        spec: { containers: [{ env: [{ name: 'DB_PASSWORD', value: 'PLANTED-last-applied' }] }] },
      }),
      'example.com/api-token': 'PLANTED-annotation-token',
      'example.com/note': `deployed with ${JWT}`,
      'example.com/deployed-by': 'AKIAPLANTEDEXAMPLE12',
    };
    pod.spec.containers[0].env = [
      { name: 'DB_PASSWORD', value: 'PLANTED-env-value' },
      { name: 'API_KEY', valueFrom: { secretKeyRef: { name: 'PLANTED-secret-ref', key: 'api-key' } } },
    ];
    pod.spec.containers[0].args = ['--listen=:8080', '--db-password=PLANTED-arg-secret'];
    writeFileSync(join(dir, 'pods.json'), JSON.stringify(pods, null, 4));

    const deployments = JSON.parse(read(dir, 'deployments.json'));
    deployments.items[0].spec.template.spec.containers[0].env = [{ name: 'TOKEN', value: 'PLANTED-template-env' }];
    writeFileSync(join(dir, 'deployments.json'), JSON.stringify(deployments, null, 4));

    const lts = JSON.parse(read(dir, 'launch-template-versions.json'));
    for (const v of lts.LaunchTemplateVersions) v.LaunchTemplateData.UserData = b64(USER_DATA);
    writeFileSync(join(dir, 'launch-template-versions.json'), JSON.stringify(lts, null, 4));

    const events = JSON.parse(read(dir, 'events.json'));
    events.items[0].message = `${events.items[0].message} (Authorization: Bearer ${JWT})`;
    writeFileSync(join(dir, 'events.json'), JSON.stringify(events, null, 4));

    writeFileSync(
      join(dir, 'secret.json'),
      JSON.stringify({
        apiVersion: 'v1',
        kind: 'Secret',
        metadata: { name: 'ledger-db', namespace: 'payments' },
        type: 'Opaque',
        data: { password: b64('PLANTED-secret-data') },
      }),
    );
    writeFileSync(
      join(dir, 'configmaps-payments.json'),
      JSON.stringify({
        apiVersion: 'v1',
        items: [
          {
            apiVersion: 'v1',
            kind: 'ConfigMap',
            metadata: { name: 'ledger-config', namespace: 'payments' },
            data: { 'db.url': 'postgres://ledger:PLANTED-configmap@ledger-db:5432/ledger' },
          },
        ],
        kind: 'List',
        metadata: { resourceVersion: '' },
      }),
    );
    writeFileSync(
      join(dir, 'launch-configurations.json'),
      JSON.stringify({
        LaunchConfigurations: [
          {
            LaunchConfigurationName: 'legacy-workers',
            ImageId: 'ami-0123456789abcdef0',
            InstanceType: 'm5.large',
            UserData: b64('#!/bin/bash\nPLANTED-lc-userdata\n'),
          },
        ],
      }),
    );
  }

  it('leaves out Secrets, other ConfigMaps, env values, UserData, secret annotations and tokens, and still reads back', () => {
    const input = join(tmp, 'planted');
    const out = join(tmp, 'planted-snapshot');
    plant(input);
    const r = cli(['snapshot', '--from', input, '-o', out, '--now', DEMO_NOW]);
    expect(r.code, r.stderr).toBe(0);

    const text = allText(out);
    for (const secret of [
      'PLANTED',
      b64('PLANTED-secret-data'),
      b64(USER_DATA),
      b64('#!/bin/bash\nPLANTED-lc-userdata\n'),
      'eyJhbGciOiJSUzI1NiIsImtpZCI6IlBMQU5URUQifQ',
      'AKIAPLANTEDEXAMPLE12',
      'last-applied-configuration"',
      '"UserData"',
      '"kind": "Secret"',
      'ledger-config',
    ]) {
      expect(text, secret).not.toContain(secret);
    }
    // names stay: they say what is configured without saying the value
    const pod = json(out, 'pods.json').items.find((p: any) =>
      p.spec.containers[0].env?.some((e: any) => e.name === 'API_KEY'),
    );
    expect(pod.spec.containers[0].env).toEqual([{ name: 'DB_PASSWORD' }, { name: 'API_KEY' }]);
    expect(pod.spec.containers[0].args).toEqual(['--listen=:8080', '--db-password=[redacted]']);
    expect(json(out, 'launch-configurations.json').LaunchConfigurations).toEqual([
      { LaunchConfigurationName: 'legacy-workers', ImageId: 'ami-0123456789abcdef0', InstanceType: 'm5.large' },
    ]);
    expect(json(out, 'configmaps.json').items[0].data.status).toContain('autoscalerStatus: Running');

    const before = cli(['why-pending', '--all', '-A', '--from', input, '--now', DEMO_NOW, '-o', 'json', '--fail-on', 'never']);
    const after = cli(['why-pending', '--all', '-A', '--from', out, '--now', DEMO_NOW, '-o', 'json', '--fail-on', 'never']);
    expect(after.code).toBe(0);
    expect(JSON.parse(after.stdout)).toEqual(JSON.parse(before.stdout));
  });
});

describe('casdoctor snapshot --redact', () => {
  const SALT = 'casdoctor-test-salt';

  /** What the demo holds that identifies the account and its machines, found independently of the redactor. */
  function identifying(): string[] {
    const text = readdirSync(DEMO)
      .filter((f) => f.endsWith('.json'))
      .map((f) => read(DEMO, f))
      .join('\n');
    const found = new Set<string>(['111122223333']);
    for (const m of text.matchAll(/\b(?:10|172|192)\.\d{1,3}\.\d{1,3}\.\d{1,3}\b/g)) found.add(m[0]);
    for (const m of text.matchAll(/\bi-[0-9a-f]{17}\b/g)) found.add(m[0]);
    for (const m of text.matchAll(/\bip-\d+-\d+-\d+-\d+\b/g)) found.add(m[0]);
    for (const m of text.matchAll(/arn:aws:[^"]+/g)) found.add(m[0]);
    for (const m of text.matchAll(/\b(?:subnet|vpc|sg|ami|lt|vol)-[0-9a-f]{8,17}\b/g)) found.add(m[0]);
    for (const m of text.matchAll(/\b[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}\b/g)) found.add(m[0]);
    return [...found];
  }

  it('replaces account ids, ARNs, IPs, host names and instance ids everywhere, and the verdicts stay the same', async () => {
    const dir = join(tmp, 'redacted');
    const mapFile = join(tmp, 'redaction-map.json');
    const snap = await snapshot(dir, [DEMO], { redact: true, redactSalt: SALT, redactMap: mapFile });
    expect(snap.exitCode).toBe(0);
    expect(snap.stderr).not.toContain('random salt');

    const originals = identifying();
    expect(originals.length).toBeGreaterThan(60);
    const text = allText(dir);
    expect(originals.filter((o) => text.includes(o))).toEqual([]);

    // consistent everywhere: providerID <-> ASG instances, nodeName <-> node, hostname label <-> node name
    const nodes = json(dir, 'nodes.json').items;
    const names = new Set(nodes.map((n: any) => n.metadata.name));
    const instances = new Set(
      json(dir, 'asgs.json').AutoScalingGroups.flatMap((g: any) => g.Instances.map((i: any) => i.InstanceId)),
    );
    for (const n of nodes) {
      expect(n.metadata.name).toMatch(/^ip-10-\d+-\d+-\d+\.ec2\.internal$/);
      expect(n.metadata.labels['kubernetes.io/hostname']).toBe(n.metadata.name);
      expect(instances.has(n.spec.providerID.split('/').pop())).toBe(true);
      const ip = n.status.addresses.find((a: any) => a.type === 'InternalIP').address;
      expect(n.metadata.name.startsWith(`ip-${ip.replaceAll('.', '-')}.`)).toBe(true);
    }
    for (const p of json(dir, 'pods.json').items) if (p.spec.nodeName) expect(names.has(p.spec.nodeName)).toBe(true);

    // --show-nodes: every node's name is in the report (JSON v2 names only samples without it)
    const plain = await whyPending([DEMO], { showNodes: true });
    const redacted = await whyPending([dir], { showNodes: true });
    const verdicts = (r: any) => r.pods.map((p: any) => [p.namespace, p.name, p.verdict, p.nodeGroups.map((g: any) => [g.name, g.fits])]);
    expect(verdicts(redacted.json)).toEqual(verdicts(plain.json));
    const findings = (r: any) => r.findings.map((f: any) => [f.checkId, f.severity, f.subject, f.nodeGroup]);
    expect(findings(redacted.json)).toEqual(findings(plain.json));
    expect(redacted.json.skipped).toEqual(plain.json.skipped);
    // node names in the report are the pseudonyms the salt gives
    const r = new Redactor(SALT);
    const schedulerNodes = (rep: any) => rep.pods.flatMap((p: any) => p.scheduler?.nodes?.map((n: any) => n.name) ?? []);
    expect(schedulerNodes(plain.json).length).toBeGreaterThan(0);
    expect(schedulerNodes(redacted.json)).toEqual(schedulerNodes(plain.json).map((n: string) => r.redactString(n)));

    const map = JSON.parse(readFileSync(mapFile, 'utf8'));
    const node = map.find((e: any) => e.category === 'ipv4' && e.original === '10.0.14.37');
    expect(nodes.map((n: any) => n.metadata.name)).toContain(`ip-${node.pseudonym.replaceAll('.', '-')}.ec2.internal`);
    expect(new Set(map.map((e: any) => e.category))).toEqual(
      new Set(['account', 'arn', 'instance', 'ipv4', 'resource', 'uid']),
    );
  });

  it('gives the same pseudonyms in every run with the same salt (CASDOCTOR_REDACT_SALT) and others with another salt', async () => {
    const a = join(tmp, 'salt-a');
    const b = join(tmp, 'salt-b');
    const c = join(tmp, 'salt-c');
    await snapshot(a, [DEMO], { redact: true, redactSalt: SALT });
    const viaEnv = cli(['snapshot', '--from', DEMO, '-o', b, '--now', DEMO_NOW, '--redact'], { CASDOCTOR_REDACT_SALT: SALT });
    expect(viaEnv.code).toBe(0);
    for (const f of readdirSync(a)) expect(read(b, f), f).toBe(read(a, f));
    const random = cli(['snapshot', '--from', DEMO, '-o', c, '--now', DEMO_NOW, '--redact']);
    expect(random.stderr).toContain('note: pseudonyms come from a random salt');
    expect(read(c, 'nodes.json')).not.toBe(read(a, 'nodes.json'));
  });
});
