// The least-privilege manifests in deploy/, parsed, and RBAC's view of a recorded request (shared by the tests that
// prove the manifests against what casdoctor sends).
import { readdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { parse as parseYaml } from 'yaml';

const root = join(import.meta.dirname, '..', '..');

interface Rule {
  apiGroups: string[];
  resources: string[];
  resourceNames?: string[];
  verbs: string[];
}

export const role = parseYaml(readFileSync(join(root, 'deploy/casdoctor-clusterrole.yaml'), 'utf8')) as {
  kind: string;
  rules: Rule[];
};
export const policy = JSON.parse(readFileSync(join(root, 'deploy/casdoctor-iam-policy.json'), 'utf8')) as {
  Version: string;
  Statement: Array<{ Sid?: string; Effect: string; Action: string[]; Resource: string | string[] }>;
};

export interface Access {
  group: string;
  resource: string;
  verb: 'get' | 'list';
  name?: string;
}

/** What RBAC sees of a request: a list carrying a metadata.name field selector is authorized with that name. */
export function accessOf(r: { method: string; path: string; query: Record<string, string> }): Access {
  // .../<resource>[/<name>[/<subresource>[/<proxied path>]]]: RBAC names a subresource "pods/log"
  const m = /^\/(?:api\/v1|apis\/([^/]+)\/[^/]+)(?:\/namespaces\/[^/]+)?\/([^/]+)(?:\/([^/]+)(?:\/([^/]+)(?:\/.*)?)?)?$/.exec(r.path);
  if (!m || r.method !== 'GET') throw new Error(`unexpected request ${r.method} ${r.path}`);
  const fieldName = /(?:^|,)metadata\.name=([^,]+)/.exec(r.query.fieldSelector ?? '')?.[1];
  return {
    group: m[1] ?? '',
    resource: m[4] ? `${m[2]}/${m[4]}` : m[2],
    verb: m[3] ? 'get' : 'list',
    ...(m[3] ? { name: m[3] } : fieldName ? { name: fieldName } : {}),
  };
}

export function allowed(a: Access): boolean {
  return role.rules.some(
    (rule) =>
      rule.apiGroups.includes(a.group) &&
      rule.resources.includes(a.resource) &&
      rule.verbs.includes(a.verb) &&
      (!rule.resourceNames || (a.name !== undefined && rule.resourceNames.includes(a.name))),
  );
}

/** The AWS actions the IAM policy allows, as service:Action. */
export function policyActions(): string[] {
  return policy.Statement.flatMap((st) => st.Action).sort();
}

const SDK_SERVICES: Array<[pkg: string, prefix: string]> = [
  ['@aws-sdk/client-auto-scaling', 'autoscaling'],
  ['@aws-sdk/client-ec2', 'ec2'],
  ['@aws-sdk/client-eks', 'eks'],
  ['@aws-sdk/client-iam', 'iam'],
  ['@aws-sdk/client-cloudtrail', 'cloudtrail'],
];

/**
 * Every AWS action casdoctor's code can call, read from src/gather and src/providers/aws: each `new <sdk>.<Name>Command(` and
 * `paginate<Name>(`, attributed to the SDK client package that exports that command.
 */
export async function awsActionsInSource(): Promise<string[]> {
  const names = new Set<string>();
  const files = [
    ...readdirSync(join(root, 'src/gather')).map((n) => join(root, 'src/gather', n)),
    ...readdirSync(join(root, 'src/providers/aws')).map((n) => join(root, 'src/providers/aws', n)),
  ].filter((n) => n.endsWith('.ts'));
  for (const f of files) {
    const text = readFileSync(f, 'utf8');
    for (const m of text.matchAll(/new [A-Za-z0-9_]+\.([A-Za-z0-9]+)Command\(/g)) names.add(m[1]);
    for (const m of text.matchAll(/\bpaginate([A-Z][A-Za-z0-9]+)\(/g)) names.add(m[1]);
  }
  const modules = await Promise.all(SDK_SERVICES.map(async ([pkg, prefix]) => [await import(pkg), prefix] as const));
  const out: string[] = [];
  for (const name of names) {
    const owners = modules.filter(([mod]) => typeof mod[`${name}Command`] === 'function').map(([, prefix]) => prefix);
    if (owners.length !== 1) throw new Error(`cannot tell which AWS service ${name} belongs to (${owners.join(', ')})`);
    out.push(`${owners[0]}:${name}`);
  }
  return out.sort();
}
