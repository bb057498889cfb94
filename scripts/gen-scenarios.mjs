#!/usr/bin/env node
// Writes the scenario folders of test/scenarios/ from the demo dump: each scenario is the demo plus the dump files
// it changes (realistic, in the exact shapes kubectl and aws print) and a scenario.json with the command's expected
// verdicts. Deterministic; rerun after regenerating the demo: node scripts/gen-scenarios.mjs
import { mkdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';

const root = join(dirname(fileURLToPath(import.meta.url)), '..');
const demo = join(root, 'examples', 'demo');
const out = join(root, 'test', 'scenarios');
const read = (f) => JSON.parse(readFileSync(join(demo, f), 'utf8'));
const NOW = '2026-11-21T10:00:00Z';

function scenario(name, spec, files = {}) {
  const dir = join(out, name);
  rmSync(dir, { recursive: true, force: true });
  mkdirSync(dir, { recursive: true });
  writeFileSync(
    join(dir, 'scenario.json'),
    `${JSON.stringify({ base: 'examples/demo', ...spec }, null, 2)}\n`,
  );
  for (const [f, v] of Object.entries(files)) writeFileSync(join(dir, f), `${JSON.stringify(v, null, 4)}\n`);
}

const asgs = () => read('asgs.json');
const group = (doc, name) => doc.AutoScalingGroups.find((g) => g.AutoScalingGroupName === name);

// 1. Launch suspended on the one group the api pod fits: CA would raise DesiredCapacity, AWS launches nothing.
{
  const doc = asgs();
  group(doc, 'demo-general').SuspendedProcesses = [
    { ProcessName: 'Launch', SuspensionReason: 'User suspended at 2026-11-21T08:30:12Z' },
  ];
  scenario(
    'launch-suspended',
    {
      description:
        "demo-general's Launch process is suspended: the api pod fits it but no instance would come.",
      args: ['why-pending', '--all', '-n', 'web', '--now', NOW],
      exitCode: 1,
      pods: { 'web/api-': 'no-scale-up', 'web/frontend-': 'no-scale-up' },
      findings: [{ checkId: 'node-group-launch-suspended', subject: 'AutoScalingGroup/demo-general' }],
    },
    { 'asgs.json': doc },
  );
}

// 2. CA scaled demo-general up 25 minutes ago; AWS launched the instance; its kubelet never registered.
{
  const doc = asgs();
  const g = group(doc, 'demo-general');
  g.DesiredCapacity = 5;
  g.Instances.push({
    ...g.Instances[0],
    InstanceId: 'i-0f3c9a7d2b6e18450',
    LaunchTemplate: { ...g.Instances[0].LaunchTemplate },
  });
  const acts = read('scaling-activities.json');
  acts.Activities.unshift({
    ActivityId: '7c1e9d2a-4b3f-4e6a-9c8d-2f1a0b3c4d5e',
    AutoScalingGroupName: 'demo-general',
    Description: 'Launching a new EC2 instance: i-0f3c9a7d2b6e18450',
    Cause:
      'At 2026-11-21T09:34:41Z a user request update of AutoScalingGroup constraints to min: 2, max: 10, desired: 5 changing the desired capacity from 4 to 5.  At 2026-11-21T09:34:49Z an instance was started in response to a difference between desired and actual capacity, increasing the capacity from 4 to 5.',
    StartTime: '2026-11-21T09:34:51.112000+00:00',
    EndTime: '2026-11-21T09:35:23+00:00',
    StatusCode: 'Successful',
    Progress: 100,
    Details: '{"Subnet ID":"subnet-0a1b3c5d7e9f1a201","Availability Zone":"us-east-1a"}',
    AutoScalingGroupARN: g.AutoScalingGroupARN,
  });
  scenario(
    'scale-up-no-node-registered',
    {
      description:
        'demo-general was scaled to 5 at 09:34; the new instance is InService but no Node carries its providerID.',
      args: ['why-pending', '--all', '--now', NOW],
      exitCode: 1,
      pods: { 'web/api-': 'scale-up' },
      findings: [
        {
          checkId: 'node-group-instance-not-registered',
          subject: 'AutoScalingGroup/demo-general',
          messageIncludes: 'i-0f3c9a7d2b6e18450 (24m37s ago)',
        },
      ],
    },
    { 'asgs.json': doc, 'scaling-activities.json': acts },
  );
}

// 3. --max-nodes-total reached: CA adds no node at all.
scenario('max-nodes-total', {
  description: '--max-nodes-total=11 with 11 ready nodes: every group is skipped.',
  args: ['why-pending', '--all', '--now', NOW, '--ca-args', '--max-nodes-total=11'],
  exitCode: 1,
  pods: { 'web/api-': 'no-scale-up' },
  findings: [
    {
      checkId: 'cluster-scale-up-limit',
      subject: 'Cluster/cluster',
      caReason: 'max total nodes in cluster reached',
    },
  ],
});

// 4. demo-general in backoff after a capacity failure, as CA's status ConfigMap reports it.
{
  const cm = read('configmaps-kube-system.json');
  const status = cm.data.status;
  const at = status.indexOf('- name: demo-general');
  const i = status.indexOf('  scaleUp:\n    status: NoActivity', at);
  cm.data.status = `${status.slice(0, i)}  scaleUp:\n    status: Backoff\n    backoffInfo:\n      errorCode: placeholder-cannot-be-fulfilled\n      errorMessage: AWS cannot provision any more instances for this node group${status.slice(i + '  scaleUp:\n    status: NoActivity'.length)}`;
  scenario(
    'group-backoff',
    {
      description: "CA's status ConfigMap shows demo-general in Backoff (placeholder-cannot-be-fulfilled).",
      args: ['why-pending', '--all', '-n', 'web', '--now', NOW],
      exitCode: 1,
      pods: { 'web/api-': 'no-scale-up' },
      findings: [
        {
          checkId: 'node-group-backoff',
          subject: 'AutoScalingGroup/demo-general',
          caReason: 'in backoff after failed scale-up',
        },
      ],
    },
    { 'configmaps-kube-system.json': cm },
  );
}

// 5. The batch launch template moved to an instance type CA's table does not know: no template, "not ready for scale-up".
{
  const lts = read('launch-template-versions.json');
  for (const v of lts.LaunchTemplateVersions)
    if (v.LaunchTemplateName === 'demo-batch') v.LaunchTemplateData.InstanceType = 'c9z.2xlarge';
  scenario(
    'unknown-instance-type',
    {
      description: "demo-batch's launch template names c9z.2xlarge, which CA's instance-type list lacks.",
      args: ['why-pending', '--all', '-n', 'batch', '--now', NOW],
      exitCode: 1,
      pods: { 'batch/report-builder-': 'no-scale-up' },
      findings: [
        {
          checkId: 'node-group-no-template',
          subject: 'AutoScalingGroup/demo-batch',
          messageIncludes: 'c9z.2xlarge',
        },
      ],
    },
    { 'launch-template-versions.json': lts },
  );
}

// 6. No CA Deployment in the dump (e.g. CA runs outside the cluster): defaults, nothing discovered.
{
  const deps = read('deployments.json');
  deps.items = deps.items.filter(
    (d) => !JSON.stringify(d.spec.template.spec.containers).includes('cluster-autoscaler'),
  );
  scenario(
    'no-ca-deployment',
    {
      description:
        'No cluster-autoscaler Deployment: casdoctor assumes defaults, under which no ASG is discovered.',
      args: ['why-pending', '--all', '-n', 'web', '--now', NOW],
      exitCode: 1,
      pods: { 'web/api-': 'no-scale-up' },
      findings: [
        { checkId: 'ca-deployment-not-found', subject: 'Deployment/cluster-autoscaler' },
        { checkId: 'node-group-not-discovered', subject: 'AutoScalingGroup/demo-general' },
      ],
    },
    { 'deployments.json': deps },
  );
}

// 7. The same dump read an hour later: CA's status ConfigMap is stale.
scenario('stale-status', {
  description: 'Read at 11:00, the status ConfigMap written at 09:59:52 is an hour old.',
  args: ['why-pending', '--all', '-n', 'web', '--now', '2026-11-21T11:00:00Z'],
  exitCode: 1,
  pods: { 'web/api-': 'scale-up' },
  findings: [
    { checkId: 'ca-status-stale', subject: 'ConfigMap/cluster-autoscaler-status', messageIncludes: '1h' },
  ],
});

console.error(`wrote scenarios to ${out}`);
