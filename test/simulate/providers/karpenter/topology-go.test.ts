// casdoctor's Karpenter topology against Karpenter's own scheduler: test/fixtures/karpenter/topology/*.json were run
// through kubernetes-sigs/karpenter's scheduler (NewTopology, NewScheduler, Solve; fake cloud provider and client;
// 30 runs each, since equally good domains are picked at random) and decisions.json records what it decided, with the
// tag. This test holds casdoctor's verdicts, errors, packing and random picks to those decisions.
import { readFileSync } from 'node:fs';
import { describe, expect, it } from 'vitest';
import type { Node, Pod } from '../../../../src/model/k8s.js';
import { DEFAULT_KARPENTER_FEATURE_GATES, type EC2NodeClass, type NodePool } from '../../../../src/model/karpenter.js';
import { buildInstanceTypeTable, type StaticInstanceTypeData } from '../../../../src/simulate/instance-types.js';
import { explainKarpenterPending, type KarpenterPlacementContext } from '../../../../src/simulate/providers/karpenter/placement.js';

interface Decision {
  outcome: 'new-node' | 'no-node';
  /** The NodePool of the pod's new NodeClaim. */
  nodePool?: string;
  /** Zones Karpenter's NodeClaim for the pod was pinned to, over all runs. */
  zones?: string[];
  error?: string;
  /** The pods that shared the pod's NodeClaim (always the same over all runs). */
  with?: string[];
}
interface Decisions {
  karpenter: string;
  how: string;
  /** Keyed by fixture file, or "file@core-version" for a fixture run on another Karpenter tag. */
  fixtures: Record<string, { version: string; pods: Record<string, Decision> }>;
}

const dir = new URL('../../../fixtures/karpenter/topology/', import.meta.url);
const decisions = JSON.parse(readFileSync(new URL('decisions.json', dir), 'utf8')) as Decisions;
const data = JSON.parse(readFileSync(new URL('../../../../data/instance-types.json', import.meta.url), 'utf8')) as StaticInstanceTypeData;
const table = buildInstanceTypeTable(
  { staticListLastUpdateTime: data.staticListLastUpdateTime, instanceTypes: Object.fromEntries(['m5.large', 'm5.xlarge'].map((n) => [n, data.instanceTypes[n]])) },
  [],
  { flags: { awsUseStaticInstanceList: { value: true, origin: 'default', supported: true } } } as never,
);

function load(name: string, version: string): { ctx: KarpenterPlacementContext; pending: Pod[] } {
  const list = JSON.parse(readFileSync(new URL(`${name}.json`, dir), 'utf8')) as { metadata: { annotations: Record<string, string> }; items: Array<{ kind: string }> };
  const of = <T>(kind: string): T[] => list.items.filter((i) => i.kind === kind) as T[];
  const pods = of<Pod>('Pod');
  const names = list.metadata.annotations['casdoctor.test/pending'].split(',');
  const ctx: KarpenterPlacementContext = {
    nodePools: of<NodePool>('NodePool'),
    nodeClasses: of<EC2NodeClass>('EC2NodeClass'),
    nodeClaims: [],
    nodes: of<Node>('Node'),
    daemonSets: [],
    pods,
    instanceTypes: table,
    settings: { env: {}, vmMemoryOverheadPercent: 0.075, reservedENIs: 0, featureGates: { ...DEFAULT_KARPENTER_FEATURE_GATES }, version },
    now: new Date('2026-11-24T10:20:00Z'),
  };
  return { ctx, pending: pods.filter((p) => names.includes(p.metadata.name ?? '')) };
}

describe(`Karpenter's topology decisions (${decisions.karpenter})`, () => {
  for (const [name, fx] of Object.entries(decisions.fixtures)) {
    it(name, () => {
      const { ctx, pending } = load(name.split('@')[0], fx.version);
      let packedPods = 0;
      for (const p of pending) {
        const want = fx.pods[p.metadata.name ?? ''];
        const x = explainKarpenterPending(p, ctx);
        expect({ pod: p.metadata.name, outcome: x.outcome }).toEqual({ pod: p.metadata.name, outcome: want.outcome });
        if (want.nodePool) expect(x.chosen).toBe(want.nodePool);
        const general = x.pools.find((pl) => pl.nodePool === 'general');
        // Karpenter's pod error is every NodePool's error joined with "; " (the FailedScheduling event without its prefix)
        if (want.error) expect(x.event).toBe(`Failed to schedule pod, ${want.error}`);
        const packed = x.notes.find((n) => n.startsWith('Karpenter packs this pod'));
        // a pod Karpenter put with pods placed before it is packed into their NodeClaim; one alone never is
        if (want.with && want.with.length > 0) {
          if (packed) packedPods++;
          expect(packed === undefined || want.with.some((o) => packed.includes(`shop/${o}`))).toBe(true);
        } else expect(packed).toBeUndefined();
        // several zones over Karpenter's runs: casdoctor names the random pick among exactly them
        if (want.zones && want.zones.length > 1) expect(general?.notes.join(' ')).toContain(`Karpenter picks one of ${want.zones.join(', ')} `);
      }
      // one NodeClaim per group of pods Karpenter put together: all but the first of each group are packed
      const groups = new Set(Object.entries(fx.pods).filter(([, d]) => d.outcome === 'new-node').map(([n, d]) => [n, ...(d.with ?? [])].sort().join(',')));
      const newNodePods = Object.values(fx.pods).filter((d) => d.outcome === 'new-node').length;
      expect(packedPods).toBe(newNodePods - groups.size);
    });
  }
});
