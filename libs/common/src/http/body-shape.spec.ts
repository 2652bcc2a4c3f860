import { bodyShapeProblems, MAX_JSON_DEPTH, RESERVED_KEYS } from './body-shape.js';

describe('bodyShapeProblems', () => {
  const nested = (levels: number): unknown => JSON.parse(`${'['.repeat(levels)}${']'.repeat(levels)}`);

  it('accepts a body nested exactly to the limit and refuses one level more', () => {
    expect(bodyShapeProblems(nested(MAX_JSON_DEPTH))).toEqual({});
    expect(Object.entries(bodyShapeProblems(nested(MAX_JSON_DEPTH + 1)))).toEqual([['body', [`body must not be nested more than ${MAX_JSON_DEPTH} levels deep`]]]);
  });

  it('walks a body nested 100,000 deep without overflowing the stack', () => {
    expect(Object.keys(bodyShapeProblems(nested(100_000)))).toEqual(['body']);
  });

  it('names every reserved key by its path, including __proto__ parsed as an own property', () => {
    const body = JSON.parse('{"__proto__":{"x":1},"metadata":{"toString":"a","ok":"b"},"items":[{"constructor":1},{"prototype":2}]}');
    expect(Object.keys(bodyShapeProblems(body)).sort()).toEqual(['__proto__', 'items.0.constructor', 'items.1.prototype', 'metadata.toString']);
    expect(({} as Record<string, unknown>).x).toBeUndefined();
  });

  it('reserves every Object.prototype member and prototype', () => {
    for (const key of ['__proto__', 'constructor', 'prototype', 'toString', 'hasOwnProperty', 'valueOf', 'isPrototypeOf', 'propertyIsEnumerable', 'toLocaleString', '__lookupGetter__']) {
      expect(RESERVED_KEYS.has(key)).toBe(true);
    }
    expect(RESERVED_KEYS.has('reference')).toBe(false);
  });

  it('ignores scalars and plain bodies', () => {
    expect(bodyShapeProblems('text')).toEqual({});
    expect(bodyShapeProblems({ reference: 'a', recipient: { first_name: 'b' } })).toEqual({});
  });
});
