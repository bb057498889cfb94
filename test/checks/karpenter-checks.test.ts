// Each karpenter-* check on examples/karpenter (a mixed CA + Karpenter cluster as kubectl and aws print it), once where
// it fires and once, with the one object changed that removes the cause, where it must not; plus the skipped outcome.
import { join } from 'node:path';
import { beforeAll, describe, expect, it } from 'vitest';
import { runChecks } from '../../src/checks/lib/engine.js';
import { CHECKS } from '../../src/checks/index.js';
import type { CommandName } from '../../src/checks/define-check.js';
import { loadOffline } from '../../src/gather/offline.js';
import type { Pod } from '../../src/model/k8s.js';
import type { RawInputs } from '../../src/model/snapshot.js';
import { Analysis } from '../../src/simulate/analysis.js';
import { isPendingCandidate } from '../../src/model/k8s.js';
import { STATIC_TYPES } from './harness.js';
import { karpenterDisruptionContext } from '../../src/checks/lib/karpenter.js';
import { karpenterDisruptionReport } from '../../src/simulate/providers/karpenter/disruption.js';

const EXAMPLE = join(import.meta.dirname, '..', '..', 'examples', 'karpenter');
const NOW = new Date('2026-11-24T14:00:00Z');
let example: RawInputs;

beforeAll(async () => {
  example = await loadOffline([EXAMPLE]);
}, 60_000);

/** A fresh copy of the example to change one object in. */
function raw(change: (r: RawInputs) => void = () => {}): RawInputs {
  const r = structuredClone(example);
  change(r);
  return r;
}

function run(r: RawInputs, command: CommandName, now = NOW) {
  const analysis = new Analysis(r, { now, staticInstanceTypes: STATIC_TYPES, podScope: isPendingCandidate });
  return runChecks(CHECKS, analysis, command);
}

function fired(r: RawInputs, id: string, command: CommandName = 'why-pending', now = NOW) {
  return run(r, command, now).findings.filter((f) => f.checkId === id);
}

const podNamed = (r: RawInputs, prefix: string): Pod => r.pods.find((p) => p.metadata.name?.startsWith(`${prefix}-`))!;

describe('karpenter-pod-unplaceable', () => {
  it('fires for each pod Karpenter tries that no NodePool fits, naming the stage per pool', () => {
    const f = fired(raw(), 'karpenter-pod-unplaceable');
    expect(f.map((x) => x.subject.name.replace(/-[a-z0-9]+-[a-z0-9]+$/, '')).sort()).toEqual(['embedder', 'fraud-scorer', 'spark-exec-adhoc']);
    const embedder = f.find((x) => x.subject.name.startsWith('embedder-'))!;
    expect(embedder.message).toContain('general: instance types (no instance type has enough resources');
    expect(embedder.message).toContain('gpu: skipped (NodePool not ready)');
    expect(embedder.message).toContain('batch: resource limits (all available instance types exceed limits for nodepool (NodePool=batch))');
  });

  it('does not fire once the batch pool has room for the executor that selects it', () => {
    const r = raw((x) => {
      x.nodePools.find((np) => np.metadata.name === 'batch')!.spec.limits = { cpu: '1000' };
    });
    expect(fired(r, 'karpenter-pod-unplaceable').map((f) => f.subject.name).filter((n) => n.startsWith('spark-exec-adhoc-'))).toEqual([]);
  });
});

describe('karpenter-custom-label-unknown', () => {
  it('fires for the pod selecting shop.example.com/team, naming the pool', () => {
    const f = fired(raw(), 'karpenter-custom-label-unknown');
    expect(f).toHaveLength(1);
    expect(f[0].message).toMatch(/selects custom label shop\.example\.com\/team, which NodePool\(s\) general neither list/);
    expect(f[0].remediation).toContain('"shop.example.com/team":"search"');
  });

  it('does not fire when the general pool sets the label on its nodes', () => {
    const r = raw((x) => {
      const np = x.nodePools.find((n) => n.metadata.name === 'general')!;
      np.spec.template.metadata = { labels: { ...np.spec.template.metadata?.labels, 'shop.example.com/team': 'search' } };
    });
    expect(fired(r, 'karpenter-custom-label-unknown')).toEqual([]);
  });
});

