import { readFile } from 'node:fs/promises';
import { CHECKS, findCheck } from '../checks/index.js';
import { UsageError } from '../model/errors.js';
import { type Deps, EXIT, type GlobalOptions, type RunResult } from './types.js';

export async function runListChecks(o: GlobalOptions, deps: Deps): Promise<RunResult> {
  if (o.output === 'json') {
    deps.stdout(
      `${JSON.stringify(
        CHECKS.map((c) => ({
          id: c.meta.id,
          severity: c.meta.severity,
          commands: c.meta.commands,
          title: c.meta.title,
          summary: c.meta.summary,
        })),
        null,
        2,
      )}\n`,
    );
    return { exitCode: EXIT.ok };
  }
  const w = Math.max(...CHECKS.map((c) => c.meta.id.length));
  for (const c of CHECKS) {
    deps.stdout(
      `${c.meta.id.padEnd(w)}  ${c.meta.severity.padEnd(7)}  ${c.meta.commands.join(',').padEnd(12)}  ${c.meta.summary}\n`,
    );
  }
  return { exitCode: EXIT.ok };
}

export async function runExplain(id: string, _o: GlobalOptions, deps: Deps): Promise<RunResult> {
  const check = findCheck(id);
  if (!check) {
    const near = CHECKS.map((c) => c.meta.id).filter((x) => x.includes(id) || id.includes(x.split('-')[0]));
    throw new UsageError(
      `no check "${id}"${near.length ? `; did you mean ${near.slice(0, 3).join(', ')}?` : ''} (casdoctor checks lists them)`,
    );
  }
  const doc = await readFile(new URL(`../../docs/checks/${id}.md`, import.meta.url), 'utf8');
  deps.stdout(doc.endsWith('\n') ? doc : `${doc}\n`);
  return { exitCode: EXIT.ok };
}
