import { Command, CommanderError, Option } from 'commander';
import { whoami, logout } from './account';
import { apiCall } from './api-call';
import { applyBundle, exportBundle, planBundle } from './bundle';
import { connect, type ConnectionFlags } from './connection';
import { listen, tail } from './events';
import { login } from './login';
import { describe, EXIT, Exit, note } from './output';
import { importUsers } from './users-import';
import { version } from './version';

/** The command-line tool: each action answers its exit code (docs/cli.md#exit-codes). */

const exitCodes = `
Exit codes: 0 done; 1 failed (the message says why and what to do); 2 \`bundle plan\` found changes.`;

const program = new Command('apctl')
  .description('The agent platform from the command line: sign in, promote bot bundles, import users, follow change events, call the API.')
  .version(version)
  .addHelpText('after', `${exitCodes}\nEnvironment: APCTL_API_URL, APCTL_REALM and APCTL_OFFLINE_TOKEN replace the stored profile (CI); APCTL_ORG names an organization other than the signed-in user's; APCTL_PROFILE the profile; APCTL_WEBHOOK_SECRET signs the deliveries of events listen without a profile.`)
  .showHelpAfterError('(run with --help for usage)')
  .exitOverride();

const profileOption = () => new Option('--profile <name>', 'the stored sign-in to use').env('APCTL_PROFILE').default('default');
const orgOption = () => new Option('--org <uuid>', "the organization's uuid (default: the signed-in user's)");
const jsonOption = () => new Option('--json', 'print JSON instead of text');
const collect = (value: string, previous: string[] = []) => [...previous, value];

/** A command that calls the API as the profile (or the CI variables) says. */
function apiCommand(parent: Command, name: string, description: string): Command {
  return parent.command(name).description(description).addOption(profileOption()).addOption(orgOption()).addHelpText('after', exitCodes);
}

let outcome: Promise<number> = Promise.resolve(EXIT.ok);
const run = (action: () => Promise<number>) => {
  outcome = action();
};

program
  .command('login')
  .description('Sign in in the browser (or with --device on another device) and keep an offline token in the profile')
  .addOption(profileOption())
  .addOption(new Option('--api <url>', "the API's address, e.g. https://api.example.com").env('APCTL_API_URL'))
  .addOption(new Option('--realm <name>', "your organization's name").env('APCTL_REALM'))
  .addOption(new Option('--client-id <id>', "the console's client id (default: the one the API reference page names)").env('APCTL_CLIENT_ID'))
  .addOption(orgOption())
  .option('--device', 'sign in with a code on another device (no browser here: SSH, containers)')
  .option('--no-browser', 'print the sign-in address instead of opening the browser')
  .addHelpText('after', `\nExamples:\n  apctl login --api https://api.example.com --realm acme\n  apctl login --api https://api.example.com --realm acme --device --profile ci\n${exitCodes}`)
  .action((flags: { profile: string; api?: string; realm?: string; clientId?: string; org?: string; device?: boolean; browser: boolean }) =>
    run(async () => {
      const { file, email } = await login(flags);
      note(`Signed in${email ? ` as ${email}` : ''}; the offline token is kept in ${file}`);
      return EXIT.ok;
    }),
  );

program
  .command('logout')
  .description("Revoke the profile's offline token and delete the profile")
  .addOption(profileOption())
  .addHelpText('after', exitCodes)
  .action((flags: ConnectionFlags) => run(() => logout(connect(flags, { profileOnly: true }))));

apiCommand(program, 'whoami', 'Print the signed-in user, the organization and the role')
  .addOption(jsonOption())
  .action((flags: ConnectionFlags & { json?: boolean }) => run(() => whoami(connect(flags), { json: flags.json ?? false })));

const bundle = program.command('bundle').description("A bot's configuration as code: export, plan, apply");
const botOptions = (command: Command) =>
  command.requiredOption('--env <uuid>', "the bot's environment").requiredOption('--bot <uuid>', 'the bot');

botOptions(apiCommand(bundle, 'export', "Write the bot's bundle (YAML by default)"))
  .addOption(new Option('--format <format>', 'yaml or json').choices(['yaml', 'json']).default('yaml'))
  .option('-o, --output <file>', 'write to this file instead of stdout')
  .option('--at <time>', 'the configuration as it stood at this time (RFC 3339)')
  .action((flags: ConnectionFlags & { env: string; bot: string; format: string; output?: string; at?: string }) => run(() => exportBundle(connect(flags), flags)));

