/**
 * The last position `i` in `[0, length)` whose `sorted[i]` is at most `value` (0 when none is):
 * which run a position falls in, given each run's ascending start.
 */
export function lastAtOrBelow(sorted: ArrayLike<number>, value: number, length = sorted.length): number {
  let low = 0;
  let high = length - 1;
  while (low < high) {
    const middle = (low + high + 1) >>> 1;
    if ((sorted[middle] as number) <= value) low = middle;
    else high = middle - 1;
  }
  return low;
}
