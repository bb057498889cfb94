// Can CA run its loop at all? One fact every verdict follows: a CA that crashes or skips every loop scales nothing up or
// down, whatever a pod or a node would otherwise get. Pure over the snapshot. What the code does for certain (a panic,
// a loop that returns early) is 'certain'; what needs one more event, or rests on a pod status that may be
// intermittent, is 'likely'.
import type { ScaleDownVerdict } from '../model/scale-down.js';
import type { PodVerdict } from '../model/why-pending.js';
import type { Analysis } from './analysis.js';
import { caPodsHealth, caPodProblems, type CaPodsHealth } from './ca-health.js';
import { isNodeReadyForCa } from './node-groups.js';
import { externalGrpcFindings, externalGrpcFindingsInput } from '../providers/externalgrpc/findings.js';
import { caDefaults, caInstanceView, countedInTargetSize, externalGrpcState } from '../providers/externalgrpc/groups.js';
import { nodeMembership } from '../providers/externalgrpc/membership.js';
import { grpcOptionsAsCaSees } from '../providers/externalgrpc/options.js';
import { grpcScaleUpNeverLands } from '../providers/externalgrpc/records.js';
import { findProviderDeployment } from '../providers/externalgrpc/deployment.js';
import { CREATE_STAGES, providerStartedAt, stageStalls } from '../providers/externalgrpc/stalls.js';
import { NODE_BYTES_ONLY_MINOR } from '../providers/externalgrpc/template.js';

export type CaRunningState = 'running' | 'cannot-run' | 'likely-cannot-run' | 'unknown';

export type CaStopKind =
  /** CA's own pod: crash-looping, OOM-killed, not Ready, scaled to 0, missing. */
  | 'ca-pod'
  /** CA 1.29-1.34: nil MaxNodeProvisionTime in the provider's GetOptions answer for a group with autoscalingOptions. */
  | 'options-panic'
  /** CA 1.35+: nil template of a group without a Ready node (pre-1.35 provider). */
  | 'template-nil'
  /** CA 1.35+: nil template again at the first ScaleUpTimedOut, on any group. */
  | 'scale-up-timeout-crash'
  /** A group whose size fix-up the provider turns into a no-op: CA skips the rest of every loop. */
  | 'size-fix-halt'
  /** Not a stop: CA runs, but NodeGroupForNode errors for a node, so every scale-up fails (caScaleUpFails). */
  | 'scale-up-fails'
  /** Not a stop: CA runs and scales up, but deletes every new instance before it can join (caScaleUpNeverLands). */
  | 'scale-up-never-lands';

export interface CaStopReason {
  kind: CaStopKind;
  certainty: 'certain' | 'likely';
  /** One line, values included: what stops CA. */
  text: string;
  /** Upstream file:line@tag the behaviour rests on. */
  upstream: string;
  group?: string;
  /** Since when (ISO), when the input says. */
  since?: string;
}

export interface CaRunning {
  state: CaRunningState;
  /** Certain reasons first. */
  reasons: CaStopReason[];
}

const HALT = 'nothing is scaled up or down';

const cache = new WeakMap<Analysis, CaRunning>();

/** The fact, once per analysis. */
export function caRunning(a: Analysis): CaRunning {
  let hit = cache.get(a);
  if (!hit) cache.set(a, (hit = computeCaRunning(a)));
  return hit;
}

function healthyReplica(h: CaPodsHealth): boolean {
  return h.pods.some((p) => p.phase === 'Running' && p.ready !== false && !p.container?.waitingReason && p.container?.ready !== false);
}

