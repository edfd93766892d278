import { randomBytes } from 'node:crypto';
import { chmodSync, existsSync, mkdirSync, readFileSync, renameSync, rmSync, writeFileSync } from 'node:fs';
import { homedir } from 'node:os';
import { join } from 'node:path';
import { UsageError } from './output';

/** What `apctl login` keeps for a profile: where to sign in, the offline token, and what listen needs. */
export interface Profile {
  apiUrl: string;
  realm: string;
  clientId: string;
  offlineToken: string;
  /** The organization's uuid, when known (`--org` at login, or the caller's own once read). */
  org?: string;
  email?: string;
  /** `apctl events listen`'s signing secret: made once, the same on every run of this profile. */
  webhookSecret?: string;
  /** Where `events listen` stopped, per organization, forwarding address and types, to resume there. */
  listenPositions?: Record<string, ListenPosition>;
}

/** A page of the feed (the cursor it was read after) and how many of its events were delivered. */
export interface ListenPosition {
  after: string;
  delivered: number;
}

const PROFILE_NAME = /^[A-Za-z0-9_.-]{1,64}$/;

/** `$XDG_CONFIG_HOME/apctl`, else `~/.config/apctl`. */
export function configDir(): string {
  const base = process.env.XDG_CONFIG_HOME?.trim() || join(homedir(), '.config');
  return join(base, 'apctl');
}

export function profileFile(name: string): string {
  if (!PROFILE_NAME.test(name)) throw new UsageError(`The profile name "${name}" is not valid: use letters, digits, '.', '_' or '-'`);
  return join(configDir(), `${name}.json`);
}

export function readProfile(name: string): Profile | undefined {
  const file = profileFile(name);
  if (!existsSync(file)) return undefined;
  try {
    return JSON.parse(readFileSync(file, 'utf8')) as Profile;
  } catch {
    throw new UsageError(`The profile file ${file} cannot be read: sign in again with \`apctl login --profile ${name}\``);
  }
}

/** Writes the profile readable by its owner only (0600, in a 0700 directory), replacing it in one step. */
export function writeProfile(name: string, profile: Profile): string {
  const file = profileFile(name);
  mkdirSync(configDir(), { recursive: true, mode: 0o700 });
  const temporary = `${file}.${process.pid}.tmp`;
  writeFileSync(temporary, `${JSON.stringify(profile, null, 2)}\n`, { mode: 0o600 });
  chmodSync(temporary, 0o600);
  renameSync(temporary, file);
  return file;
}

export function deleteProfile(name: string): void {
  rmSync(profileFile(name), { force: true });
}

/** A Standard Webhooks secret: `whsec_` and 24 random bytes in base64. */
export const newWebhookSecret = () => `whsec_${randomBytes(24).toString('base64')}`;
