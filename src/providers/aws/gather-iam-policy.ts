// Offline IAM: CA's role policy documents (--iam-policy) evaluated locally with @cloud-copilot/iam-simulate.
// That package is AGPL-3.0 while casdoctor is Apache-2.0, so it is an optional peer dependency, loaded only here,
// lazily; without it the IAM checks are skipped with the command that installs it.
import { basename } from 'node:path';
import type { IamEvaluationResult } from '../../model/aws.js';
import { InputError } from '../../model/errors.js';
import type { Gap } from '../../model/snapshot.js';
import type { FailedCondition, IamPlan, StatementNearMiss } from './iam.js';
import { isStackOverflow, readRegularFile, tooDeep } from '../../gather/input-files.js';

export const IAM_SIMULATE_PACKAGE = '@cloud-copilot/iam-simulate';
export const IAM_SIMULATE_VERSION = '0.1.173';
export const IAM_SIMULATE_INSTALL = `npm install ${IAM_SIMULATE_PACKAGE}@${IAM_SIMULATE_VERSION}`;

/** The part of @cloud-copilot/iam-simulate casdoctor uses. */
export interface IamSimulateModule {
  runSimulation(simulation: unknown, options: Record<string, unknown>): Promise<unknown>;
}

export interface PolicyDocument {
  /** File name, plus the policy name when the file holds several. */
  name: string;
  document: { Version?: string; Statement?: unknown };
}

export interface LocalIamResult {
  results?: IamEvaluationResult[];
  gap?: Gap;
  principal: string;
  sources: string[];
  warnings: string[];
}

function isObject(v: unknown): v is Record<string, unknown> {
  return typeof v === 'object' && v !== null && !Array.isArray(v);
}

/** The API returns policy documents URL-encoded; the CLI decodes them. Accept both, and a JSON string. */
function documentFrom(v: unknown): PolicyDocument['document'] | undefined {
  if (isObject(v) && 'Statement' in v) return v as PolicyDocument['document'];
  if (typeof v === 'string') {
    for (const text of [v, safeDecode(v)]) {
      try {
        const parsed = JSON.parse(text);
        if (isObject(parsed) && 'Statement' in parsed) return parsed as PolicyDocument['document'];
      } catch {
        // not this encoding
      }
    }
  }
  return undefined;
}

function safeDecode(s: string): string {
  try {
    return decodeURIComponent(s);
  } catch {
    return s;
  }
}

/**
 * Policy documents in a parsed file: a plain policy document, `aws iam get-policy-version` output
 * ({PolicyVersion: {Document}}), `aws iam get-role-policy` output ({RoleName, PolicyName, PolicyDocument}),
 * or an array of any of these.
 */
export function policyDocumentsIn(value: unknown, file: string): PolicyDocument[] {
  const name = basename(file);
  if (Array.isArray(value)) {
    return value.flatMap((v, i) =>
      policyDocumentsIn(v, file).map((d) => ({ ...d, name: `${name}[${i}]${d.name.slice(name.length)}` })),
    );
  }
  if (!isObject(value)) return [];
  const direct = documentFrom(value);
  if (direct) return [{ name, document: direct }];
  if (isObject(value.PolicyVersion)) {
    const d = documentFrom(value.PolicyVersion.Document);
    if (d)
      return [{ name: `${name} (version ${String(value.PolicyVersion.VersionId ?? '?')})`, document: d }];
  }
  if ('PolicyDocument' in value) {
    const d = documentFrom(value.PolicyDocument);
    if (d) return [{ name: `${name} (${String(value.PolicyName ?? 'inline policy')})`, document: d }];
  }
  return [];
}

export async function readPolicyFiles(files: string[]): Promise<PolicyDocument[]> {
  const out: PolicyDocument[] = [];
  for (const file of files) {
    const text = await readRegularFile('--iam-policy', file);
    let value: unknown;
    try {
      value = JSON.parse(text);
    } catch (e) {
      throw new InputError(`--iam-policy ${file}: malformed JSON: ${(e as Error).message}`, file);
    }
    let docs: PolicyDocument[];
    try {
      docs = policyDocumentsIn(value, file);
    } catch (e) {
      if (isStackOverflow(e)) throw tooDeep(file, '--iam-policy');
      throw e;
    }
    if (docs.length === 0) {
      throw new InputError(
        `--iam-policy ${file}: no IAM policy document (expected {"Version", "Statement"}, get-policy-version or get-role-policy output)`,
        file,
      );
    }
    out.push(...docs);
  }
  return out;
}

async function loadIamSimulate(): Promise<IamSimulateModule> {
  return (await import(IAM_SIMULATE_PACKAGE)) as IamSimulateModule;
}

interface ExplainCondition {
  operator?: string;
  conditionKeyValue?: string;
  values?: { value?: string } | Array<{ value?: string }>;
  matches?: boolean;
  resolvedConditionKeyValue?: string | string[];
  failedBecauseMissing?: boolean;
}

/** iam-policy's Statement: methods, not the JSON members. */
interface StatementLike {
  sid?(): string | undefined;
  effect?(): string;
  index?(): number;
}

interface StatementResult {
  policyId?: string;
  statement?: StatementLike;
  actionMatch?: boolean;
  resourceMatch?: boolean;
  conditionMatch?: string;
  explain?: { identifier?: string; conditions?: ExplainCondition[] };
}

interface IdentityAnalysis {
  allowStatements?: StatementResult[];
  denyStatements?: StatementResult[];
  unmatchedStatements?: StatementResult[];
}

function effectOf(s: StatementResult): string | undefined {
  return typeof s.statement?.effect === 'function' ? s.statement.effect() : undefined;
}

