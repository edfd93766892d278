/**
 * Runs a command of package.json's scripts on the project's Node major (`.nvmrc`), whatever Node the
 * machine has: `npm ci` installs that Node as the optional dependency `node-<platform>-<arch>` that
 * fits the machine. On another major, the command runs with that binary's directory first on PATH, so
 * `node`, `npx`, `npm`, jest, tsx and all their children run on it; on the right one it just runs.
 *
 *   node infra/node/project-node.mjs jest --selectProjects unit    a program and its arguments
 *   node infra/node/project-node.mjs "npm run lint && jest"        a shell command line (it has a space)
 *
 * Plain JavaScript that any Node since 18 runs: it is what starts before the right Node is there.
 */
import { spawn } from 'node:child_process';
import { existsSync, readFileSync, realpathSync } from 'node:fs';
import { constants } from 'node:os';
import { delimiter, dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';

const root = join(dirname(fileURLToPath(import.meta.url)), '..', '..');
const wanted = readFileSync(join(root, '.nvmrc'), 'utf8').trim();
// Set for the command's processes: a nested `npm run` that comes back here neither announces nor switches again.
const SWITCHED = 'PROJECT_NODE_SWITCHED';
// The registry names Windows builds `node-win-<arch>`, not after `process.platform` (`win32`).
const packageName = `node-${process.platform === 'win32' ? 'win' : process.platform}-${process.arch}`;
const binDir = join(root, 'node_modules', packageName, 'bin');
const binary = join(binDir, process.platform === 'win32' ? 'node.exe' : 'node');
const majorOf = (version) => version.split('.')[0];

function fail(message) {
  console.error(message);
  process.exit(1);
}

const [command, ...args] = process.argv.slice(2);
if (!command) fail('Usage: node infra/node/project-node.mjs <command> [arguments]; see the scripts in package.json for examples.');

const env = { ...process.env, [SWITCHED]: '1' };
/** Puts the project's Node first on the command's PATH and says so, in one line, unless a parent process already did. */
function useProjectNode(here) {
  const version = JSON.parse(readFileSync(join(root, 'node_modules', packageName, 'package.json'), 'utf8')).version;
  const pathKey = Object.keys(env).find((key) => key.toUpperCase() === 'PATH') ?? 'PATH';
  env[pathKey] = [binDir, env[pathKey]].filter(Boolean).join(delimiter);
  if (!process.env[SWITCHED]) console.error(`Node ${here} here; running on Node ${version} from node_modules (${packageName})`);
}

// npm names its own Node in its user agent ("npm/11.6.2 node/v20.19.0 linux x64 ...").
const npmNode = /\bnode\/v(\d[\w.-]*)/.exec(process.env.npm_config_user_agent ?? '')?.[1];
if (majorOf(process.versions.node) !== wanted) {
  if (process.env[SWITCHED]) {
    fail(`Still on Node ${process.versions.node} after switching to node_modules/${packageName}: run npm ci to reinstall it, or install Node ${wanted} (nvm install reads .nvmrc).`);
  }
  if (!existsSync(binary)) {
    fail(`This project runs on Node ${wanted} and this is Node ${process.versions.node}, with no node_modules/${packageName} to switch to: run npm ci, and if that does not install it (no such package for ${process.platform}-${process.arch}), install Node ${wanted} (nvm install reads .nvmrc).`);
  }
  useProjectNode(process.versions.node);
} else if (npmNode && majorOf(npmNode) !== wanted && existsSync(binary) && realpathSync(process.execPath) === realpathSync(binary)) {
  // npm, on the machine's Node, linked the project's Node as node_modules/.bin/node, first on a script's PATH.
  useProjectNode(npmNode);
}

/** Quotes an argument npm appended to a shell command line, where the shell would split or expand it. */
function quote(arg) {
  if (/^[\w./:=@%+,-]+$/.test(arg)) return arg;
  return process.platform === 'win32' ? `"${arg.replaceAll('"', '""')}"` : `'${arg.replaceAll("'", `'\\''`)}'`;
}

// A program is run directly, so that a signal reaches it and not a shell in between; Windows needs its
// shell for npm's `.cmd` shims.
const child =
  command.includes(' ') || process.platform === 'win32'
    ? spawn([command, ...args.map(quote)].join(' '), { env, stdio: 'inherit', shell: true })
    : spawn(command, args, { env, stdio: 'inherit' });
child.on('error', (error) => fail(`Could not start ${command} (${error.message}): run npm ci if it is one of the project's tools.`));

// npm forwards these to this process, and this process to the child. A terminal's Ctrl-C reaches the
// child itself and this process twice (npm's copy too): one forward a burst, so the child sees two as under npm alone.
const lastForward = {};
const forward = (signal) => {
  if (Date.now() - (lastForward[signal] ?? 0) > 200) child.kill(signal);
  lastForward[signal] = Date.now();
};
for (const signal of ['SIGINT', 'SIGTERM']) process.on(signal, forward);

child.on('exit', (code, signal) => {
  if (code !== null) process.exit(code);
  // Ended by a signal: end by the same one, so that npm and the shell see what the command saw.
  process.removeAllListeners(signal);
  process.exitCode = 128 + (constants.signals[signal] ?? 0);
  process.kill(process.pid, signal);
});
