import { safeText } from '../report/sanitize.js';
import { caHealthFrom } from '../model/ca-health.js';
import { InputError, UsageError } from '../model/errors.js';
import { isIncompleteSkip } from '../model/findings.js';
import type { Pod } from '../model/k8s.js';
import type { RawInputs } from '../model/snapshot.js';
import type { PodReport } from '../model/why-pending.js';
import { formatDurationShort } from '../model/duration.js';
import { indexEventsByInvolvedObject, latestCaEventForPod } from '../simulate/ca-events.js';
import { supportsHyperlinks } from '../report/style.js';
import { terminalStyle, wantsColor } from '../report/style.js';
import { renderWhyPendingText } from '../report/why-pending-text.js';
import { karpenterInputs, karpenterPodView } from '../checks/lib/karpenter.js';
import { autoscalersInInput, isKarpenterOnly, karpenterHeaderText, podRoute, type AutoscalersInInput, type PodRouteFact } from '../checks/lib/route.js';
import { renderKarpenterPodSection, withKarpenterEntries } from '../report/karpenter-text.js';
import { loggedFailureText } from '../simulate/ca-record.js';
import { analyzePods } from '../simulate/why-pending.js';
import { isPendingCandidate } from '../model/k8s.js';
import { podRequests, type ResourceProblem } from '../simulate/resources.js';
import {
  gatherInputs,
  headerProvider,
  noNodeGroupsNote,
  reportHeader,
  type ChunkSink,
  type DeferredWrite,
  renderMachineReport,
  renderNames,
  requireOutput,
  resolveNow,
  stdoutSink,
  writeMachineReport,
} from './common.js';
import { analyse, checksOf, warnInputs } from './pipeline.js';
import { controllerPodSelector, labelsMatch, parseControllerRef, parseLabelSelector } from './selector.js';
import { parseWatchInterval } from './watch-interval.js';
import { exitCodeFor, strictExitCode } from './strict.js';
import { type Deps, EXIT, type GlobalOptions, type RunResult } from './types.js';

export interface WhyPendingOptions extends GlobalOptions {
  pod?: string;
  namespace?: string;
  allNamespaces?: boolean;
  all?: boolean;
  selector?: string;
  /** --watch [interval]: true for the default 30s */
  watch?: string | boolean;
  /** --strict: exit 3 when a check was skipped (data missing, forbidden, timed out) */
  strict?: boolean;
  /** Set when no -n was given and the namespace is the kubeconfig context's (kubectl's default-namespace rule). */
  namespaceFromContext?: boolean;
  /** --show-nodes: -o json|yaml lists every node's scheduler result and every node group for each pod (JSON v1's detail). */
  showNodes?: boolean;
}

