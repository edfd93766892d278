import { appendFileSync, existsSync, mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { parseJson } from './kernel/parse-json';
import { writeFileWhole } from './kernel/write-whole';

/**
 * cognito-local's data store at constant cost per write (its own, StormDB, rewrites the whole pool file
 * on each: 337 ms per user at 10,000 users): the pool in memory, each write appended to a journal
 * (`<id>.journal`), folded into the snapshot (`<id>.json`, StormDB's format) on open, once the journal
 * outgrows it, and at exit. Crash-safe: a torn last journal line is dropped; the snapshot is synced and
 * renamed into place before the journal is emptied, and replaying a journal line twice changes nothing.
 */

type Key = string | string[];
type Tree = Record<string, unknown>;

type JournalLine = { op: 'set' | 'delete'; key: string[]; value?: unknown };

const path = (key: Key): string[] => (Array.isArray(key) ? key : [key]);

/** cognito-local stores dates as Date objects in fields whose names end in `Date`; on disk they are ISO strings. */
const reviveDates = (key: string, value: unknown): unknown =>
  key.endsWith('Date') && (typeof value === 'string' || typeof value === 'number') ? new Date(value) : value;

const isTree = (node: unknown): node is Tree => node !== null && typeof node === 'object';

function nodeAt(root: Tree, parts: string[]): unknown {
  let node: unknown = root;
  for (const part of parts) node = isTree(node) ? node[part] : undefined;
  return node;
}

/** Applies one journal line to `root`, making the parents a `set` needs. */
function apply(root: Tree, { op, key, value }: JournalLine): void {
  if (op === 'delete') {
    const parent = nodeAt(root, key.slice(0, -1));
    if (isTree(parent)) delete parent[key.at(-1)!];
    return;
  }
  let node = root;
  for (const part of key.slice(0, -1)) node = (isTree(node[part]) ? node[part] : (node[part] = {})) as Tree;
  node[key.at(-1)!] = value;
}

export class JournaledDataStore {
  private journalBytes = 0;
  private snapshotBytes = 0;

  constructor(private readonly snapshotFile: string, private readonly journalFile: string, private root: Tree) {}

  async get<T>(_ctx: unknown, key: Key, defaultValue?: T): Promise<T | null> {
    const parts = path(key);
    const node = nodeAt(this.root, parts);
    if (node === undefined) return defaultValue ?? null;
    // A whole collection, which cognito-local only scans, as it is (a copy would cost the pool); one item a copy.
    return (parts.length === 1 ? node : structuredClone(node)) as T;
  }

  async getRoot<T>(): Promise<T | null> {
    return structuredClone(this.root) as T;
  }

  async set<T>(_ctx: unknown, key: Key, value: T): Promise<void> {
    const parts = path(key);
    // cognito-local keeps every refresh token it issues on its user, one per sign-in, and none is used
    // here: the last few kept, so a user's record does not grow with its sign-ins.
    if (parts[0] === 'Users' && parts.length === 2) value = withFewRefreshTokens(value);
    apply(this.root, { op: 'set', key: parts, value: structuredClone(value) });
    this.append({ op: 'set', key: parts, value });
  }

  async delete(_ctx: unknown, key: Key): Promise<void> {
    const line: JournalLine = { op: 'delete', key: path(key) };
    apply(this.root, line);
    this.append(line);
  }

  /** Writes the whole state as the snapshot, then empties the journal (see the class comment). */
  compact(): void {
    const text = JSON.stringify(this.root);
    writeFileWhole(this.snapshotFile, text, { flush: true });
    writeFileSync(this.journalFile, '');
    this.journalBytes = 0;
    this.snapshotBytes = Buffer.byteLength(text);
  }

  private append(line: JournalLine): void {
    const text = `${JSON.stringify(line)}\n`;
    appendFileSync(this.journalFile, text);
    this.journalBytes += Buffer.byteLength(text);
    // Folding costs the whole pool: once the journal is as big as the snapshot (1 MB at least), a constant share a write.
    if (this.journalBytes > Math.max(1 << 20, this.snapshotBytes)) setImmediate(() => this.compact());
  }
}

const KEPT_REFRESH_TOKENS = 5;

function withFewRefreshTokens<T>(user: T): T {
  const tokens = (user as { RefreshTokens?: unknown }).RefreshTokens;
  return Array.isArray(tokens) && tokens.length > KEPT_REFRESH_TOKENS ? { ...user, RefreshTokens: tokens.slice(-KEPT_REFRESH_TOKENS) } : user;
}

/** Reads a snapshot and replays its journal over it; a torn last journal line is dropped. */
export function loadState(snapshotFile: string, journalFile: string, defaults: Tree): Tree {
  const root: Tree = existsSync(snapshotFile) ? (JSON.parse(readFileSync(snapshotFile, 'utf8'), reviveDates) as Tree) : {};
  const lines = existsSync(journalFile) ? readFileSync(journalFile, 'utf8').split('\n').filter(Boolean) : [];
  for (const text of lines) {
    const line = parseJson(text, reviveDates) as JournalLine | undefined;
    if (!line) break; // The write a crash cut short: it never completed, so it never happened.
    apply(root, line);
  }
  for (const [name, value] of Object.entries(defaults)) if (!(name in root)) root[name] = value;
  return root;
}

const open = new Set<JournaledDataStore>();

/** The factory cognito-local's services take (`create(ctx, id, defaults)`), over a directory of its own. */
export class JournaledDataStoreFactory {
  constructor(private readonly directory: string) {}

  async create(_ctx: unknown, id: string, defaults: object): Promise<JournaledDataStore> {
    mkdirSync(this.directory, { recursive: true });
    const snapshotFile = join(this.directory, `${id}.json`);
    const journalFile = join(this.directory, `${id}.journal`);
    const store = new JournaledDataStore(snapshotFile, journalFile, loadState(snapshotFile, journalFile, defaults as Tree));
    store.compact();
    if (open.size === 0) process.once('exit', () => open.forEach((each) => each.compact()));
    open.add(store);
    return store;
  }
}
