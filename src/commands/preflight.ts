import { safeText } from '../report/sanitize.js';
import { mkdir, writeFile } from 'node:fs/promises';
import { dirname, isAbsolute, relative, resolve } from 'node:path';
import { runChecks } from '../checks/lib/engine.js';
import { applyFixRule } from '../checks/lib/fix-safety.js';
import { CHECKS } from '../checks/index.js';
import { preflightCheckKinds } from '../checks/lib/preflight.js';
import { applyConfig, loadCasdoctorConfig } from '../config/casdoctor-config.js';
import { InputError, UsageError } from '../model/errors.js';
import { compareFindings, type Finding, NOT_APPLICABLE, type Skipped } from '../model/findings.js';
import type { KubeObject } from '../model/k8s.js';
import { isValidQuantity } from '../model/quantity.js';
import type {
  DeclaredNodeGroups,
  LocatedObject,
  PreflightGroupReport,
  PreflightReport,
  PreflightWorkloadReport,
} from '../model/preflight.js';
import type { RawInputs } from '../model/snapshot.js';
import { type JsonReport, renderJson } from '../report/json.js';
import { isFailing, renderJunit } from '../report/junit.js';
import { renderMarkdown } from '../report/markdown.js';
import { renderPreflightText } from '../report/preflight-text.js';
import { defaultUri, renderSarif } from '../report/sarif.js';
import { terminalStyle, wantsColor } from '../report/style.js';
import type { Analysis } from '../simulate/analysis.js';
import { caVersionText } from '../simulate/ca-config.js';
import {
  buildPreflight,
  karpenterPlacementOf,
  placementOf,
  placementWorkloads,
  preflightOf,
  type WorkloadPlacement,
} from '../simulate/preflight.js';
import type { PreflightWorkload } from '../simulate/preflight-workloads.js';
import {
  KARPENTER_PREFLIGHT_CHECKS,
  KARPENTER_PREFLIGHT_DOCS,
  karpenterAdvice,
  type KarpenterWorkloadReport,
  type KarpenterWorkloadVerdict,
  poolReasonText,
  type PreflightKarpenterReport,
  servedBy,
} from '../simulate/providers/karpenter/preflight.js';
import { invalidQuantityOf } from '../simulate/preflight-workloads.js';
import {
  type ChunkSink,
  gatherInputs,
  loadInstanceTypeData,
  requireOutput,
  resolveNow,
  splitArgs,
  stdoutSink,
  writeMachineReport,
} from './common.js';
import { strictExitCode } from './strict.js';
import { type Deps, EXIT, type GlobalOptions, type OutputFormat, type RunResult } from './types.js';

export const PREFLIGHT_FORMATS = [
  'table',
  'json',
  'sarif',
  'junit',
  'markdown',
] as const satisfies readonly OutputFormat[];
type Format = (typeof PREFLIGHT_FORMATS)[number];
const VERSION = '0.1.0';

export interface PreflightCommandOptions extends GlobalOptions {
  filename?: string[];
  eksctl?: string;
  nodeGroups?: string[];
  /** --nodepools: files or directories of Karpenter NodePools and EC2NodeClasses. */
  nodepools?: string[];
  live?: boolean;
  namespace?: string;
  config?: string;
  outputFile?: string[];
  /** false with --no-strict. */
  strict?: boolean;
}

/** Parses `--output-file <format>=<path>` entries. */
export function parseOutputFiles(entries: string[] | undefined): Array<{ format: Format; path: string }> {
  return (entries ?? []).map((e) => {
    const eq = e.indexOf('=');
    const format = eq > 0 ? e.slice(0, eq) : '';
    const path = eq > 0 ? e.slice(eq + 1) : '';
    if (!format || !path)
      throw new UsageError(
        `--output-file ${JSON.stringify(e)}: use <format>=<path>, e.g. sarif=casdoctor.sarif`,
      );
    return { format: requireOutput(format, PREFLIGHT_FORMATS, 'preflight --output-file'), path };
  });
}

function objectKey(kind: string, namespace: string | undefined, name: string): string {
  return `${kind}/${namespace ?? ''}/${name}`;
}

