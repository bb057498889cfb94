export type Severity = 'error' | 'warning' | 'info';

export const SEVERITY_ORDER: Record<Severity, number> = { error: 0, warning: 1, info: 2 };

export interface Subject {
  kind: string;
  name: string;
  namespace?: string;
}

export interface Evidence {
  /** e.g. "Node ip-10-0-1-5.ec2.internal", "ASG tags", "instance-types table", "CA event" */
  source: string;
  observed: string;
  expected?: string;
}

export interface Finding {
  checkId: string;
  severity: Severity;
  subject: Subject;
  nodeGroup?: string;
  /** One sentence, subject first, concrete values, no advice. */
  message: string;
  /** The scheduler's own reason string, e.g. "Insufficient cpu". */
  schedulerReason?: string;
  /** CA's own reason word, e.g. "max node group size reached", "NotSafeToEvictAnnotation". */
  caReason?: string;
  evidence: Evidence[];
  /** What to change, with a command or manifest snippet where it helps. */
  remediation?: string;
  docsUrl: string;
  /** Where the subject was written (preflight: the manifest file and line of the object). */
  location?: FindingLocation;
  /** Set when the finding is suppressed (.casdoctor.yaml ignore entry or casdoctor.io/ignore annotation); it then never fails a run. */
  suppressed?: FindingSuppression;
}

export interface FindingLocation {
  /** The path as the user gave it, or "<stdin>". */
  file: string;
  /** 1-based. */
  line: number;
}

export interface FindingSuppression {
  /** 'config': an ignore entry of .casdoctor.yaml; 'annotation': casdoctor.io/ignore on the object. */
  kind: 'config' | 'annotation';
  /** Why: the ignore entry's reason, or the annotation that asked for it. */
  reason: string;
}

export interface Skipped {
  checkId: string;
  reason: string;
  detail: string;
}

/** Skip reason of a check about another cloud provider than the one CA runs with: nothing is missing, so never "incomplete". */
export const NOT_APPLICABLE = 'not-applicable';

/** Whether a skipped check leaves the report incomplete (--strict exits 3): all but the not-applicable ones. */
export function isIncompleteSkip(s: Skipped): boolean {
  return s.reason !== NOT_APPLICABLE;
}

export function compareFindings(a: Finding, b: Finding): number {
  return (
    SEVERITY_ORDER[a.severity] - SEVERITY_ORDER[b.severity] ||
    cmp(a.checkId, b.checkId) ||
    cmp(a.subject.namespace ?? '', b.subject.namespace ?? '') ||
    cmp(a.subject.kind, b.subject.kind) ||
    cmp(a.subject.name, b.subject.name) ||
    cmp(a.nodeGroup ?? '', b.nodeGroup ?? '') ||
    cmp(a.message, b.message)
  );
}

function cmp(a: string, b: string): number {
  return a < b ? -1 : a > b ? 1 : 0;
}