botOptions(apiCommand(bundle, 'plan', 'Show what applying a bundle would change: exit 0 when nothing, 2 when something'))
  .requiredOption('-f, --file <file>', 'the bundle (YAML or JSON)')
  .addOption(jsonOption())
  .action((flags: ConnectionFlags & { env: string; bot: string; file: string; json?: boolean }) => run(() => planBundle(connect(flags), { ...flags, json: flags.json ?? false })));

botOptions(apiCommand(bundle, 'apply', 'Apply a bundle all or nothing, guarded by the version its plan was made against'))
  .requiredOption('-f, --file <file>', 'the bundle (YAML or JSON)')
  .option('--base-version <version>', "apply only if the bot is still at this version (a reviewed plan's baseVersion)")
  .addOption(jsonOption())
  .action((flags: ConnectionFlags & { env: string; bot: string; file: string; baseVersion?: string; json?: boolean }) =>
    run(() => applyBundle(connect(flags), { ...flags, json: flags.json ?? false })),
  );

const users = program.command('users').description("The organization's users");
apiCommand(users, 'import', 'Create users from a CSV file, with progress: exit 0 when every row succeeded, 1 when any failed')
  .argument('<file>', 'the CSV file (columns: Email, Name, Role, and as needed Company, Password, EnvironmentUuid, EnvironmentName, Bot)')
  .option('--dry-run', 'check every row, create nobody')
  .addOption(new Option('--language <code>', 'the welcome e-mails\' language').choices(['en', 'es', 'ja', 'pt']))
  .option('--errors-out <file>', 'write the failed rows (the file\'s columns plus Error) as CSV')
  .addOption(jsonOption())
  .action((file: string, flags: ConnectionFlags & { dryRun?: boolean; language?: string; errorsOut?: string; json?: boolean }) =>
    run(() => importUsers(connect(flags), { file, dryRun: flags.dryRun ?? false, language: flags.language, errorsOut: flags.errorsOut, json: flags.json ?? false })),
  );

const events = program.command('events').description("The organization's change events");
apiCommand(events, 'tail', 'Print change events as they happen (Ctrl-C to stop)')
  .option('--types <type...>', 'only these types (user.created, com.agentplatform.agent.*)', collect)
  .option('--since <time>', 'start with the events since this time, not from now')
  .addOption(jsonOption())
  .action((flags: ConnectionFlags & { types?: string[]; since?: string; json?: boolean }) => run(() => tail(connect(flags), { ...flags, json: flags.json ?? false })));

apiCommand(events, 'listen', 'Forward change events to a local address as signed Standard Webhooks deliveries (Ctrl-C to stop)')
  .requiredOption('--forward-to <url>', 'where to POST each event, e.g. http://localhost:4242/webhooks')
  .option('--types <type...>', 'only these types', collect)
  .option('--reset', 'start from now instead of where the last run stopped')
  .addOption(jsonOption())
  .action((flags: ConnectionFlags & { forwardTo: string; types?: string[]; reset?: boolean; json?: boolean }) =>
    run(() => listen(connect(flags), { forwardTo: flags.forwardTo, types: flags.types, reset: flags.reset ?? false, json: flags.json ?? false })),
  );

apiCommand(program, 'api', 'Make any authenticated call and print the answer')
  .argument('<method>', 'GET, POST, PUT, PATCH or DELETE')
  .argument('<path>', "the path, e.g. /user-management/org/{org}/users ({org}: the organization), or an address of the API itself (no other host: it would get your token)")
  .option('-d, --data <json>', 'the JSON body, or @FILE to send a file (@- for stdin)')
  .option('-H, --header <header>', 'an extra header, "Name: value" (repeatable)', collect)
  .addHelpText('after', '\nExamples:\n  apctl api GET "/user-management/org/{org}/users?linesPerPage=5"\n  apctl api POST /user-management/org/{org}/configurations --data \'{"key":"theme","value":"dark"}\'')
  .action((method: string, path: string, flags: ConnectionFlags & { data?: string; header?: string[] }) => run(() => apiCall(connect(flags), method, path, flags)));

async function main(): Promise<number> {
  try {
    await program.parseAsync(process.argv);
    return await outcome;
  } catch (error) {
    if (error instanceof CommanderError) return error.exitCode === 0 ? EXIT.ok : EXIT.failed;
    if (error instanceof Exit) return error.code;
    process.stderr.write(`apctl: ${describe(error)}\n`);
    return EXIT.failed;
  }
}

process.exitCode = await main();