function describeCa(a: Analysis): string {
  const pf = preflightOf(a);
  const ca = a.ca;
  const version = caVersionText(ca);
  switch (pf?.caConfigSource) {
    case 'manifests':
      return `CA ${version} (${ca.deployment?.namespace}/${ca.deployment?.name} among the manifests)`;
    case 'cluster':
      return `CA ${version} (${ca.deployment?.namespace}/${ca.deployment?.name} in the cluster)`;
    case 'ca-args':
      return `CA 1.${ca.version.minor} defaults with --ca-args`;
    default:
      return `CA 1.${ca.version.minor} defaults (no CA Deployment among the inputs, no --ca-args)`;
  }
}

export async function runPreflight(o: PreflightCommandOptions, deps: Deps): Promise<RunResult> {
  const output = requireOutput(o.output, PREFLIGHT_FORMATS, 'preflight');
  const files = parseOutputFiles(o.outputFile);
  const manifestsPaths = o.filename ?? [];
  if (manifestsPaths.length === 0) {
    throw new UsageError(
      'preflight needs manifests: -f <file|dir|-> (repeatable), e.g. -f k8s/ or `helm template ... | casdoctor preflight -f -`',
    );
  }
  if (o.live && o.from.length > 0) throw new UsageError('pass either --live or --from, not both');
  if ((o.nodepools ?? []).includes('-') && manifestsPaths.includes('-'))
    throw new UsageError('-f - and --nodepools - both read stdin: put the NodePools among the -f manifests, or in a file');
  const now = resolveNow(o, deps);
  const caArgs = o.caArgs ? splitArgs(o.caArgs) : undefined;
  const knownChecks = new Set([...CHECKS.map((c) => c.meta.id), ...KARPENTER_PREFLIGHT_CHECKS.map((c) => c.id)]);
  const config = await loadCasdoctorConfig(o.config, knownChecks);

  const { readManifests, requireWorkloads } = await import('../gather/manifests.js');
  const manifests = await readManifests(manifestsPaths, { defaultNamespace: o.namespace ?? 'default' });
  // a CI gate that checked nothing must not pass: an empty `helm template |`, an empty directory, only Services
  requireWorkloads(manifests, manifestsPaths);
  rejectInvalidQuantities(manifests.objects);
  const declared: DeclaredNodeGroups[] = [];
  if (o.eksctl) {
    const { readEksctlConfig } = await import('../providers/aws/gather-eksctl.js');
    declared.push(await readEksctlConfig(o.eksctl));
  }
  for (const f of o.nodeGroups ?? []) {
    const { readNodeGroupsFile } = await import('../gather/node-groups-file.js');
    declared.push(await readNodeGroupsFile(f));
  }
  const karpenterObjects: LocatedObject[] = [];
  for (const p of o.nodepools ?? []) {
    const set = await readManifests([p], { defaultNamespace: o.namespace ?? 'default' });
    for (const w of set.warnings) manifests.warnings.push(w);
    for (const lo of set.objects) {
      if (lo.object.kind === 'NodePool' || lo.object.kind === 'EC2NodeClass') karpenterObjects.push(lo);
      else manifests.warnings.push(`${lo.location.file}:${lo.location.line}: a ${lo.object.kind} in --nodepools (it reads NodePools and EC2NodeClasses); pass workloads with -f; ignored`);
    }
    if (!set.objects.some((lo) => lo.object.kind === 'NodePool'))
      manifests.warnings.push(`--nodepools ${p}: no karpenter.sh/v1 NodePool in it`);
  }
  rejectInvalidNodePoolLimits([...manifests.objects, ...karpenterObjects]);
  let cluster: { raw: RawInputs; via: 'live' | 'from' } | undefined;
  if (o.from.length > 0) cluster = { raw: await gatherInputs(o, deps), via: 'from' };
  else if (o.live) cluster = { raw: await gatherInputs({ ...o, from: [] }, deps), via: 'live' };

  const analysis = buildPreflight(
    { manifests, declared, ...(cluster ? { cluster } : {}), karpenter: { objects: karpenterObjects } },
    { now, ...(caArgs ? { caArgs } : {}), staticInstanceTypes: await loadInstanceTypeData() },
  );
  const pf = preflightOf(analysis);
  if (!pf) throw new Error('preflight context missing');
  // a gate told to check against NodePools that found none must not pass having checked nothing
  if ((o.nodepools ?? []).length > 0 && !pf.karpenter)
    throw new InputError(`--nodepools ${(o.nodepools ?? []).join(', ')}: no karpenter.sh/v1 NodePool in the input`);
  const run = runChecks(CHECKS, analysis, 'preflight');
  // Karpenter beside CA: per-workload verdicts, its findings, and CA's "no group fits" dropped for what Karpenter serves
  const karpenter = karpenterFindings(analysis, config.severity);
  if (pf.karpenter) {
    run.findings = run.findings.filter(
      (f) => !(f.checkId === 'workload-unplaceable' && karpenter.servedByKarpenter.has(objectKey(f.subject.kind, f.subject.namespace, f.subject.name))),
    );
    // the fix rule passes on these too (the engine applied it to the checks' findings)
    run.findings.push(...karpenter.findings.map((f) => applyFixRule(analysis, f)));
    run.skipped.push(...karpenter.skipped);
  }

  // skipped vs not applicable: a check is skipped only when its input was asked for and could not be read
  const skipped: Skipped[] = [];
  const notApplicable: PreflightReport['notApplicable'] = [];
  const sourcesText = [
    ...declared.map((d) => `${d.origin === 'eksctl' ? 'eksctl' : 'node-groups'} ${d.file}`),
    ...(cluster ? [cluster.via === 'live' ? 'live cluster and AWS' : `--from ${o.from.join(', ')}`] : []),
  ];
  // one cause, said the same way on every skipped check: the AWS gap if there is one, else how to supply the ASGs
  const asgGap = cluster?.raw.gaps.find((g) => g.resource === 'autoscaling:DescribeAutoScalingGroups');
  const noGroupsDetail = asgGap
    ? `no node groups could be read: ${asgGap.detail}; the workloads are not evaluated`
    : `no node groups could be read from ${sourcesText.join(', ')}${cluster?.via === 'from' ? ' (add `aws autoscaling describe-auto-scaling-groups --output json` to the dump)' : ''}; the workloads are not evaluated`;
  // a Karpenter-only dump: no ASGs and no CA Deployment is no missing input, CA is simply not there
  const karpenterOnly =
    !!pf.karpenter && pf.groups.length === 0 && declared.length === 0 && !asgGap && !analysis.ca.deployment && !!cluster;
  for (const s of run.skipped) {
    if (s.reason === NOT_APPLICABLE) notApplicable.push({ checkId: s.checkId, reason: s.detail });
    else if (s.reason !== 'not-provided') skipped.push(s);
    else if (!pf.nodeGroupSourceGiven && pf.karpenter && s.checkId === 'workload-unplaceable') {
      notApplicable.push({ checkId: s.checkId, reason: 'no CA node groups given: Karpenter NodePools only' });
    } else if (karpenterOnly) {
      notApplicable.push({ checkId: s.checkId, reason: 'no CA node groups in the input and no CA Deployment: Karpenter NodePools only' });
    } else if (!pf.nodeGroupSourceGiven) {
      const noGroups = declared.map((d) => d.noGroupsReason).filter((r): r is string => !!r);
      notApplicable.push({
        checkId: s.checkId,
        reason: noGroups.length
          ? noGroups.join('; ')
          : 'no node groups given (--eksctl, --node-groups, --from or --live)',
      });
    } else skipped.push({ ...s, detail: noGroupsDetail });
  }

  // locations, then .casdoctor.yaml and casdoctor.io/ignore
  const located = new Map<string, LocatedObject>();
  for (const lo of manifests.objects) {
    located.set(
      objectKey(lo.object.kind ?? '', lo.object.metadata.namespace, lo.object.metadata.name ?? ''),
      lo,
    );
  }
  const objectOf = (f: Finding): KubeObject | undefined =>
    located.get(objectKey(f.subject.kind, f.subject.namespace, f.subject.name))?.object;
  const withLocations = run.findings.map((f) => {
    const lo = located.get(objectKey(f.subject.kind, f.subject.namespace, f.subject.name));
    return lo ? { ...f, location: { ...lo.location } } : f;
  });
  const applied = applyConfig(withLocations, config, objectOf, knownChecks);
  const findings = applied.findings.sort(compareFindings);

  const preflightChecks = CHECKS.filter((c) => c.meta.commands.includes('preflight'));
  const report: PreflightReport & Pick<PreflightKarpenterReport, 'nodePools'> = {
    toolVersion: VERSION,
    now: now.toISOString(),
    failOn: o.failOn,
    findings,
    skipped,
    notApplicable,
    checks: [
      ...preflightChecks.map((c) => ({
        id: c.meta.id,
        title: c.meta.title,
        summary: c.meta.summary,
        severity: config.severity[c.meta.id] ?? c.meta.severity,
        docsUrl: `https://github.com/casdoctor/casdoctor/blob/main/docs/checks/${c.meta.id}.md`,
        kinds: preflightCheckKinds(c.meta.id),
      })),
      ...(pf.karpenter
        ? KARPENTER_PREFLIGHT_CHECKS.map((c) => ({ ...c, severity: config.severity[c.id] ?? c.severity }))
        : []),
    ],
    objects: manifests.objects.map((lo) => ({
      kind: lo.object.kind ?? '',
      ...(lo.object.metadata.namespace ? { namespace: lo.object.metadata.namespace } : {}),
      name: lo.object.metadata.name ?? '',
      location: lo.location,
    })),
    inputs: {
      manifests: manifests.sources,
      nodeGroups: sourcesText,
      ca: describeCa(analysis),
      ...(pf.karpenter ? { nodePools: nodePoolSources(analysis) } : {}),
    },
    groups: groupReports(analysis, cluster?.via),
    workloads: workloadReports(analysis),
    ...(pf.karpenter ? { nodePools: pf.karpenter.pools } : {}),
    notes: [...pf.notes],
  };

  for (const w of [...manifests.warnings, ...pf.warnings]) deps.stderr(`warning: ${safeText(w)}\n`);
  if (cluster) {
    for (const w of cluster.raw.warnings) deps.stderr(`warning: ${safeText(w)}\n`);
    for (const g of cluster.raw.gaps) deps.stderr(`warning: ${safeText(g.detail)}\n`);
  }
  for (const u of applied.unknownAnnotationIds)
    deps.stderr(`warning: casdoctor.io/ignore names an unknown check: ${safeText(u)}\n`);

  const cwd = process.cwd();
  const uriFor = (file: string): string => {
    if (file === '<stdin>') return 'stdin';
    const abs = isAbsolute(file) ? file : resolve(cwd, file);
    const rel = relative(cwd, abs);
    return defaultUri(rel.startsWith('..') || isAbsolute(rel) ? file : rel);
  };
  // with a sink (stdout), -o json is streamed to it as it is written and '' returned
  const render = async (format: Format, forTerminal: boolean, sink?: ChunkSink): Promise<string> => {
    switch (format) {
      case 'json': {
        const doc: JsonReport = {
          schemaVersion: 1,
          command: 'preflight',
          now: report.now,
          findings: report.findings,
          skipped: report.skipped,
          notApplicable: report.notApplicable,
          summary: summaryOf(report),
          inputs: report.inputs,
          nodeGroups: report.groups,
          ...(report.nodePools ? { nodePools: report.nodePools } : {}),
          workloads: report.workloads,
          notes: report.notes,
        };
        if (!sink) return renderJson(doc);
        await writeMachineReport('json', doc, sink);
        return '';
      }
      case 'sarif':
        return renderSarif(report, { uriFor });
      case 'junit':
        return renderJunit(report);
      case 'markdown':
        return renderMarkdown(report);
      default:
        return renderPreflightText(report, await terminalStyle(forTerminal && wantsColor(o, deps)), forTerminal && deps.stdoutIsTTY ? deps.terminalWidth : undefined);
    }
  };
  for (const f of files) {
    try {
      await mkdir(dirname(f.path), { recursive: true });
      await writeFile(f.path, await render(f.format, false));
    } catch (e) {
      throw new InputError(
        `--output-file ${f.format}=${f.path}: cannot write: ${(e as Error).message}`,
        f.path,
      );
    }
  }
  const text = await render(output, true, stdoutSink(deps));
  if (text) deps.stdout(text);

  const failing = findings.some((f) => isFailing(f, o.failOn));
  const exit = failing ? EXIT.findings : EXIT.ok;
  return { exitCode: strictExitCode(exit, o.strict !== false, skipped.length > 0) };
}

