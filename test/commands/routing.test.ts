// Issue 24: routing is a first-class fact. Each Pending pod has one route (CA, Karpenter, both, neither, not known) and
// the headline, the summary counts, the JSON verdict, the findings and the exit code follow it; a Karpenter-only
// cluster is a Karpenter cluster. In-process, on examples/karpenter, examples/karpenter-only and variants made from them.
import { cpSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { runWhyPending, type WhyPendingOptions } from '../../src/commands/why-pending.js';
import { buildOverview, renderOverview } from '../../src/commands/overview.js';
import { overviewJson } from '../../src/commands/overview-json.js';
import { type AsgAuditOptions } from '../../src/commands/asg-audit.js';
import { runAsgAudit } from '../../src/commands/audit.js';
import { scaleDownRound, type ScaleDownBlockersOptions } from '../../src/commands/scale-down-blockers.js';
import { capturingDeps, PIPED_JSON } from './in-process.js';
import { ROOT } from './run.js';

type Json = any;

const MIXED = join(ROOT, 'examples', 'karpenter');
const KONLY = join(ROOT, 'examples', 'karpenter-only');
const NOW = '2026-11-24T14:00:00Z';

async function whyPending(dir: string, output: 'json' | 'table', extra: Partial<WhyPendingOptions> = {}) {
  const c = capturingDeps({ realNow: () => new Date(NOW) });
  const r = await runWhyPending({ ...PIPED_JSON, now: NOW, from: [dir], all: true, allNamespaces: true, output, failOn: 'error', ...extra } as WhyPendingOptions, c.deps);
  return { exitCode: r.exitCode, out: c.stdout(), json: output === 'json' ? (JSON.parse(c.stdout()) as Json) : undefined };
}

/** One pod's JSON entry by the start of its name (namespace/name-prefix). */
function entry(json: Json, ref: string): Json {
  const [ns, prefix] = ref.split('/');
  const e = json.pods.find((p: Json) => p.namespace === ns && p.name.startsWith(`${prefix}-`));
  expect(e, ref).toBeDefined();
  return e;
}

/** The check ids of the findings on one pod. */
function podFindings(json: Json, ref: string): string[] {
  const e = entry(json, ref);
  return json.findings.filter((f: Json) => f.subject.kind === 'Pod' && f.subject.namespace === e.namespace && f.subject.name === e.name).map((f: Json) => f.checkId);
}

/** The headline of one pod's block in the text report. */
function headline(text: string, ref: string): string {
  const [ns, prefix] = ref.split('/');
  const line = text.split('\n').find((l) => /^[✖↑✔?▲] /.test(l) && l.includes(` ${ns}/${prefix}-`));
  expect(line, ref).toBeDefined();
  return line as string;
}

const tmp = mkdtempSync(join(tmpdir(), 'casdoctor-routing-'));
afterAll(() => rmSync(tmp, { recursive: true, force: true }));

/** A copy of an example with a change to one of its pods (as the API server would list the changed pod). */
function variant(from: string, name: string, change: (pods: Json[]) => void): string {
  const dir = join(tmp, name);
  cpSync(from, dir, { recursive: true });
  const file = join(dir, 'pods.json');
  const list = JSON.parse(readFileSync(file, 'utf8'));
  change(list.items);
  writeFileSync(file, `${JSON.stringify(list, null, 2)}\n`);
  return dir;
}

const podNamed = (pods: Json[], ns: string, prefix: string) => pods.find((p) => p.metadata.namespace === ns && p.metadata.name.startsWith(`${prefix}-`));

describe('why-pending on CA and Karpenter side by side (examples/karpenter)', () => {
  let json: Json;
  let text: string;
  let exitCode: number;
  beforeAll(async () => {
    json = (await whyPending(MIXED, 'json')).json;
    ({ out: text, exitCode } = await whyPending(MIXED, 'table'));
  });

  it('gives the pod Karpenter nominated to a NodeClaim Karpenter\'s verdict, in the headline and the JSON, without CA\'s findings', () => {
    const rec = entry(json, 'web/recommendations');
    expect(rec.verdict).toBe('scale-up');
    expect(rec.route).toBe('karpenter');
    expect(rec.karpenter.route).toBe('karpenter');
    // each autoscaler's own verdict, in the same vocabulary
    expect(rec.autoscalers.ca.verdict).toBe('no-scale-up');
    expect(rec.autoscalers.karpenter).toEqual({
      verdict: 'scale-up',
      summary: 'Karpenter nominated it to NodeClaim general-x7k2p (NodePool general), no Node registered after 13m: Karpenter deletes it in 2m and launches another',
    });
    expect(podFindings(json, 'web/recommendations')).toEqual([]);
    expect(headline(text, 'web/recommendations')).toMatch(/^↑ web\/recommendations-\S+ {2}Karpenter scales up: Karpenter nominated it to NodeClaim general-x7k2p/);
    expect(text).not.toMatch(/pod-insufficient-resources {2}Pod web\/recommendations/);
  });

  it('says of the pod both may provision for what each would do and that either may act first', () => {
    const e = entry(json, 'web/image-resizer');
    expect([e.verdict, e.route]).toEqual(['scale-up', 'both']);
    expect(e.summary).toBe(
      'CA: fits a node shop-prod-legacy is already adding (desired 2, 1 registered); Karpenter launches a node in NodePool general (e.g. r6a.large, r6i.large, r6id.large); either may act first, and the other\'s node may then be wasted',
    );
    expect(headline(text, 'web/image-resizer')).toContain('either may provision: CA: fits a node shop-prod-legacy');
    expect(podFindings(json, 'web/image-resizer')).toEqual(['karpenter-pod-served-by-both']);
  });

  it('keeps CA\'s verdict and CA\'s findings alone on a pod that opted out of Karpenter', () => {
    const gen = entry(json, 'legacy/report-gen');
    expect([gen.verdict, gen.route, gen.autoscalers.karpenter.verdict]).toEqual(['scale-up', 'ca', 'ignored']);
    expect(headline(text, 'legacy/report-gen')).toMatch(/CA scales up: fits a node shop-prod-legacy is already adding/);
    const arch = entry(json, 'legacy/pdf-archiver');
    expect([arch.verdict, arch.route]).toEqual(['no-scale-up', 'neither']);
    // CA's explanation and the routing finding, no Karpenter placement finding
    expect(podFindings(json, 'legacy/pdf-archiver').sort()).toEqual(['karpenter-pod-served-by-neither', 'pod-insufficient-resources']);
  });

  it("gives a pod that requires a Karpenter NodePool Karpenter's findings only (no CA tag fix for karpenter.sh/nodepool)", () => {
    const e = entry(json, 'analytics/spark-exec-adhoc');
    expect([e.verdict, e.route]).toEqual(['no-scale-up', 'neither']);
    expect(podFindings(json, 'analytics/spark-exec-adhoc')).toEqual(['karpenter-pod-unplaceable']);
    expect(text).not.toContain('node-template/label/karpenter.sh/nodepool');
  });

  it('gives a pod neither serves the findings of both autoscalers that consider it', () => {
    expect(podFindings(json, 'checkout/fraud-scorer').sort()).toEqual(['karpenter-pod-unplaceable', 'pod-node-selector-mismatch']);
    expect(entry(json, 'checkout/fraud-scorer').summary).toMatch(/^CA: no node group's template matches .*; Karpenter: no NodePool fits it: general: instance types; gpu: skipped \(NodePool not ready\); batch: resource limits$/);
  });

  it('counts every pod by the verdict of the autoscaler that serves it, and exits 1 for the pods no autoscaler places', () => {
    expect(text).toMatch(/^8 pod\(s\): 1 CA scales up, 1 either may provision, 1 Karpenter scales up, 5 no scale-up · /m);
    expect(json.schemaVersion).toBe(3);
    expect(exitCode).toBe(1);
  });
});

describe('a Karpenter-only cluster (examples/karpenter-only: no CA Deployment, no ASG)', () => {
  let json: Json;
  let text: string;
  beforeAll(async () => {
    json = (await whyPending(KONLY, 'json')).json;
    text = (await whyPending(KONLY, 'table')).out;
  });

  it('is a Karpenter cluster: no CA defaults, no "install CA", no "add ASGs", no CA check at all', () => {
    expect(text.split('\n')[0]).toBe(
      'casdoctor why-pending · Karpenter 1.6.2 · no Cluster Autoscaler in the input (no CA Deployment, no node group) · now 2026-11-24T14:00:00.000Z · from ' + KONLY,
    );
    expect(text).not.toMatch(/no CA found|Install CA|Auto Scaling|CA said|NODE GROUP|not evaluated: whether CA/);
    expect(json.findings.map((f: Json) => f.checkId).filter((id: string) => !id.startsWith('karpenter-'))).toEqual([]);
    // no CA check is skipped either (the dump holds Karpenter's log, so its log check runs too)
    expect(json.skipped.map((x: Json) => x.checkId)).toEqual([]);
  });

  it("decides every pod by Karpenter's verdict", () => {
    const verdicts = Object.fromEntries(json.pods.map((p: Json) => [`${p.namespace}/${p.name.replace(/-[a-z0-9]{8,10}-[a-z0-9]{5}$/, '')}`, [p.verdict, p.route]]));
    expect(verdicts).toEqual({
      'analytics/spark-exec-adhoc': ['no-scale-up', 'neither'],
      'checkout/fraud-scorer': ['no-scale-up', 'neither'],
      'legacy/pdf-archiver': ['ignored', 'neither'],
      'legacy/report-gen': ['ignored', 'neither'],
      'ml/embedder': ['no-scale-up', 'neither'],
      'web/image-resizer': ['scale-up', 'karpenter'],
      'web/recommendations': ['scale-up', 'karpenter'],
      'web/search-indexer': ['no-scale-up', 'neither'],
    });
    for (const p of json.pods) expect(Object.keys(p.autoscalers)).toEqual(['karpenter']);
    expect(text).toMatch(/^8 pod\(s\): 2 Karpenter scales up, 4 no scale-up, 2 ignored by Karpenter · findings: 5 error, 2 warning, 0 info$/m);
    expect(headline(text, 'legacy/pdf-archiver')).toContain('ignored by Karpenter: Karpenter ignores it: ignoring pod, configured to not run on a Karpenter provisioned node');
  });

  it('gives the overview and scale-down-blockers to Karpenter too', async () => {
    const c = capturingDeps({ realNow: () => new Date(NOW) });
    const { data, exitCode } = await buildOverview({ ...PIPED_JSON, now: NOW, from: [KONLY], output: 'table' }, c.deps);
    const overview = renderOverview(data);
    expect(overview.split('\n')[0]).toBe('casdoctor · Karpenter overview');
    expect(overview).toContain('  8 Pending: 4 no autoscaler can place, 2 get a new node, 0 fit existing nodes, 2 ignored\n');
    expect(overview).toContain('  who serves them: 2 Karpenter, 6 none\n');
    expect(overview).not.toMatch(/CA 1\.37 defaults|Auto Scaling groups|IAM|Scale-down/);
    expect(exitCode).toBe(1);
    // -o json says the same: Karpenter's cluster, no CA defaults, no node-group section
    const doc = overviewJson(data, data.now) as unknown as Record<string, unknown>;
    expect(doc.karpenterOnly).toBe(true);
    expect(doc.nodeGroups).toBeUndefined();
    expect(JSON.stringify(doc.clusterAutoscaler)).not.toMatch(/1\.37 defaults|CA health/);

    const s = capturingDeps({ realNow: () => new Date(NOW) });
    const round = await scaleDownRound({ ...PIPED_JSON, now: NOW, from: [KONLY], output: 'table' } as ScaleDownBlockersOptions, s.deps);
    expect(round.text).toContain('casdoctor scale-down-blockers · Karpenter 1.6.2 · no Cluster Autoscaler in the input');
    expect(round.text).toContain('\n0 of 6 Karpenter node(s) may go now\n');
    expect(round.text).not.toMatch(/NotAutoscaled|CA REASON|describe-auto-scaling-groups|CA ignores them/);
  });

  it('asg-audit says the cluster has no ASG to audit instead of asking for them', async () => {
    const c = capturingDeps({ realNow: () => new Date(NOW) });
    await expect(runAsgAudit({ ...PIPED_JSON, now: NOW, from: [KONLY], output: 'table' } as AsgAuditOptions, c.deps)).rejects.toThrow(
      /is a Karpenter-only cluster \(NodePools, no Cluster Autoscaler Deployment, no Auto Scaling group\): the audit covers CA's node groups, and there are none/,
    );
  });
});

describe('hand-made variants', () => {
  it("a pod that opts out of Karpenter (karpenter.sh/nodepool DoesNotExist) is CA's: CA's verdict, CA's findings, the routing finding", async () => {
    const dir = variant(MIXED, 'opted-out', (pods) => {
      const rec = podNamed(pods, 'web', 'recommendations');
      rec.spec.affinity = { nodeAffinity: { requiredDuringSchedulingIgnoredDuringExecution: { nodeSelectorTerms: [{ matchExpressions: [{ key: 'karpenter.sh/nodepool', operator: 'DoesNotExist' }] }] } } };
    });
    const { json } = await whyPending(dir, 'json');
    const e = entry(json, 'web/recommendations');
    expect([e.verdict, e.route, e.autoscalers.karpenter.verdict]).toEqual(['no-scale-up', 'neither', 'ignored']);
    expect(e.karpenter.ignored).toMatchObject({ reason: 'nodepool-does-not-exist', emitsEvent: false });
    expect(podFindings(json, 'web/recommendations').sort()).toEqual(['karpenter-pod-served-by-neither', 'pod-insufficient-resources']);
  });

  it('a Karpenter-only cluster whose every Pending pod Karpenter provisions for exits 0 and says so', async () => {
    const dir = variant(KONLY, 'served', (pods) => {
      // only the two pods a NodePool takes stay Pending
      const keep = new Set(['image-resizer', 'recommendations']);
      pods.splice(0, pods.length, ...pods.filter((p) => p.spec.nodeName || keep.has(p.metadata.name.replace(/-[a-z0-9]{8,10}-[a-z0-9]{5}$/, ''))));
    });
    const table = await whyPending(dir, 'table', { failOn: 'never' });
    expect(table.out).toMatch(/^2 pod\(s\): 2 Karpenter scales up · /m);
    // the gpu EC2NodeClass that is not Ready is still an error finding of Karpenter's: the gate fails on it, not on a pod
    const failing = await whyPending(dir, 'json', { failOn: 'error' });
    expect(failing.json.pods.map((p: Json) => p.verdict)).toEqual(['scale-up', 'scale-up']);
    expect(failing.json.findings.map((f: Json) => f.checkId)).toContain('karpenter-nodeclass-not-ready');
    expect(failing.exitCode).toBe(1);
    const gpu = variant(dir, 'served-gpu-ready', () => undefined);
    const classes = JSON.parse(readFileSync(join(gpu, 'ec2nodeclasses.json'), 'utf8'));
    for (const c of classes.items) c.status.conditions = c.status.conditions.map((x: Json) => ({ ...x, status: 'True', reason: x.type, message: '' }));
    writeFileSync(join(gpu, 'ec2nodeclasses.json'), JSON.stringify(classes));
    const ok = await whyPending(gpu, 'json', { failOn: 'error' });
    expect(ok.json.findings.filter((f: Json) => f.severity === 'error')).toEqual([]);
    expect(ok.exitCode).toBe(0);
  });

  it('without Karpenter in the input nothing changes: CA decides, and the JSON has no autoscalers key', async () => {
    const { json } = await whyPending(join(ROOT, 'examples', 'demo'), 'json', { now: '2026-11-21T10:00:00Z' });
    for (const p of json.pods) {
      expect(p.autoscalers).toBeUndefined();
      if (p.sameAs || p.verdict === 'fits-existing-node' || p.verdict === 'not-pending') continue;
      expect(p.route).toBe(p.verdict === 'scale-up' ? 'ca' : p.verdict === 'not-evaluated' ? 'unknown' : 'neither');
    }
  });
});
