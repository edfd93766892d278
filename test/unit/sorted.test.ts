import { firstIndexNotBefore } from '../../shared/kernel/sorted';

test('the first index not before a key, at the start, between, at a tie and past the end', () => {
  const keys = ['b', 'd', 'd', 'f'];
  const before = (key: string) => (index: number) => keys[index]! < key;
  expect(firstIndexNotBefore(0, () => true)).toBe(0);
  expect(['a', 'b', 'c', 'd', 'e', 'g'].map((key) => firstIndexNotBefore(keys.length, before(key)))).toEqual([0, 0, 1, 1, 3, 4]);
  // "At or before": past every tie.
  expect(firstIndexNotBefore(keys.length, (index) => keys[index]! <= 'd')).toBe(3);
});
