import { describe, expect, it } from 'vitest';
import {
  formatBytes,
  formatCpu,
  formatResource,
  isValidQuantity,
  parseQuantity,
  QuantityError,
  toInt,
  toMilli,
} from '../../src/model/quantity.js';

describe('parseQuantity', () => {
  const cases: Array<[string, string | number, number]> = [
    ['a plain integer is taken as is', '1', 1],
    ['a decimal fraction keeps its fraction', '0.5', 0.5],
    ['the milli suffix divides by a thousand', '100m', 0.1],
    ['Ki is 1024', '1Ki', 1024],
    ['Gi is 2^30', '1Gi', 1073741824],
    ['G is 10^9', '1G', 1e9],
    ['a lower-case exponent multiplies by ten to the power', '1e3', 1000],
    ['an upper-case exponent works too', '1E3', 1000],
    ['a signed negative exponent divides', '5e-3', 0.005],
    ['a fractional binary quantity is exact', '2.5Gi', 2684354560],
    ['a negative value keeps its sign', '-1', -1],
    ['an explicit plus sign is accepted', '+5', 5],
    ['a leading dot is a fraction', '.5', 0.5],
    ['a trailing dot is accepted like apimachinery does', '1.', 1],
    ['the E suffix alone means exa', '1E', 1e18],
    ['nano is the smallest unit', '1n', 1e-9],
    ['values below a nano round up to one nano', '0.1n', 1e-9],
    ['micro uses the u suffix', '250u', 0.00025],
    ['a kubelet-style memory value parses', '15896972Ki', 16278499328],
    ['surrounding whitespace is trimmed as UnmarshalJSON does', ' 2Mi ', 2097152],
    ['a JSON number is read as its decimal form', 110, 110],
    ['a fractional JSON number is read as its decimal form', 0.25, 0.25],
    ['a huge JSON number uses exponent notation internally', 1e21, 1e21],
    ['an SI value above int64 max is capped like apimachinery', '20E', 2 ** 63],
    ['an exponent value is not capped', '1e20', 1e20],
  ];
  it.each(cases)('%s (%j)', (_name, input, expected) => {
    expect(parseQuantity(input)).toBeCloseTo(expected, 12);
  });

  const invalid: Array<[string, unknown]> = [
    ['two decimal points', '1.5.3Gi'],
    ['a byte suffix that is not a Kubernetes suffix', '1Gb'],
    ['an empty string', ''],
    ['letters only', 'abc'],
    ['an upper-case K without i', '1K'],
    ['a bare exponent marker', '1e'],
    ['a space inside the value', '1 Gi'],
    ['null', null],
    ['NaN', Number.NaN],
    ['Infinity', Number.POSITIVE_INFINITY],
    ['an exponent with trailing garbage', '1e3x'],
  ];
  it.each(invalid)('rejects %s with a QuantityError naming the value', (_name, input) => {
    expect(() => parseQuantity(input as string)).toThrow(QuantityError);
    try {
      parseQuantity(input as string);
    } catch (e) {
      expect((e as Error).message).toContain(JSON.stringify(input) ?? String(input));
    }
  });

  it('reports validity without throwing', () => {
    expect(isValidQuantity('500m')).toBe(true);
    expect(isValidQuantity('1.5.3Gi')).toBe(false);
    expect(isValidQuantity(undefined)).toBe(false);
  });
});

describe('toMilli and toInt round up like MilliValue and Value', () => {
  const cases: Array<[string | number, number, number]> = [
    ['100m', 100, 1],
    ['1', 1000, 1],
    ['1500m', 1500, 2],
    ['0.1234', 124, 1],
    ['3920m', 3920, 4],
    ['1Ki', 1024000, 1024],
    ['0.3', 300, 1],
    ['1n', 1, 1],
    ['-1500m', -1500, -1],
    ['16Gi', 17179869184000, 17179869184],
    [58, 58000, 58],
  ];
  it.each(cases)('%j -> %d milli, %d whole', (input, milli, whole) => {
    expect(toMilli(input)).toBe(milli);
    expect(toInt(input)).toBe(whole);
  });
});

describe('formatting', () => {
  it.each([
    [3920, '3920m'],
    [4000, '4'],
    [250, '250m'],
    [0, '0'],
    [96000, '96'],
  ])('formats %d millicores as %s', (millis, text) => {
    expect(formatCpu(millis)).toBe(text);
  });

  it.each([
    [16 * 2 ** 30, '16Gi'],
    [15896972 * 1024, '15896972Ki'],
    [512 * 2 ** 20, '512Mi'],
    [2 ** 60, '1Ei'],
    [1500, '1500'],
    [1000, '1k'],
    [512, '512'],
    [0, '0'],
    [76224326324, '76224326324'],
  ])('formats %d bytes as %s, the canonical BinarySI form', (bytes, text) => {
    expect(formatBytes(bytes)).toBe(text);
  });

  it('round-trips a formatted byte value through the parser', () => {
    for (const v of [16 * 2 ** 30, 15896972 * 1024, 1500, 1000]) expect(toInt(formatBytes(v))).toBe(v);
  });

  it.each([
    ['cpu', 3920, '3920m'],
    ['memory', 2 ** 30, '1Gi'],
    ['ephemeral-storage', 20 * 2 ** 30, '20Gi'],
    ['hugepages-2Mi', 4 * 2 ** 20, '4Mi'],
    ['pods', 110, '110'],
    ['nvidia.com/gpu', 1, '1'],
  ])('formats %s %d as %s', (name, value, text) => {
    expect(formatResource(name, value)).toBe(text);
  });
});

describe('parseQuantity edge cases (apimachinery ParseQuantity after UnmarshalJSON trimming)', () => {
  it.each<[string, string, number]>([
    ['zero', '0', 0],
    ['negative zero is zero', '-0', 0],
    ['a zero with a fraction', '0.0', 0],
    ['tabs and newlines around the value are trimmed', '\t1Gi\n', 2 ** 30],
    ['leading zeros are digits like any other', '00.5', 0.5],
    ['an exponent after a fraction', '1.0e3', 1000],
    ['an exponent with an explicit plus sign', '1e+3', 1000],
    ['int64 max as a plain number', '9223372036854775807', 2 ** 63],
  ])('%s (%j)', (_name, input, expected) => {
    expect(parseQuantity(input)).toBe(expected);
  });

  it.each<[string, string]>([
    ['a lower-case k with i (only Ki is binary)', '1ki'],
    ['an underscore digit separator', '1_000'],
    ['a hexadecimal literal', '0x10'],
    ['a non-ASCII digit', '\u0663Gi'],
    ['an exponent and a suffix together', '1E-3m'],
    ['an exponent beyond the supported range (casdoctor rejects instead of computing 10^1001)', '1e1001'],
    ['a negative exponent beyond the supported range', '1e-1001'],
    ['a comma as decimal separator', '1,5Gi'],
  ])('rejects %s (%j)', (_name, input) => {
    expect(() => parseQuantity(input)).toThrow(QuantityError);
    expect(isValidQuantity(input)).toBe(false);
  });
});