/** Resolves which pods to examine; errors name the pod and list what exists. */
export function selectPods(raw: RawInputs, o: WhyPendingOptions): (pod: Pod) => boolean {
  const reqs = o.selector ? parseLabelSelector(o.selector) : [];
  const ns = o.allNamespaces ? undefined : o.namespace;
  // kubectl's TYPE/NAME for a controller (deploy/api, sts/ledger-db, job/x): that controller's Pending pods
  const controller = o.pod ? parseControllerRef(o.pod) : undefined;
  if (controller) return controllerPodSelector(controller, raw.pods, raw.jobs, ns, isPendingCandidate);
  if (o.pod) {
    let name = o.pod;
    let podNs = ns;
    // kubectl's TYPE/NAME (pod/x, pods/x, po/x) as `kubectl get` prints it; otherwise casdoctor's namespace/name
    const slash = name.indexOf('/');
    if (slash >= 0) {
      const [head, rest] = [name.slice(0, slash), name.slice(slash + 1)];
      if (/^(pods?|po)$/i.test(head)) name = rest;
      else [podNs, name] = [head, rest];
      if (name.includes('/') || name === '')
        throw new UsageError(`why-pending: ${JSON.stringify(o.pod)} is not a pod name (use NAME, pod/NAME or NAMESPACE/NAME)`);
    }
    const matches = raw.pods.filter(
      (p) => p.metadata.name === name && (podNs === undefined || p.metadata.namespace === podNs),
    );
    if (matches.length === 0) {
      const pending = raw.pods
        .filter(isPendingCandidate)
        .map((p) => `${p.metadata.namespace}/${p.metadata.name}`);
      throw new InputError(
        `pod ${podNs ? `${podNs}/` : ''}${name} not found${raw.sources.length ? ` in ${raw.sources.length} input file(s)` : ''}` +
          (pending.length
            ? `; Pending pods: ${pending.slice(0, 8).join(', ')}${pending.length > 8 ? ', ...' : ''}`
            : '; there are no Pending pods'),
      );
    }
    if (matches.length > 1) {
      throw new UsageError(
        `pod ${name} exists in several namespaces (${matches.map((p) => p.metadata.namespace).join(', ')}); pass -n <namespace>`,
      );
    }
    const target = matches[0];
    return (p) => p === target;
  }
  if (!o.all) throw new UsageError('name a pod (why-pending <pod> -n <namespace>) or pass --all');
  return (p) =>
    isPendingCandidate(p) &&
    (ns === undefined || p.metadata.namespace === ns) &&
    (reqs.length === 0 || labelsMatch(reqs, p.metadata.labels));
}

export interface WhyPendingRound {
  /** The rendered report; '' when a machine report was written to the round's sink as it was produced. */
  text: string;
  reports: PodReport[];
  exitCode: number;
  /** sink 'deferred' (a --watch round): writes the machine report, streamed, once the round's banner is out. */
  write?: DeferredWrite;
}

/** The namespace of the kubeconfig context casdoctor runs against, "default" when it names none (kubectl's rule). */
async function contextNamespace(o: WhyPendingOptions): Promise<string> {
  const { loadKubeConfig } = await import('../gather/kube-client.js');
  const { kc, context } = await loadKubeConfig({ kubeconfig: o.kubeconfig, context: o.context });
  return kc.getContextObject(context)?.namespace || 'default';
}

/** True when casdoctor may ask the user something: a terminal on both ends, a human format, no --yes. */
export function canPrompt(o: WhyPendingOptions, deps: Deps): boolean {
  return Boolean(deps.stdinIsTTY && deps.stdoutIsTTY && o.output === 'table' && !o.yes);
}

export async function runWhyPending(o: WhyPendingOptions, deps: Deps): Promise<RunResult> {
  requireOutput(o.output, ['table', 'wide', 'json', 'yaml', 'name'], 'why-pending');
  if (o.pod && o.all) throw new UsageError('pass either a pod name or --all, not both');
  // -A alone means every Pending pod everywhere, as `kubectl get pods -A` lists every pod
  if (o.allNamespaces && !o.pod && !o.all) o = { ...o, all: true };
  // kubectl's default-namespace rule, live: no -n and no -A means the kubeconfig context's namespace, else "default".
  // Offline there is no context: like `kubectl get -f <file>`, every namespace in the files counts.
  if (o.from.length === 0 && !o.namespace && !o.allNamespaces && (!o.pod?.includes('/') || parseControllerRef(o.pod))) {
    o = { ...o, namespace: await contextNamespace(o), namespaceFromContext: true };
  }
  const picking = !o.pod && !o.all;
  if (picking && !canPrompt(o, deps)) {
    throw new UsageError('name a pod (why-pending <pod> -n <namespace>) or pass --all');
  }
  if (o.selector && o.pod)
    throw new UsageError('-l selects pods for --all; it does not combine with a pod name');
  if (o.selector) parseLabelSelector(o.selector);
  if (o.showNodes && o.output !== 'json' && o.output !== 'yaml')
    throw new UsageError('--show-nodes adds every node to -o json|yaml; the text report counts nodes by reason');
  const watchMs = o.watch === undefined ? undefined : parseWatchInterval(o.watch);
  resolveNow(o, deps);
  let chosen: { namespace: string; name: string } | undefined;
  if (picking) {
    const raw = await gatherInputs(o, deps, 'why-pending');
    chosen = await pickPendingPod(raw, o, deps);
    if (!chosen) return { exitCode: EXIT.ok };
  }
  const target: WhyPendingOptions = chosen ? { ...o, pod: `${chosen.namespace}/${chosen.name}` } : o;
  if (watchMs === undefined) {
    // -o json|yaml is streamed to stdout as it is written; a --watch round below streams it after the round's banner
    const round = await whyPendingRound(target, deps, stdoutSink(deps));
    if (round.text) deps.stdout(round.text);
    return { exitCode: round.exitCode };
  }
  const { compactPods, watchLoop } = await import('./watch.js');
  return watchLoop({
    intervalMs: watchMs,
    deps,
    round: () => whyPendingRound(target, deps, 'deferred'),
    machine: o.output !== 'table' && o.output !== 'wide',
    changes: (prev, next) => podChanges(prev.reports, next.reports),
    ...(o.output === 'table' ? { compact: (r: WhyPendingRound) => compactPods(r.reports) } : {}),
  });
}