describe('karpenter-nodeclass-not-ready', () => {
  it('fires for the gpu EC2NodeClass whose AMI selector matches nothing', () => {
    const f = fired(raw(), 'karpenter-nodeclass-not-ready');
    expect(f.map((x) => [x.subject.kind, x.subject.name, x.severity])).toEqual([['EC2NodeClass', 'gpu', 'error']]);
    expect(f[0].message).toContain('AMIsReady=False AMINotFound: AMISelector did not match any AMIs');
  });

  it('does not fire when every condition of the class is True', () => {
    const r = raw((x) => {
      for (const c of x.ec2NodeClasses.find((n) => n.metadata.name === 'gpu')!.status!.conditions!) c.status = 'True';
    });
    expect(fired(r, 'karpenter-nodeclass-not-ready')).toEqual([]);
  });
});

describe('karpenter-nodeclaim-not-registered', () => {
  it('fires for general-x7k2p, launched 13m ago, with the minutes left of the 15m TTL', () => {
    const f = fired(raw(), 'karpenter-nodeclaim-not-registered');
    expect(f.map((x) => [x.subject.name, x.severity])).toEqual([['general-x7k2p', 'warning']]);
    expect(f[0].message).toBe('NodeClaim general-x7k2p of NodePool general launched 13m ago, but its Node never registered; Karpenter deletes it 15m after it was created (2m left) and launches another.');
  });

  it('is an error once past the registration timeout', () => {
    const f = fired(raw(), 'karpenter-nodeclaim-not-registered', 'why-pending', new Date('2026-11-24T14:05:00Z'));
    expect(f.map((x) => x.severity)).toEqual(['error']);
  });

  it('does not fire once the NodeClaim registered', () => {
    const r = raw((x) => {
      for (const c of x.nodeClaims.find((n) => n.metadata.name === 'general-x7k2p')!.status!.conditions!) c.status = 'True';
    });
    expect(fired(r, 'karpenter-nodeclaim-not-registered')).toEqual([]);
  });
});

describe('karpenter-nodepool-limits-exhausted', () => {
  it('fires for batch, naming the Pending pods its requirements admit', () => {
    const f = fired(raw(), 'karpenter-nodepool-limits-exhausted');
    expect(f.map((x) => x.subject.name)).toEqual(['batch']);
    expect(f[0].message).toContain('(cpu 0 left of cpu 32)');
    expect(f[0].message).toContain('analytics/spark-exec-adhoc-');
    // the pod selecting a label batch does not define is not one batch could take
    expect(f[0].message).not.toContain('search-indexer');
  });

  it('names only the pods raising the limit would place, with the value, and the others with what still stops them (issue 24 item 4)', () => {
    const f = fired(raw(), 'karpenter-nodepool-limits-exhausted')[0];
    // spark (7 cpu) needs an 8-vCPU type: 32 used + 8; fraud-scorer is pinned to us-east-1c, embedder needs a GPU
    expect(f.message).toMatch(/the limit is what stops 1 Pending pod\(s\), which the pool would otherwise take \(analytics\/spark-exec-adhoc-\S+\); raise limits\.cpu to at least 40, or free capacity\.$/);
    expect(f.message).not.toContain('fraud-scorer');
    expect(f.message).not.toContain('embedder');
    const others = f.evidence.filter((e) => e.source.startsWith('Pod ')).map((e) => `${e.source} ${e.observed}`);
    expect(others.find((o) => o.includes('fraud-scorer'))).toContain('would still reject it at instance types: no instance type met the scheduling requirements or had a required offering');
    expect(others.find((o) => o.includes('embedder'))).toContain('would still reject it at instance types: no instance type has enough resources');
    expect(f.remediation).toContain(`kubectl patch nodepool batch --type merge -p '{"spec":{"limits":{"cpu":"40"}}}'`);
  });

  it('does not fire when raising the limit would place none of the pods', () => {
    const r = raw((x) => {
      x.pods = x.pods.filter((p) => !p.metadata.name?.startsWith('spark-exec-adhoc-'));
    });
    expect(fired(r, 'karpenter-nodepool-limits-exhausted')).toEqual([]);
  });

  it('does not fire when batch has room', () => {
    const r = raw((x) => {
      x.nodePools.find((np) => np.metadata.name === 'batch')!.spec.limits = { cpu: '1000' };
    });
    expect(fired(r, 'karpenter-nodepool-limits-exhausted')).toEqual([]);
  });
});

