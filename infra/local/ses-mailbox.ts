import { appendFileSync, existsSync, readFileSync, writeFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import { join } from 'node:path';
import type { Email } from 'aws-ses-v2-local/dist/store';
import { projectRoot } from '../cloud/project-root';
import { parseJson } from './kernel/parse-json';

/** The parts of aws-ses-v2-local's store module (CommonJS) the mailbox file hooks into. */
interface SesStore { saveEmail(email: Email): void; clearStore(): void; getStoreReadonly(): { emails: Email[] } }

/** Where each store module keeps the e-mails of the stack running in this process. */
const hooked = new WeakMap<SesStore, { file?: string }>();

/**
 * Keeps aws-ses-v2-local's e-mails (held in its module's memory) in `file` too, a JSON line each, and
 * puts them back at start, so the mailbox outlives a restart. Its routes call the store module's
 * exports at each request, so wrapping those exports reaches every kind of send.
 */
export function keepMailboxIn(file: string): void {
  // The very module instance the emulator required (same resolved file, same module cache).
  const store = createRequire(join(projectRoot, 'package.json'))('aws-ses-v2-local/dist/store.js') as SesStore;
  let target = hooked.get(store);
  if (!target) {
    const current: { file?: string } = {};
    const { saveEmail, clearStore } = store;
    store.saveEmail = (email) => {
      saveEmail(email);
      if (current.file) appendFileSync(current.file, `${JSON.stringify(email)}\n`);
    };
    store.clearStore = () => {
      clearStore();
      if (current.file) writeFileSync(current.file, '');
    };
    hooked.set(store, (target = current));
  }
  target.file = file;
  const kept = readMailbox(file);
  // A line cut short (the process killed mid-write) is dropped now, so the next e-mail starts a line of its own.
  if (kept.cut) writeFileSync(file, kept.emails.map((email) => `${JSON.stringify(email)}\n`).join(''));
  const emails = store.getStoreReadonly().emails;
  emails.splice(0, emails.length, ...kept.emails);
}

/** The e-mails kept in `file`, and whether its last line was cut short. */
export function readMailbox(file: string): { emails: Email[]; cut: boolean } {
  if (!existsSync(file)) return { emails: [], cut: false };
  const emails: Email[] = [];
  let cut = false;
  for (const line of readFileSync(file, 'utf8').split('\n')) {
    if (!line) continue;
    const email = parseJson(line) as Email | undefined;
    if (email === undefined) cut = true;
    else emails.push(email);
  }
  return { emails, cut };
}
