import { TokenBucket, type Clock } from '../../shared/kernel/retry';

/** A clock that only moves when told: each sleeper wakes at its own time, in time order. */
class ManualClock implements Clock {
  time = 0;
  private sleepers: { at: number; wake: () => void }[] = [];

  now = () => this.time;

  sleep = (ms: number) => new Promise<void>((wake) => this.sleepers.push({ at: this.time + ms, wake }));

  /** Moves time forward until nobody sleeps, letting each woken caller run (and sleep again) first. */
  async runAll(): Promise<void> {
    for (;;) {
      await new Promise((resolve) => setImmediate(resolve));
      if (this.sleepers.length === 0) return;
      this.sleepers.sort((a, b) => a.at - b.at);
      const next = this.sleepers.shift()!;
      this.time = Math.max(this.time, next.at);
      next.wake();
    }
  }
}

/** `lanes` callers each taking `each` tokens in turn; the time of every take, in order. */
async function takeTimes(bucket: TokenBucket, clock: ManualClock, lanes: number, each: number): Promise<number[]> {
  const times: number[] = [];
  const lane = async () => {
    for (let i = 0; i < each; i++) {
      await bucket.take();
      times.push(clock.now());
    }
  };
  const all = Promise.all(Array.from({ length: lanes }, lane));
  await clock.runAll();
  await all;
  return times;
}

describe('the send-rate token bucket', () => {
  test('lets a full burst through at once, then one token per 1/rate seconds, across all lanes', async () => {
    const clock = new ManualClock();
    const bucket = new TokenBucket({ ratePerSecond: 4, clock });

    const times = await takeTimes(bucket, clock, 8, 3);

    expect(bucket.burst).toBe(4);
    expect(times).toEqual([0, 0, 0, 0, 250, 500, 750, 1000, 1250, 1500, 1750, 2000, 2250, 2500, 2750, 3000, 3250, 3500, 3750, 4000, 4250, 4500, 4750, 5000]);
  });

  test('never passes the rate in any window once the burst is spent', async () => {
    const clock = new ManualClock();
    const bucket = new TokenBucket({ ratePerSecond: 2, burst: 1, clock });

    const times = await takeTimes(bucket, clock, 8, 5);

    expect(times).toHaveLength(40);
    times.forEach((time, i) => expect(time).toBe(i * 500));
  });

  test('refills while idle, but never beyond the burst', async () => {
    const clock = new ManualClock();
    const bucket = new TokenBucket({ ratePerSecond: 1, burst: 2, clock });
    await takeTimes(bucket, clock, 1, 2);

    clock.time += 60_000;
    const start = clock.time;
    const times = await takeTimes(bucket, clock, 3, 1);

    expect(times).toEqual([start, start, start + 1000]);
  });

  test('a fractional rate (SES can give 0.5/s) spaces sends by 2 s with a burst of 1', async () => {
    const clock = new ManualClock();
    const bucket = new TokenBucket({ ratePerSecond: 0.5, clock });

    expect(await takeTimes(bucket, clock, 2, 2)).toEqual([0, 2000, 4000, 6000]);
  });

  test.each([0, -1, Number.NaN, Number.POSITIVE_INFINITY])('refuses a rate of %p', (ratePerSecond) => {
    expect(() => new TokenBucket({ ratePerSecond })).toThrow(RangeError);
  });
});
