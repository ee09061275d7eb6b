/**
 * A function that runs the tasks given to it at most `limit` at a time, in the order given.
 * Each installed quickstart keeps one core busy (npm, then tsc); CI machines have two.
 */
export function limitConcurrency(limit: number): <T>(task: () => Promise<T>) => Promise<T> {
  let running = 0;
  const waiting: (() => void)[] = [];
  return async <T>(task: () => Promise<T>): Promise<T> => {
    if (running >= limit) await new Promise<void>((resolve) => waiting.push(resolve));
    running += 1;
    try {
      return await task();
    } finally {
      running -= 1;
      waiting.shift()?.();
    }
  };
}
