// SARIF 2.1.0 for GitHub code scanning and other SARIF viewers: one rule per preflight check (from its metadata),
// one result per finding with the manifest file and line, stable partial fingerprints, and suppressions kept.
import { createHash } from 'node:crypto';
import type { Finding, Severity } from '../model/findings.js';
import type { PreflightReport } from '../model/preflight.js';
import { safeJsonText, safeLines, safeText } from './sanitize.js';

export const SARIF_SCHEMA_URI = 'https://json.schemastore.org/sarif-2.1.0.json';
const INFORMATION_URI = 'https://github.com/casdoctor/casdoctor';
/** The key of casdoctor's partial fingerprint; bump the suffix only if the hashed fields change. */
export const FINGERPRINT_KEY = 'casdoctorFinding/v1';

export interface SarifOptions {
  /** Maps a finding's file (as given to -f) to the artifact URI; default: forward slashes, no leading "./". */
  uriFor?: (file: string) => string;
}

function level(s: Severity): 'error' | 'warning' | 'note' {
  return s === 'info' ? 'note' : s;
}

/** "workload-unplaceable" -> "WorkloadUnplaceable" (SARIF's rule name convention). */
function ruleName(id: string): string {
  return id
    .split('-')
    .map((p) => p.charAt(0).toUpperCase() + p.slice(1))
    .join('');
}

export function defaultUri(file: string): string {
  if (file === '<stdin>') return 'stdin';
  const path = file.replaceAll('\\', '/').replace(/^\.\//, '');
  // an absolute path is a file:// URI (SARIF 3.10.3 artifactLocation.uri is a URI, not a path): /a b -> file:///a%20b
  const drive = /^[A-Za-z]:\//.exec(path)?.[0];
  if (!path.startsWith('/') && !drive) return path;
  const rest = drive ? path.slice(drive.length) : path.slice(1);
  return `file:///${drive ?? ''}${rest.split('/').map(encodeURIComponent).join('/')}`;
}

/**
 * What identifies a finding across runs: check, subject and node group; never the message or the line, which change
 * with unrelated edits. Repeats of the same identity get an ordinal.
 */
export function fingerprints(findings: Finding[]): string[] {
  const seen = new Map<string, number>();
  return findings.map((f) => {
    const identity = [
      f.checkId,
      f.subject.kind,
      f.subject.namespace ?? '',
      f.subject.name,
      f.nodeGroup ?? '',
    ].join('\u0000');
    const n = seen.get(identity) ?? 0;
    seen.set(identity, n + 1);
    return createHash('sha256')
      .update(n === 0 ? identity : `${identity}\u0000${n}`)
      .digest('hex');
  });
}

/**
 * A SARIF plain-text message from foreign text: control and bidi characters made visible, and a `](` escaped so no
 * `[text](url)` in a manifest becomes an embedded link (SARIF 2.1.0 §3.11.6); other brackets (YAML lists) stay as written.
 */
function sarifText(s: string): string {
  return safeLines(s).replace(/\](?=\()/g, '\\]');
}

function resultText(f: Finding): string {
  return sarifText(f.remediation ? `${f.message}\nFix: ${f.remediation}` : f.message);
}

export function renderSarif(report: PreflightReport, options: SarifOptions = {}): string {
  const uriFor = options.uriFor ?? defaultUri;
  const ruleIds = [...new Set([...report.checks.map((c) => c.id), ...report.findings.map((f) => f.checkId)])];
  const info = new Map(report.checks.map((c) => [c.id, c]));
  const rules = ruleIds.map((id) => {
    const c = info.get(id);
    return {
      id,
      name: ruleName(id),
      shortDescription: { text: c?.title ?? id },
      fullDescription: { text: c?.summary ?? id },
      ...(c ? { helpUri: c.docsUrl } : {}),
      help: {
        text: `${c?.summary ?? id}\nDocumentation: ${c?.docsUrl ?? ''}`.trim(),
        markdown: `${c?.summary ?? id}\n\n[Documentation](${c?.docsUrl ?? INFORMATION_URI})`,
      },
      defaultConfiguration: { level: level(c?.severity ?? 'warning') },
      properties: { tags: ['kubernetes', 'cluster-autoscaler'] },
    };
  });
  const index = new Map(ruleIds.map((id, i) => [id, i]));
  const prints = fingerprints(report.findings);
  const fallbackFile = report.inputs.manifests[0];
  const results = report.findings.map((f, i) => {
    const loc = f.location ?? (fallbackFile ? { file: fallbackFile, line: 1 } : undefined);
    return {
      ruleId: f.checkId,
      ruleIndex: index.get(f.checkId) as number,
      level: level(f.severity),
      message: { text: resultText(f) },
      ...(loc
        ? {
            locations: [
              {
                physicalLocation: {
                  artifactLocation: { uri: uriFor(loc.file) },
                  region: { startLine: Math.max(1, loc.line) },
                },
              },
            ],
          }
        : {}),
      partialFingerprints: { [FINGERPRINT_KEY]: prints[i] },
      ...(f.suppressed
        ? {
            suppressions: [
              {
                kind: f.suppressed.kind === 'annotation' ? 'inSource' : 'external',
                status: 'accepted',
                justification: sarifText(f.suppressed.reason),
              },
            ],
          }
        : {}),
      properties: {
        subject: safeText(`${f.subject.kind}/${f.subject.namespace ? `${f.subject.namespace}/` : ''}${f.subject.name}`),
        ...(f.nodeGroup ? { nodeGroup: safeText(f.nodeGroup) } : {}),
        ...(f.schedulerReason ? { schedulerReason: safeText(f.schedulerReason) } : {}),
        ...(f.caReason ? { caReason: safeText(f.caReason) } : {}),
      },
    };
  });
  const notifications = report.skipped.map((s) => ({
    level: 'warning' as const,
    message: { text: sarifText(`check ${s.checkId} skipped (${s.reason}): ${s.detail}`) },
    descriptor: { id: s.checkId },
  }));
  const log = {
    $schema: SARIF_SCHEMA_URI,
    version: '2.1.0',
    runs: [
      {
        tool: {
          driver: {
            name: 'casdoctor',
            version: report.toolVersion,
            semanticVersion: report.toolVersion,
            informationUri: INFORMATION_URI,
            rules,
          },
        },
        automationDetails: { id: 'casdoctor/preflight/' },
        invocations: [
          {
            // the run completed; skipped checks are reported as notifications, not as a failed execution
            executionSuccessful: true,
            ...(notifications.length ? { toolExecutionNotifications: notifications } : {}),
          },
        ],
        results,
      },
    ],
  };
  return `${safeJsonText(JSON.stringify(log, null, 2))}\n`;
}