function statementName(s: StatementResult): string {
  const sid = typeof s.statement?.sid === 'function' ? s.statement.sid() : undefined;
  const index = typeof s.statement?.index === 'function' ? s.statement.index() : undefined;
  return `${s.policyId ?? 'policy'} statement ${sid ?? (index !== undefined ? `#${index}` : (s.explain?.identifier ?? '?'))}`;
}

function failedConditions(s: StatementResult): FailedCondition[] {
  return (s.explain?.conditions ?? [])
    .filter((c) => c.matches === false)
    .map((c) => {
      const values = (Array.isArray(c.values) ? c.values : c.values ? [c.values] : []).map(
        (v) => v.value ?? '',
      );
      return {
        operator: c.operator ?? '?',
        key: c.conditionKeyValue ?? '?',
        values,
        ...(c.failedBecauseMissing || c.resolvedConditionKeyValue === undefined
          ? {}
          : { actual: c.resolvedConditionKeyValue }),
      };
    });
}

const DECISION: Record<string, string> = {
  Allowed: 'allowed',
  ExplicitlyDenied: 'explicitDeny',
  ImplicitlyDenied: 'implicitDeny',
};

/**
 * Evaluates CA's requests against the policy documents, the way SimulatePrincipalPolicy would for a role holding
 * exactly these identity policies (no permission boundary, SCP or session policy). Results in AWS's shape.
 */
export async function evaluateIamPolicies(
  files: string[],
  plan: IamPlan,
  options: { loader?: () => Promise<IamSimulateModule> } = {},
): Promise<LocalIamResult> {
  const docs = await readPolicyFiles(files);
  const principal = plan.hints.irsaRoleArn ?? `arn:aws:iam::${plan.accountId}:role/cluster-autoscaler`;
  const sources = files.map((f) => `iam policy: ${f}`);
  let sim: IamSimulateModule;
  try {
    sim = await (options.loader ?? loadIamSimulate)();
  } catch (e) {
    const missing =
      (e as NodeJS.ErrnoException).code === 'ERR_MODULE_NOT_FOUND' ||
      /Cannot find (module|package)/.test(String(e));
    return {
      principal,
      sources,
      warnings: [],
      gap: {
        resource: 'iamEvaluationResults',
        reason: 'not-provided',
        detail: missing
          ? `--iam-policy needs the optional package ${IAM_SIMULATE_PACKAGE} (AGPL-3.0, not bundled): ${IAM_SIMULATE_INSTALL}`
          : `cannot load ${IAM_SIMULATE_PACKAGE}: ${(e as Error).message}`,
      },
    };
  }
  const warnings: string[] = [];
  const results: IamEvaluationResult[] = [];
  for (const req of plan.requests) {
    const out = (await sim.runSimulation(
      {
        request: {
          principal,
          action: req.action,
          resource: { resource: req.resourceArn, accountId: plan.accountId },
          contextVariables: req.context,
        },
        identityPolicies: docs.map((d) => ({ name: d.name, policy: d.document })),
        serviceControlPolicies: [],
        resourceControlPolicies: [],
      },
      {},
    )) as {
      resultType: string;
      overallResult?: string;
      errors?: {
        message?: string;
        identityPolicyErrors?: Record<string, Array<{ path?: string; message?: string }>>;
      };
      result?: { analysis?: { identityAnalysis?: IdentityAnalysis } };
      results?: Array<{ analysis?: { identityAnalysis?: IdentityAnalysis } }>;
    };
    if (out.resultType === 'error') {
      const policyErrors = Object.entries(out.errors?.identityPolicyErrors ?? {});
      if (policyErrors.length > 0) {
        const [name, errs] = policyErrors[0];
        throw new InputError(
          `--iam-policy ${name}: ${errs.map((e) => `${e.path ?? ''}: ${e.message ?? ''}`).join('; ')}`,
          name,
        );
      }
      warnings.push(
        `IAM simulation of ${req.action} on ${req.resourceArn} failed: ${out.errors?.message ?? 'unknown error'}`,
      );
      continue;
    }
    const ia = (out.result ?? out.results?.[0])?.analysis?.identityAnalysis ?? {};
    const decision = DECISION[out.overallResult ?? ''] ?? 'implicitDeny';
    const matched =
      decision === 'explicitDeny'
        ? (ia.denyStatements ?? [])
        : decision === 'allowed'
          ? (ia.allowStatements ?? [])
          : [];
    const nearMisses: StatementNearMiss[] = (ia.unmatchedStatements ?? [])
      .filter(
        (s) => s.actionMatch && s.resourceMatch && s.conditionMatch !== 'Match' && effectOf(s) === 'Allow',
      )
      .map((s) => ({ statement: statementName(s), effect: 'Allow', conditions: failedConditions(s) }))
      .filter((n) => n.conditions.length > 0);
    const missing = [
      ...new Set(
        (ia.unmatchedStatements ?? [])
          .filter((s) => s.actionMatch && s.resourceMatch)
          .flatMap((s) =>
            (s.explain?.conditions ?? [])
              .filter((c) => c.failedBecauseMissing)
              .map((c) => c.conditionKeyValue ?? ''),
          ),
      ),
    ].filter(Boolean);
    results.push({
      EvalActionName: req.action,
      EvalResourceName: req.resourceArn,
      EvalDecision: decision,
      MatchedStatements: matched.map((s) => ({
        SourcePolicyId: statementName(s),
        SourcePolicyType: 'IAM Policy',
      })),
      MissingContextValues: decision === 'allowed' ? [] : missing,
      ...(nearMisses.length > 0 && decision !== 'allowed' ? { CasdoctorNearMisses: nearMisses } : {}),
      CasdoctorPrincipal: principal,
    });
  }
  return { results, principal, sources, warnings };
}