/** Lists Pending pods (namespace, age, CA's last event) and lets the user choose one. */
async function pickPendingPod(raw: RawInputs, o: WhyPendingOptions, deps: Deps) {
  const now = resolveNow(o, deps, raw);
  const ns = o.allNamespaces ? undefined : o.namespace;
  const pending = raw.pods
    .filter((p) => isPendingCandidate(p) && (ns === undefined || p.metadata.namespace === ns))
    .sort((a, b) => `${a.metadata.namespace}/${a.metadata.name}`.localeCompare(`${b.metadata.namespace}/${b.metadata.name}`));
  if (pending.length === 0) {
    deps.stdout(`No Pending pods${ns ? ` in namespace ${ns}` : ''}.\n`);
    return undefined;
  }
  const events = indexEventsByInvolvedObject(raw.events);
  const items = pending.map((p) => {
    const created = Date.parse(p.metadata.creationTimestamp ?? '');
    const age = Number.isFinite(created) ? formatDurationShort(Math.max(0, now.getTime() - created)) : '?';
    const ev = latestCaEventForPod(events, p);
    return {
      label: `${p.metadata.namespace}/${p.metadata.name}`,
      detail: `age ${age} · CA: ${ev ? ev.reason || 'ProvisioningRequest' : 'no event'}`,
      value: { namespace: p.metadata.namespace ?? 'default', name: p.metadata.name ?? '' },
    };
  });
  const { pick } = await import('../interactive/picker.js');
  return pick('Pick a Pending pod', items, deps.terminal!);
}

/** What changed between two rounds, in words: a pod got a node, a verdict changed, CA emitted a new event. */
export function podChanges(prev: PodReport[], next: PodReport[]): string[] {
  const key = (r: PodReport) => `${r.namespace}/${r.name}`;
  const before = new Map(prev.map((r) => [key(r), r]));
  const after = new Map(next.map((r) => [key(r), r]));
  const out: string[] = [];
  for (const [k, r] of before) {
    const n = after.get(k);
    if (!n) out.push(`${k} is no longer Pending (it got a node or was deleted)`);
    else if (n.verdict !== r.verdict) out.push(`${k}: ${r.verdict} → ${n.verdict}`);
    if (n?.caEvent && (n.caEvent.time !== r.caEvent?.time || n.caEvent.message !== r.caEvent?.message)) {
      out.push(`${k}: new CA event ${n.caEvent.reason}: ${n.caEvent.message}`);
    }
  }
  for (const [k, r] of after) if (!before.has(k)) out.push(`${k} is newly Pending (${r.verdict})`);
  return out;
}

