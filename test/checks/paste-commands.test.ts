// The paste test: every command a check prints, for a snapshot whose names hold shell metacharacters, is run with bash
// as a user would paste it, against fake aws/kubectl/eksctl that record their argv. Each line must call its program once,
// with the hostile name intact as one argument, and run nothing else (no file appears in the effects directory).
import { spawnSync } from 'node:child_process';
import { chmodSync, mkdirSync, mkdtempSync, readdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { beforeAll, describe, expect, it } from 'vitest';
import { parse as parseYaml } from 'yaml';
import { runChecks } from '../../src/checks/lib/engine.js';
import { CHECKS } from '../../src/checks/index.js';
import type { ConfigMap, Node } from '../../src/model/k8s.js';
import type { Finding } from '../../src/model/findings.js';
import type { RawInputs } from '../../src/model/snapshot.js';
import { Analysis } from '../../src/simulate/analysis.js';
import { isPendingCandidate } from '../../src/model/k8s.js';
import { asg, launchTemplateVersion, scalingActivity } from '../builders/aws.js';
import { node, pod } from '../builders/k8s.js';
import { analyzeSd, nodeName, sdWorld } from '../builders/scale-down-world.js';
import { instanceIdOf, NOW, pendingPod, world } from '../builders/world.js';
import { pdb } from '../builders/workloads.js';
import { STATIC_TYPES } from './harness.js';
import { deployment, preflightRun, yamlStream } from './preflight-harness.js';

let root: string;
let effects: string;
let stubs: string;
let calls: string;

beforeAll(() => {
  root = mkdtempSync(join(tmpdir(), 'casdoctor-paste-'));
  effects = join(root, 'effects');
  stubs = join(root, 'bin');
  calls = join(root, 'calls');
  for (const d of [effects, stubs, calls]) mkdirSync(d);
  for (const program of ['aws', 'kubectl', 'eksctl']) {
    // one file per invocation: the program name and each argument, NUL-terminated
    writeFileSync(
      join(stubs, program),
      `#!/bin/sh\nprintf '%s\\0' ${program} "$@" > "$(mktemp "$CASDOCTOR_CALLS/call.XXXXXX")"\n`,
    );
    chmodSync(join(stubs, program), 0o755);
  }
});

/** Names a hostile snapshot may carry; each would create a file in `effects` if a shell evaluated it. */
function names() {
  const e = effects;
  return {
    asgSemicolon: `demo-batch;touch\${IFS}${e}/asg-semicolon;#`,
    asgSubst: `$(touch ${e}/asg-subst)`,
    asgQuote: `q'\`touch ${e}/asg-backtick\`'x`,
    asgNewline: `nl\ntouch ${e}/asg-newline`,
    namespace: `web'$(touch ${e}/namespace)'`,
    pod: `api-7f9c8d6b5-x2x7q;touch ${e}/pod`,
    node: `ip-10-0-1-11|touch ${e}/node`,
    label: `batch'\`touch ${e}/label\``,
    deployment: `cluster-autoscaler$(touch ${e}/deployment)`,
    instance: `i-0aaaa;touch ${e}/instance`,
    pdb: `payments-api&&touch ${e}/pdb`,
  };
}

/** Every string in the snapshot with `from` replaced by `to` (whole strings only where `exact`); a consistent rename. */
function rename(raw: RawInputs, subs: Array<{ from: string; to: string; exact?: boolean }>): RawInputs {
  const fix = (s: string) => {
    for (const { from, to, exact } of subs) s = exact ? (s === from ? to : s) : s.split(from).join(to);
    return s;
  };
  const walk = (v: unknown): unknown => {
    if (typeof v === 'string') return fix(v);
    if (Array.isArray(v)) return v.map(walk);
    if (v && typeof v === 'object' && Object.getPrototypeOf(v) === Object.prototype)
      return Object.fromEntries(Object.entries(v).map(([k, x]) => [fix(k), walk(x)]));
    return v;
  };
  const out = { ...raw } as Record<string, unknown>;
  for (const [k, v] of Object.entries(raw)) if (Array.isArray(v)) out[k] = walk(v);
  return out as unknown as RawInputs;
}

type Mode = 'why-pending' | 'asg-audit' | 'scale-down-blockers';

function findingsFor(raw: RawInputs, mode: Mode | 'preflight', caArgs?: string[]): Finding[] {
  // preflight: a Deployment selecting node-pool=general, judged against the ASGs of a dump (the ASG-tag advice)
  if (mode === 'preflight')
    return preflightRun(yamlStream(deployment('api', { spec: { nodeSelector: { 'node-pool': 'general' } } })), {
      eksctl: null,
      cluster: { raw, via: 'from' },
    }).findings;
  if (mode === 'scale-down-blockers') return analyzeSd(raw, caArgs ? { caArgs } : {}).findings;
  const analysis = new Analysis(raw, { now: NOW, caArgs, staticInstanceTypes: STATIC_TYPES, podScope: isPendingCandidate });
  return runChecks(CHECKS, analysis, mode).findings;
}

/**
 * The commands in a remediation, as a user would select them: from `aws`/`kubectl`/`eksctl` to the end of the line, or,
 * inline in a sentence, to an unquoted `)` or a word ending in `,` or `.`. `<placeholders>` are filled in, as the user
 * would. Quotes are honoured the way a POSIX shell reads them, so a quoted `)` or newline stays in the command.
 */
export function commandsIn(text: string): string[] {
  const out: string[] = [];
  // a command starts a line, or follows "(" or ": " in a sentence ("started with kubectl run" is prose)
  const start = /(^[ \t]*|\n[ \t]*|\(|: )((?:aws|kubectl|eksctl) )/g;
  for (let m = start.exec(text); m; m = start.exec(text)) {
    let i = m.index + m[1].length;
    let cmd = '';
    scan: while (i < text.length) {
      const c = text[i];
      if (c === "'") {
        const end = text.indexOf("'", i + 1);
        cmd += text.slice(i, end < 0 ? undefined : end + 1);
        i = end < 0 ? text.length : end + 1;
        continue;
      }
      if (c === '\\') {
        cmd += text.slice(i, i + 2);
        i += 2;
        continue;
      }
      if (c === '"') {
        let j = i + 1;
        while (j < text.length && text[j] !== '"') j += text[j] === '\\' ? 2 : 1;
        cmd += text.slice(i, j + 1);
        i = j + 1;
        continue;
      }
      if (c === '<') {
        const end = text.indexOf('>', i);
        if (end > 0 && /^<[\w -]+>$/.test(text.slice(i, end + 1))) {
          cmd += 'PLACEHOLDER';
          i = end + 1;
          continue;
        }
      }
      if (c === '\n' || c === ')') break scan;
      if ((c === ',' || c === '.') && (i + 1 === text.length || /\s/.test(text[i + 1]))) break scan;
      cmd += c;
      i++;
    }
    out.push(cmd.trim());
    start.lastIndex = Math.max(i, start.lastIndex);
  }
  return out;
}

/** Runs one pasted line in bash with the fake programs first on PATH; returns the argv of each program it called. */
function paste(line: string): string[][] {
  rmSync(calls, { recursive: true, force: true });
  mkdirSync(calls);
  const r = spawnSync('bash', ['-c', line], {
    cwd: root,
    encoding: 'utf8',
    env: { PATH: `${stubs}:/usr/bin:/bin`, CASDOCTOR_CALLS: calls, HOME: root },
  });
  void r;
  return readdirSync(calls).map((f) => readFileSync(join(calls, f), 'utf8').split('\0').slice(0, -1));
}

interface Case {
  check: string;
  mode: Mode | 'preflight';
  /** The snapshot, with the hostile names in it. */
  raw: () => RawInputs;
  caArgs?: () => string[];
  /** The hostile names the printed commands must pass intact. */
  expect: (n: ReturnType<typeof names>) => string[];
}

function statusConfigMap(groupName: string, scaleUp: string, extra = ''): ConfigMap {
  const t = '2026-01-05 11:59:50.118246319 +0000 UTC';
  const probe = `    lastProbeTime: "2026-01-05T11:59:50.118246319Z"\n    lastTransitionTime: "2026-01-05T09:00:00Z"`;
  return {
    apiVersion: 'v1',
    kind: 'ConfigMap',
    metadata: {
      name: 'cluster-autoscaler-status',
      namespace: 'kube-system',
      annotations: { 'cluster-autoscaler.kubernetes.io/last-updated': t },
    },
    data: {
      status: `time: ${t}
autoscalerStatus: Running
clusterWide:
  health:
    status: Healthy
${probe}
  scaleUp:
    status: NoActivity
${probe}
nodeGroups:
- name: ${groupName}
  health:
    status: Healthy
    cloudProviderTarget: 1
    minSize: 1
    maxSize: 5
${probe}
  scaleUp:
    status: ${scaleUp}
${extra}${probe}
`,
    },
  };
}

function zeroGroup(name: string, tags: Record<string, string> = {}, type = 'c5.2xlarge') {
  const lt = `lt-0${name.replace(/\W/g, '')}`.slice(0, 20);
  return {
    asg: asg(name).withDiscoveryTags('prod').withTags(tags).withLaunchTemplate({ id: lt, version: '$Default' }).withSizes(0, 10, 0).build(),
    lt: launchTemplateVersion(lt, 1).asDefault().withInstanceType(type).build(),
  };
}

/** An ASG of cluster prod with a one-version launch template, optionally owning nodes (as the asg-audit tests build it). */
function group(name: string, o: { type?: string; tags?: Record<string, string>; nodes?: Node[]; discovered?: boolean; min?: number } = {}) {
  const lt = `lt-0${name.replace(/\W/g, '')}`.slice(0, 20);
  let b = asg(name);
  if (o.discovered !== false) b = b.withDiscoveryTags('prod');
  b = b
    .withTag('kubernetes.io/cluster/prod', 'owned')
    .withTags(o.tags ?? {})
    .withZones('us-east-1a')
    .withLaunchTemplate({ id: lt, version: '$Default' })
    .withSizes(o.min ?? 0, 10, o.nodes?.length ?? 0);
  for (const n of o.nodes ?? [])
    b = b.withInstance(instanceIdOf(n), { InstanceType: o.type ?? 'm5.large', LaunchTemplate: { LaunchTemplateId: lt, Version: '1' } });
  return { asg: b.build(), lt: launchTemplateVersion(lt, 1).asDefault().withInstanceType(o.type ?? 'm5.large').build() };
}

function withGroup(g: ReturnType<typeof group>, nodes: Node[] = []) {
  const w = world().add('autoScalingGroups', g.asg).add('launchTemplateVersions', g.lt);
  if (nodes.length) w.add('nodes', ...nodes);
  return w;
}

function m5large(name: string): Node {
  return node(name)
    .withInstanceType('m5.large')
    .withCapacity({ cpu: '2', memory: '7908276Ki', pods: '29' })
    .withAllocatable({ cpu: '1930m', memory: '7218100Ki', pods: '29' })
    .build();
}

const RES = 'k8s.io/cluster-autoscaler/node-template/resources/';
const TAINT = 'k8s.io/cluster-autoscaler/node-template/taint/';

function cases(n: ReturnType<typeof names>): Case[] {
  const asgA = [{ from: 'prod-general', to: n.asgSemicolon }];
  return [
    {
      check: 'node-group-max-size-reached',
      mode: 'why-pending',
      raw: () => {
        const w = world();
        w.raw.autoScalingGroups[0].MaxSize = 1;
        return rename(w.add('pods', pendingPod().build()).raw, asgA);
      },
      expect: () => [n.asgSemicolon],
    },
    {
      check: 'node-group-backoff',
      mode: 'why-pending',
      raw: () => {
        const backoff = '    backoffInfo:\n      errorCode: placeholder-cannot-be-fulfilled\n      errorMessage: no capacity\n';
        const w = world().add('configMaps', statusConfigMap('prod-general', 'Backoff', backoff));
        return rename(w.add('pods', pendingPod().build()).raw, [{ from: 'prod-general', to: n.asgSubst }]);
      },
      expect: () => [n.asgSubst],
    },
    {
      check: 'node-group-launch-suspended',
      mode: 'why-pending',
      raw: () => {
        const w = world();
        w.raw.autoScalingGroups[0].SuspendedProcesses = [{ ProcessName: 'Launch', SuspensionReason: 'User suspended' }];
        return rename(w.add('pods', pendingPod().build()).raw, [{ from: 'prod-general', to: n.asgQuote }]);
      },
      expect: () => [n.asgQuote],
    },
    {
      check: 'node-group-instance-not-registered',
      mode: 'why-pending',
      raw: () => {
        const w = world();
        w.raw.autoScalingGroups[0].DesiredCapacity = 2;
        w.raw.autoScalingGroups[0].Instances!.push({
          InstanceId: 'i-0aaaabbbbccccdddd',
          AvailabilityZone: 'us-east-1a',
          LifecycleState: 'InService',
          HealthStatus: 'Healthy',
          InstanceType: 'm5.xlarge',
        });
        w.add('scalingActivities', {
          ...scalingActivity('prod-general').at('2026-01-05T11:30:00Z', '2026-01-05T11:30:00Z').build(),
          Description: 'Launching a new EC2 instance: i-0aaaabbbbccccdddd',
          StatusCode: 'Successful',
        });
        return rename(w.raw, [{ from: 'i-0aaaabbbbccccdddd', to: n.instance }]);
      },
      expect: () => [n.instance],
    },
    {
      check: 'pod-insufficient-resources',
      mode: 'why-pending',
      raw: () => {
        const gpu = zeroGroup('prod-gpu', { 'k8s.io/cluster-autoscaler/node-template/label/accelerator': 'nvidia-l4' }, 'g6f.xlarge');
        const w = world().add('autoScalingGroups', gpu.asg).add('launchTemplateVersions', gpu.lt);
        w.add(
          'pods',
          pendingPod('inference-1', 'ml')
            .withNodeSelector({ accelerator: 'nvidia-l4' })
            .withRequests({ cpu: '1', 'nvidia.com/gpu': '1' })
            .withLimits({ 'nvidia.com/gpu': '1' })
            .build(),
        );
        return rename(w.raw, [{ from: 'prod-gpu', to: n.asgNewline }]);
      },
      expect: () => [n.asgNewline],
    },
    {
      check: 'node-group-not-discovered',
      mode: 'why-pending',
      raw: () => {
        const big = asg('prod-big')
          .withTag('k8s.io/cluster-autoscaler/enabled', 'true')
          .withTag('kubernetes.io/cluster/prod', 'owned')
          .withLaunchTemplate({ id: 'lt-0big0000000000001' })
          .withSizes(0, 4, 0)
          .build();
        const w = world()
          .add('autoScalingGroups', big)
          .add('launchTemplateVersions', launchTemplateVersion('lt-0big0000000000001', 1).asDefault().withInstanceType('m5.4xlarge').build());
        w.add('pods', pendingPod().withRequests({ cpu: '8' }).build());
        return rename(w.raw, [{ from: 'prod-big', to: n.asgSemicolon }]);
      },
      expect: () => [n.asgSemicolon],
    },
    {
      check: 'pod-node-selector-mismatch',
      mode: 'why-pending',
      raw: () => {
        const batch = zeroGroup('prod-batch');
        const w = world().add('autoScalingGroups', batch.asg).add('launchTemplateVersions', batch.lt);
        w.add('pods', pendingPod('report-1', 'jobs').withNodeSelector({ 'node-pool': 'batch' }).build());
        return rename(w.raw, [
          { from: 'prod-batch', to: n.asgSubst },
          { from: 'batch', to: n.label, exact: true },
        ]);
      },
      expect: () => [n.asgSubst, n.label],
    },
    {
      check: 'ca-event-disagrees',
      mode: 'why-pending',
      raw: () => {
        const p = pendingPod().build();
        const w = world()
          .add('pods', p)
          .add('events', {
            apiVersion: 'v1',
            kind: 'Event',
            metadata: { name: 'api-7f9c8d6b5-x2x7q.1870a1b2c3d4e5f6', namespace: 'web' },
            involvedObject: { kind: 'Pod', namespace: 'web', name: 'api-7f9c8d6b5-x2x7q', uid: p.metadata.uid },
            reason: 'NotTriggerScaleUp',
            message: "pod didn't trigger scale-up: 1 max node group size reached",
            type: 'Normal',
            count: 3,
            firstTimestamp: '2026-01-05T11:40:00Z',
            lastTimestamp: '2026-01-05T11:58:00Z',
            source: { component: 'cluster-autoscaler' },
          });
        return rename(w.raw, [
          { from: 'api-7f9c8d6b5-x2x7q', to: n.pod },
          { from: 'web', to: n.namespace, exact: true },
        ]);
      },
      expect: () => [n.pod, n.namespace],
    },
    {
      check: 'ca-status-stale',
      mode: 'why-pending',
      raw: () => {
        const cm = statusConfigMap('prod-general', 'NoActivity');
        cm.metadata.annotations!['cluster-autoscaler.kubernetes.io/last-updated'] = '2026-01-05 11:50:00.0 +0000 UTC';
        cm.data!.status = cm.data!.status.replace(/^time: .*$/m, 'time: 2026-01-05 11:50:00.0 +0000 UTC');
        const w = world().add('configMaps', cm);
        w.raw.deployments[0].metadata.name = n.deployment;
        return w.raw;
      },
      expect: () => [`deploy/${n.deployment}`],
    },
    {
      check: 'asg-process-suspended',
      mode: 'asg-audit',
      raw: () => world().add('autoScalingGroups', asg(n.asgSemicolon).withDiscoveryTags('prod').withSuspendedProcesses('Launch').build()).raw,
      expect: () => [n.asgSemicolon],
    },
    {
      check: 'nodes-flag-asg-mismatch',
      mode: 'asg-audit',
      raw: () => rename(world().raw, [{ from: 'prod-general', to: n.asgSubst }]),
      caArgs: () => [`--nodes=0:20:${n.asgSubst}`],
      expect: () => [n.asgSubst],
    },
    {
      check: 'discovery-cluster-name-mismatch',
      mode: 'asg-audit',
      raw: () => rename(world().raw, [{ from: 'prod-general', to: n.asgQuote }]),
      caArgs: () => ['--node-group-auto-discovery=asg:tag=k8s.io/cluster-autoscaler/enabled,k8s.io/cluster-autoscaler/prod-eks'],
      expect: () => [n.asgQuote],
    },
    {
      check: 'template-taint-mismatch',
      mode: 'asg-audit',
      raw: () => {
        const tainted = node('ip-10-0-8-8.ec2.internal').withInstanceType('m5.large').withTaint('dedicated', 'gpu').build();
        const w = withGroup(group('prod-gpu', { nodes: [tainted] }), [tainted]);
        w.add('pods', pendingPod('api-7f9c8d6b5-zzzzz', 'web').build());
        const plain = m5large('ip-10-0-8-9.ec2.internal');
        const w2 = withGroup(group('prod-old', { nodes: [plain], tags: { [`${TAINT}dedicated`]: 'gpu:NoSchedule' } }), [plain]);
        w.add('autoScalingGroups', ...w2.raw.autoScalingGroups.slice(1)).add('launchTemplateVersions', ...w2.raw.launchTemplateVersions.slice(1));
        w.add('nodes', plain);
        return rename(w.raw, [
          { from: 'prod-gpu', to: n.asgSubst },
          { from: 'prod-old', to: n.asgNewline },
        ]);
      },
      expect: () => [n.asgSubst, n.asgNewline],
    },
    {
      check: 'template-capacity-mismatch',
      mode: 'asg-audit',
      raw: () => {
        const m = m5large('ip-10-0-6-6.ec2.internal');
        return rename(withGroup(group('prod-small', { nodes: [m], tags: { [`${RES}memory`]: '4Gi' } }), [m]).raw, [{ from: 'prod-small', to: n.asgQuote }]);
      },
      expect: () => [n.asgQuote],
    },
    {
      check: 'template-allocatable-overstated',
      mode: 'asg-audit',
      raw: () => {
        const w = withGroup(group('prod-mem'));
        w.add('pods', pendingPod('cache-6f7d8c9b4-qqqqq', 'web').withRequests({ cpu: '500m', memory: '7600Mi' }).build());
        return rename(w.raw, [{ from: 'prod-mem', to: n.asgSemicolon }]);
      },
      expect: () => [n.asgSemicolon],
    },
    {
      check: 'template-pods-overstated',
      mode: 'asg-audit',
      raw: () => rename(withGroup(group('prod-small')).raw, [{ from: 'prod-small', to: n.asgSubst }]),
      expect: () => [n.asgSubst],
    },
    {
      check: 'template-ephemeral-storage-missing',
      mode: 'asg-audit',
      raw: () => {
        const w = withGroup(group('prod-scratch'));
        w.add('pods', pendingPod('build-5c6d7e8f9-aaaaa', 'ci').withRequests({ cpu: '1', 'ephemeral-storage': '20Gi' }).build());
        return rename(w.raw, [{ from: 'prod-scratch', to: n.asgQuote }]);
      },
      expect: () => [n.asgQuote],
    },
    {
      check: 'template-gpu-mismatch',
      mode: 'asg-audit',
      raw: () => {
        const amd = node('ip-10-0-4-4.ec2.internal').withInstanceType('g4ad.xlarge').withResources({ 'amd.com/gpu': '1' }).build();
        return rename(withGroup(group('prod-amd', { type: 'g4ad.xlarge', nodes: [amd] }), [amd]).raw, [{ from: 'prod-amd', to: n.asgNewline }]);
      },
      expect: () => [n.asgNewline],
    },
    {
      check: 'template-label-missing',
      mode: 'asg-audit',
      raw: () => {
        const userData = Buffer.from('#!/bin/bash\n/etc/eks/bootstrap.sh prod --kubelet-extra-args "--node-labels=node-pool=batch"\n').toString('base64');
        const g = group('prod-batch');
        g.lt.LaunchTemplateData!.UserData = userData;
        g.asg.Tags!.push({ Key: 'eks:nodegroup-name', Value: 'batch', ResourceId: 'prod-batch', ResourceType: 'auto-scaling-group', PropagateAtLaunch: true });
        const w = withGroup(g);
        w.add('pods', pendingPod('report-builder-7c9d8f6b5-abcde', 'jobs').withNodeSelector({ 'node-pool': 'batch' }).build());
        return rename(w.raw, [{ from: 'prod-batch', to: n.asgSemicolon }]);
      },
      expect: () => [n.asgSemicolon],
    },
    {
      check: 'asg-not-discovered',
      mode: 'asg-audit',
      raw: () => {
        const m = m5large('ip-10-0-3-245.ec2.internal');
        const g = group('prod-monitoring', { discovered: false, tags: { 'k8s.io/cluster-autoscaler/enabled': 'true' }, nodes: [m], min: 1 });
        return rename(withGroup(g, [m]).raw, [{ from: 'prod-monitoring', to: n.asgSubst }]);
      },
      expect: () => [n.asgSubst],
    },
    {
      check: 'launch-template-drift',
      mode: 'asg-audit',
      raw: () => {
        const m = node('ip-10-0-2-2.ec2.internal').build();
        const g = asg('prod-web')
          .withDiscoveryTags('prod')
          .withLaunchTemplate({ id: 'lt-0web00000000000001', version: '$Latest' })
          .withSizes(1, 5, 1)
          .withInstance(instanceIdOf(m), { InstanceType: 'm5.xlarge', LaunchTemplate: { LaunchTemplateId: 'lt-0web00000000000001', Version: '1' } })
          .build();
        const w = world()
          .add('autoScalingGroups', g)
          .add('nodes', m)
          .add(
            'launchTemplateVersions',
            launchTemplateVersion('lt-0web00000000000001', 1).asDefault().withInstanceType('m5.xlarge').build(),
            launchTemplateVersion('lt-0web00000000000001', 2).withInstanceType('m5.2xlarge').withImage('ami-0ffffeeeeddddcccc').build(),
          );
        return rename(w.raw, [{ from: 'prod-web', to: n.asgQuote }]);
      },
      expect: () => [n.asgQuote],
    },
    {
      check: 'asg-max-size-pending-pods',
      mode: 'asg-audit',
      raw: () => {
        const w = world();
        w.raw.autoScalingGroups[0].MaxSize = 1;
        w.add('pods', pendingPod().withNodeSelector({ 'node-pool': 'general' }).build());
        return rename(w.raw, [{ from: 'prod-general', to: n.asgSubst }]);
      },
      expect: () => [n.asgSubst],
    },
    {
      check: 'workload-fits-only-real-nodes',
      mode: 'preflight',
      raw: () => rename(world().raw, [{ from: 'prod-general', to: n.asgQuote }]),
      expect: () => [n.asgQuote],
    },
    {
      check: 'iam-permission-denied',
      mode: 'asg-audit',
      raw: () => {
        const allowed = (action: string) => ({
          EvalActionName: action,
          EvalResourceName: '*',
          EvalDecision: 'allowed',
          MatchedStatements: [{ SourcePolicyId: 'ca', SourcePolicyType: 'IAM Policy' }],
          MissingContextValues: [],
        });
        const w = world().add(
          'iamEvaluationResults',
          ...['autoscaling:DescribeAutoScalingGroups', 'autoscaling:DescribeScalingActivities', 'ec2:DescribeLaunchTemplateVersions', 'ec2:DescribeInstanceTypes', 'autoscaling:TerminateInstanceInAutoScalingGroup'].map(allowed),
          {
            EvalActionName: 'autoscaling:SetDesiredCapacity',
            EvalResourceName: 'arn:aws:autoscaling:us-east-1:111122223333:autoScalingGroup:6a1c3b5e-0d1f-4a8e-9f2b-3c4d5e6f7a8b:autoScalingGroupName/prod-general',
            EvalDecision: 'implicitDeny',
            MatchedStatements: [],
            MissingContextValues: ['aws:ResourceTag/k8s.io/cluster-autoscaler/prod-owner'],
            // what the local evaluator (--iam-policy) adds: the statement that almost allowed it
            CasdoctorNearMisses: [
              {
                statement: 'ca-policy.json statement ScaleOwned',
                effect: 'Allow',
                conditions: [{ operator: 'StringEquals', key: 'aws:ResourceTag/k8s.io/cluster-autoscaler/prod-owner', values: [n.label] }],
              },
            ],
          },
        );
        return rename(w.raw, [{ from: 'prod-general', to: n.asgSemicolon }]);
      },
      expect: () => [n.asgSemicolon, n.label],
    },
    {
      check: 'node-group-min-size-reached',
      mode: 'scale-down-blockers',
      raw: () => rename(sdWorld({ nodes: 2, min: 2 }).raw, [{ from: 'prod-general', to: n.asgSemicolon }]),
      expect: () => [n.asgSemicolon],
    },
    {
      check: 'node-scale-down-disabled',
      mode: 'scale-down-blockers',
      raw: () => {
        const w = sdWorld({ nodeBuilder: (i, b) => (i === 1 ? b.withAnnotation('cluster-autoscaler.kubernetes.io/scale-down-disabled', 'true') : b) });
        return rename(w.raw, [{ from: nodeName(1), to: n.node }]);
      },
      expect: () => [n.node],
    },
    {
      check: 'pod-controller-not-found',
      mode: 'scale-down-blockers',
      raw: () => {
        const w = sdWorld();
        w.add('pods', pod('backfill-x7k2p', 'analytics').ownedBy('Job', 'backfill').onNode(nodeName(1)).build());
        return rename(w.raw, [
          { from: 'backfill-x7k2p', to: n.pod },
          { from: 'analytics', to: n.namespace, exact: true },
        ]);
      },
      expect: () => [n.pod, n.namespace],
    },
    {
      check: 'pod-min-replicas-reached',
      mode: 'scale-down-blockers',
      raw: () => {
        const w = sdWorld();
        w.app('web', 'api', nodeName(1));
        const uid = '5d0c1e2f-3a4b-4c5d-8e6f-7a8b9c0d1e2f';
        w.raw.replicaSets[0].metadata.ownerReferences = [{ apiVersion: 'apps/v1', kind: 'Deployment', name: 'api', uid, controller: true }];
        w.add('deployments', {
          apiVersion: 'apps/v1',
          kind: 'Deployment',
          metadata: { name: 'api', namespace: 'web', uid },
          spec: { replicas: 1, selector: { matchLabels: { app: 'api' } }, template: { metadata: { labels: { app: 'api' } }, spec: { containers: [] } } },
        });
        return rename(w.raw, [{ from: 'web', to: n.namespace, exact: true }]);
      },
      caArgs: () => ['--min-replica-count=2'],
      expect: () => [n.namespace],
    },
    {
      check: 'pod-not-replicated',
      mode: 'scale-down-blockers',
      raw: () => {
        const w = sdWorld();
        w.add('pods', pod('psql-client', 'payments').onNode(nodeName(1)).build());
        return rename(w.raw, [{ from: 'psql-client', to: n.pod }]);
      },
      expect: () => [n.pod],
    },
    {
      check: 'pod-local-storage',
      mode: 'scale-down-blockers',
      raw: () => {
        const w = sdWorld();
        const p = w.app('web', 'api', nodeName(1));
        p.spec.volumes = [{ name: 'cache', emptyDir: {} }];
        return rename(w.raw, [{ from: 'web', to: n.namespace, exact: true }]);
      },
      expect: () => [n.namespace],
    },
    {
      check: 'pod-not-safe-to-evict',
      mode: 'scale-down-blockers',
      raw: () => {
        const w = sdWorld();
        w.app('payments', 'worker', nodeName(1)).metadata.annotations = { 'cluster-autoscaler.kubernetes.io/safe-to-evict': 'false' };
        return rename(w.raw, [{ from: 'payments', to: n.namespace, exact: true }]);
      },
      expect: () => [n.namespace],
    },
    {
      check: 'pod-unmovable-kube-system',
      mode: 'scale-down-blockers',
      raw: () => {
        const w = sdWorld();
        const p = w.app('kube-system', 'metrics-server', nodeName(1), { cpu: '100m', memory: '200Mi' });
        p.metadata.creationTimestamp = '2025-12-20T10:00:00Z';
        p.metadata.name = n.pod;
        return w.raw;
      },
      expect: () => [n.pod],
    },
    {
      check: 'pdb-blocks-scale-down',
      mode: 'scale-down-blockers',
      raw: () => {
        const w = sdWorld();
        w.app('payments', 'payments-api', nodeName(1));
        w.add('pdbs', pdb('payments', 'payments-api').selecting({ app: 'payments-api' }).maxUnavailable(0).healthy(1, 1).build());
        const built = w.raw.pdbs[0];
        built.metadata.name = n.pdb;
        built.metadata.namespace = n.namespace;
        return rename(w.raw, [{ from: 'payments', to: n.namespace, exact: true }]);
      },
      expect: () => [n.pdb, n.namespace],
    },
    {
      check: 'node-not-autoscaled',
      mode: 'scale-down-blockers',
      raw: () => {
        const w = sdWorld();
        w.add('nodes', node('ip-10-0-9-9.ec2.internal').withProviderId('aws:///us-east-1a/i-0feedfacefeedface').build());
        const g = asg('prod-orphan').withInstance('i-0feedfacefeedface', { InstanceType: 'm5.xlarge' }).build();
        w.add('autoScalingGroups', g);
        return rename(w.raw, [{ from: 'prod-orphan', to: n.asgSubst }]);
      },
      expect: () => [n.asgSubst],
    },
  ];
}

describe('commands casdoctor prints are safe to paste', () => {
  it('finds commands on their own line and inline, and fills in placeholders', () => {
    expect(
      commandsIn(
        "Raise it:\n  aws autoscaling x --name 'a)b' --max 3\nor (kubectl get pods -n 'w, x'), a pod started with kubectl run, or: aws eks y --cluster-name <cluster>.",
      ),
    ).toEqual(["aws autoscaling x --name 'a)b' --max 3", "kubectl get pods -n 'w, x'", 'aws eks y --cluster-name PLACEHOLDER']);
  });

  // one test per check (the names only matter when the test runs: they point into its temporary directory)
  it.each(cases(names()).map((c) => c.check))(
    '%s: every printed command calls one program with the hostile names intact and runs nothing else',
    (check) => {
      rmSync(effects, { recursive: true, force: true });
      mkdirSync(effects);
      const n = names();
      const c = cases(n).find((x) => x.check === check)!;
      const fs = findingsFor(c.raw(), c.mode, c.caArgs?.()).filter((f) => f.checkId === c.check);
      expect(fs.length, `${c.check} fires`).toBeGreaterThan(0);
      const commands = fs.flatMap((f) => commandsIn(f.remediation ?? ''));
      expect(commands.length, `${c.check} prints a command`).toBeGreaterThan(0);
      const argvs: string[][] = [];
      for (const line of commands) {
        const invoked = paste(line);
        expect(readdirSync(effects), `pasting ${JSON.stringify(line)} ran nothing else`).toEqual([]);
        expect(invoked, `${c.check}: ${line}`).toHaveLength(1);
        expect(line.startsWith(`${invoked[0][0]} `), `${c.check}: ${line}`).toBe(true);
        argvs.push(...invoked);
      }
      for (const name of c.expect(n))
        expect(
          // inside a JSON argument (aws --tags) the name is JSON-escaped
          argvs.some((argv) => argv.some((a) => a.includes(name) || a.includes(JSON.stringify(name).slice(1, -1)))),
          `${c.check} passes ${JSON.stringify(name)} as one argument: ${JSON.stringify(argvs)}`,
        ).toBe(true);
    },
  );

  it('keeps a tag value with aws shorthand syntax in it whole, as JSON', () => {
    const raw = rename(withGroup(group('prod-small')).raw, [{ from: 'prod-small', to: 'prod,Key=evil' }]);
    const [f] = findingsFor(raw, 'asg-audit').filter((x) => x.checkId === 'template-pods-overstated');
    const [argv] = paste(commandsIn(f.remediation!)[0]);
    expect(JSON.parse(argv.at(-1)!)).toEqual([
      { ResourceId: 'prod,Key=evil', ResourceType: 'auto-scaling-group', Key: `${RES}pods`, Value: '29', PropagateAtLaunch: false },
    ]);
  });
});

describe('manifest snippets in remediations are YAML the library wrote', () => {
  it('a hostile taint and label value round-trip through the toleration and PDB snippets', () => {
    const value = `db"' #x,[y]{z}`;
    const g = zeroGroup('prod-databases', {
      'k8s.io/cluster-autoscaler/node-template/label/workload': 'databases',
      [`${TAINT}dedicated`]: `${value}:NoSchedule`,
    });
    const w = world().add('autoScalingGroups', g.asg).add('launchTemplateVersions', g.lt);
    w.add('pods', pendingPod('orders-pg-0', 'databases').withNodeSelector({ workload: 'databases' }).build());
    const [f] = findingsFor(w.raw, 'why-pending').filter((x) => x.checkId === 'pod-untolerated-taint');
    const lines = f.remediation!.split('\n');
    const yaml = lines.slice(1, lines.findIndex((l, i) => i > 0 && !l.startsWith('  '))).join('\n');
    expect(parseYaml(yaml)).toEqual({ tolerations: [{ key: 'dedicated', operator: 'Equal', value, effect: 'NoSchedule' }] });
  });

  it('a hostile label value stays one value in the PodDisruptionBudget snippet', () => {
    const w = sdWorld();
    const p = w.app('kube-system', 'metrics-server', nodeName(1), { cpu: '100m', memory: '200Mi' });
    p.metadata.creationTimestamp = '2025-12-20T10:00:00Z';
    const hostile = "metrics'\n    injected: true";
    const raw = rename(w.raw, [{ from: 'metrics-server', to: hostile, exact: true }]);
    const [f] = analyzeSd(raw).findings.filter((x) => x.checkId === 'pod-unmovable-kube-system');
    const text = f.remediation!;
    const start = text.indexOf('apiVersion: policy/v1');
    const doc = text.slice(start).split('\n');
    const end = doc.findIndex((l, i) => i > 0 && !/^(\s|apiVersion|kind|metadata|spec)/.test(l));
    expect(parseYaml(doc.slice(0, end < 0 ? undefined : end).join('\n')).spec.selector.matchLabels).toEqual({ app: hostile });
  });
});
