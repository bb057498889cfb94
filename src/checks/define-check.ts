import { type Evidence, type Finding, NOT_APPLICABLE, type Severity, type Subject } from '../model/findings.js';
import { shellQuote } from '../model/shell.js';
import { hasUnsafe, oneLine } from '../model/text.js';
import type { DataKind } from '../model/snapshot.js';
import type { AutoscalerKey, PodRoute } from '../model/why-pending.js';
import type { Analysis, CaRecordKind } from '../simulate/analysis.js';
import { providerById } from '../providers/index.js';

export type CommandName = 'why-pending' | 'asg-audit' | 'scale-down-blockers' | 'preflight';

export const DOCS_BASE = 'https://github.com/casdoctor/casdoctor/blob/main/docs/checks';

export interface CheckMeta<M extends string = string> {
  /** Stable kebab-case id naming the problem; equals the file name; never changes. */
  id: string;
  title: string;
  /** One line for `casdoctor checks` and the README table. */
  summary: string;
  severity: Severity;
  commands: CommandName[];
  /** Snapshot data the check cannot run without; a missing kind makes the check skipped, never passed. */
  requires: DataKind[];
  /** Parts of CA's own record (log, /metrics, /snapshotz) the check cannot run without: skipped with how to supply them. */
  requiresRecord?: CaRecordKind[];
  /** Message templates keyed by id; `{name}` placeholders are filled from the data given to report(). */
  messages: Record<M, string>;
  /** Upstream source the behaviour comes from. */
  upstream?: string;
  /** CA cloud providers the check is about (absent = any): under another, the check is skipped as not applicable. */
  providers?: string[];
  /**
   * The autoscaler the check is about (absent = Cluster Autoscaler); shown by `casdoctor checks` and in the README. The
   * engine gives the check only the pods that autoscaler serves (their route), and does not run a CA check on a
   * Karpenter-only cluster.
   */
  autoscaler?: Autoscaler;
  /** The routes of the pods the check is about, when not its autoscaler's (e.g. pods neither autoscaler serves). */
  routes?: PodRoute[];
}

export type Autoscaler = 'cluster-autoscaler' | 'karpenter';

/** The autoscaler a check is about, the default filled in. */
export function checkAutoscaler(meta: Pick<CheckMeta, 'autoscaler'>): Autoscaler {
  return meta.autoscaler ?? 'cluster-autoscaler';
}

/** The route-level key of a check's autoscaler. */
export function checkAutoscalerKey(meta: Pick<CheckMeta, 'autoscaler'>): AutoscalerKey {
  return checkAutoscaler(meta) === 'karpenter' ? 'karpenter' : 'ca';
}

/** Why a check does not apply to the provider CA runs with, or undefined when it does. */
export function providerNotApplicable(
  meta: Pick<CheckMeta, 'providers'>,
  provider: string,
): { reason: string; detail: string } | undefined {
  if (!meta.providers || meta.providers.includes(provider)) return undefined;
  return {
    reason: NOT_APPLICABLE,
    detail: `CA runs with --cloud-provider=${provider}; this check is about ${meta.providers.map((p) => providerById(p)?.words.checksSubject ?? p).join(' or ')}`,
  };
}

export interface FindingInput<M extends string> {
  messageId: M;
  data: Record<string, string | number>;
  subject: Subject;
  nodeGroup?: string;
  severity?: Severity;
  schedulerReason?: string;
  caReason?: string;
  evidence?: Evidence[];
  remediation?: string;
}

export interface CheckContext<M extends string = string> {
  analysis: Analysis;
  /** The command the check runs for (a check of several commands may look at different things in each). */
  command: CommandName;
  report(input: FindingInput<M>): void;
  /** The check could not evaluate after all (data it needs turned out absent): say what is missing and how to supply it. */
  skip(reason: string, detail: string): void;
}

export interface Check<M extends string = string> {
  meta: CheckMeta<M>;
  run(ctx: CheckContext<M>): void;
}

export function defineCheck<M extends string>(check: Check<M>): Check<M> {
  return check;
}

export class MessageError extends Error {
  override name = 'MessageError';
}

/** Fills `{placeholder}`s; an unknown message id or an unfilled placeholder is a bug in the check. */
export function formatMessage(
  meta: CheckMeta,
  messageId: string,
  data: Record<string, string | number>,
): string {
  const template = (meta.messages as Record<string, string>)[messageId];
  if (template === undefined) throw new MessageError(`check ${meta.id}: unknown message id "${messageId}"`);
  return template.replace(/\{(\w+)\}/g, (_, key: string) => {
    const v = data[key];
    if (v === undefined) throw new MessageError(`check ${meta.id}: message "${messageId}" needs {${key}}`);
    return String(v);
  });
}

export function toFinding(meta: CheckMeta, input: FindingInput<string>): Finding {
  // A message is one sentence: every value filled into it is foreign and made one line. A fix is several lines of
  // casdoctor's own, so a foreign value with a line break (AWS allows them in ASG names and tags) is made one line
  // wherever it appears in it, and cannot forge a line of casdoctor's own ("fix: run curl … | sh").
  const data: Record<string, string | number> = {};
  for (const [k, v] of Object.entries(input.data)) data[k] = typeof v === 'string' ? oneLine(v) : v;
  const foreign = [input.subject.name, input.subject.namespace, input.nodeGroup, ...Object.values(input.data)].filter(
    (v): v is string => typeof v === 'string' && v.length > 0 && hasUnsafe(v),
  );
  // shell-quoted too: a name with a quote and a line break appears in a printed command only in its quoted form
  const tidy = (text: string) =>
    foreign.reduce((t, v) => t.split(v).join(oneLine(v)).split(shellQuote(v)).join(shellQuote(oneLine(v))), text);
  return {
    checkId: meta.id,
    severity: input.severity ?? meta.severity,
    subject: input.subject,
    ...(input.nodeGroup !== undefined ? { nodeGroup: input.nodeGroup } : {}),
    message: formatMessage(meta, input.messageId, data),
    ...(input.schedulerReason !== undefined ? { schedulerReason: input.schedulerReason } : {}),
    ...(input.caReason !== undefined ? { caReason: input.caReason } : {}),
    evidence: foreign.length
      ? (input.evidence ?? []).map((e) => ({ ...e, observed: tidy(e.observed), ...(e.expected !== undefined ? { expected: tidy(e.expected) } : {}), source: tidy(e.source) }))
      : (input.evidence ?? []),
    ...(input.remediation !== undefined ? { remediation: foreign.length ? tidy(input.remediation) : input.remediation } : {}),
    docsUrl: `${DOCS_BASE}/${meta.id}.md`,
  };
}