/**
 * A quantity the API server would refuse (`memory: 1.5.3Gi`) is an input error naming the file, the object and the
 * field, as why-pending does for a pod (why-pending.ts rejectInvalidQuantities): skipped, the workload would look
 * smaller than it is and pass.
 */
function rejectInvalidQuantities(objects: readonly LocatedObject[]): void {
  for (const { object, location } of objects) {
    const bad = invalidQuantityOf(object);
    if (!bad) continue;
    const ns = object.metadata.namespace ? `${object.metadata.namespace}/` : '';
    throw new InputError(
      `${location.file}:${location.line}: ${object.kind} ${ns}${object.metadata.name}: ${bad.field}: ${JSON.stringify(bad.value) ?? String(bad.value)} is not a valid quantity (e.g. 512Mi, 1.5Gi, 250m)`,
      location.file,
      { line: location.line, column: 1 },
    );
  }
}

/** A NodePool limit the API server would refuse (`cpu: 1.5.3`) is an input error: skipped, the pool would look unlimited. */
function rejectInvalidNodePoolLimits(objects: readonly LocatedObject[]): void {
  for (const { object, location } of objects) {
    if (object.kind !== 'NodePool') continue;
    const limits = (object as { spec?: { limits?: unknown } }).spec?.limits;
    if (limits === undefined || limits === null) continue;
    const entries = typeof limits === 'object' && !Array.isArray(limits) ? Object.entries(limits) : [['', limits] as const];
    for (const [k, v] of entries) {
      if ((typeof v === 'string' || typeof v === 'number') && isValidQuantity(v)) continue;
      throw new InputError(
        `${location.file}:${location.line}: NodePool ${object.metadata.name}: spec.limits${k ? `.${k}` : ''}: ${JSON.stringify(v) ?? String(v)} is not a valid quantity (e.g. 100, 400Gi, 8)`,
        location.file,
        { line: location.line, column: 1 },
      );
    }
  }
}

