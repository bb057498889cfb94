import { describe, expect, it } from 'vitest';
import {
  NODE_PORTS,
  nodePorts,
  podHostPorts,
  REASON_NODE_PORTS,
} from '../../src/simulate/predicates/node-ports.js';
import { nodeInfoFor } from '../../src/simulate/resources.js';
import { buildClusterView } from '../../src/simulate/scheduler.js';
import { node, pod } from '../builders/k8s.js';

const view = buildClusterView({ nodes: [], pods: [] });
const N = 'ip-10-0-1-23.ec2.internal';

function existing(port: number, opts: { protocol?: string; hostIP?: string } = {}) {
  return pod('node-exporter-x2k9p', 'monitoring')
    .withHostPort(port, opts)
    .ownedBy('DaemonSet', 'node-exporter')
    .onNode(N)
    .build();
}

describe('NodePorts', () => {
  const cases: Array<
    [string, { protocol?: string; hostIP?: string }, { protocol?: string; hostIP?: string }, boolean]
  > = [
    ['same port, both binding all addresses', {}, {}, true],
    ['same port, other protocol', { protocol: 'UDP' }, {}, false],
    ['a specific IP against an existing bind-all', { hostIP: '10.0.1.23' }, {}, true],
    ['bind-all against an existing specific IP', {}, { hostIP: '10.0.1.23' }, true],
    ['two different specific IPs', { hostIP: '10.0.1.23' }, { hostIP: '10.0.1.24' }, false],
    ['the same specific IP', { hostIP: '10.0.1.23' }, { hostIP: '10.0.1.23' }, true],
  ];
  it.each(cases)('%s conflicts: %s', (_name, wanted, used, conflict) => {
    const s = nodePorts(
      pod().withHostPort(9100, wanted).build(),
      nodeInfoFor(node(N).build(), [existing(9100, used)]),
      view,
    );
    expect(s.code).toBe(conflict ? 'Unschedulable' : 'Success');
    if (conflict) expect(s).toMatchObject({ plugin: NODE_PORTS, reasons: [REASON_NODE_PORTS] });
  });

  it('names the clashing pod in the details', () => {
    const s = nodePorts(
      pod().withHostPort(9100).build(),
      nodeInfoFor(node(N).build(), [existing(9100)]),
      view,
    );
    expect(REASON_NODE_PORTS).toBe("node(s) didn't have free ports for the requested pod ports");
    expect(s.details).toEqual([
      `host port TCP 0.0.0.0:9100 conflicts with TCP 0.0.0.0:9100 of pod monitoring/node-exporter-x2k9p on node ${N}`,
    ]);
  });

  it('passes another port', () => {
    expect(
      nodePorts(pod().withHostPort(8080).build(), nodeInfoFor(node(N).build(), [existing(9100)]), view).code,
    ).toBe('Success');
  });

  it('passes a pod without host ports, even on a node full of them', () => {
    expect(nodePorts(pod().build(), nodeInfoFor(node(N).build(), [existing(9100)]), view).code).toBe(
      'Success',
    );
  });

  it('defaults hostPort to containerPort for hostNetwork pods given as manifests', () => {
    const p = pod().withHostNetwork().withSpec({}).build();
    p.spec.containers[0].ports = [{ containerPort: 9100 }];
    expect(podHostPorts(p)).toEqual([{ protocol: 'TCP', hostIP: '0.0.0.0', port: 9100 }]);
    expect(nodePorts(p, nodeInfoFor(node(N).build(), [existing(9100)]), view).code).toBe('Unschedulable');
  });

  it('counts sidecar ports but not run-to-completion init container ports', () => {
    const p = pod()
      .withSidecar({ name: 'proxy', ports: [{ containerPort: 15090, hostPort: 15090, protocol: 'TCP' }] })
      .build();
    p.spec.initContainers!.push({
      name: 'setup',
      ports: [{ containerPort: 8081, hostPort: 8081, protocol: 'TCP' }],
    });
    expect(podHostPorts(p).map((x) => x.port)).toEqual([15090]);
  });
});