export function computeCaRunning(a: Analysis): CaRunning {
  if (!a.ca.found) return { state: 'unknown', reasons: [] };
  const reasons: CaStopReason[] = [];
  const health = caPodsHealth(a.ca, a.raw.deployments, a.raw.pods);
  const healthy = healthyReplica(health);
  // a pods file without CA's namespace (one namespace, a partial dump) says nothing about CA's pod
  const caNs = a.ca.deployment?.namespace ?? 'kube-system';
  const podsSeen = a.raw.provided.has('pods') && a.raw.pods.some((p) => (p.metadata.namespace ?? 'default') === caNs);
  // CA runs leader-elected: one healthy replica keeps the loop going
  if (!healthy && podsSeen) {
    for (const p of caPodProblems(health)) {
      // a pod missing from a dump may be a dump that missed it (ca-pod-unhealthy says so): only a pod's own status counts
      if (p.kind === 'restarting' || p.kind === 'no-pod') continue;
      reasons.push({
        kind: 'ca-pod',
        certainty: 'certain',
        text: `CA's pod ${p.pod ? `${p.pod.namespace}/${p.pod.name} ` : ''}${p.kind === 'crash-loop' ? 'is crash-looping' : p.kind === 'oom-killed' ? 'is being OOM-killed' : p.kind === 'not-ready' ? 'is not Ready' : 'is scaled to 0'} (${p.detail})`,
        upstream: 'cluster-autoscaler main.go (one leader-elected replica runs the loop)',
      });
    }
  }
  // a flag CA exits on at start-up names the cause of a pod that keeps dying (never alone: casdoctor's flag table may
  // lag CA's, and a healthy pod proves the flags fine)
  const fatal = [...a.ca.errors.filter((e) => !e.startsWith('unknown flag:')), ...a.ca.unknownFlags.map((f) => `unknown flag: ${f}`)];
  const dying = reasons.find((r) => r.kind === 'ca-pod' && r.certainty === 'certain');
  if (dying && fatal.length) {
    // pflag's ExitOnError prints the parse error (then the usage) and exits 2 before CA's first loop (main.go kube_flag.InitFlags)
    const said = fatal[0].replace(/ \(not in cluster-autoscaler [^)]*\)$/, '');
    const pflagError = /^(unknown flag|unknown shorthand flag|flag needs an argument|invalid argument)/.test(said);
    dying.text += `; its flags have one CA ${a.ca.version.version ?? `1.${a.ca.version.minor}`} exits on at start-up: ${pflagError ? `it prints "${said}" and its usage, and exits with code 2` : fatal[0]}${fatal[0] !== said ? ` (${fatal[0].slice(said.length + 2, -1)})` : ''}`;
  }
  if (a.provider.id === 'externalgrpc' && a.ca.version.known) reasons.push(...externalGrpcStops(a));
  reasons.sort((x, y) => (x.certainty === y.certainty ? 0 : x.certainty === 'certain' ? -1 : 1));
  const state: CaRunningState = reasons.some((r) => r.certainty === 'certain')
    ? 'cannot-run'
    : reasons.length
      ? 'likely-cannot-run'
      : health.statusKnown || healthy
        ? 'running'
        : 'unknown';
  return { state, reasons };
}

function externalGrpcStops(a: Analysis): CaStopReason[] {
  const out: CaStopReason[] = [];
  const input = externalGrpcFindingsInput(a.providerContext);
  if (!input.config.used || input.era === 'unknown') return out;
  const version = a.ca.version.version ?? `1.${input.caMinor}`;
  for (const f of externalGrpcFindings(input)) {
    if (f.id === 'G2' && f.kind === 'panic') {
      out.push({
        kind: 'options-panic',
        certainty: 'certain',
        group: f.group ?? '',
        text: `CA ${version} panics on node group ${f.group ?? ''}'s GetOptions answer (nil MaxNodeProvisionTime: the group sets autoscalingOptions) and restarts in a loop`,
        // 1.32.7 externalgrpc_node_group.go:305 pbOpts.GetMaxNodeProvisionTime().Duration; provider wrapper.go:342-353
        upstream: 'kubernetes/autoscaler cluster-autoscaler/cloudprovider/externalgrpc/externalgrpc_node_group.go:305@cluster-autoscaler-1.32.7; provider wrapper/wrapper.go:342-353@f792442',
      });
    }
  }
  const groups = a.nodeGroupsResult.nodeGroups.filter((g) => g.provider === 'externalgrpc');
  if (input.caMinor >= NODE_BYTES_ONLY_MINOR && input.era === 'pre-1.35') {
    const noReady = groups.filter((g) => !g.nodes.some(isNodeReadyForCa)).map((g) => g.name);
    if (noReady.length) {
      out.push({
        kind: 'template-nil',
        certainty: 'certain',
        group: noReady[0],
        text: `CA ${version} gets a nil template for node group${noReady.length === 1 ? '' : 's'} ${noReady.join(', ')} (no Ready node; it reads only nodeBytes, this provider fills nodeInfo) and dereferences it in the template sanitizer on every loop`,
        // 1.35.2 externalgrpc_node_group.go:231-241; simulator/node_info_utils.go:49-53,100; framework/infos.go:69-70
        upstream: 'kubernetes/autoscaler cluster-autoscaler/cloudprovider/externalgrpc/externalgrpc_node_group.go:231-241, simulator/node_info_utils.go:49-53,100@cluster-autoscaler-1.35.2',
      });
    } else {
      out.push({
        kind: 'scale-up-timeout-crash',
        certainty: 'likely',
        text: `CA ${version} reads a nil template at the first scale-up that times out (its clusterstate asks every timed-out group for its template) and crashes`,
        upstream: 'kubernetes/autoscaler cluster-autoscaler/clusterstate/clusterstate.go:309-313@cluster-autoscaler-1.35.2',
      });
    }
  }
  out.push(...sizeFixHalts(a, input.caMinor));
  return out;
}

