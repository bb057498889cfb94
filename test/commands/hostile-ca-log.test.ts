// CA's log is foreign text too: its lines reach "CA logged", ca-loop-failing and evidence only through the sanitizer.
import { appendFileSync, cpSync, mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { cli, DEMO, DEMO_NOW } from './run.js';

const OSC52 = '\u001b]52;c;Y3VybCBldmlsfHNo\u0007';
const CLEAR = '\u001b[2J';
const BIDI = '\u202e';
let dir: string;

beforeAll(() => {
  dir = mkdtempSync(join(tmpdir(), 'casdoctor-hostile-log-'));
  cpSync(DEMO, dir, { recursive: true });
  appendFileSync(
    join(dir, 'cluster-autoscaler.log'),
    [
      `E1121 09:59:58.100000       1 static_autoscaler.go:304] Failed to fix node group sizes: failed to decrease demo-general${OSC52}: attempt to delete existing nodes${CLEAR} targetSize:4 delta:-1${BIDI}gnp.live`,
      `E1121 09:59:58.200000       1 static_autoscaler.go:304] Failed to fix node group sizes: failed to decrease demo-general${OSC52}: attempt to delete existing nodes${CLEAR} targetSize:4 delta:-1${BIDI}gnp.live`,
      `I1121 09:59:58.300000       1 orchestrator.go:588] Pod web/api-9c8d7e6f5-qwert can't be scheduled on demo-general, predicate checking error: can't schedule pod web/api-9c8d7e6f5-qwert: predicate "NodeResourcesFit" didn't pass (predicateReasons=[Insufficient cpu${OSC52}]; debugInfo=nodeName: "template-node-for-demo-general-1")`,
      '',
    ].join('\n'),
  );
});
afterAll(() => rmSync(dir, { recursive: true, force: true }));

function assertClean(out: string, label: string): void {
  expect(out.includes('\u001b]'), `${label}: OSC`).toBe(false);
  expect(out.includes('\u001b[2J'), `${label}: CSI 2J`).toBe(false);
  expect(out.includes('\u0007'), `${label}: BEL`).toBe(false);
  expect(out.includes(BIDI), `${label}: U+202E`).toBe(false);
}

describe('hostile lines in CA\'s log (real process)', () => {
  it('reach every command only as visible escapes', () => {
    for (const args of [['why-pending', '--all'], ['scale-down-blockers'], ['asg-audit'], []]) {
      const r = cli([...args, '--from', dir, '--now', DEMO_NOW]);
      assertClean(r.stdout + r.stderr, args.join(' ') || 'overview');
    }
    const r = cli(['asg-audit', '--from', dir, '--now', DEMO_NOW]);
    expect(r.stdout).toContain('ca-loop-failing');
    expect(r.stdout).toContain('\\x1b]52;c;');
    expect(r.stdout).toContain('\\u202e');
  });
});
