// Golden outputs of `casdoctor preflight` on examples/preflight in every format, plus format validity:
// SARIF against a (hand-written) SARIF 2.1.0 subset schema, JUnit XML well-formed and self-consistent.
// UPDATE_GOLDEN=1 npx vitest run test/report/preflight-golden.test.ts rewrites the golden files.
import { mkdtempSync, readFileSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { Ajv } from 'ajv';
import { beforeAll, describe, expect, it } from 'vitest';
import { runPreflight } from '../../src/commands/preflight.js';
import type { Deps } from '../../src/commands/types.js';
import { fingerprints } from '../../src/report/sarif.js';

const ROOT = join(import.meta.dirname, '..', '..');
const GOLDEN = join(ROOT, 'test', 'golden');
const FORMATS = {
  table: 'preflight.txt',
  json: 'preflight.json',
  sarif: 'preflight.sarif',
  junit: 'preflight.junit.xml',
  markdown: 'preflight.md',
} as const;
const UPDATE = process.env.UPDATE_GOLDEN === '1';

/** A strict well-formedness check for the XML we emit: one root, balanced tags, quoted unique attributes, known entities. */
export function assertWellFormedXml(xml: string): { elements: Map<string, number> } {
  const decl = /^<\?xml version="1\.0" encoding="UTF-8"\?>\n/;
  if (!decl.test(xml)) throw new Error('missing XML declaration');
  const body = xml.replace(decl, '');
  const stack: string[] = [];
  const elements = new Map<string, number>();
  let roots = 0;
  let i = 0;
  const tag = /<(\/?)([A-Za-z_][\w.-]*)((?:\s+[A-Za-z_][\w.-]*="[^"<]*")*)\s*(\/?)>/y;
  const checkText = (t: string) => {
    for (const m of t.matchAll(/&([^;\s]*);?/g)) {
      if (!/^&(amp|lt|gt|quot|apos|#\d+|#x[0-9a-fA-F]+);$/.test(m[0])) throw new Error(`bad entity ${m[0]}`);
    }
    if (/[\u0000-\u0008\u000B\u000C\u000E-\u001F]/.test(t)) throw new Error('control character in text');
  };
  while (i < body.length) {
    const lt = body.indexOf('<', i);
    const text = lt === -1 ? body.slice(i) : body.slice(i, lt);
    if (stack.length === 0 && text.trim() !== '')
      throw new Error(`text outside the root: ${text.slice(0, 40)}`);
    checkText(text);
    if (lt === -1) break;
    tag.lastIndex = lt;
    const m = tag.exec(body);
    if (!m) throw new Error(`malformed tag at ${lt}: ${body.slice(lt, lt + 60)}`);
    const [, close, name, attrs, selfClose] = m;
    const names = [...attrs.matchAll(/([A-Za-z_][\w.-]*)="([^"]*)"/g)].map((a) => {
      checkText(a[2]);
      return a[1];
    });
    if (new Set(names).size !== names.length) throw new Error(`duplicate attribute on <${name}>`);
    if (close) {
      if (stack.pop() !== name) throw new Error(`</${name}> does not close the open element`);
    } else {
      if (stack.length === 0) roots++;
      elements.set(name, (elements.get(name) ?? 0) + 1);
      if (!selfClose) stack.push(name);
    }
    i = tag.lastIndex;
  }
  if (stack.length) throw new Error(`unclosed <${stack.at(-1)}>`);
  if (roots !== 1) throw new Error(`${roots} root elements`);
  return { elements };
}

const outputs: Record<string, string> = {};
let exitCode = -1;

beforeAll(async () => {
  const dir = mkdtempSync(join(tmpdir(), 'casdoctor-golden-'));
  let stdout = '';
  const deps: Deps = {
    stdout: (s) => {
      stdout += s;
    },
    stderr: () => {},
    stdoutIsTTY: false,
    stderrIsTTY: false,
    realNow: () => new Date('2030-01-01T00:00:00Z'),
  };
  const r = await runPreflight(
    {
      from: [],
      requestTimeout: '30s',
      now: '2026-11-21T10:00:00Z',
      output: 'table',
      failOn: 'error',
      color: false,
      debug: false,
      filename: ['examples/preflight/manifests'],
      eksctl: 'examples/preflight/cluster.yaml',
      config: 'examples/preflight/.casdoctor.yaml',
      namespace: 'default',
      outputFile: (['json', 'sarif', 'junit', 'markdown'] as const).map(
        (f) => `${f}=${join(dir, FORMATS[f])}`,
      ),
    },
    deps,
  );
  exitCode = r.exitCode;
  outputs.table = stdout;
  for (const f of ['json', 'sarif', 'junit', 'markdown'] as const)
    outputs[f] = readFileSync(join(dir, FORMATS[f]), 'utf8');
});

describe('preflight golden outputs on examples/preflight', () => {
  it.each(Object.entries(FORMATS))('renders %s exactly as test/golden/%s', (format, file) => {
    const path = join(GOLDEN, file);
    if (UPDATE) writeFileSync(path, outputs[format]);
    expect(outputs[format]).toBe(readFileSync(path, 'utf8'));
  });

  it('fails the run (exit 1) because of error findings', () => {
    expect(exitCode).toBe(1);
  });
});

describe('SARIF', () => {
  it('validates against the official SARIF 2.1.0 schema (rtm.5, from @microsoft/jest-sarif)', () => {
    const schema = JSON.parse(readFileSync(join(ROOT, 'test/fixtures/sarif-schema-2.1.0.json'), 'utf8'));
    // the official schema has a language pattern invalid under the u flag, and uri formats ajv does not ship
    const validate = new Ajv({ allErrors: true, strict: false, unicodeRegExp: false, validateFormats: false }).compile(schema);
    const log = JSON.parse(outputs.sarif);
    expect(validate(log), JSON.stringify(validate.errors, null, 2)).toBe(true);
    log.runs[0].results[0].level = 'fatal';
    expect(validate(log)).toBe(false);
  });

  it('validates against the SARIF 2.1.0 subset schema', () => {
    const schema = JSON.parse(
      readFileSync(join(ROOT, 'test/fixtures/sarif-2.1.0-subset.schema.json'), 'utf8'),
    );
    const validate = new Ajv({ allErrors: true, strict: true, strictRequired: false }).compile(schema);
    const log = JSON.parse(outputs.sarif);
    expect(validate(log), JSON.stringify(validate.errors, null, 2)).toBe(true);
  });

  it('rejects a broken log with the same schema (the schema is not a rubber stamp)', () => {
    const schema = JSON.parse(
      readFileSync(join(ROOT, 'test/fixtures/sarif-2.1.0-subset.schema.json'), 'utf8'),
    );
    const validate = new Ajv({ allErrors: true }).compile(schema);
    const log = JSON.parse(outputs.sarif);
    log.runs[0].results[0].level = 'fatal';
    log.runs[0].results[1].locations[0].physicalLocation.region.startLine = 0;
    delete log.runs[0].tool.driver.name;
    expect(validate(log)).toBe(false);
    expect(validate.errors?.length).toBeGreaterThanOrEqual(3);
  });

  it('has one rule per preflight check, a file and line per result, and suppressions for suppressed findings', () => {
    const run = JSON.parse(outputs.sarif).runs[0];
    const rules = run.tool.driver.rules.map((r: { id: string }) => r.id);
    expect(rules).toContain('workload-unplaceable');
    for (const res of run.results) {
      expect(rules[res.ruleIndex]).toBe(res.ruleId);
      expect(res.locations[0].physicalLocation.artifactLocation.uri).toMatch(
        /^examples\/preflight\/manifests\/[a-z-]+\.yaml$/,
      );
      expect(res.locations[0].physicalLocation.region.startLine).toBeGreaterThan(0);
    }
    const suppressed = run.results.filter((r: { suppressions?: unknown[] }) => r.suppressions);
    expect(
      suppressed.map((r: { ruleId: string; suppressions: Array<{ kind: string }> }) => [
        r.ruleId,
        r.suppressions[0].kind,
      ]),
    ).toEqual([
      ['workload-expendable-priority', 'external'],
      ['workload-local-storage-blocks-scale-down', 'inSource'],
      ['workload-not-safe-to-evict', 'inSource'],
    ]);
  });

  it('fingerprints findings by check, subject and node group, not by message or line', () => {
    const base = {
      checkId: 'workload-bare-pod',
      severity: 'warning' as const,
      subject: { kind: 'Pod', namespace: 'ops', name: 'debug' },
      evidence: [],
      docsUrl: '',
    };
    const [a] = fingerprints([{ ...base, message: 'one', location: { file: 'a.yaml', line: 3 } }]);
    const [b] = fingerprints([{ ...base, message: 'two', location: { file: 'a.yaml', line: 30 } }]);
    const [c] = fingerprints([{ ...base, message: 'one', subject: { ...base.subject, name: 'other' } }]);
    expect(a).toBe(b);
    expect(a).not.toBe(c);
    const twice = fingerprints([
      { ...base, message: 'x' },
      { ...base, message: 'x' },
    ]);
    expect(twice[0]).not.toBe(twice[1]);
  });
});

describe('JUnit', () => {
  it('is well-formed XML whose counts match its testcases', () => {
    const { elements } = assertWellFormedXml(outputs.junit);
    const root =
      /<testsuites name="casdoctor preflight" tests="(\d+)" failures="(\d+)" errors="0" skipped="(\d+)"/.exec(
        outputs.junit,
      );
    expect(root).not.toBeNull();
    expect(Number(root![1])).toBe(elements.get('testcase'));
    expect(Number(root![2])).toBe(elements.get('failure'));
    expect(Number(root![3])).toBe(elements.get('skipped'));
  });

  it('has a testcase per workload and check, failing for error findings and skipped for suppressed ones', () => {
    const suite = outputs.junit
      .split('<testsuite ')
      .find((s) => s.startsWith('name="Deployment ml/trainer"'))!;
    expect(suite).toMatch(
      /<testcase name="workload-unplaceable" classname="casdoctor\.preflight\.Deployment\.ml\.trainer" file="examples\/preflight\/manifests\/ml\.yaml" line="3" time="0">\n {6}<failure message="Deployment ml\/trainer fits none/,
    );
    expect(suite).toMatch(/<testcase name="workload-missing-requests" [^>]*\/>/);
    const pause = outputs.junit
      .split('<testsuite ')
      .find((s) => s.startsWith('name="Deployment overprovisioning/pause"'))!;
    expect(pause).toMatch(
      /<testcase name="workload-expendable-priority"[^>]*>\n {6}<skipped message="suppressed: examples\/preflight\/\.casdoctor\.yaml:7: Overprovisioning placeholder/,
    );
  });

  it('rejects malformed XML in the well-formedness check itself', () => {
    expect(() => assertWellFormedXml('<?xml version="1.0" encoding="UTF-8"?>\n<a><b></a></b>')).toThrow(
      /does not close/,
    );
    expect(() => assertWellFormedXml('<?xml version="1.0" encoding="UTF-8"?>\n<a x="1" x="2"/>')).toThrow(
      /duplicate/,
    );
    expect(() => assertWellFormedXml('<?xml version="1.0" encoding="UTF-8"?>\n<a>&nbsp;</a>')).toThrow(
      /bad entity/,
    );
  });
});

describe('markdown', () => {
  it('leads with the verdict and keeps every table row on one line', () => {
    expect(outputs.markdown.split('\n')[0]).toBe('## ❌ casdoctor preflight: 6 errors, 10 warnings, 1 note');
    const rows = outputs.markdown.split('\n').filter((l) => l.startsWith('| ') && !l.startsWith('| |'));
    expect(rows.length).toBe(17);
    for (const r of rows) expect(r.split(/(?<!\\)\|/).length).toBe(7);
  });
});
