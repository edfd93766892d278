/**
 * The first index of a sorted sequence of `length` items at which `before(index)` is false, `before`
 * holding for a prefix of the sequence and failing for the rest: a binary search (where an item goes,
 * or where the items past a key begin).
 */
export function firstIndexNotBefore(length: number, before: (index: number) => boolean): number {
  let [low, high] = [0, length];
  while (low < high) {
    const middle = (low + high) >> 1;
    if (before(middle)) low = middle + 1;
    else high = middle;
  }
  return low;
}