/**
 * fixNodeGroupSize: a group whose registered nodes fall short of target − unregistered for MaxNodeProvisionTime gets
 * DecreaseTargetSize; the provider removes only Pending-stage records and never goes below min size, returning success
 * with nothing done (node_group.go:966-989@f792442). CA then sets fixed=true and skips the rest of the loop, every loop
 * ("Some node group target size was fixed, skipping the iteration", static_autoscaler.go:439-446@cluster-autoscaler-1.32.7).
 */
export function sizeFixHalts(a: Analysis, caMinor: number): CaStopReason[] {
  const out: CaStopReason[] = [];
  const era = 'pre-1.35' as const;
  for (const g of a.nodeGroupsResult.nodeGroups) {
    if (g.provider !== 'externalgrpc') continue;
    const spec = g.grpc;
    const registered = g.nodes.length;
    const unregistered = g.unregisteredInstances.length;
    const short = g.targetSize - unregistered - registered;
    if (short <= 0) continue;
    const pending = spec.instances.filter((i) => i.stage === 'Pending' && countedInTargetSize(i));
    const removable = Math.min(g.targetSize - g.minSize, pending.length);
    if (removable >= short) continue;
    const seen = grpcOptionsAsCaSees(spec, caMinor, caDefaults(a.ca), spec.servedBy?.schemaEra ?? era);
    if (seen.panics) continue; // the panic comes first
    const mpt = seen.values.maxNodeProvisionTimeMs;
    // CA's FirstObserved is in its memory: the newest record that left the group short bounds it from below
    const times = spec.instances
      .filter((i) => countedInTargetSize(i) && (caInstanceView(i) === 'hidden' || i.stage === 'Pending'))
      .map((i) => (i.updateTime ? Date.parse(i.updateTime) : NaN))
      .filter((t) => Number.isFinite(t));
    const since = times.length ? Math.max(...times) : undefined;
    const certain = mpt === 0 || (since !== undefined && a.now.getTime() - since >= mpt);
    // a create still in flight may yet get its providerID: only a failed one makes the halt a matter of time
    if (!certain && !pending.some((i) => i.status === 'Failed')) continue;
    const hidden = spec.instances.filter((i) => caInstanceView(i) === 'hidden' && countedInTargetSize(i)).length;
    out.push({
      kind: 'size-fix-halt',
      certainty: certain ? 'certain' : 'likely',
      group: g.name,
      ...(since !== undefined ? { since: new Date(since).toISOString() } : {}),
      text: `node group ${g.name} has target ${g.targetSize} but ${registered} registered and ${unregistered} unregistered node(s)${hidden ? ` (${hidden} record(s) CA never sees count in the target)` : ''}; CA's size fix-up asks the provider to decrease it, which it cannot do below min size ${g.minSize}${pending.length ? '' : ' or without Pending records'} and answers with success, so CA skips the rest of ${certain ? 'every' : `every loop once the group has been short for ${Math.round(mpt / 60_000)}m (--max-node-provision-time as CA reads it), i.e. every`} loop`,
      upstream: 'provider nodegroup/node_group.go:966-989@f792442; kubernetes/autoscaler cluster-autoscaler/core/static_autoscaler.go:439-446,723-749@cluster-autoscaler-1.32.7',
    });
  }
  return out;
}

