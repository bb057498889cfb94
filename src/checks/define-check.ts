import type { Evidence, Finding, Severity, Subject } from '../model/findings.js';
import type { DataKind } from '../model/snapshot.js';
import type { Analysis } from '../simulate/analysis.js';

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
  /** Message templates keyed by id; `{name}` placeholders are filled from the data given to report(). */
  messages: Record<M, string>;
  /** Upstream source the behaviour comes from. */
  upstream?: string;
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
  report(input: FindingInput<M>): void;
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
  return {
    checkId: meta.id,
    severity: input.severity ?? meta.severity,
    subject: input.subject,
    ...(input.nodeGroup !== undefined ? { nodeGroup: input.nodeGroup } : {}),
    message: formatMessage(meta, input.messageId, input.data),
    ...(input.schedulerReason !== undefined ? { schedulerReason: input.schedulerReason } : {}),
    ...(input.caReason !== undefined ? { caReason: input.caReason } : {}),
    evidence: input.evidence ?? [],
    ...(input.remediation !== undefined ? { remediation: input.remediation } : {}),
    docsUrl: `${DOCS_BASE}/${meta.id}.md`,
  };
}
