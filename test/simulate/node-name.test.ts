import { describe, expect, it } from 'vitest';
import { NODE_NAME, nodeName, REASON_NODE_NAME } from '../../src/simulate/predicates/node-name.js';
import { nodeInfoFor } from '../../src/simulate/resources.js';
import { buildClusterView } from '../../src/simulate/scheduler.js';
import { node, pod } from '../builders/k8s.js';

const view = buildClusterView({ nodes: [], pods: [] });
const info = nodeInfoFor(node('ip-10-0-1-23.ec2.internal').build(), []);

describe('NodeName', () => {
  it('passes a pod without spec.nodeName', () => {
    expect(nodeName(pod().build(), info, view).code).toBe('Success');
  });

  it('passes the node the pod names', () => {
    expect(nodeName(pod().withNodeName('ip-10-0-1-23.ec2.internal').build(), info, view).code).toBe(
      'Success',
    );
  });

  it('rejects any other node with the scheduler reason', () => {
    const s = nodeName(pod().withNodeName('ip-10-0-9-9.ec2.internal').build(), info, view);
    expect(s).toMatchObject({
      plugin: NODE_NAME,
      code: 'UnschedulableAndUnresolvable',
      reasons: [REASON_NODE_NAME],
    });
    expect(REASON_NODE_NAME).toBe("node(s) didn't match the requested node name");
    expect(s.details).toEqual([
      'pod requests node ip-10-0-9-9.ec2.internal, this is ip-10-0-1-23.ec2.internal',
    ]);
  });
});
