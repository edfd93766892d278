/**
 * The local stack's one list of what to stop, run in reverse on a stop or on a start that failed part-way.
 * A stop that fails is logged and the others still run; running it again waits for the first run.
 */
export class Teardown {
  private readonly steps: { name: string; stop: () => unknown }[] = [];
  private running: Promise<void> | undefined;

  /** Adds a service's stop; after `run` has begun, stops it at once (a service that came up during a stop). */
  add(name: string, stop: () => unknown): void {
    if (this.running) void this.running.then(() => this.stopOne({ name, stop }));
    else this.steps.push({ name, stop });
  }

  run(): Promise<void> {
    this.running ??= (async () => {
      for (const step of this.steps.splice(0).reverse()) await this.stopOne(step);
    })();
    return this.running;
  }

  private async stopOne({ name, stop }: { name: string; stop: () => unknown }): Promise<void> {
    try {
      await stop();
    } catch (error) {
      console.error(JSON.stringify({ level: 'ERROR', source: 'local-stack', service: name, errorType: error instanceof Error ? error.name : typeof error, message: 'stopping it failed; the others are stopped still' }));
    }
  }
}