const scaleUpCache = new WeakMap<Analysis, CaStopReason[]>();

/**
 * CA runs, but every scale-up fails: a node the provider answers NodeGroupForNode for with an error. A node that
 * matches several groups never gets a record (MatchedMultipleErr, node_group.go:568-575,769-773@f792442), a node named
 * by records in several groups gets the same error (l.607-633); the wrapper returns it (wrapper.go:89-94) and CA's
 * resource limits stop at the first such node: "failed to filter out nodes which are from not autoscaled groups"
 * (core/utils/utils.go:46-48, core/scaleup/resource/manager.go:89-92@cluster-autoscaler-1.32.7).
 */
export function caScaleUpFails(a: Analysis): CaStopReason[] {
  let hit = scaleUpCache.get(a);
  if (hit) return hit;
  hit = [];
  if (a.provider.id === 'externalgrpc') {
    const groups = externalGrpcState(a.providerContext).config.nodeGroups;
    for (const node of a.raw.nodes) {
      const m = nodeMembership(node, groups);
      const error = m.error ?? (m.via === 'match' ? m.match.error : undefined);
      if (!error) continue;
      hit.push({
        kind: 'scale-up-fails',
        certainty: 'certain',
        text: `the provider answers CA's NodeGroupForNode for node ${node.metadata.name ?? ''} with an error (${error}${m.via === 'match' ? ': it never records such a node' : ''}), and CA's scale-up stops at it: "failed to filter out nodes which are from not autoscaled groups"`,
        upstream: 'provider nodegroup/node_group.go:568-575,607-633,769-773, wrapper/wrapper.go:89-94@f792442; kubernetes/autoscaler cluster-autoscaler/core/utils/utils.go:46-48, core/scaleup/resource/manager.go:89-92@cluster-autoscaler-1.32.7',
      });
    }
  }
  scaleUpCache.set(a, hit);
  return hit;
}

const neverLandsCache = new WeakMap<Analysis, CaStopReason[]>();

/**
 * CA runs and scales up, but no node ever comes: CA 1.27/1.28 read MaxNodeProvisionTime as 0 from this provider
 * (externalgrpc_node_group.go:276-281@cluster-autoscaler-1.28.4), so each scale-up times out at the next loop and each
 * new instance is long-unregistered, deleted about one loop after CA lists it (static_autoscaler.go:724-806@1.28.4).
 * One reason naming the groups CA reads so (every group on 1.27/1.28).
 */
export function caScaleUpNeverLands(a: Analysis): CaStopReason[] {
  let hit = neverLandsCache.get(a);
  if (hit) return hit;
  hit = [];
  if (a.provider.id === 'externalgrpc' && a.ca.version.known) {
    const groups = a.nodeGroupsResult.nodeGroups.filter((g) => g.provider === 'externalgrpc' && g.targetSize < g.maxSize && grpcScaleUpNeverLands(g, a.ca) !== undefined);
    if (groups.length) {
      const version = a.ca.version.version ?? `1.${a.ca.version.minor}`;
      hit.push({
        kind: 'scale-up-never-lands',
        certainty: 'certain',
        group: groups[0].name,
        text: `CA ${version} reads --max-node-provision-time as 0 for node group${groups.length === 1 ? '' : 's'} ${groups.map((g) => g.name).join(', ')} from this provider: each scale-up times out at the next loop and each new instance is deleted about one loop after CA lists it, before it can join, so no node ever comes (the provider's delete hook runs over SSH; if it fails, the VM keeps running outside the target size)`,
        upstream: 'kubernetes/autoscaler cluster-autoscaler/cloudprovider/externalgrpc/externalgrpc_node_group.go:276-281, core/static_autoscaler.go:724-806@cluster-autoscaler-1.28.4; provider nodegroup/node_group.go:915-961,2031-2056@f792442',
      });
    }
  }
  neverLandsCache.set(a, hit);
  return hit;
}

const stalledCache = new WeakMap<Analysis, string | null>();

