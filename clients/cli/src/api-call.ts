import { readFileSync } from 'node:fs';
import { orgOf, type Connection } from './connection';
import { EXIT, UsageError } from './output';

/**
 * `api METHOD PATH`: any authenticated call, like `gh api`. PATH is the API's path (`{org}` stands for
 * the organization); `--data` sends JSON, `@FILE` a file's content. The answer's body goes to stdout
 * (JSON indented); exit 1 when its status is not 2xx.
 */
export async function apiCall(connection: Connection, method: string, path: string, flags: { data?: string; header?: string[] }): Promise<number> {
  const verb = method.toUpperCase();
  if (!/^(GET|POST|PUT|PATCH|DELETE|HEAD)$/.test(verb)) throw new UsageError(`METHOD must be GET, POST, PUT, PATCH, DELETE or HEAD, not ${method}`);
  pathOf(connection, path); // refused before anything is sent, the organization's lookup included
  const resolved = pathOf(connection, path.includes('{org}') ? path.replaceAll('{org}', await orgOf(connection)) : path);
  const headers = new Headers({ accept: 'application/json' });
  for (const header of flags.header ?? []) {
    const at = header.indexOf(':');
    if (at < 1) throw new UsageError(`-H takes "Name: value", not ${header}`);
    headers.set(header.slice(0, at).trim(), header.slice(at + 1).trim());
  }
  let body: string | undefined;
  if (flags.data !== undefined) {
    body = flags.data.startsWith('@') ? readData(flags.data.slice(1)) : flags.data;
    if (!headers.has('content-type')) headers.set('content-type', 'application/json');
  }
  const url = new URL(`${connection.apiUrl}${resolved}`);
  if (url.origin !== new URL(connection.apiUrl).origin) throw new UsageError(`PATH must be a path of the API, such as /user-management/org/{org}/users, not ${path}`);
  const response = await connection.send(new Request(url, { method: verb, headers, body }));
  const text = await response.text();
  if (text) process.stdout.write(`${pretty(text, response.headers.get('content-type'))}\n`);
  if (!response.ok) process.stderr.write(`apctl: ${verb} ${resolved} answered ${response.status}\n`);
  return response.ok ? EXIT.ok : EXIT.failed;
}

/**
 * The path to call: PATH itself, or the path of an absolute address of the API (a `Link` header's,
 * say). The bearer token goes to the API only: an address of another host is refused.
 */
function pathOf(connection: Connection, path: string): string {
  const api = new URL(connection.apiUrl);
  if (/^[a-z][a-z0-9+.-]*:/i.test(path)) {
    let url: URL;
    try {
      url = new URL(path);
    } catch {
      throw new UsageError(`PATH must be a path such as /user-management/org/{org}/users, not ${path}`);
    }
    if (url.origin !== api.origin) throw new UsageError(`apctl api calls only the API (${api.origin}), with your token: give a path such as /user-management/org/{org}/users, not ${url.origin}`);
    return `${url.pathname}${url.search}`;
  }
  if (!path.startsWith('/')) throw new UsageError(`PATH must start with /, e.g. /user-management/org/{org}/users, not ${path}`);
  return path;
}

function readData(file: string): string {
  try {
    return file === '-' ? readFileSync(0, 'utf8') : readFileSync(file, 'utf8');
  } catch {
    throw new UsageError(`Cannot read ${file}: check the path after --data @`);
  }
}

function pretty(text: string, contentType: string | null): string {
  if (!contentType?.includes('json')) return text.replace(/\n$/, '');
  try {
    return JSON.stringify(JSON.parse(text), null, 2);
  } catch {
    return text;
  }
}
