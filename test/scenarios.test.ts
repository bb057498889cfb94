// One generic runner for test/scenarios/<cause>/: the base dump overlaid with the scenario's own dump files, read by
// the offline loader and run through the real CLI process; the JSON report must carry the expected verdicts and findings.
import { cpSync, mkdtempSync, readdirSync, readFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { cli, ROOT } from './commands/run.js';

interface Scenario {
  description: string;
  base?: string;
  args: string[];
  exitCode: number;
  pods: Record<string, string>;
  findings: Array<{ checkId: string; subject: string; caReason?: string; messageIncludes?: string }>;
}

const dir = join(ROOT, 'test', 'scenarios');

describe('scenarios', () => {
  for (const name of readdirSync(dir).sort()) {
    const spec = JSON.parse(readFileSync(join(dir, name, 'scenario.json'), 'utf8')) as Scenario;
    it(`${name}: ${spec.description}`, () => {
      const dump = mkdtempSync(join(tmpdir(), `casdoctor-scenario-${name}-`));
      if (spec.base)
        cpSync(join(ROOT, spec.base), dump, { recursive: true, filter: (src) => !src.endsWith('.md') });
      for (const f of readdirSync(join(dir, name))) {
        if (f !== 'scenario.json') cpSync(join(dir, name, f), join(dump, f));
      }
      const r = cli([...spec.args, '--from', dump, '-o', 'json']);
      expect(r.stderr).not.toMatch(/unexpected failure/);
      expect(r.code).toBe(spec.exitCode);
      const report = JSON.parse(r.stdout);
      for (const [prefix, verdict] of Object.entries(spec.pods)) {
        const pod = report.pods.find((p: { namespace: string; name: string }) =>
          `${p.namespace}/${p.name}`.startsWith(prefix),
        );
        expect(pod, prefix).toBeDefined();
        expect(pod.verdict, prefix).toBe(verdict);
      }
      for (const want of spec.findings) {
        const hit = report.findings.find(
          (f: { checkId: string; subject: { kind: string; name: string } }) =>
            f.checkId === want.checkId && `${f.subject.kind}/${f.subject.name}` === want.subject,
        );
        expect(hit, `${want.checkId} on ${want.subject}`).toBeDefined();
        if (want.caReason) expect(hit.caReason).toBe(want.caReason);
        if (want.messageIncludes) expect(hit.message).toContain(want.messageIncludes);
      }
    });
  }
});
