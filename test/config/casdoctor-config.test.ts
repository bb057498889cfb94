import { mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import {
  applyConfig,
  globMatches,
  loadCasdoctorConfig,
  parseCasdoctorConfig,
} from '../../src/config/casdoctor-config.js';
import type { Finding } from '../../src/model/findings.js';
import type { KubeObject } from '../../src/model/k8s.js';

const KNOWN = new Set(['workload-bare-pod', 'workload-missing-requests', 'pdb-matches-nothing']);

function finding(checkId: string, name: string, extra: Partial<Finding> = {}): Finding {
  return {
    checkId,
    severity: 'warning',
    subject: { kind: 'Pod', namespace: 'ops', name },
    message: `${name} ...`,
    evidence: [],
    docsUrl: 'https://example/docs',
    location: { file: 'k8s/ops/debug.yaml', line: 3 },
    ...extra,
  };
}

describe('.casdoctor.yaml', () => {
  it('reads severity overrides and ignore entries with their line', () => {
    const c = parseCasdoctorConfig(
      [
        'severity:',
        '  workload-missing-requests: error',
        'ignore:',
        '  - check: workload-bare-pod',
        '    namespace: ops',
        '    name: debug-*',
        '    reason: Debug pods are deleted after each incident.',
      ].join('\n'),
      '.casdoctor.yaml',
      KNOWN,
    );
    expect(c.severity).toEqual({ 'workload-missing-requests': 'error' });
    expect(c.ignore).toEqual([
      {
        check: 'workload-bare-pod',
        namespace: 'ops',
        name: 'debug-*',
        reason: 'Debug pods are deleted after each incident.',
        line: 4,
      },
    ]);
  });

  it.each([
    [
      'an ignore entry without reason',
      'ignore:\n  - check: workload-bare-pod\n',
      /\.casdoctor\.yaml:2: the ignore entry for workload-bare-pod needs a `reason`/,
    ],
    ['a blank reason', 'ignore:\n  - check: workload-bare-pod\n    reason: "  "\n', /needs a `reason`/],
    [
      'an unknown check id, with a suggestion',
      'severity:\n  workload-bare-pods: error\n',
      /unknown check "workload-bare-pods"; did you mean workload-bare-pod\?/,
    ],
    ['an unknown severity', 'severity:\n  workload-bare-pod: fatal\n', /must be error, warning or info/],
    ['an unknown key', 'ignores: []\n', /unknown key ignores/],
  ])('rejects %s with file and line', (_what, text, message) => {
    expect(() => parseCasdoctorConfig(text, '.casdoctor.yaml', KNOWN)).toThrow(message);
  });

  it('is optional in the working directory but required when --config names it', async () => {
    const dir = mkdtempSync(join(tmpdir(), 'casdoctor-config-'));
    expect(await loadCasdoctorConfig(undefined, KNOWN, dir)).toEqual({ severity: {}, ignore: [] });
    writeFileSync(join(dir, '.casdoctor.yaml'), 'severity:\n  pdb-matches-nothing: info\n');
    expect((await loadCasdoctorConfig(undefined, KNOWN, dir)).severity).toEqual({
      'pdb-matches-nothing': 'info',
    });
    await expect(loadCasdoctorConfig(join(dir, 'nope.yaml'), KNOWN, dir)).rejects.toThrow(
      /--config .*nope\.yaml: no such file/,
    );
  });

  it('matches globs within a path segment with * and across segments with **', () => {
    expect(globMatches('debug-*', 'debug-shell')).toBe(true);
    expect(globMatches('k8s/*.yaml', 'k8s/ops/debug.yaml')).toBe(false);
    expect(globMatches('k8s/**.yaml', 'k8s/ops/debug.yaml')).toBe(true);
    expect(globMatches('a.b', 'aXb')).toBe(false);
  });
});

describe('applying the config and casdoctor.io/ignore', () => {
  const debug: KubeObject = { kind: 'Pod', metadata: { name: 'debug-shell', namespace: 'ops' } };
  const annotated: KubeObject = {
    kind: 'Pod',
    metadata: {
      name: 'pinned',
      namespace: 'ops',
      annotations: {
        'casdoctor.io/ignore': 'workload-bare-pod, no-such-check',
        'casdoctor.io/ignore-reason': 'pinned on purpose',
      },
    },
  };
  const objects = new Map([
    ['debug-shell', debug],
    ['pinned', annotated],
  ]);

  it('overrides severities, marks suppressed findings without dropping them, and reports unknown annotation ids', () => {
    const config = parseCasdoctorConfig(
      'severity:\n  workload-missing-requests: error\nignore:\n  - check: workload-bare-pod\n    file: k8s/**.yaml\n    name: debug-*\n    reason: Debug pods are deleted after each incident.\n',
      '.casdoctor.yaml',
      KNOWN,
    );
    const r = applyConfig(
      [
        finding('workload-bare-pod', 'debug-shell'),
        finding('workload-bare-pod', 'pinned'),
        finding('workload-missing-requests', 'debug-shell'),
        finding('workload-bare-pod', 'other'),
      ],
      config,
      (f) => objects.get(f.subject.name),
      KNOWN,
    );
    expect(
      r.findings.map((f) => [f.subject.name, f.checkId, f.severity, f.suppressed?.kind ?? null]),
    ).toEqual([
      ['debug-shell', 'workload-bare-pod', 'warning', 'config'],
      ['pinned', 'workload-bare-pod', 'warning', 'annotation'],
      ['debug-shell', 'workload-missing-requests', 'error', null],
      ['other', 'workload-bare-pod', 'warning', null],
    ]);
    expect(r.findings[0].suppressed?.reason).toBe(
      '.casdoctor.yaml:4: Debug pods are deleted after each incident.',
    );
    expect(r.findings[1].suppressed?.reason).toContain('(pinned on purpose)');
    expect(r.unknownAnnotationIds).toEqual(['Pod ops/pinned: no-such-check']);
  });
});