function summaryOf(r: PreflightReport) {
  const active = r.findings.filter((f) => !f.suppressed);
  return {
    errors: active.filter((f) => f.severity === 'error').length,
    warnings: active.filter((f) => f.severity === 'warning').length,
    info: active.filter((f) => f.severity === 'info').length,
    suppressed: r.findings.length - active.length,
    failing: active.filter((f) => isFailing(f, r.failOn)).length,
    skipped: r.skipped.length,
    notApplicable: r.notApplicable.length,
  };
}

function groupReports(a: Analysis, via: 'live' | 'from' | undefined): PreflightGroupReport[] {
  const pf = preflightOf(a);
  return (pf?.groups ?? []).map((g) => {
    const node = g.scratch.node;
    return {
      name: g.group.name,
      source: g.declared ? g.declared.origin : (via ?? 'from'),
      ...(g.location ? { location: g.location } : {}),
      ...(g.scratch.instanceType ? { instanceType: g.scratch.instanceType } : {}),
      zones: g.zones,
      ...(g.templateZone ? { templateZone: g.templateZone } : {}),
      minSize: g.group.minSize,
      maxSize: g.group.maxSize,
      ...(g.gate ? { gate: `${g.gate.reason}: ${g.gate.detail}` } : {}),
      ...(node
        ? {
            templateLabels: { ...(node.metadata.labels ?? {}) },
            templateTaints: (node.spec?.taints ?? []).map(
              (t) => `${t.key}${t.value ? `=${t.value}` : ''}:${t.effect}`,
            ),
            templateAllocatable: Object.fromEntries(
              Object.entries(node.status?.allocatable ?? {}).map(([k, v]) => [k, String(v)]),
            ),
          }
        : {}),
      ...(g.real ? { realNode: g.real.source } : {}),
    };
  });
}