describe('karpenter-pod-served-by-both', () => {
  it('fires for the pod a CA group and the general NodePool both fit', () => {
    const f = fired(raw(), 'karpenter-pod-served-by-both');
    expect(f).toHaveLength(1);
    expect(f[0].message).toMatch(/^Pod web\/image-resizer-\S+ can be placed by CA node group\(s\) shop-prod-legacy and by NodePool\(s\) general/);
  });

  it('does not fire once the pod opts out of Karpenter', () => {
    const r = raw((x) => {
      podNamed(x, 'image-resizer').spec.affinity = {
        nodeAffinity: { requiredDuringSchedulingIgnoredDuringExecution: { nodeSelectorTerms: [{ matchExpressions: [{ key: 'karpenter.sh/nodepool', operator: 'DoesNotExist' }] }] } },
      };
    });
    expect(fired(r, 'karpenter-pod-served-by-both')).toEqual([]);
  });
});

describe('karpenter-pod-served-by-neither', () => {
  it('fires for the pod left to CA that no ASG instance type holds', () => {
    const f = fired(raw(), 'karpenter-pod-served-by-neither');
    expect(f.map((x) => x.subject.name.split('-').slice(0, 2).join('-'))).toEqual(['pdf-archiver']);
    expect(f[0].message).toContain('configured to not run on a Karpenter provisioned node');
    expect(f[0].message).toContain('shop-prod-legacy: Insufficient cpu');
  });

  it('does not fire for the CA-routed pod CA scales up for', () => {
    expect(fired(raw(), 'karpenter-pod-served-by-neither').some((f) => f.subject.name.startsWith('report-gen-'))).toBe(false);
  });
});

describe('karpenter-node-disruption-blocked', () => {
  it('fires for the node annotated do-not-disrupt and the nodes held by the payments PDB', () => {
    const f = fired(raw(), 'karpenter-node-disruption-blocked', 'scale-down-blockers');
    const byNode = Object.fromEntries(f.map((x) => [x.subject.name, x.message]));
    expect(byNode['ip-10-20-11-66.ec2.internal']).toBe('Node ip-10-20-11-66.ec2.internal of NodePool batch stays: disruption is blocked through the "karpenter.sh/do-not-disrupt" annotation.');
    // the example runs Karpenter 1.6.2 (core 1.6.1): one PDB, no brackets (statenode.go:247@v1.6.2); the list form is v1.7+
    expect(byNode['ip-10-20-11-203.ec2.internal']).toContain('pdb prevents pod evictions (PodDisruptionBudget=checkout/payments-api)');
  });

  it('does not fire for the node once its annotation is gone', () => {
    const r = raw((x) => {
      const n = x.nodes.find((m) => m.metadata.name === 'ip-10-20-11-66.ec2.internal')!;
      delete n.metadata.annotations!['karpenter.sh/do-not-disrupt'];
    });
    expect(fired(r, 'karpenter-node-disruption-blocked', 'scale-down-blockers').some((f) => f.subject.name === 'ip-10-20-11-66.ec2.internal')).toBe(false);
  });
});

