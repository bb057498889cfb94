// Generator of examples/demo/cluster-autoscaler.log: `kubectl logs -n kube-system deploy/cluster-autoscaler --since=2m` at
// 2026-11-21T10:00:00Z for examples/demo (CA v1.32.1, --v=4). Deterministic.
// Usage: node scripts/gen-demo-ca-log.mjs [out] (default examples/demo/cluster-autoscaler.log)
import { writeFileSync } from 'node:fs';
const pad = (n, w) => String(n).padStart(w, '0');
const T0 = Date.UTC(2026, 10, 21, 9, 58, 2) + 118; // first loop in the window; loops at hh:mm:x2.118 (status ConfigMap)
const hdr = (lvl, ms, file) => {
  const d = new Date(Math.floor(ms));
  const us = pad(d.getUTCMilliseconds() * 1000 + Math.round((ms % 1) * 1000), 6);
  return `${lvl}${pad(d.getUTCMonth() + 1, 2)}${pad(d.getUTCDate(), 2)} ${pad(d.getUTCHours(), 2)}:${pad(d.getUTCMinutes(), 2)}:${pad(d.getUTCSeconds(), 2)}.${us}       1 ${file}] `;
};
let seed = 1121;
const rnd = () => ((seed = (seed * 1103515245 + 12345) % 2147483648) / 2147483648);
const START_MS = Date.UTC(2026, 10, 20, 16, 42, 9) + 412; // process start (the pod restarted at 16:42:07)
const mono = (ms) => `m=+${((ms - START_MS) / 1000).toFixed(9)}`;
const goTime = (ms, nanos = '000') => {
  const d = new Date(ms);
  return `${d.toISOString().slice(0, 10)} ${d.toISOString().slice(11, 23)}${nanos} +0000 UTC`;
};
const TEMPLATE = { 'demo-batch': 4037200794235010051n, 'demo-databases': 6129484611666145821n, 'demo-general': 5577006791947779410n, 'demo-gpu': 8674665223082153551n, 'demo-stateful': 3916589616287113937n };
const TAINTS = {
  'demo-databases': '[]v1.Taint{v1.Taint{Key:"dedicated", Value:"databases", Effect:"NoSchedule", TimeAdded:<nil>}}',
  'demo-gpu': '[]v1.Taint{v1.Taint{Key:"nvidia.com/gpu", Value:"true", Effect:"NoSchedule", TimeAdded:<nil>}}',
};
const SEL = ['NodeAffinity', "node(s) didn't match Pod's node affinity/selector"];
const DB = ['TaintToleration', 'node(s) had untolerated taint {dedicated: databases}'];
const GPU = ['TaintToleration', 'node(s) had untolerated taint {nvidia.com/gpu: true}'];
const CPUMEM = ['NodeResourcesFit', 'Insufficient cpu, Insufficient memory'];
// casdoctor's per-group verdicts (why-pending --all -o json), which CA's log agrees with
const PODS = [
  { pod: 'analytics/spark-driver-4bqs8k75dw-zkjbk', g: { 'demo-batch': CPUMEM, 'demo-databases': DB, 'demo-general': CPUMEM, 'demo-gpu': GPU, 'demo-stateful': CPUMEM } },
  { pod: 'batch/report-builder-rcn64q4v2c-rgnzf', g: { 'demo-batch': SEL, 'demo-databases': DB, 'demo-general': SEL, 'demo-gpu': GPU, 'demo-stateful': SEL } },
  { pod: 'databases/orders-pg-0', g: { 'demo-batch': SEL, 'demo-databases': DB, 'demo-general': SEL, 'demo-gpu': GPU, 'demo-stateful': SEL } },
  { pod: 'ml/inference-dq6zpx2jv2-6v8wc', g: { 'demo-batch': SEL, 'demo-databases': DB, 'demo-general': SEL, 'demo-gpu': ['NodeResourcesFit', 'Insufficient nvidia.com/gpu'], 'demo-stateful': SEL } },
  { pod: 'payments/ledger-db-0', g: { 'demo-batch': SEL, 'demo-databases': DB, 'demo-general': SEL, 'demo-gpu': GPU, 'demo-stateful': ['VolumeBinding', 'node(s) had volume node affinity conflict'] } },
  { pod: 'web/frontend-ndxrt2l4f-w4dtv', g: { 'demo-batch': SEL, 'demo-databases': DB, 'demo-general': SEL, 'demo-gpu': GPU, 'demo-stateful': SEL } },
];
const FORBIDDEN = 'volumeattachments.storage.k8s.io is forbidden: User "system:serviceaccount:kube-system:cluster-autoscaler" cannot list resource "volumeattachments" in API group "storage.k8s.io" at the cluster scope';
const REFLECTOR = 'pkg/mod/k8s.io/client-go@v0.32.3/tools/cache/reflector.go:251';
const reflectorAt = [Date.UTC(2026, 10, 21, 9, 58, 6) + 812.204, Date.UTC(2026, 10, 21, 9, 59, 1) + 571.339, Date.UTC(2026, 10, 21, 9, 59, 56) + 120.887];
const lines = []; // [ms, text]
const add = (ms, lvl, file, msg) => lines.push([ms, hdr(lvl, ms, file) + msg]);
for (const at of reflectorAt) {
  add(at, 'I', 'reflector.go:349', `Listing and watching *v1.VolumeAttachment from ${REFLECTOR}`);
  add(at + 3.717, 'W', 'reflector.go:569', `${REFLECTOR}: failed to list *v1.VolumeAttachment: ${FORBIDDEN}`);
  add(at + 3.881, 'E', 'reflector.go:166', `"Unhandled Error" err="${REFLECTOR}: Failed to watch *v1.VolumeAttachment: failed to list *v1.VolumeAttachment: ${FORBIDDEN.replaceAll('"', '\\"')}" logger="UnhandledError"`);
}
for (let loop = 0; loop < 12; loop++) {
  const start = T0 + loop * 10_000 + 0.246;
  let t = start + 0.05;
  const at = () => (t += 0.02 + rnd() * 0.35);
  add(t, 'I', 'static_autoscaler.go:274', 'Starting main loop');
  if (loop % 6 === 0) {
    // the AWS provider's 1-minute refresh
    t += 1.2;
    add(at(), 'I', 'auto_scaling_groups.go:428', 'Regenerating instance to ASG map for ASG names: []');
    add(at(), 'I', 'auto_scaling_groups.go:435', 'Regenerating instance to ASG map for ASG tags: map[k8s.io/cluster-autoscaler/demo: k8s.io/cluster-autoscaler/enabled:]');
    t += 95 + rnd() * 20;
    add(at(), 'I', 'aws_manager.go:132', `Refreshed ASG list, next refresh after ${goTime(start + 60_000, '246319')} ${mono(start + 60_000)}`);
  }
  t += 2 + rnd() * 3;
  add(at(), 'I', 'filter_out_schedulable.go:65', 'Filtering out schedulables');
  add(at(), 'I', 'filter_out_schedulable.go:122', '0 pods marked as unschedulable can be scheduled.');
  add(at(), 'I', 'filter_out_schedulable.go:85', 'No schedulable pods');
  add(at(), 'I', 'filter_out_daemon_sets.go:47', 'Filtered out 0 daemon set pods, 6 unschedulable pods left');
  // overprovisioning/pause-97khkfvfc9-r77mb (priority -20) was dropped as expendable before this point: CA logs nothing for it
  for (const p of PODS) add(at(), 'I', 'klogx.go:87', `Pod ${p.pod} is unschedulable`);
  add(at(), 'I', 'orchestrator.go:110', 'Upcoming 0 nodes');
  add(at(), 'I', 'orchestrator.go:413', 'Skipping node group demo-spot - max size reached');
  for (const g of ['demo-batch', 'demo-databases', 'demo-general', 'demo-gpu', 'demo-stateful']) {
    t += 0.4 + rnd();
    for (const p of PODS) {
      const [plugin, reasons] = p.g[g];
      const debug = `nodeName: "template-node-for-${g}-${TEMPLATE[g]}"${TAINTS[g] && plugin === 'TaintToleration' ? `, nodeTaints: ${TAINTS[g]}` : ''}`;
      add(at(), 'I', 'orchestrator.go:588', `Pod ${p.pod} can't be scheduled on ${g}, predicate checking error: can't schedule pod ${p.pod}: predicate "${plugin}" didn't pass (predicateReasons=[${reasons}]; debugInfo=${debug})`);
    }
    add(at(), 'I', 'orchestrator.go:152', `No pod can fit to ${g}`);
  }
  add(at(), 'I', 'orchestrator.go:168', 'No expansion options');
  t += 3 + rnd() * 2;
  add(at(), 'I', 'static_autoscaler.go:555', 'Calculating unneeded nodes');
  add(at(), 'I', 'pre_filtering_processor.go:67', 'Skipping ip-10-0-41-17.ec2.internal - node group min size reached (current: 1, min: 1)');
  // every node CA may remove was found unremovable at 09:53:12 (recheck at 09:58:12), ip-10-0-27-211 at 09:54:32 (its 10 minutes after scale-up ended 09:24 but it was busy)
  const recheck = loop === 1 ? 8 : loop === 9 ? 1 : 0;
  const ignoring = 9 - recheck;
  add(at(), 'I', 'eligibility.go:104', `Scale-down calculation: ignoring ${ignoring} nodes unremovable in the last 5m0s`);
  if (loop === 1) {
    add(at(), 'I', 'eligibility.go:119', 'Skipping ip-10-0-9-58.ec2.internal from delete consideration - the node is marked as no scale down');
    add(at(), 'I', 'eligibility.go:163', 'Node ip-10-0-18-203.ec2.internal unremovable: memory requested (89.7725% of allocatable) is above the scale-down utilization threshold');
    const sim = [
      ['ip-10-0-11-142.ec2.internal', 'cannot be removed: non-daemonset, non-mirrored, non-pdb-assigned kube-system pod present: cluster-autoscaler-8kg94h6kv-htgq4'],
      ['ip-10-0-14-37.ec2.internal', 'cannot be removed: pod with local storage present: ebs-csi-controller-8plt9bnsp-6l7ws'],
      // THE DISAGREEMENT: CA met payments-api first on this node (its pod order is the informer's, i.e. random);
      // casdoctor names analytics/backfill-2026-11-20-8wcwc (ControllerNotFound) as CA's first blocking pod
      ['ip-10-0-22-96.ec2.internal', 'cannot be removed: not enough pod disruption budget to move payments/payments-api-q29mn9t57-xbkgx'],
      ['ip-10-0-29-12.ec2.internal', 'is not suitable for removal: can reschedule only 0 out of 1 pods'],
      ['ip-10-0-45-120.ec2.internal', 'is not suitable for removal: can reschedule only 0 out of 1 pods'],
      ['ip-10-0-6-88.ec2.internal', 'is not suitable for removal: can reschedule only 0 out of 1 pods'],
    ];
    for (const [n, why] of sim) {
      add(at(), 'I', 'cluster.go:155', `Simulating node ${n} removal`);
      add(at(), 'I', why.startsWith('cannot') ? 'cluster.go:159' : 'cluster.go:170', `node ${n} ${why}`);
    }
    add(at(), 'I', 'planner.go:305', `6 nodes found to be unremovable in simulation, will re-check them at ${goTime(start + 300_000, '246319')} ${mono(start + 300_000)}`);
  }
  if (loop === 9) {
    add(at(), 'I', 'cluster.go:155', 'Simulating node ip-10-0-27-211.ec2.internal removal');
    add(at(), 'I', 'cluster.go:159', 'node ip-10-0-27-211.ec2.internal cannot be removed: non-daemonset, non-mirrored, non-pdb-assigned kube-system pod present: aws-load-balancer-controller-gfcgndwhc7-gq9ll');
    add(at(), 'I', 'planner.go:305', `1 nodes found to be unremovable in simulation, will re-check them at ${goTime(start + 300_000, '246319')} ${mono(start + 300_000)}`);
  }
  const lastUp = Date.UTC(2026, 10, 21, 9, 11, 52) + 204.117;
  add(at(), 'I', 'static_autoscaler.go:598', `Scale down status: lastScaleUpTime=${goTime(lastUp, '117281')} ${mono(lastUp)} lastScaleDownDeleteTime=${goTime(START_MS - 3_600_000, '377')} m=-3599.999999981 lastScaleDownFailTime=${goTime(START_MS - 3_600_000, '377')} m=-3599.999999981 scaleDownForbidden=false scaleDownInCooldown=false`);
  add(at(), 'I', 'static_autoscaler.go:619', 'Starting scale down');
}
lines.sort((a, b) => a[0] - b[0]);
writeFileSync(process.argv[2] ?? new URL('../examples/demo/cluster-autoscaler.log', import.meta.url), `${lines.map((l) => l[1]).join('\n')}\n`);