function workloadReports(a: Analysis): Array<PreflightWorkloadReport & Partial<KarpenterWorkloadReport>> {
  const pf = preflightOf(a);
  if (!pf || (pf.groups.length === 0 && !pf.karpenter)) return [];
  return placementWorkloads(pf).map((w) => {
    const p = placementOf(a, w);
    return {
      kind: w.kind,
      namespace: w.namespace,
      name: w.name,
      location: w.located.location,
      nodeGroups: p.groups.map((g) => {
        const d = g.ca?.described[0];
        const rd = g.real?.described[0];
        return {
          name: g.g.group.name,
          fits: g.ca?.fits ?? false,
          ...(g.g.gate ? { gate: `${g.g.gate.reason}: ${g.g.gate.detail}` } : {}),
          reasons: g.g.gate ? [g.g.gate.reason] : (g.ca?.failures[0]?.reasons ?? []),
          ...(g.g.notEvaluated ? { notEvaluated: { ...g.g.notEvaluated } } : {}),
          ...(d?.values ? { values: d.values } : {}),
          ...(g.real
            ? {
                realNode: {
                  fits: g.real.fits,
                  reasons: g.real.failures[0]?.reasons ?? [],
                  ...(rd?.values ? { values: rd.values } : {}),
                },
              }
            : {}),
        };
      }),
      ...(p.notes.length ? { notes: p.notes } : {}),
      ...karpenterPart(a, w, p),
    };
  });
}

