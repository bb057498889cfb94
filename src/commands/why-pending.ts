import { runChecks } from '../checks/engine.js';
import { CHECKS } from '../checks/index.js';
import { InputError, UsageError } from '../model/errors.js';
import { SEVERITY_ORDER } from '../model/findings.js';
import type { Pod } from '../model/k8s.js';
import type { RawInputs } from '../model/snapshot.js';
import { renderJson } from '../report/json.js';
import { terminalStyle } from '../report/style.js';
import { renderWhyPendingText } from '../report/why-pending-text.js';
import { Analysis } from '../simulate/analysis.js';
import { analyzePods, isPendingCandidate } from '../simulate/why-pending.js';
import { gatherInputs, loadInstanceTypeData, requireOutput, resolveNow, splitArgs } from './common.js';
import { labelsMatch, parseLabelSelector } from './selector.js';
import { type Deps, EXIT, type GlobalOptions, type RunResult } from './types.js';

export interface WhyPendingOptions extends GlobalOptions {
  pod?: string;
  namespace?: string;
  allNamespaces?: boolean;
  all?: boolean;
  selector?: string;
}

/** Resolves which pods to examine; errors name the pod and list what exists. */
export function selectPods(raw: RawInputs, o: WhyPendingOptions): (pod: Pod) => boolean {
  const reqs = o.selector ? parseLabelSelector(o.selector) : [];
  const ns = o.allNamespaces ? undefined : o.namespace;
  if (o.pod) {
    let name = o.pod;
    let podNs = ns;
    if (name.includes('/')) [podNs, name] = name.split('/', 2);
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

export async function runWhyPending(o: WhyPendingOptions, deps: Deps): Promise<RunResult> {
  requireOutput(o.output, ['table', 'json'], 'why-pending');
  if (o.pod && o.all) throw new UsageError('pass either a pod name or --all, not both');
  if (!o.pod && !o.all) throw new UsageError('name a pod (why-pending <pod> -n <namespace>) or pass --all');
  if (o.selector && o.pod)
    throw new UsageError('-l selects pods for --all; it does not combine with a pod name');
  if (o.selector) parseLabelSelector(o.selector);
  const now = resolveNow(o, deps);
  const caArgs = o.caArgs ? splitArgs(o.caArgs) : undefined;
  const raw = await gatherInputs(o, deps);
  if (!raw.provided.has('pods')) {
    throw new InputError(
      o.from.length
        ? `no Pods in ${o.from.join(', ')}: add \`kubectl get pods -A -o json\` output`
        : 'no Pods could be listed from the cluster',
    );
  }
  const analysis = new Analysis(raw, { now, caArgs, staticInstanceTypes: await loadInstanceTypeData() });
  analysis.scope = selectPods(raw, o);
  const pods = analyzePods(analysis);
  const { findings, skipped } = runChecks(CHECKS, analysis, 'why-pending');
  const reports = pods.map((p) => p.report);

  for (const w of raw.warnings) deps.stderr(`warning: ${w}\n`);
  for (const g of raw.gaps) deps.stderr(`warning: ${g.detail}\n`);

  if (o.output === 'json') {
    deps.stdout(
      renderJson({
        schemaVersion: 1,
        command: 'why-pending',
        now: now.toISOString(),
        findings,
        skipped,
        pods: reports,
      }),
    );
  } else {
    const ca = analysis.ca;
    const caText = ca.found
      ? `CA ${ca.version.version ?? `1.${ca.version.minor}`} (${ca.deployment?.namespace}/${ca.deployment?.name}) · expander ${ca.flags.expander.value}`
      : `no CA found (defaults of 1.${ca.version.minor})`;
    const notes: string[] = [];
    if (analysis.nodeGroups.length === 0)
      notes.push(
        'no Auto Scaling Groups in the input: node groups cannot be evaluated (add `aws autoscaling describe-auto-scaling-groups --output json`)',
      );
    deps.stdout(
      renderWhyPendingText(
        {
          pods: reports,
          findings,
          skipped,
          header: {
            ca: caText,
            now: now.toISOString(),
            source: o.from.length ? `from ${o.from.join(', ')}` : 'live',
          },
          notes,
          width: deps.stdoutIsTTY ? deps.terminalWidth : undefined,
        },
        await terminalStyle(o.color && deps.stdoutIsTTY),
      ),
    );
  }
  if (o.failOn === 'never') return { exitCode: EXIT.ok };
  const cannot = reports.some((r) => r.verdict === 'no-scale-up' || r.verdict === 'ignored-by-ca');
  const threshold = SEVERITY_ORDER[o.failOn];
  const failing = findings.some((f) => SEVERITY_ORDER[f.severity] <= threshold);
  return { exitCode: cannot || failing ? EXIT.findings : EXIT.ok };
}
