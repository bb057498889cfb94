// YAML inputs as a kubectl user hands them over (issue 15, "Inputs"): large `-o yaml` dumps read item by item,
// duplicate keys refused with file, line and key, a multi-document --eksctl file and an invalid quantity in preflight
// said in the user's words. The real process (dist/), as a user or a CI job runs it.
import { mkdirSync, mkdtempSync, readFileSync, statSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { stringify } from 'yaml';
import { cli, DEMO, DEMO_NOW, ROOT } from './run.js';

const CLUSTER = join(ROOT, 'examples', 'preflight', 'cluster.yaml');

function dir(): string {
  return mkdtempSync(join(tmpdir(), 'casdoctor-yaml-inputs-'));
}

const DEPLOYMENT = (memory: string) => `apiVersion: apps/v1
kind: Deployment
metadata:
  name: web
  namespace: shop
spec:
  replicas: 2
  selector:
    matchLabels: {app: web}
  template:
    metadata:
      labels: {app: web}
    spec:
      containers:
      - name: app
        image: nginx:1.27
        resources:
          requests:
            cpu: 250m
            memory: ${memory}
`;

describe('a large YAML dump (kubectl get pods -A -o yaml)', () => {
  it('is read item by item and gives the same report as the same pods as JSON', () => {
    // ~9 MB: past the size where casdoctor streams; each copy of a demo pod renamed, so none is deduplicated
    const pods = JSON.parse(readFileSync(join(DEMO, 'pods.json'), 'utf8'));
    const items: Array<{ metadata: { name: string; uid: string } }> = [];
    for (let k = 0; items.length * 6000 < 9.5e6; k++)
      for (const p of pods.items) {
        const c = structuredClone(p);
        c.metadata.name = `${c.metadata.name}-c${k}`;
        c.metadata.uid = `${c.metadata.uid}-c${k}`;
        items.push(c);
      }
    const list = { apiVersion: 'v1', items, kind: 'List', metadata: { resourceVersion: '' } };
    const [asJson, asYaml] = [dir(), dir()];
    for (const d of [asJson, asYaml]) {
      for (const f of ['nodes.json', 'asgs.json', 'events.json', 'launch-template-versions.json'])
        writeFileSync(join(d, f), readFileSync(join(DEMO, f)));
    }
    writeFileSync(join(asJson, 'pods.json'), JSON.stringify(list, null, 4));
    writeFileSync(join(asYaml, 'pods.yaml'), stringify(list, { indentSeq: false }));
    expect(statSync(join(asYaml, 'pods.yaml')).size).toBeGreaterThan(8 << 20);
    const args = (d: string) => ['why-pending', '--all', '--from', d, '--now', DEMO_NOW, '--fail-on', 'never', '-o', 'json'];
    const j = cli(args(asJson));
    const y = cli(args(asYaml));
    expect(y.stderr).toBe(j.stderr.replaceAll(asJson, asYaml).replaceAll('pods.json', 'pods.yaml'));
    expect(y.code).toBe(0);
    const report = (s: string) => {
      const r = JSON.parse(s);
      delete r.inputs;
      return r;
    };
    expect(report(y.stdout)).toEqual(report(j.stdout));
    expect(JSON.parse(y.stdout).pods.length).toBeGreaterThan(100);
  }, 120_000);
});

describe('duplicate mapping keys', () => {
  it('in a --from dump are an input error (exit 2) naming the file, line and key', () => {
    const d = dir();
    const text = readFileSync(join(DEMO, 'pods.json'), 'utf8');
    const yaml = stringify(JSON.parse(text), { indentSeq: false }).replace(
      /^ {4}namespace: (\S+)\n/m,
      '    namespace: $1\n    namespace: default\n',
    );
    writeFileSync(join(d, 'pods.yaml'), yaml);
    const line = yaml.split('\n').indexOf('    namespace: default') + 1;
    const r = cli(['why-pending', '--all', '--from', d, '--now', DEMO_NOW]);
    expect(r.code).toBe(2);
    expect(r.stderr).toBe(
      `error: ${join(d, 'pods.yaml')}:${line}:5: malformed YAML: duplicate key "namespace" in one mapping (kubectl and kustomize reject it: keep one)\n`,
    );
  });

  it('in a preflight manifest are an input error naming the file, line and key', () => {
    const d = dir();
    const f = join(d, 'web.yaml');
    writeFileSync(f, DEPLOYMENT('512Mi').replace('  replicas: 2\n', '  replicas: 2\n  replicas: 3\n'));
    const r = cli(['preflight', '-f', f, '--eksctl', CLUSTER]);
    expect(r.code).toBe(2);
    expect(r.stderr).toBe(`error: ${f}:8:3: malformed YAML: duplicate key "replicas" in one mapping (kubectl and kustomize reject it: keep one)\n`);
  });

  it('in an eksctl ClusterConfig and a node-groups file are input errors naming the file, line and key', () => {
    const d = dir();
    const manifest = join(d, 'web.yaml');
    writeFileSync(manifest, DEPLOYMENT('512Mi'));
    const eks = join(d, 'cluster.yaml');
    const cluster = readFileSync(CLUSTER, 'utf8');
    writeFileSync(eks, cluster.replace(/^kind: ClusterConfig\n/m, 'kind: ClusterConfig\nkind: ClusterConfig\n'));
    const line = readFileSync(eks, 'utf8').split('\n').lastIndexOf('kind: ClusterConfig') + 1;
    const r = cli(['preflight', '-f', manifest, '--eksctl', eks]);
    expect(r.code).toBe(2);
    expect(r.stderr).toBe(`error: ${eks}:${line}:1: malformed YAML: duplicate key "kind" in one mapping (kubectl and kustomize reject it: keep one)\n`);

    const ng = join(d, 'node-groups.yaml');
    const groups = readFileSync(join(ROOT, 'examples', 'preflight', 'node-groups.yaml'), 'utf8');
    writeFileSync(ng, groups.replace(/^kind: (\S+)\n/m, 'kind: $1\nkind: $1\n'));
    const n = cli(['preflight', '-f', manifest, '--node-groups', ng]);
    expect(n.code).toBe(2);
    expect(n.stderr).toMatch(new RegExp(`^error: ${ng.replaceAll('.', '\\.')}:\\d+:1: malformed YAML: duplicate key "kind" in one mapping`));
  });
});

describe('an alias to no anchor', () => {
  it('is an input error in words in a manifest, a dump and an eksctl file, not "a bug in casdoctor"', () => {
    const d = dir();
    const manifest = join(d, 'web.yaml');
    writeFileSync(manifest, DEPLOYMENT('512Mi').replace('  namespace: shop\n', '  namespace: *ns\n'));
    const m = cli(['preflight', '-f', manifest, '--eksctl', CLUSTER]);
    expect(m.code).toBe(2);
    expect(m.stderr).toBe(`error: ${manifest}:1: malformed YAML: the alias *ns refers to no anchor (&ns) set before it\n`);

    const from = join(d, 'dump');
    mkdirSync(from);
    writeFileSync(join(from, 'pods.yaml'), 'apiVersion: v1\nkind: List\nitems:\n- apiVersion: v1\n  kind: Pod\n  metadata: {name: a, namespace: *ns}\n');
    const w = cli(['why-pending', '--all', '--from', from, '--now', DEMO_NOW]);
    expect(w.code).toBe(2);
    expect(w.stderr).toBe(`error: ${join(from, 'pods.yaml')}: malformed YAML: the alias *ns refers to no anchor (&ns) set before it\n`);

    const eks = join(d, 'cluster.yaml');
    writeFileSync(eks, readFileSync(CLUSTER, 'utf8').replace(/^( {2}name: ).*$/m, '$1*cluster'));
    const clean = join(d, 'clean.yaml');
    writeFileSync(clean, DEPLOYMENT('512Mi'));
    const e = cli(['preflight', '-f', clean, '--eksctl', eks]);
    expect(e.code).toBe(2);
    expect(e.stderr).toBe(`error: ${eks}: malformed YAML: the alias *cluster refers to no anchor (&cluster) set before it\n`);
  });
});

describe('a multi-document file given to --eksctl', () => {
  it('says how many documents it has and what --eksctl takes, never a library API name', () => {
    const d = dir();
    const manifest = join(d, 'web.yaml');
    writeFileSync(manifest, DEPLOYMENT('512Mi'));
    const eks = join(d, 'eksctl.yaml');
    const cluster = readFileSync(CLUSTER, 'utf8');
    writeFileSync(eks, `${cluster}---\n${cluster}---\n${cluster}`);
    const r = cli(['preflight', '-f', manifest, '--eksctl', eks]);
    expect(r.code).toBe(2);
    expect(r.stderr).toBe(
      `error: ${eks} has 3 YAML documents; --eksctl takes one ClusterConfig: split the file or pass the ClusterConfig document alone\n`,
    );
    expect(r.stderr).not.toMatch(/parseAllDocuments|YAML\.\w+\(/);
  });

  it('with a leading and a trailing --- (one document) is read as one ClusterConfig', () => {
    const d = dir();
    const manifest = join(d, 'web.yaml');
    writeFileSync(manifest, DEPLOYMENT('512Mi'));
    const eks = join(d, 'eksctl.yaml');
    writeFileSync(eks, `---\n${readFileSync(CLUSTER, 'utf8')}---\n`);
    const r = cli(['preflight', '-f', manifest, '--eksctl', eks, '--now', DEMO_NOW, '--fail-on', 'never']);
    expect(r.stderr).not.toMatch(/^error:/m);
    expect(r.code).toBe(0);
  });
});

describe('preflight with an invalid quantity', () => {
  it('is an input error (exit 2) naming the file, the object and the field, as why-pending does', () => {
    const d = dir();
    const f = join(d, 'web.yaml');
    writeFileSync(f, DEPLOYMENT('1.5.3Gi'));
    const r = cli(['preflight', '-f', f, '--eksctl', CLUSTER]);
    expect(r.code).toBe(2);
    expect(r.stdout).toBe('');
    expect(r.stderr).toBe(
      `error: ${f}:1: Deployment shop/web: spec.template.spec.containers[app].resources.requests.memory: "1.5.3Gi" is not a valid quantity (e.g. 512Mi, 1.5Gi, 250m)\n`,
    );
  });

  it('in a CronJob limit is named by its full path', () => {
    const d = dir();
    mkdirSync(join(d, 'k8s'));
    const f = join(d, 'k8s', 'job.yaml');
    writeFileSync(
      f,
      `${DEPLOYMENT('512Mi')}---
apiVersion: batch/v1
kind: CronJob
metadata:
  name: nightly
  namespace: shop
spec:
  schedule: "0 3 * * *"
  jobTemplate:
    spec:
      template:
        spec:
          restartPolicy: Never
          containers:
          - name: report
            image: report:1.0
            resources:
              limits:
                cpu: 2 cores
`,
    );
    const r = cli(['preflight', '-f', join(d, 'k8s'), '--eksctl', CLUSTER]);
    expect(r.code).toBe(2);
    expect(r.stderr).toBe(
      `error: ${f}:22: CronJob shop/nightly: spec.jobTemplate.spec.template.spec.containers[report].resources.limits.cpu: "2 cores" is not a valid quantity (e.g. 512Mi, 1.5Gi, 250m)\n`,
    );
  });
});