function caSide(a: Analysis, p: WorkloadPlacement): { given: boolean; fits: string[]; undecided: boolean } {
  const pf = preflightOf(a);
  return {
    given: (pf?.groups.length ?? 0) > 0,
    fits: [...p.caFits, ...p.realOnly].map((g) => g.g.group.name),
    undecided: p.notEvaluated.length > 0,
  };
}

function karpenterPart(a: Analysis, w: PreflightWorkload, p: WorkloadPlacement): KarpenterWorkloadReport | Record<string, never> {
  const k = karpenterPlacementOf(a, w);
  if (!k) return {};
  const s = servedBy(k, caSide(a, p));
  return { karpenter: k, servedBy: s.servedBy, servedByText: s.text };
}

/** Where the NodePools came from, for the report's header. */
function nodePoolSources(a: Analysis): string[] {
  const pools = preflightOf(a)?.karpenter?.pools ?? [];
  const files = [...new Set(pools.flatMap((p) => (p.location ? [p.location.file] : [])))];
  const cluster = [...new Set(pools.filter((p) => p.source === 'from' || p.source === 'live').map((p) => (p.source === 'live' ? 'live cluster' : '--from')))];
  return [...files, ...cluster];
}

function karpenterSubjectOf(w: PreflightWorkload) {
  return { kind: w.kind, name: w.name, namespace: w.namespace };
}

/**
 * Karpenter's verdicts as findings: no NodePool takes the workload (and no CA group either), the chosen pool's NodeClaim
 * would not launch, or CA and Karpenter would both add a node. A workload no pool fits because a pool could not be
 * judged is a not-evaluated skip, never a failure.
 */
