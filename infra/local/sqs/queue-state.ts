import { closeSync, existsSync, openSync, readFileSync, writeSync } from 'node:fs';
import { join } from 'node:path';
import { parseJson } from '../kernel/parse-json';
import { writeFileWhole } from '../kernel/write-whole';
import { queueArn, SQS_DEFAULT_RETENTION_SECONDS, type LocalQueueSettings, type Message, type StoredMessage } from './sqs-model';

/**
 * One queue's messages in memory, in sending order, and an append-only journal of JSON lines
 * (`<name>.jsonl`), written before the answer. A start replays the journal (dropping a last line cut
 * short by a kill) and rewrites it with the messages still there, those in flight visible again.
 */

/** Between two looks of a long poll for messages that became visible by time (a delay or a visibility timeout ending). */
const LOOK_AGAIN_MS = 100;

type JournalLine =
  | { op: 'send'; message: StoredMessage }
  | { op: 'receive'; id: string; receiveCount: number; firstReceivedAt: number }
  | { op: 'delete'; id: string };

/** A message as the journal keeps it: without what lives in memory only (its visibility, its latest receipt). */
export const stored = ({ visibleAt: _visibleAt, receipt: _receipt, ...message }: Message): StoredMessage => message;

export class Queue {
  readonly messages = new Map<string, Message>();
  readonly arn: string;
  readonly createdAt = Math.floor(Date.now() / 1000);
  private readonly waiting = new Set<() => void>();
  /** How many messages left the queue so far, so that a watcher looks at its messages only when some left. */
  removals = 0;
  private readonly file: string;
  private fd = -1;
  private expiredAt = 0;

  constructor(readonly settings: LocalQueueSettings, dir: string) {
    this.arn = queueArn(settings.name);
    this.file = join(dir, `${settings.name}.jsonl`);
    this.load();
  }

  private load(): void {
    if (existsSync(this.file)) {
      for (const line of readFileSync(this.file, 'utf8').split('\n')) {
        const entry = parseJson(line) as JournalLine | undefined;
        if (!entry) continue;
        if (entry.op === 'send') this.messages.set(entry.message.id, { ...entry.message, visibleAt: 0 });
        else if (entry.op === 'delete') this.messages.delete(entry.id);
        else if (entry.op === 'receive') {
          const message = this.messages.get(entry.id);
          if (message) Object.assign(message, { receiveCount: entry.receiveCount, firstReceivedAt: entry.firstReceivedAt });
        }
      }
    }
    writeFileWhole(this.file, [...this.messages.values()].map((message) => `${JSON.stringify({ op: 'send', message: stored(message) })}\n`).join(''));
    this.fd = openSync(this.file, 'a');
  }

  private journal(entry: JournalLine): void {
    // A synchronous write, done before the answer: once it returns, the line is the kernel's, and a kill of this process cannot lose it.
    writeSync(this.fd, `${JSON.stringify(entry)}\n`);
  }

  closeJournal(): void {
    closeSync(this.fd);
  }

  add(message: StoredMessage): void {
    this.journal({ op: 'send', message });
    this.messages.set(message.id, { ...message, visibleAt: 0 });
    this.wake();
  }

  /** Wakes the waiting receives: a message arrived, a visibility timeout was set to 0, or the endpoint closes. */
  wake(): void {
    for (const waiter of this.waiting) waiter();
  }

  /**
   * Long polling: takes what `take` finds; while that is nothing, waits until `deadline` (epoch ms), woken
   * at once by a send, unless the caller went away or the endpoint closes meanwhile.
   */
  async longPoll<T>(deadline: number, take: () => T[], stop: () => boolean): Promise<T[]> {
    let taken = take();
    while (taken.length === 0 && Date.now() < deadline && !stop()) {
      await new Promise<void>((resolve) => {
        const done = () => {
          this.waiting.delete(done);
          clearTimeout(timer);
          resolve();
        };
        const timer = setTimeout(done, Math.min(LOOK_AGAIN_MS, deadline - Date.now()));
        this.waiting.add(done);
      });
      if (!stop()) taken = take();
    }
    return taken;
  }

  remove(id: string): void {
    if (!this.messages.has(id)) return;
    this.journal({ op: 'delete', id });
    this.messages.delete(id);
    this.removals++;
  }

  /** Records a receive of `message` (its count, its first time), journaled. */
  received(message: Message): void {
    this.journal({ op: 'receive', id: message.id, receiveCount: message.receiveCount, firstReceivedAt: message.firstReceivedAt! });
  }

  /** Drops the messages past the retention period, as SQS does; at most once a second, the retention being a minute at least. */
  expire(now: number): void {
    if (now - this.expiredAt < 1000) return;
    this.expiredAt = now;
    const retentionMs = (this.settings.retentionSeconds ?? SQS_DEFAULT_RETENTION_SECONDS) * 1000;
    for (const message of this.messages.values()) if (message.sentAt + retentionMs <= now) this.remove(message.id);
  }

  counts(now = Date.now()) {
    this.expire(now);
    const counts = { visible: 0, inFlight: 0, delayed: 0 };
    for (const message of this.messages.values()) {
      if (message.delayUntil > now) counts.delayed++;
      else if (message.visibleAt > now) counts.inFlight++;
      else counts.visible++;
    }
    return counts;
  }
}
