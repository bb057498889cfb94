// history on hand-made bundles: hostile text stays one escaped line, a gzip'd Karpenter log and a CloudTrail dump are
// recognised by content, a truncated log is read up to its cut, a malformed dump is an error naming file and position.
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { gzipSync } from 'node:zlib';
import { afterEach, describe, expect, it } from 'vitest';
import { runHistory } from '../../src/commands/history.js';
import { capturingDeps, PIPED_JSON } from './in-process.js';

const NOW = '2026-11-20T18:00:00Z';
let dir: string;
afterEach(() => rmSync(dir, { recursive: true, force: true }));

const kline = (time: string, message: string, values: Record<string, unknown>) => JSON.stringify({ level: 'INFO', time, logger: 'controller', message, commit: '4d1b7e9', controller: 'disruption', ...values });
const EVIL = 'ip-10-0-1-2\u001b[2J\u001b]8;;https://evil.example\u0007click\u202e';

async function run(output: string, extra: Record<string, unknown> = {}) {
  const c = capturingDeps({ realNow: () => new Date(NOW) });
  const r = await runHistory({ ...PIPED_JSON, output: output as never, from: [dir], now: NOW, ...extra }, c.deps);
  return { code: r.exitCode, out: c.stdout(), err: c.stderr() };
}

describe('history inputs', () => {
  it("reads a gzip'd Karpenter log cut mid-line and a CloudTrail dump, and prints hostile names as one escaped line", async () => {
    dir = mkdtempSync(join(tmpdir(), 'casdoctor-history-in-'));
    const log = [
      kline('2026-11-20T15:10:01.448Z', 'disrupting node(s)', { command: `Empty/abc: delete: nodepools=[default]: [${EVIL}] (savings: $0.10)`, decision: 'delete', 'disrupted-nodes': [{ Node: { name: EVIL }, NodeClaim: { name: 'default-a1' } }], 'replacement-nodes': [] }),
      kline('2026-11-20T15:11:39.880Z', 'deleted node', { Node: { name: EVIL } }),
      '{"level":"INFO","time":"2026-11-20T15:11:42.005Z","logger":"controller","message":"deleted nodecl',
    ].join('\n');
    writeFileSync(join(dir, 'karpenter.log.1.gz'), gzipSync(log));
    const ct = {
      Events: [
        {
          EventId: 'e1', EventName: 'TerminateInstances', EventTime: '2026-11-20T15:11:40+00:00', Username: 'x', Resources: [{ ResourceType: 'AWS::EC2::Instance', ResourceName: 'i-0c2b3a4f5e6d70819' }],
          CloudTrailEvent: JSON.stringify({ eventTime: '2026-11-20T15:11:40Z', userIdentity: { type: 'IAMUser', arn: 'arn:aws:iam::111122223333:user/bob', userName: `bob\u001b[31m\nFAKE LINE` }, userAgent: 'aws-cli/2' }),
        },
      ],
    };
    writeFileSync(join(dir, 'trail'), JSON.stringify(ct));
    const table = await run('wide');
    expect(table.err).toBe('');
    expect(table.out).not.toMatch(/[\u001b\u0007\u202e]/);
    expect(table.out).toContain('\\x1b[2J');
    expect(table.out).not.toMatch(/^FAKE LINE/m);
    expect(table.out).toMatch(/Karpenter log .*karpenter\.log\.1\.gz: 2 step\(s\)/);
    expect(table.out).toContain('1 line(s) are no Karpenter JSON record (first at line 3); the rest was read');
    const report = JSON.parse((await run('json')).out);
    expect(report.sources.find((s: any) => s.kind === 'cloudtrail')).toMatchObject({ state: 'read', steps: 1 });
    expect(report.removals.map((r: any) => [r.verdict.actor, r.verdict.reason])).toContainEqual(['karpenter', 'empty']);
  });

  it('is an error naming the file and the position for a malformed dump', async () => {
    dir = mkdtempSync(join(tmpdir(), 'casdoctor-history-in-'));
    writeFileSync(join(dir, 'cloudtrail.json'), '{"Events": [{"EventId": "e1",\n "EventName": }]}');
    await expect(run('json')).rejects.toThrow(/cloudtrail\.json:2:\d+: malformed JSON/);
  });

  it('refuses a --since that is no duration or time, and two questions at once', async () => {
    dir = mkdtempSync(join(tmpdir(), 'casdoctor-history-in-'));
    await expect(run('json', { since: 'yesterday' })).rejects.toThrow(/--since "yesterday": use a duration such as 6h, 90m or 2d/);
    await expect(run('json', { node: 'n', pod: 'a/b' })).rejects.toThrow(/--node and --pod ask two questions/);
  });
});