function karpenterFindings(
  a: Analysis,
  severity: Record<string, 'error' | 'warning' | 'info'>,
): { findings: Finding[]; skipped: Skipped[]; /** workloads a NodePool takes (or may: not evaluated) */ servedByKarpenter: Set<string> } {
  const pf = preflightOf(a);
  const out = { findings: [] as Finding[], skipped: [] as Skipped[], servedByKarpenter: new Set<string>() };
  if (!pf?.karpenter) return out;
  const sev = (id: string, d: 'error' | 'warning') => severity[id] ?? d;
  const undecided: string[] = [];
  for (const w of placementWorkloads(pf)) {
    const k = karpenterPlacementOf(a, w) as KarpenterWorkloadVerdict;
    const p = placementOf(a, w);
    const ca = caSide(a, p);
    const ref = `${w.kind} ${w.namespace}/${w.name}`;
    const subject = karpenterSubjectOf(w);
    const base = { subject, docsUrl: KARPENTER_PREFLIGHT_DOCS, location: { ...w.located.location } };
    const poolEvidence = k.nodePools.map((v) => ({
      source: `NodePool ${v.nodePool} (weight ${v.weight})`,
      observed: `${v.outcome}${v.stage ? ` at ${v.stage}` : ''}: ${v.error ? `${v.error} — ` : ''}${v.detail}${v.daemonSets.length > 0 && (v.stage === 'instance-types' || v.outcome === 'fits') ? `; DaemonSet overhead ${JSON.stringify(v.daemonSetOverhead)} (${v.daemonSets.join(', ')})` : ''}`,
    }));
    if (k.outcome === 'fits') {
      out.servedByKarpenter.add(objectKey(w.kind, w.namespace, w.name));
      if (ca.fits.length > 0) {
        out.findings.push({
          ...base,
          checkId: 'karpenter-workload-served-by-both',
          severity: sev('karpenter-workload-served-by-both', 'warning'),
          message: `${ref} fits both CA node group(s) ${ca.fits.join(', ')} and Karpenter NodePool ${k.nodePool}: while its pods are Pending both autoscalers add a node for them.`,
          evidence: [
            { source: 'Cluster Autoscaler', observed: `node group(s) ${ca.fits.join(', ')} fit the pod` },
            { source: `NodePool ${k.nodePool}`, observed: `fits on ${k.instanceTypeCount ?? 0} instance type(s), e.g. ${(k.instanceTypes ?? []).slice(0, 3).join(', ')}` },
          ],
          remediation: `Give the workload one autoscaler: keep it off Karpenter with the node affinity \`karpenter.sh/nodepool DoesNotExist\`, or select the NodePool (nodeSelector karpenter.sh/nodepool: ${k.nodePool}) so no CA group's template matches.`,
        });
      }
      continue;
    }
    if (k.outcome === 'launch-fails') {
      const chosen = k.nodePools.find((v) => v.chosen);
      out.findings.push({
        ...base,
        checkId: 'karpenter-workload-launch-fails',
        severity: sev('karpenter-workload-launch-fails', 'error'),
        message: `${ref}: Karpenter picks NodePool ${k.nodePool}, but its NodeClaim would not launch: ${chosen?.launchError ?? ''}.`,
        evidence: [{ source: `NodePool ${k.nodePool}`, observed: `fits on ${(k.instanceTypes ?? []).join(', ')}; ${chosen?.launchError ?? ''}` }],
        remediation: `Select AMIs for the instance types the pod needs in the EC2NodeClass (amiSelectorTerms, e.g. alias al2023@latest resolves amd64 and arm64), or restrict the NodePool's kubernetes.io/arch to the AMIs' architecture.`,
      });
      continue;
    }
    if (ca.fits.length > 0) continue; // CA serves it
    if (k.outcome === 'ignored') {
      if (k.ignored?.silent || !k.event) continue; // opted out of Karpenter on purpose
      out.findings.push({
        ...base,
        checkId: 'karpenter-workload-unplaceable',
        severity: sev('karpenter-workload-unplaceable', 'error'),
        message: `${ref}: Karpenter refuses the pod: ${k.event}.`,
        evidence: [{ source: 'Karpenter (provisioner.go Validate)', observed: k.ignored?.reason ?? '' }],
        remediation: "Select nodes with well-known labels or custom labels outside Karpenter's restricted domains (karpenter.sh, karpenter.k8s.aws).",
      });
      continue;
    }
    if (k.outcome === 'not-evaluated' || ca.undecided) {
      // a NodePool may take it: CA's "no group fits" is no verdict on the workload either
      if (k.outcome === 'not-evaluated') out.servedByKarpenter.add(objectKey(w.kind, w.namespace, w.name));
      undecided.push(`${ref} (${k.nodePools.filter((v) => v.outcome === 'not-evaluated').map((v) => `${v.nodePool}: ${v.notEvaluated?.map((n) => n.missing).join('; ') ?? v.detail}`).join(' | ') || 'a CA node group could not be evaluated'})`);
      continue;
    }
    const rejected = k.nodePools.filter((v) => v.outcome === 'rejected');
    out.findings.push({
      ...base,
      checkId: 'karpenter-workload-unplaceable',
      severity: sev('karpenter-workload-unplaceable', 'error'),
      message:
        k.nodePools.length === 0
          ? `${ref}: no NodePool to provision from.`
          : `${ref}: no Karpenter NodePool would provision for it${ca.given ? ' (and no CA node group fits)' : ''}: ${k.nodePools.map(poolReasonText).join('; ')}.`,
      evidence: [...poolEvidence, ...(k.event ? [{ source: 'Karpenter event (FailedScheduling)', observed: k.event }] : []), ...k.notes.map((n) => ({ source: 'casdoctor', observed: n }))],
      remediation: [...new Set(rejected.map(karpenterAdvice))].map((r) => `- ${r}`).join('\n'),
    });
  }
  if (undecided.length > 0) {
    out.skipped.push({
      checkId: 'karpenter-workload-unplaceable',
      reason: 'not-evaluated',
      detail: `no NodePool casdoctor could judge takes these workloads, so they are not evaluated: ${undecided.slice(0, 6).join('; ')}${undecided.length > 6 ? `; and ${undecided.length - 6} more` : ''}. Supply the EC2NodeClasses with their status (\`kubectl get ec2nodeclasses.karpenter.k8s.aws -o yaml\`) via --nodepools or -f`,
    });
  }
  return out;
}
