/**
 * Long polling: a send wakes the queue's waiting receives at once; a message that becomes visible by
 * time (a delay or a visibility timeout ending) is seen on the next look, every 100 ms.
 */

const LOOK_AGAIN_MS = 100;

/** The receives waiting on one queue. */
export class Waiters {
  private readonly waiting = new Set<() => void>();

  /** A message arrived, a visibility timeout was set to 0, or the endpoint closes. */
  wake(): void {
    for (const waiter of this.waiting) waiter();
  }

  /** Resolves on the next `wake`, or after `ms`. */
  next(ms: number): Promise<void> {
    return new Promise((resolve) => {
      const done = () => {
        this.waiting.delete(done);
        clearTimeout(timer);
        resolve();
      };
      const timer = setTimeout(done, ms);
      this.waiting.add(done);
    });
  }
}

/**
 * Takes what `take` finds; while that is nothing, waits for the queue until `deadline` (epoch ms),
 * unless the caller went away or the endpoint closes meanwhile.
 */
export async function longPoll<T>(waiters: Waiters, deadline: number, take: () => T[], stop: () => boolean): Promise<T[]> {
  let taken = take();
  while (taken.length === 0 && Date.now() < deadline && !stop()) {
    await waiters.next(Math.min(LOOK_AGAIN_MS, deadline - Date.now()));
    if (!stop()) taken = take();
  }
  return taken;
}
