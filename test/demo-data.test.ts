import { execFileSync } from 'node:child_process';
import { mkdtempSync, readdirSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { parse as parseYaml } from 'yaml';
import { loadOffline } from '../src/gather/offline.js';

// Sanity checks over the bundled offline dump written by scripts/gen-demo.mjs (story: examples/demo/README.md).

const root = join(import.meta.dirname, '..');
const demo = join(root, 'examples', 'demo');
const text = (f: string) => readFileSync(join(demo, f), 'utf8');
const json = (f: string): any => JSON.parse(text(f));
const items = (f: string): any[] => json(f).items;

const KUBE_LISTS: Record<string, [apiVersion: string, kind: string]> = {
  'pods.json': ['v1', 'Pod'],
  'nodes.json': ['v1', 'Node'],
  'events.json': ['v1', 'Event'],
  'daemonsets.json': ['apps/v1', 'DaemonSet'],
  'deployments.json': ['apps/v1', 'Deployment'],
  'replicasets.json': ['apps/v1', 'ReplicaSet'],
  'statefulsets.json': ['apps/v1', 'StatefulSet'],
  'jobs.json': ['batch/v1', 'Job'],
  'pdbs.json': ['policy/v1', 'PodDisruptionBudget'],
  'pvcs.json': ['v1', 'PersistentVolumeClaim'],
  'pvs.json': ['v1', 'PersistentVolume'],
  'storageclasses.json': ['storage.k8s.io/v1', 'StorageClass'],
  'priorityclasses.json': ['scheduling.k8s.io/v1', 'PriorityClass'],
  'serviceaccounts.json': ['v1', 'ServiceAccount'],
};
const AWS_FILES: Record<string, string> = {
  'asgs.json': 'AutoScalingGroups',
  'launch-template-versions.json': 'LaunchTemplateVersions',
  'scaling-activities.json': 'Activities',
};
/** CA's CRDs, installed and empty, as the API server lists them (kubectl get --raw). */
const CRD_LISTS: Record<string, [string, string]> = {
  'provisioningrequests.json': ['autoscaling.x-k8s.io/v1', 'ProvisioningRequestList'],
  'capacitybuffers.json': ['autoscaling.x-k8s.io/v1beta1', 'CapacityBufferList'],
  'podtemplates.json': ['v1', 'PodTemplateList'],
};
const ALL_JSON = [
  ...Object.keys(KUBE_LISTS),
  ...Object.keys(AWS_FILES),
  ...Object.keys(CRD_LISTS),
  'configmaps-kube-system.json',
].sort();
const DISCOVERY_TAGS = ['k8s.io/cluster-autoscaler/enabled', 'k8s.io/cluster-autoscaler/demo'];

/** Quantity in milli-units (cpu millicores, memory milli-bytes): enough for the suffixes this dump uses. */
function milli(q: string): number {
  const m = /^(\d+)(m|Ki|Mi|Gi)?$/.exec(q);
  if (!m) throw new Error(`unexpected quantity ${q}`);
  const v = Number(m[1]);
  const unit = m[2];
  if (unit === 'm') return v;
  const mult = unit === 'Ki' ? 1024 : unit === 'Mi' ? 1024 ** 2 : unit === 'Gi' ? 1024 ** 3 : 1;
  return v * mult * 1000;
}

/** Effective requests as the scheduler counts them: sum of containers, at least each init container. */
function requests(pod: any): Record<string, number> {
  const sum: Record<string, number> = {};
  for (const c of pod.spec.containers) {
    for (const [k, v] of Object.entries<string>(c.resources?.requests ?? {}))
      sum[k] = (sum[k] ?? 0) + milli(v);
  }
  for (const c of pod.spec.initContainers ?? []) {
    for (const [k, v] of Object.entries<string>(c.resources?.requests ?? {}))
      sum[k] = Math.max(sum[k] ?? 0, milli(v));
  }
  return sum;
}

function keysSortedDeep(v: unknown, path = '$'): string[] {
  if (Array.isArray(v)) return v.flatMap((x, i) => keysSortedDeep(x, `${path}[${i}]`));
  if (v && typeof v === 'object') {
    const keys = Object.keys(v);
    const bad = keys.join() === [...keys].sort().join() ? [] : [path];
    return [
      ...bad,
      ...keys.flatMap((k) => keysSortedDeep((v as Record<string, unknown>)[k], `${path}.${k}`)),
    ];
  }
  return [];
}

describe('the bundled demo dump (examples/demo)', () => {
  it('holds exactly the files the generator writes, and each parses as JSON', () => {
    const files = readdirSync(demo).filter((f) => f.endsWith('.json'));
    expect(files.sort()).toEqual(ALL_JSON);
    for (const f of files) expect(() => JSON.parse(text(f)), f).not.toThrow();
  });

  it('wraps every Kubernetes list as `kubectl get -A -o json` prints it: List envelope, sorted keys, 4-space indent', () => {
    for (const [file, [apiVersion, kind]] of Object.entries(KUBE_LISTS)) {
      const doc = json(file);
      expect(Object.keys(doc), file).toEqual(['apiVersion', 'items', 'kind', 'metadata']);
      expect({ apiVersion: doc.apiVersion, kind: doc.kind, metadata: doc.metadata }, file).toEqual({
        apiVersion: 'v1',
        kind: 'List',
        metadata: { resourceVersion: '' },
      });
      expect(doc.items.length, file).toBeGreaterThan(0);
      for (const item of doc.items) expect([item.apiVersion, item.kind], file).toEqual([apiVersion, kind]);
      expect(keysSortedDeep(doc), file).toEqual([]);
      expect(text(file).startsWith('{\n    "apiVersion": "v1",\n    "items": [\n        {\n'), file).toBe(
        true,
      );
      expect(text(file).endsWith('}\n'), file).toBe(true);
    }
  });

  it("holds CA's CRDs as the empty typed lists the API server returns", () => {
    for (const [file, [apiVersion, kind]] of Object.entries(CRD_LISTS)) {
      expect(json(file), file).toEqual({ apiVersion, items: [], kind, metadata: { resourceVersion: '48213207' } });
    }
  });

  it("holds CA's log, reproduced byte for byte by scripts/gen-demo-ca-log.mjs", () => {
    const out = mkdtempSync(join(tmpdir(), 'casdoctor-demo-log-'));
    try {
      execFileSync(process.execPath, [join(root, 'scripts', 'gen-demo-ca-log.mjs'), join(out, 'ca.log')], { stdio: 'pipe' });
      expect(readFileSync(join(out, 'ca.log'), 'utf8') === text('cluster-autoscaler.log')).toBe(true);
    } finally {
      rmSync(out, { recursive: true, force: true });
    }
  });

  it('holds the CA status ConfigMap as the single object `kubectl get configmap` prints, with only its status key', () => {
    const cm = json('configmaps-kube-system.json');
    expect([cm.apiVersion, cm.kind, cm.metadata.namespace, cm.metadata.name]).toEqual([
      'v1',
      'ConfigMap',
      'kube-system',
      'cluster-autoscaler-status',
    ]);
    expect(Object.keys(cm.data)).toEqual(['status']);
    expect(cm.metadata.annotations['cluster-autoscaler.kubernetes.io/last-updated']).toBe(
      '2026-11-21 09:59:52.118246319 +0000 UTC',
    );
    expect(keysSortedDeep(cm)).toEqual([]);
  });

  it('wraps each AWS answer in the single top-level key of its describe command, in PascalCase', () => {
    for (const [file, key] of Object.entries(AWS_FILES)) {
      const doc = json(file);
      expect(Object.keys(doc), file).toEqual([key]);
      expect(Array.isArray(doc[key]) && doc[key].length > 0, file).toBe(true);
      expect(text(file).startsWith(`{\n    "${key}": [\n`), file).toBe(true);
    }
    const asgs = json('asgs.json').AutoScalingGroups;
    for (const g of asgs) {
      expect(
        g.Tags.every(
          (t: any) => t.ResourceId === g.AutoScalingGroupName && t.ResourceType === 'auto-scaling-group',
        ),
      ).toBe(true);
      // only AZRebalance on demo-stateful: why-pending's verdicts depend on Launch alone
      expect(g.SuspendedProcesses.map((p: any) => p.ProcessName), g.AutoScalingGroupName).toEqual(
        g.AutoScalingGroupName === 'demo-stateful' ? ['AZRebalance'] : [],
      );
      expect(Boolean(g.LaunchTemplate) !== Boolean(g.MixedInstancesPolicy), g.AutoScalingGroupName).toBe(
        true,
      );
    }
    for (const v of json('launch-template-versions.json').LaunchTemplateVersions) {
      expect(v.LaunchTemplateData.UserData, v.LaunchTemplateName).toBeUndefined();
    }
  });

  it('binds every scheduled pod to a node in nodes.json and leaves every Pending pod unbound', () => {
    const nodeNames = new Set(items('nodes.json').map((n) => n.metadata.name));
    for (const p of items('pods.json')) {
      if (p.status.phase === 'Pending') expect(p.spec.nodeName, p.metadata.name).toBeUndefined();
      else expect(nodeNames.has(p.spec.nodeName), `${p.metadata.name} on ${p.spec.nodeName}`).toBe(true);
    }
  });

  it("maps every node's providerID to an InService instance of an ASG, with the same zone and instance type", () => {
    const instances = new Map<string, any>();
    for (const g of json('asgs.json').AutoScalingGroups)
      for (const i of g.Instances) instances.set(i.InstanceId, i);
    const nodes = items('nodes.json');
    expect(nodes).toHaveLength(11);
    for (const n of nodes) {
      const m = /^aws:\/\/\/([a-z0-9-]+)\/(i-[0-9a-f]{17})$/.exec(n.spec.providerID);
      expect(m, n.metadata.name).not.toBeNull();
      const inst = instances.get(m![2]);
      expect(inst, n.metadata.name).toBeDefined();
      expect([inst.AvailabilityZone, inst.InstanceType, inst.LifecycleState]).toEqual([
        m![1],
        n.metadata.labels['node.kubernetes.io/instance-type'],
        'InService',
      ]);
      expect(n.metadata.labels['topology.kubernetes.io/zone']).toBe(m![1]);
    }
    expect(instances.size).toBe(nodes.length);
  });

  it('gives every pod a controller that exists, except the three pods scale-down-blockers shows without one', () => {
    // examples/demo/README.md "Scale-down": a bare pod (NotReplicated), a pod whose Job was deleted with
    // --cascade=orphan (ControllerNotFound) and a static pod's mirror (owned by its Node)
    const withoutController: Record<string, string | undefined> = {
      'payments/psql-client': undefined,
      'analytics/backfill-2026-11-20-': 'Job',
      'kube-system/pg-backup-agent-': 'Node',
    };
    const exceptions = new Set<string>();
    const byKind: Record<string, any[]> = {
      ReplicaSet: items('replicasets.json'),
      StatefulSet: items('statefulsets.json'),
      DaemonSet: items('daemonsets.json'),
      Job: items('jobs.json'),
    };
    const deployments = items('deployments.json');
    const find = (list: any[], ns: string, ref: any) =>
      list.find(
        (o) => o.metadata.namespace === ns && o.metadata.name === ref.name && o.metadata.uid === ref.uid,
      );
    for (const p of items('pods.json')) {
      const ref = p.metadata.ownerReferences?.find((r: any) => r.controller);
      const key = `${p.metadata.namespace}/${p.metadata.name}`;
      const exception = Object.keys(withoutController).find((k) => key.startsWith(k));
      if (exception) {
        exceptions.add(exception);
        expect(ref?.kind, key).toBe(withoutController[exception]);
        if (ref) expect(find(byKind[ref.kind] ?? [], p.metadata.namespace, ref), key).toBeUndefined();
        continue;
      }
      expect(ref, p.metadata.name).toBeDefined();
      const owner = find(byKind[ref.kind] ?? [], p.metadata.namespace, ref);
      expect(owner, `${p.metadata.namespace}/${p.metadata.name} -> ${ref.kind}/${ref.name}`).toBeDefined();
      if (ref.kind === 'ReplicaSet') {
        const depRef = owner.metadata.ownerReferences[0];
        expect(find(deployments, p.metadata.namespace, depRef), owner.metadata.name).toBeDefined();
      }
    }
    expect([...exceptions].sort()).toEqual(Object.keys(withoutController).sort());
  });

  it("resolves every ASG's launch template version (number, $Latest, $Default or unset) to a version in the dump", () => {
    const versions = json('launch-template-versions.json').LaunchTemplateVersions;
    for (const g of json('asgs.json').AutoScalingGroups) {
      const spec = g.LaunchTemplate ?? g.MixedInstancesPolicy.LaunchTemplate.LaunchTemplateSpecification;
      const ofLt = versions.filter((v: any) => v.LaunchTemplateId === spec.LaunchTemplateId);
      const wanted = spec.Version ?? '$Default'; // CA: buildLaunchTemplateFromSpec uses $Default when unset
      const found =
        wanted === '$Latest'
          ? ofLt.sort((a: any, b: any) => b.VersionNumber - a.VersionNumber)[0]
          : wanted === '$Default'
            ? ofLt.find((v: any) => v.DefaultVersion)
            : ofLt.find((v: any) => String(v.VersionNumber) === wanted);
      expect(found, `${g.AutoScalingGroupName} ${wanted}`).toBeDefined();
      expect(found.LaunchTemplateName).toBe(spec.LaunchTemplateName);
    }
  });

  it('shows each pending pod as Unschedulable and has a FailedScheduling event with the same message', () => {
    const pending = items('pods.json').filter((p) => p.status.phase === 'Pending');
    expect(pending).toHaveLength(8);
    const events = items('events.json');
    for (const p of pending) {
      const cond = p.status.conditions.find((c: any) => c.type === 'PodScheduled');
      expect([cond.status, cond.reason], p.metadata.name).toEqual(['False', 'Unschedulable']);
      const failed = events.filter(
        (e) =>
          e.reason === 'FailedScheduling' && e.involvedObject.uid === p.metadata.uid && e.type === 'Warning',
      );
      expect(
        failed.map((e) => e.message),
        p.metadata.name,
      ).toEqual([cond.message]);
      expect(failed[0].reportingComponent).toBe('default-scheduler');
    }
  });

  it("derives every scheduler message from the nodes' allocatable and the requests of the pods running on them", () => {
    const nodes = items('nodes.json');
    const pods = items('pods.json');
    const pvcs = items('pvcs.json');
    const pvs = items('pvs.json');
    const running = (node: string) =>
      pods.filter((p) => p.spec.nodeName === node && p.status.phase === 'Running');
    for (const pod of pods.filter((p) => p.status.phase === 'Pending')) {
      const filter = new Map<string, number>();
      const preemption = new Map<string, number>();
      const bump = (m: Map<string, number>, k: string) => m.set(k, (m.get(k) ?? 0) + 1);
      for (const node of nodes) {
        const onNode = running(node.metadata.name);
        const tolerates = (t: any) =>
          pod.spec.tolerations.some(
            (x: any) =>
              (x.operator === 'Exists'
                ? !x.key || x.key === t.key
                : x.key === t.key && x.value === t.value) &&
              (!x.effect || x.effect === t.effect),
          );
        const taint = (node.spec.taints ?? []).find((t: any) => !tolerates(t));
        let reasons: string[] = [];
        if (taint) reasons = [`node(s) had untolerated taint {${taint.key}: ${taint.value}}`];
        else if (
          Object.entries(pod.spec.nodeSelector ?? {}).some(([k, v]) => node.metadata.labels[k] !== v)
        ) {
          reasons = ["node(s) didn't match Pod's node affinity/selector"];
        } else {
          const used: Record<string, number> = {};
          for (const p of onNode)
            for (const [k, v] of Object.entries(requests(p))) used[k] = (used[k] ?? 0) + v;
          for (const [k, want] of Object.entries(requests(pod))) {
            const alloc = node.status.allocatable[k] ? milli(node.status.allocatable[k]) : 0;
            if (want > alloc - (used[k] ?? 0)) reasons.push(`Insufficient ${k}`);
          }
          if (reasons.length) {
            // preemption only helps if the node runs lower-priority pods; none of these nodes do
            expect(onNode.some((p) => p.spec.priority < pod.spec.priority)).toBe(false);
            bump(preemption, 'No preemption victims found for incoming pod');
          } else {
            for (const v of pod.spec.volumes ?? []) {
              if (!v.persistentVolumeClaim) continue;
              const claim = pvcs.find((c) => c.metadata.name === v.persistentVolumeClaim.claimName);
              const term = pvs.find((x) => x.metadata.name === claim.spec.volumeName).spec.nodeAffinity
                .required.nodeSelectorTerms[0].matchExpressions[0];
              if (!term.values.includes(node.metadata.labels[term.key])) {
                reasons = ['node(s) had volume node affinity conflict'];
              }
            }
          }
        }
        expect(reasons.length, `${pod.metadata.name} would fit ${node.metadata.name}`).toBeGreaterThan(0);
        for (const r of reasons) bump(filter, r);
        if (!reasons[0].startsWith('Insufficient'))
          bump(preemption, 'Preemption is not helpful for scheduling');
      }
      // kube-scheduler FitError.Error(): sort.Strings over "<count> <reason>", then the PostFilter message
      const hist = (m: Map<string, number>) => [...m].map(([r, n]) => `${n} ${r}`).sort();
      const message =
        `0/${nodes.length} nodes are available: ${hist(filter).join(', ')}. ` +
        `preemption: 0/${nodes.length} nodes are available: ${hist(preemption).join(', ')}..`;
      expect(pod.status.conditions[0].message, pod.metadata.name).toBe(message);
    }
  });

  it('carries CA events only where CA 1.32 writes them, in its exact formats', () => {
    const pods = items('pods.json');
    const events = items('events.json');
    const caEvents = (p: any) =>
      events.filter(
        (e) => e.involvedObject.uid === p.metadata.uid && e.source.component === 'cluster-autoscaler',
      );
    const pending = pods.filter((p) => p.status.phase === 'Pending');
    const discovered = json('asgs.json').AutoScalingGroups.filter((g: any) =>
      DISCOVERY_TAGS.every((k) => g.Tags.some((t: any) => t.Key === k)),
    );
    expect(discovered).toHaveLength(6);
    for (const p of pending) {
      const ev = caEvents(p);
      if (p.spec.priority < -10 || p.metadata.name.startsWith('api-')) {
        // expendable pods are filtered out; the api replica is 5s old and CA's next loop has not run yet
        expect(ev, p.metadata.name).toEqual([]);
        continue;
      }
      expect(
        ev.map((e) => [e.reason, e.type]),
        p.metadata.name,
      ).toEqual([['NotTriggerScaleUp', 'Normal']]);
      const prefix = "pod didn't trigger scale-up: ";
      expect(ev[0].message.startsWith(prefix)).toBe(true);
      const counts = ev[0].message
        .slice(prefix.length)
        .split(', ')
        .map((part: string) => {
          const m = /^(\d+) (.+)$/.exec(part);
          return [Number(m![1]), m![2]] as const;
        });
      // demo-spot is at max size: CA reports it as skipped for every pod, whatever the pod selects
      expect(counts).toContainEqual([1, 'max node group size reached']);
      // each discovered group contributes at least one reason; only discovered groups are counted
      const total = counts.reduce((s: number, [n]: readonly [number, string]) => s + n, 0);
      expect(total).toBeGreaterThanOrEqual(discovered.length);
      expect(ev[0].count).toBeGreaterThan(1);
    }
    const triggered = events.filter((e) => e.reason === 'TriggeredScaleUp');
    expect(triggered.map((e) => e.message)).toEqual([
      'pod triggered scale-up: [{demo-general 3->4 (max: 10)}]',
    ]);
    const activity = json('scaling-activities.json').Activities.find((a: any) =>
      a.Cause.includes('changing the desired capacity from 3 to 4'),
    );
    expect(activity.AutoScalingGroupName).toBe('demo-general');
  });

  it('lists in the status ConfigMap exactly the ASGs that carry both discovery tags, with their sizes', () => {
    const status = parseYaml(json('configmaps-kube-system.json').data.status);
    const asgs = json('asgs.json').AutoScalingGroups;
    const discovered = asgs.filter((g: any) =>
      DISCOVERY_TAGS.every((k) => g.Tags.some((t: any) => t.Key === k)),
    );
    expect(status.nodeGroups.map((g: any) => g.name)).toEqual(
      discovered.map((g: any) => g.AutoScalingGroupName).sort(),
    );
    for (const ng of status.nodeGroups) {
      const g = asgs.find((a: any) => a.AutoScalingGroupName === ng.name);
      expect([ng.health.cloudProviderTarget, ng.health.minSize, ng.health.maxSize], ng.name).toEqual([
        g.DesiredCapacity,
        g.MinSize,
        g.MaxSize,
      ]);
      expect(ng.health.nodeCounts.registered?.ready ?? 0, ng.name).toBe(g.Instances.length);
      expect(ng.scaleUp.status).toBe('NoActivity');
    }
    expect(status.clusterWide.health.nodeCounts.registered.total).toBe(items('nodes.json').length);
  });

  it("names on CA's ServiceAccount the IRSA role that the webhook injected into CA's pod", () => {
    const ca = items('deployments.json').find((d) => d.metadata.name === 'cluster-autoscaler');
    const saName = ca.spec.template.spec.serviceAccountName;
    const sa = items('serviceaccounts.json').find(
      (s) => s.metadata.namespace === 'kube-system' && s.metadata.name === saName,
    );
    const pod = items('pods.json').find((p) => p.metadata.name.startsWith('cluster-autoscaler-'));
    const env = pod.spec.containers[0].env.find((e: any) => e.name === 'AWS_ROLE_ARN');
    expect(sa.metadata.annotations['eks.amazonaws.com/role-arn']).toBe(env.value);
  });

  it("creates demo-general's $Latest launch template version after its last launch, so every instance runs v1", () => {
    const g = json('asgs.json').AutoScalingGroups.find((a: any) => a.AutoScalingGroupName === 'demo-general');
    const versions = json('launch-template-versions.json').LaunchTemplateVersions.filter(
      (v: any) => v.LaunchTemplateName === 'demo-general',
    );
    const latest = versions.reduce((a: any, b: any) => (b.VersionNumber > a.VersionNumber ? b : a));
    const launches = json('scaling-activities.json')
      .Activities.filter(
        (x: any) => x.AutoScalingGroupName === 'demo-general' && x.Description.startsWith('Launching'),
      )
      .map((x: any) => Date.parse(x.StartTime));
    expect(g.LaunchTemplate.Version).toBe('$Latest');
    expect(latest.VersionNumber).toBe(2);
    expect(Math.max(...launches)).toBeLessThan(Date.parse(latest.CreateTime));
    expect(g.Instances.map((i: any) => i.LaunchTemplate.Version)).toEqual(['1', '1', '1', '1']);
  });

  it('loads through the offline loader with every file recognised and no warnings', async () => {
    const r = await loadOffline([demo]);
    expect(r.warnings).toEqual([]);
    expect(r.pods).toHaveLength(items('pods.json').length);
    expect(r.configMaps.map((c) => c.metadata.name)).toEqual(['cluster-autoscaler-status']);
    expect(r.autoScalingGroups).toHaveLength(7);
  });

  it('is reproduced byte for byte by scripts/gen-demo.mjs (the generator is deterministic)', () => {
    const out = mkdtempSync(join(tmpdir(), 'casdoctor-demo-'));
    try {
      execFileSync(process.execPath, [join(root, 'scripts', 'gen-demo.mjs'), out], { stdio: 'pipe' });
      expect(readdirSync(out).sort()).toEqual(ALL_JSON);
      for (const f of ALL_JSON) expect(readFileSync(join(out, f), 'utf8') === text(f), f).toBe(true);
    } finally {
      rmSync(out, { recursive: true, force: true });
    }
  });
});