/**
 * The provider creates no instance for any group: a create stage whose --create-parallelism slots are all held by
 * InProcess records no handler will finish, for certain (externalgrpc-stale-in-process says which and how to retry
 * them; node_group.go:1606-1653@f792442). The sentence, read after "no node will come: ", or undefined.
 */
export function grpcCreatesStalled(a: Analysis): string | undefined {
  let hit = stalledCache.get(a);
  if (hit === undefined) {
    hit = null;
    if (a.provider.id === 'externalgrpc') {
      const dep = findProviderDeployment(a.raw.deployments);
      const groups = externalGrpcState(a.providerContext).config.nodeGroups;
      const full = stageStalls(groups, dep, providerStartedAt(dep, a.raw.pods), a.now).find(
        (s) => s.full && s.certain && (CREATE_STAGES as readonly string[]).includes(s.stage),
      );
      if (full)
        hit = `the provider moves no new instance past stage ${full.stage}: ${full.stale.length} record(s) stuck InProcess hold all ${full.limit} slot(s) of its --${full.flag} (externalgrpc-stale-in-process)`;
    }
    stalledCache.set(a, hit);
  }
  return hit ?? undefined;
}

/** "CA is not running: nothing is scaled up or down (<first reason>)", or undefined when CA runs (or nothing says). */
export function caNotRunningHeadline(r: CaRunning): string | undefined {
  if (r.state !== 'cannot-run' && r.state !== 'likely-cannot-run') return undefined;
  const first = r.reasons[0];
  const more = r.reasons.length > 1 ? `; ${r.reasons.length - 1} more reason${r.reasons.length === 2 ? '' : 's'} in CA health` : '';
  return `${r.state === 'cannot-run' ? 'CA is not running' : 'CA is likely not running'}: ${HALT} (${first.text}${more})`;
}

/** The verdicts that assume a working CA; a pod that fits a node or that CA ignores keeps its own. */
const CA_DECIDES: ReadonlySet<PodVerdict> = new Set<PodVerdict>(['scale-up', 'no-scale-up', 'not-evaluated']);

/**
 * why-pending's hook: a pod whose answer is CA's is headlined by CA not running, and its verdict is 'ca-not-running';
 * what CA would do once it runs again follows the headline.
 */
export function podVerdictWhenCaCannotRun(a: Analysis, verdict: PodVerdict, summary: string): { verdict: PodVerdict; summary: string } {
  if (!CA_DECIDES.has(verdict)) return { verdict, summary };
  const r = caRunning(a);
  const head = caNotRunningHeadline(r);
  const fails = verdict === 'scale-up' ? caScaleUpFails(a) : [];
  if (!head && fails.length) {
    const more = fails.length > 1 ? ` (and ${fails.length - 1} more node${fails.length === 2 ? '' : 's'})` : '';
    return { verdict: 'no-scale-up', summary: `every scale-up of CA's fails: ${fails[0].text}${more}; once that is fixed: ${summary}` };
  }
  if (!head) return { verdict, summary };
  // the verdict's own words are "CA is not running": the summary carries the rest
  return { verdict: 'ca-not-running', summary: `${head.slice(head.indexOf(': ') + 2)}${r.state === 'likely-cannot-run' ? ' (likely)' : ''}; once it runs: ${summary}` };
}

/** scale-down-blockers' hook: every node's summary leads with it; a removable node waits for CA instead. */
export function nodeVerdictWhenCaCannotRun(a: Analysis, r: { verdict: ScaleDownVerdict; summary: string }): void {
  const head = caNotRunningHeadline(caRunning(a));
  if (!head) return;
  if (r.verdict === 'removable') r.verdict = 'waiting';
  r.summary = `${head}; once it runs: ${r.summary}`;
}

/** scale-down-blockers' summary line, led by the same sentence. */
export function summaryWhenCaCannotRun(a: Analysis, summary: string): string {
  const r = caRunning(a);
  if (r.state !== 'cannot-run' && r.state !== 'likely-cannot-run') return summary;
  return `${r.state === 'cannot-run' ? 'CA is not running' : 'CA is likely not running'}: ${HALT}; once it runs: ${summary}`;
}