/**
 * A request the API server would have refused (`memory: 1.5.3Gi`) is an input error naming the pod and the field, as
 * kubectl apply names it: dropped silently, the pod would look smaller than it is.
 */
function rejectInvalidQuantities(pods: Pod[]): void {
  for (const pod of pods) {
    const problems: ResourceProblem[] = [];
    podRequests(pod, problems);
    const p = problems[0];
    if (p) {
      throw new InputError(
        `pod ${pod.metadata.namespace}/${pod.metadata.name}: spec.${p.path}.${p.resource}: ${JSON.stringify(p.value)} is not a valid quantity (e.g. 512Mi, 1.5Gi, 250m)`,
      );
    }
  }
}

/** One complete run: gather, analyse, check, render; with a sink, -o json|yaml is written to it instead of returned. */
export async function whyPendingRound(o: WhyPendingOptions, deps: Deps, sink?: ChunkSink | 'deferred'): Promise<WhyPendingRound> {
  const { raw, now, analysis } = await analyse(o, deps, {
    fields: 'why-pending',
    require: (raw) => {
      if (raw.provided.has('pods')) return;
      throw new InputError(
        o.from.length
          ? `no Pods in ${o.from.join(', ')}: add \`kubectl get pods -A -o json\` output`
          : 'no Pods could be listed from the cluster',
      );
    },
    // the pod named, or every Pending pod of -n/-A/-l; an unknown pod is an error naming what exists
    scopes: (raw) => ({ podScope: selectPods(raw, o) }),
  });
  rejectInvalidQuantities(raw.pods.filter(analysis.scope));
  const pods = analyzePods(analysis);
  const { findings, skipped } = checksOf(analysis, 'why-pending');
  const karpenterOnly = isKarpenterOnly(analysis);
  const caHealth = caHealthFrom(findings);
  // when CA is not running, a scale-up is what CA would do once it runs again, not what happens now
  const logIndex = analysis.caLogIndex;
  // who serves each pod that waits for a node: the verdict and summary reported are that route's (checks/lib/route.ts)
  const present = autoscalersInInput(analysis);
  const reports = pods.map((p) => {
    let r = withRoute(p.report, podRoute(analysis, p), present);
    if (caHealth.caveat && r.verdict === 'scale-up' && r.route === 'ca') r = { ...r, summary: `${r.summary} — ${caHealth.caveat}` };
    const view = logIndex?.forPod(p.pod);
    if (view && view.failures.size > 0) {
      // report parts are shared by equivalent pods: copy before adding what CA logged
      r = {
        ...r,
        nodeGroups: r.nodeGroups.map((g) => {
          const f = view.failures.get(g.name);
          return f ? { ...g, caLogged: { text: loggedFailureText(f), ...(f.lastSeen ? { at: f.lastSeen } : {}), ...(view.via ? { pod: view.via } : {}) } } : g;
        }),
      };
    }
    return r;
  });

  // Karpenter beside CA: who serves each Pending pod and every NodePool's verdict (src/checks/lib/karpenter.ts)
  const kViews = karpenterInputs(analysis).present
    ? pods.map((p) => (p.report.verdict === 'not-pending' || p.report.verdict === 'fits-existing-node' ? undefined : karpenterPodView(analysis, p)))
    : [];
  const kByReport = new Map(reports.map((r, i) => [r, kViews[i]]));

  warnInputs(raw, deps);

  let text: string;
  let write: DeferredWrite | undefined;
  if (o.output === 'name') {
    // with -A, NAMESPACE/NAME: what why-pending takes back (`-o name -A | xargs -n1 casdoctor why-pending`)
    text = o.allNamespaces ? reports.map((r) => `${safeText(r.namespace)}/${safeText(r.name)}\n`).join('') : renderNames('pod', reports.map((r) => r.name));
  } else if (o.output === 'json' || o.output === 'yaml') {
    const { whyPendingPodEntries, WHY_PENDING_SCHEMA_VERSION } = await import('./why-pending-json.js');
    const report = {
      schemaVersion: WHY_PENDING_SCHEMA_VERSION,
      command: 'why-pending',
      now: now.toISOString(),
      findings,
      skipped,
      // built entry by entry as they are written; a named pod gets every node and every node group (v1's detail)
      pods: withKarpenterEntries(whyPendingPodEntries(analysis, pods, reports, { full: Boolean(o.showNodes || o.pod) }), kViews),
      // is CA running at all
      caHealth: { running: caHealth.running, findings: caHealth.findings.map((f) => f.checkId) },
    };
    if (sink === 'deferred') write = (s) => writeMachineReport(o.output, report, s);
    else if (sink) await writeMachineReport(o.output, report, sink);
    text = sink ? '' : await renderMachineReport(o.output, report);
  } else {
    const notes: string[] = [];
    // say where casdoctor looked: without -n, the context's namespace (as kubectl), which may not be where the pods are
    if (o.namespaceFromContext && !o.pod)
      notes.push(`namespace ${o.namespace} (the kubeconfig context's, as kubectl uses it); -n <namespace> for another, -A for every namespace`);
    if (analysis.nodeGroups.length === 0 && !karpenterOnly)
      notes.push(
        noNodeGroupsNote(analysis, 'no Auto Scaling Groups in the input: node groups cannot be evaluated (add `aws autoscaling describe-auto-scaling-groups --output json`)'),
      );
    // N equivalent Pending replicas read as one block with a count (JSON keeps every pod)
    const { groupReplicas } = await import('./replicas.js');
    const { shown, replicas } = groupReplicas(analysis, pods, reports);
    const header = reportHeader(analysis.ca, now, o, `expander ${analysis.ca.flags.expander.value}`, headerProvider(analysis));
    text = renderWhyPendingText(
      {
        pods: reports,
        shown,
        replicas,
        findings,
        skipped,
        header: karpenterOnly ? { ...header, ca: karpenterHeaderText(analysis) } : header,
        notes,
        // -o wide: every node group, the lines as long as they are (kubectl -o wide does not fit the terminal either)
        width: deps.stdoutIsTTY && o.output !== 'wide' ? deps.terminalWidth : undefined,
        wide: o.output === 'wide',
        hyperlinks: deps.stdoutIsTTY && supportsHyperlinks(),
        karpenter: (r, st) => {
          const v = kByReport.get(r);
          return v ? renderKarpenterPodSection(v, st, { version: karpenterInputs(analysis).settings?.version }) : [];
        },
      },
      await terminalStyle(wantsColor(o, deps)),
    );
  }
  // the verdict of the autoscaler that serves each pod: a pod Karpenter provisions for fails no gate
  const cannot = reports.some((r) => r.verdict === 'no-scale-up' || r.verdict === 'ignored');
  const exitCode = exitCodeFor(o.failOn, findings, cannot);
  // --strict: a check skipped for missing or forbidden data leaves the report incomplete (exit 3)
  return { text, reports, exitCode: strictExitCode(exitCode, o.strict, skipped.some(isIncompleteSkip)), ...(write ? { write } : {}) };
}

/**
 * A pod's report as why-pending gives it: for a pod that waits for a node, the verdict and summary of its route, the
 * route, and (with Karpenter in the input) each autoscaler's own verdict. A pod an existing node takes, on a cluster
 * without CA, is not said to be left alone by CA.
 */
export function withRoute(r: PodReport, fact: PodRouteFact | undefined, present: AutoscalersInInput): PodReport {
  if (!fact) {
    if (!present.ca && r.verdict === 'fits-existing-node') return { ...r, summary: r.summary.replace(/ \(CA does not scale up for it\).*$/, ' (no autoscaler adds a node for it)') };
    return r;
  }
  return {
    ...r,
    verdict: fact.verdict,
    summary: fact.summary,
    route: fact.route,
    ...(present.karpenter ? { autoscalers: fact.autoscalers } : {}),
  };
}
