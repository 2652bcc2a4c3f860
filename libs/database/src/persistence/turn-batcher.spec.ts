import { TurnBatcher } from './turn-batcher.js';

describe('TurnBatcher', () => {
  it('hands the items of one turn to one flush per group, in order, and answers each its own result', async () => {
    const flushed: string[][] = [];
    const batcher = new TurnBatcher<string, string>(async (items) => {
      flushed.push([...items]);
      return items.map((item) => item.toUpperCase());
    });
    const answers = await Promise.all([batcher.add('a', 'x'), batcher.add('b', 'y'), batcher.add('c', 'x')]);
    expect(answers).toEqual(['A', 'B', 'C']);
    expect(flushed).toEqual([['a', 'c'], ['b']]);
  });

  it('sends an item of a later turn in a later flush', async () => {
    const flushed: number[][] = [];
    const batcher = new TurnBatcher<number, number>(async (items) => {
      flushed.push([...items]);
      return items;
    });
    await batcher.add(1);
    await batcher.add(2);
    expect(flushed).toEqual([[1], [2]]);
  });

  it('fails every item of a group whose flush fails, and only the item whose own result fails', async () => {
    const failing = new TurnBatcher<number, number>(() => Promise.reject(new Error('statement failed')));
    await expect(Promise.allSettled([failing.add(1), failing.add(2)])).resolves.toEqual([
      { status: 'rejected', reason: new Error('statement failed') },
      { status: 'rejected', reason: new Error('statement failed') },
    ]);

    const oneBad = new TurnBatcher<number, number>(async (items) => items.map((item) => (item < 0 ? Promise.reject(new Error(`bad ${item}`)) : item)));
    await expect(Promise.allSettled([oneBad.add(1), oneBad.add(-1)])).resolves.toEqual([
      { status: 'fulfilled', value: 1 },
      { status: 'rejected', reason: new Error('bad -1') },
    ]);
  });

  it('tells whether a matching item already waits in a group this turn', async () => {
    const batcher = new TurnBatcher<string, string>(async (items) => items);
    const first = batcher.add('a', 'g');
    expect(batcher.has('g', (item) => item === 'a')).toBe(true);
    expect(batcher.has('g', (item) => item === 'b')).toBe(false);
    expect(batcher.has('other', () => true)).toBe(false);
    await first;
    expect(batcher.has('g', () => true)).toBe(false);
  });
});