describe('karpenter-budget-blocks-disruption', () => {
  it('fires at 14:00 on a Tuesday, inside the business-hours window of the general pool', () => {
    const f = fired(raw(), 'karpenter-budget-blocks-disruption', 'scale-down-blockers');
    expect(f.map((x) => x.subject.name)).toEqual(['general']);
    // only ip-10-20-12-77 is a candidate: 141 (do-not-disrupt pod) and 203 (PDB) never reach the budget (helpers.go:225-273@v1.6.2)
    expect(f[0].message).toBe('NodePool general allows 0 Underutilized disruptions now (active since 2026-11-24T09:00:00Z until 2026-11-24T17:00:00Z); Karpenter keeps 1 node(s) it would otherwise consolidate.');
    expect(f[0].evidence.find((e) => e.source === 'nodes held')?.observed).toBe('ip-10-20-12-77.ec2.internal');
  });

  it('publishes one event per node, for the first blocker only, and no budget or spot-to-spot on nodes that are no candidates', () => {
    const a = new Analysis(raw(), { now: NOW, staticInstanceTypes: STATIC_TYPES });
    const byNode = new Map(karpenterDisruptionReport(karpenterDisruptionContext(a)).map((d) => [d.node ?? d.nodeClaim, d]));
    const n141 = byNode.get('ip-10-20-11-141.ec2.internal')!;
    expect(n141.candidate).toBe(false);
    expect(n141.blockers.filter((b) => b.event).map((b) => b.event?.message)).toEqual([expect.stringMatching(/^Pod has "karpenter\.sh\/do-not-disrupt" annotation \(Pod=checkout\/schema-migrator-/)]);
    expect(n141.blockers.map((b) => b.id)).not.toContain('budget');
    const n203 = byNode.get('ip-10-20-11-203.ec2.internal')!;
    expect(n203.blockers.map((b) => b.id)).not.toContain('budget');
    expect(n203.blockers.map((b) => b.id)).not.toContain('spot-to-spot-disabled');
    // batch (WhenEmpty) nodes never reach the consolidation simulation that prints the spot-to-spot text
    expect(byNode.get('ip-10-20-12-19.ec2.internal')!.blockers.map((b) => b.id)).not.toContain('spot-to-spot-disabled');
    expect(byNode.get('ip-10-20-12-77.ec2.internal')!.blockers.map((b) => b.id)).toContain('budget');
  });

  it('does not fire after the window closes at 17:00 UTC', () => {
    expect(fired(raw(), 'karpenter-budget-blocks-disruption', 'scale-down-blockers', new Date('2026-11-24T17:30:00Z'))).toEqual([]);
  });
});

describe('the karpenter checks without Karpenter data', () => {
  const KARPENTER_IDS = CHECKS.filter((c) => c.meta.autoscaler === 'karpenter').map((c) => c.meta.id);

  it('declares eleven checks about Karpenter', () => {
    expect(KARPENTER_IDS).toHaveLength(11);
  });

  it('stay quiet on a CA-only cluster: no finding, no skipped entry', () => {
    const r = raw((x) => {
      x.nodePools = [];
      x.ec2NodeClasses = [];
      x.nodeClaims = [];
      for (const k of ['nodePools', 'ec2NodeClasses', 'nodeClaims'] as const) x.provided.delete(k);
      x.deployments = x.deployments.filter((d) => d.metadata.name !== 'karpenter');
      x.nodes = x.nodes.filter((n) => !n.metadata.labels?.['karpenter.sh/nodepool']);
    });
    for (const command of ['why-pending', 'scale-down-blockers'] as const) {
      const out = run(r, command);
      expect(out.findings.filter((f) => f.checkId.startsWith('karpenter-'))).toEqual([]);
      expect(out.skipped.filter((s) => s.checkId.startsWith('karpenter-'))).toEqual([]);
    }
  });

  it('are skipped with the kubectl command that supplies the NodePools when Karpenter runs but they were not dumped', () => {
    const r = raw((x) => {
      x.nodePools = [];
      x.provided.delete('nodePools');
    });
    const skipped = run(r, 'why-pending').skipped.filter((s) => s.checkId === 'karpenter-pod-unplaceable');
    expect(skipped).toEqual([
      {
        checkId: 'karpenter-pod-unplaceable',
        reason: 'not-provided',
        detail: 'Karpenter runs but its NodePools are not in the input (add `kubectl get nodepools.karpenter.sh -o json > nodepools.json` to the dump)',
      },
    ]);
  });
});
