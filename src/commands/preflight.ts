import { safeText } from '../report/sanitize.js';
import { mkdir, writeFile } from 'node:fs/promises';
import { dirname, isAbsolute, relative, resolve } from 'node:path';
import { runChecks } from '../checks/lib/engine.js';
import { CHECKS } from '../checks/index.js';
import { preflightCheckKinds } from '../checks/lib/preflight.js';
import { applyConfig, loadCasdoctorConfig } from '../config/casdoctor-config.js';
import { InputError, UsageError } from '../model/errors.js';
import { compareFindings, type Finding, type Skipped } from '../model/findings.js';
import type { KubeObject } from '../model/k8s.js';
import type {
  DeclaredNodeGroups,
  LocatedObject,
  PreflightGroupReport,
  PreflightReport,
  PreflightWorkloadReport,
} from '../model/preflight.js';
import type { RawInputs } from '../model/snapshot.js';
import { renderJson } from '../report/json.js';
import { isFailing, renderJunit } from '../report/junit.js';
import { renderMarkdown } from '../report/markdown.js';
import { renderPreflightText } from '../report/preflight-text.js';
import { defaultUri, renderSarif } from '../report/sarif.js';
import { terminalStyle } from '../report/style.js';
import type { Analysis } from '../simulate/analysis.js';
import { caVersionText } from '../simulate/ca-config.js';
import { buildPreflight, placementOf, placementWorkloads, preflightOf } from '../simulate/preflight.js';
import { gatherInputs, loadInstanceTypeData, requireOutput, resolveNow, splitArgs } from './common.js';
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
  const now = resolveNow(o, deps);
  const caArgs = o.caArgs ? splitArgs(o.caArgs) : undefined;
  const knownChecks = new Set(CHECKS.map((c) => c.meta.id));
  const config = await loadCasdoctorConfig(o.config, knownChecks);

  const { readManifests, requireWorkloads } = await import('../gather/manifests.js');
  const manifests = await readManifests(manifestsPaths, { defaultNamespace: o.namespace ?? 'default' });
  // a CI gate that checked nothing must not pass: an empty `helm template |`, an empty directory, only Services
  requireWorkloads(manifests, manifestsPaths);
  const declared: DeclaredNodeGroups[] = [];
  if (o.eksctl) {
    const { readEksctlConfig } = await import('../gather/eksctl.js');
    declared.push(await readEksctlConfig(o.eksctl));
  }
  for (const f of o.nodeGroups ?? []) {
    const { readNodeGroupsFile } = await import('../gather/node-groups-file.js');
    declared.push(await readNodeGroupsFile(f));
  }
  let cluster: { raw: RawInputs; via: 'live' | 'from' } | undefined;
  if (o.from.length > 0) cluster = { raw: await gatherInputs(o, deps), via: 'from' };
  else if (o.live) cluster = { raw: await gatherInputs({ ...o, from: [] }, deps), via: 'live' };

  const analysis = buildPreflight(
    { manifests, declared, ...(cluster ? { cluster } : {}) },
    { now, ...(caArgs ? { caArgs } : {}), staticInstanceTypes: await loadInstanceTypeData() },
  );
  const pf = preflightOf(analysis);
  if (!pf) throw new Error('preflight context missing');
  const run = runChecks(CHECKS, analysis, 'preflight');

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
  for (const s of run.skipped) {
    if (s.reason !== 'not-provided') skipped.push(s);
    else if (!pf.nodeGroupSourceGiven) {
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
  const report: PreflightReport = {
    toolVersion: VERSION,
    now: now.toISOString(),
    failOn: o.failOn,
    findings,
    skipped,
    notApplicable,
    checks: preflightChecks.map((c) => ({
      id: c.meta.id,
      title: c.meta.title,
      summary: c.meta.summary,
      severity: config.severity[c.meta.id] ?? c.meta.severity,
      docsUrl: `https://github.com/casdoctor/casdoctor/blob/main/docs/checks/${c.meta.id}.md`,
      kinds: preflightCheckKinds(c.meta.id),
    })),
    objects: manifests.objects.map((lo) => ({
      kind: lo.object.kind ?? '',
      ...(lo.object.metadata.namespace ? { namespace: lo.object.metadata.namespace } : {}),
      name: lo.object.metadata.name ?? '',
      location: lo.location,
    })),
    inputs: { manifests: manifests.sources, nodeGroups: sourcesText, ca: describeCa(analysis) },
    groups: groupReports(analysis, cluster?.via),
    workloads: workloadReports(analysis),
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
  const render = async (format: Format, forTerminal: boolean): Promise<string> => {
    switch (format) {
      case 'json':
        return renderJson({
          schemaVersion: 1,
          command: 'preflight',
          now: report.now,
          findings: report.findings,
          skipped: report.skipped,
          notApplicable: report.notApplicable,
          summary: summaryOf(report),
          inputs: report.inputs,
          nodeGroups: report.groups,
          workloads: report.workloads,
          notes: report.notes,
        });
      case 'sarif':
        return renderSarif(report, { uriFor });
      case 'junit':
        return renderJunit(report);
      case 'markdown':
        return renderMarkdown(report);
      default:
        return renderPreflightText(report, await terminalStyle(forTerminal && o.color && deps.stdoutIsTTY));
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
  deps.stdout(await render(output, true));

  const failing = findings.some((f) => isFailing(f, o.failOn));
  const exit = failing ? EXIT.findings : EXIT.ok;
  return { exitCode: strictExitCode(exit, o.strict !== false, skipped.length > 0) };
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

function workloadReports(a: Analysis): PreflightWorkloadReport[] {
  const pf = preflightOf(a);
  if (!pf || pf.groups.length === 0) return [];
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
    };
  });
}
