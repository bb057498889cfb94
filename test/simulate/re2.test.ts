// Go regexp (RE2) in JavaScript: what CA's regexp.Compile rejects, and what translates (expander/priority/priority.go).
import { describe, expect, it } from 'vitest';
import { compileRe2 } from '../../src/simulate/re2.js';

describe('compileRe2', () => {
  it.each([
    ['.*t3\\.large.*', 'eks-t3.large-spot', true],
    ['spot', 'eks-general-spot-2026', true], // unanchored, as FindStringIndex
    ['^spot', 'eks-general-spot-2026', false],
    ['(?i)SPOT', 'eks-spot', true],
    ['(?P<kind>spot|ondemand)-\\d+', 'x-spot-1', true],
    ['\\Aeks-', 'eks-a', true],
    ['gpu\\z', 'eks-gpu', true],
    ['\\Qa.b\\E', 'xa.b', true],
    ['\\Qa.b\\E', 'xacb', false],
    ['[[:digit:]]+$', 'ng-7', true],
    ['\\-spot', 'a-spot', true],
    ['x{2}', 'axxb', true],
    ['a{,2}', 'a{,2}', true], // Go takes a "{" that starts no valid repeat literally
  ])('translates %s and matches %s: %s', (pattern, name, expected) => {
    const r = compileRe2(pattern);
    expect(r.error).toBeUndefined();
    expect(r.unsupported).toBeUndefined();
    expect(r.regex!.test(name)).toBe(expected);
  });

  it.each([
    ['.*(?=spot)', 'error parsing regexp: invalid or unsupported Perl syntax: `(?=`'],
    ['(?!ondemand).*', 'error parsing regexp: invalid or unsupported Perl syntax: `(?!`'],
    ['(?<=eks-)spot', 'error parsing regexp: invalid named capture: `(?<=eks-)spot`'],
    ['(a)\\1', 'error parsing regexp: invalid escape sequence: `\\1`'],
    ['\\k<x>', 'error parsing regexp: invalid escape sequence: `\\k`'],
    ['a**', 'error parsing regexp: invalid nested repetition operator: `**`'],
    ['*spot', 'error parsing regexp: missing argument to repetition operator: `*`'],
    ['a{1001}', 'error parsing regexp: invalid repeat count: `{1001}`'],
    ['(spot', 'error parsing regexp: missing closing ): `(spot`'],
    ['spot)', 'error parsing regexp: unexpected ): `spot)`'],
    ['[a-z', 'error parsing regexp: missing closing ]: `[a-z`'],
    ['\\u0041', 'error parsing regexp: invalid escape sequence: `\\u`'],
  ])('rejects %s as Go does: %s', (pattern, error) => {
    expect(compileRe2(pattern)).toEqual({ error });
  });

  it('keeps lazy quantifiers, which RE2 accepts', () => {
    expect(compileRe2('a+?b').regex!.test('aab')).toBe(true);
  });

  it('reports flags after the start as not evaluable instead of guessing', () => {
    expect(compileRe2('eks-(?i)SPOT').unsupported).toMatch(/no JavaScript equivalent/);
    expect(compileRe2('(?i:spot)-x').unsupported).toMatch(/no JavaScript equivalent/);
  });
});
