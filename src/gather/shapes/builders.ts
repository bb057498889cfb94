// The vocabulary of casdoctor's dump shapes (gather/shape.ts fits objects to them): a Shape and its builders.
export type Shape =
  | 'string'
  | 'number'
  | 'boolean'
  | 'quantity'
  | 'int-or-string'
  | 'time'
  | { nullable: Shape }
  | { array: Shape; projectOnly?: (entry: unknown) => boolean }
  | { record: Shape; projectKeys?: ReadonlySet<string> }
  | { object: Record<string, Shape>; required?: readonly string[] };

export const S = 'string';
export const N = 'number';
export const B = 'boolean';
export const Q = 'quantity';
export const time: Shape = { nullable: 'time' };
export const strings: Shape = { array: S };
export const stringMap: Shape = { record: S };
export const quantities: Shape = { record: Q };
export const obj = (fields: Record<string, Shape>, required?: readonly string[]): Shape => ({ object: fields, required });
export const arr = (of: Shape): Shape => ({ array: of });

export function isObject(v: unknown): v is Record<string, unknown> {
  return typeof v === 'object' && v !== null && !Array.isArray(v);
}
